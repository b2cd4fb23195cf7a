#include "schema/message_text.hpp"

#include <algorithm>
#include <cstdio>

namespace kbp {
namespace {

// The length of the UTF-8 sequence at the start of `s`, or 0 when it is not valid UTF-8
// (overlong forms, surrogates and code points past U+10FFFF included).
std::size_t utf8_length(std::string_view s) {
    auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    unsigned char c = byte(0);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || n > s.size()) return 0;
    char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
    for (std::size_t i = 1; i < n; ++i) {
        if ((byte(i) & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (byte(i) & 0x3f);
    }
    static constexpr char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < smallest[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
}

// "52,428,800".
std::string grouped(std::size_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

// Appends `piece` (no quote marks in it) with its control characters and stray bytes escaped.
void append_escaped(std::string& out, std::string_view piece) {
    char buf[16];
    while (!piece.empty()) {
        std::size_t n = utf8_length(piece);
        auto c = static_cast<unsigned char>(piece[0]);
        if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7f))) {
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
            n = 1;
        } else if (n == 2 && c == 0xc2 && static_cast<unsigned char>(piece[1]) < 0xa0) {
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(piece[1]));  // a C1 control
            out += buf;
        } else {
            out.append(piece.substr(0, n));
        }
        piece.remove_prefix(n);
    }
}

// Where a stretch cut to `keep` bytes ends without splitting a UTF-8 sequence.
std::size_t cut_point(std::string_view s, std::size_t keep) {
    while (keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xc0) == 0x80) --keep;
    return keep;
}

}  // namespace

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(std::min(text.size(), 4 * max_shown_value_bytes));
    while (!text.empty()) {
        std::size_t quote = text.find_first_of("'\"");
        std::string_view stretch = text.substr(0, quote);
        if (stretch.size() > max_shown_value_bytes) {
            append_escaped(out, stretch.substr(0, cut_point(stretch, max_shown_value_bytes / 2)));
            out += "…(" + grouped(stretch.size()) + " bytes)";
        } else {
            append_escaped(out, stretch);
        }
        if (quote == std::string_view::npos) break;
        out += text[quote];
        text.remove_prefix(quote + 1);
    }
    return out;
}

}  // namespace kbp
