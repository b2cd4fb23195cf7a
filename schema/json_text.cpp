#include "schema/json_text.hpp"

#include <charconv>
#include <nlohmann/json.hpp>

namespace kbp::schema {

namespace {

// The bytes a JSON string must escape: '"', '\\' and the control bytes below 0x20.
constexpr bool needs_escape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

template <class Int> void append_integer(std::string& out, Int i) {
    char buffer[24];
    auto end = std::to_chars(buffer, buffer + sizeof buffer, i).ptr;
    out.append(buffer, end);
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    std::size_t run = 0;  // start of the bytes not yet copied
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (!needs_escape(c)) continue;
        out.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default: {
                static constexpr char hex[] = "0123456789abcdef";
                const char escaped[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                out.append(escaped, sizeof escaped);
            }
        }
    }
    out.append(s.data() + run, s.size() - run);
    out += '"';
}

JsonText::JsonText(bool pretty, std::size_t capacity) : pretty_(pretty) { out_.reserve(capacity); }

void JsonText::newline_indent(std::size_t depth) {
    out_ += '\n';
    out_.append(2 * depth, ' ');
}

void JsonText::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (has_items_.empty()) return;  // the document's root
    if (has_items_.back()) out_ += ',';
    has_items_.back() = true;
    if (pretty_) newline_indent(has_items_.size());
}

void JsonText::key(std::string_view name) {
    if (has_items_.back()) out_ += ',';
    has_items_.back() = true;
    if (pretty_) newline_indent(has_items_.size());
    append_json_string(out_, name);
    out_ += pretty_ ? ": " : ":";
    after_key_ = true;
}

void JsonText::open(char bracket) {
    before_value();
    out_ += bracket;
    has_items_.push_back(false);
}

void JsonText::close(char bracket) {
    bool had_items = has_items_.back();
    has_items_.pop_back();
    if (had_items && pretty_) newline_indent(has_items_.size());
    out_ += bracket;
}

void JsonText::begin_object() { open('{'); }
void JsonText::end_object() { close('}'); }
void JsonText::begin_array() { open('['); }
void JsonText::end_array() { close(']'); }

void JsonText::string(std::string_view s) {
    before_value();
    append_json_string(out_, s);
}

void JsonText::integer(std::int64_t i) {
    before_value();
    append_integer(out_, i);
}

void JsonText::unsigned_integer(std::uint64_t u) {
    before_value();
    append_integer(out_, u);
}

// Doubles are rare in a blueprint (open members only): nlohmann formats them, so the digits are
// exactly the ones kbp has always written (Grisu2 with its own exponent and ".0" rules).
void JsonText::number(double d) {
    before_value();
    out_ += nlohmann::json(d).dump();
}

void JsonText::boolean(bool b) {
    before_value();
    out_ += b ? "true" : "false";
}

void JsonText::null() {
    before_value();
    out_ += "null";
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
