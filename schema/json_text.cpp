#include "schema/json_text.hpp"

#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>

namespace kbp::schema {

namespace {

// The bytes a JSON string must escape: '"', '\\' and the control bytes below 0x20.
constexpr bool needs_escape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

// Whether any of the 8 bytes in `word` needs escaping (bit tricks from "Bit Twiddling Hacks":
// a byte below n, a byte equal to c), so a name is checked 8 bytes at a time.
constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
constexpr std::uint64_t has_zero_byte(std::uint64_t x) { return (x - ones) & ~x & highs; }
constexpr bool word_needs_escape(std::uint64_t x) {
    const std::uint64_t below_space = (x - ones * 0x20) & ~x & highs;
    return (below_space | has_zero_byte(x ^ (ones * '"')) | has_zero_byte(x ^ (ones * '\\'))) != 0;
}

bool any_needs_escape(std::string_view s) {
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t word;
        std::memcpy(&word, s.data() + i, 8);
        if (word_needs_escape(word)) return true;
    }
    for (; i < s.size(); ++i)
        if (needs_escape(static_cast<unsigned char>(s[i]))) return true;
    return false;
}

// s with nlohmann's escapes, written at `out` (room for 6 bytes a byte); returns the end.
char* write_escaped(char* out, std::string_view s) {
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        if (!needs_escape(c)) {
            *out++ = ch;
            continue;
        }
        *out++ = '\\';
        switch (c) {
            case '"': *out++ = '"'; break;
            case '\\': *out++ = '\\'; break;
            case '\b': *out++ = 'b'; break;
            case '\f': *out++ = 'f'; break;
            case '\n': *out++ = 'n'; break;
            case '\r': *out++ = 'r'; break;
            case '\t': *out++ = 't'; break;
            default: {
                static constexpr char hex[] = "0123456789abcdef";
                const char escaped[] = {'u', '0', '0', hex[c >> 4], hex[c & 15]};
                std::memcpy(out, escaped, sizeof escaped);
                out += sizeof escaped;
            }
        }
    }
    return out;
}

}  // namespace

JsonText::JsonText(bool pretty, std::size_t capacity) : pretty_(pretty) {
    out_.resize(capacity);
    has_items_.reserve(32);
}

void JsonText::grow(std::size_t n) { out_.resize(std::max(used_ + n, 2 * out_.size() + 256)); }

std::string JsonText::take() {
    out_.resize(used_);
    used_ = 0;
    return std::move(out_);
}

void JsonText::put(std::string_view bytes) {
    if (bytes.empty()) return;
    std::memcpy(room(bytes.size()), bytes.data(), bytes.size());
    used_ += bytes.size();
}

void JsonText::raw(std::string_view bytes) { put(bytes); }

void JsonText::quoted(std::string_view s) {
    if (!any_needs_escape(s)) {
        char* p = room(s.size() + 2);
        *p++ = '"';
        if (!s.empty()) std::memcpy(p, s.data(), s.size());
        p[s.size()] = '"';
        used_ += s.size() + 2;
        return;
    }
    char* start = room(6 * s.size() + 2);
    char* p = start;
    *p++ = '"';
    p = write_escaped(p, s);
    *p++ = '"';
    used_ += static_cast<std::size_t>(p - start);
}

void JsonText::newline_indent(std::size_t depth) {
    char* p = room(1 + 2 * depth);
    *p = '\n';
    std::memset(p + 1, ' ', 2 * depth);
    used_ += 1 + 2 * depth;
}

void JsonText::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (has_items_.empty()) return;  // the document's root
    if (has_items_.back()) put(',');
    has_items_.back() = true;
    if (pretty_) newline_indent(has_items_.size());
}

void JsonText::key(std::string_view name) {
    if (has_items_.back()) put(',');
    has_items_.back() = true;
    if (pretty_) newline_indent(has_items_.size());
    quoted(name);
    if (pretty_) put(std::string_view(": "));
    else put(':');
    after_key_ = true;
}

void JsonText::open(char bracket) {
    before_value();
    put(bracket);
    has_items_.push_back(false);
}

void JsonText::close(char bracket) {
    bool had_items = has_items_.back();
    has_items_.pop_back();
    if (had_items && pretty_) newline_indent(has_items_.size());
    put(bracket);
}

void JsonText::begin_object() { open('{'); }
void JsonText::end_object() { close('}'); }
void JsonText::begin_array() { open('['); }
void JsonText::end_array() { close(']'); }

void JsonText::string(std::string_view s) {
    before_value();
    quoted(s);
}

void JsonText::integer(std::int64_t i) {
    before_value();
    char* p = room(24);
    used_ += static_cast<std::size_t>(std::to_chars(p, p + 24, i).ptr - p);
}

void JsonText::unsigned_integer(std::uint64_t u) {
    before_value();
    char* p = room(24);
    used_ += static_cast<std::size_t>(std::to_chars(p, p + 24, u).ptr - p);
}

// Doubles are rare in a blueprint (open members only): nlohmann formats them, so the digits are
// exactly the ones kbp has always written (Grisu2 with its own exponent and ".0" rules).
void JsonText::number(double d) {
    before_value();
    put(std::string_view(nlohmann::json(d).dump()));
}

void JsonText::boolean(bool b) {
    before_value();
    put(std::string_view(b ? "true" : "false"));
}

void JsonText::null() {
    before_value();
    put(std::string_view("null"));
}

void JsonText::value(const JsonValue& v) {
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::nullptr_t>) {
                null();
            } else if constexpr (std::is_same_v<T, bool>) {
                boolean(x);
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
                integer(x);
            } else if constexpr (std::is_same_v<T, std::uint64_t>) {
                unsigned_integer(x);
            } else if constexpr (std::is_same_v<T, double>) {
                number(x);
            } else if constexpr (std::is_same_v<T, std::string>) {
                string(x);
            } else if constexpr (std::is_same_v<T, JsonArray>) {
                begin_array();
                for (const auto& item : x) value(item);
                end_array();
            } else {
                begin_object();
                for (const auto& [name, item] : x) {
                    key(name);
                    value(item);
                }
                end_object();
            }
        },
        v.storage());
}

}  // namespace kbp::schema
