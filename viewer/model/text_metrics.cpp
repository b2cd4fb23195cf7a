#include "viewer/model/text_metrics.hpp"

namespace kbp::viewer {
namespace {

// Code points of a UTF-8 string, counting a malformed byte as one.
template <class F> void each_code_point(std::string_view s, F&& f) {
    for (std::size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        f(c < 0x80 ? static_cast<char32_t>(c) : static_cast<char32_t>(0x100), i, n);
        i += n;
    }
}

}  // namespace

TextMetrics TextMetrics::approximate() {
    // DejaVu Sans advances at 13 px, measured once; close enough to size boxes before a window exists.
    static constexpr const char* narrow = " !'(),-./:;I[\\]`fijlrt|";
    static constexpr const char* wide = "MWmw@%";
    TextMetrics m;
    for (int c = 32; c < 127; ++c) {
        float a = 7.8f;
        for (const char* p = narrow; *p; ++p)
            if (*p == c) a = 4.4f;
        for (const char* p = wide; *p; ++p)
            if (*p == c) a = 11.2f;
        if (c >= 'A' && c <= 'Z' && a == 7.8f) a = 8.8f;
        if (c >= '0' && c <= '9') a = 8.3f;
        m.advance[static_cast<std::size_t>(c - 32)] = a;
    }
    m.other_advance = 9.5f;
    return m;
}

float TextMetrics::width(std::string_view text, float size) const {
    float w = 0;
    each_code_point(text, [&](char32_t c, std::size_t, std::size_t) {
        w += c >= 32 && c < 127 ? advance[static_cast<std::size_t>(c - 32)] : other_advance;
    });
    return w * size / reference_size;
}

std::string TextMetrics::fit(std::string_view text, float size, float max_width) const {
    if (width(text, size) <= max_width) return std::string(text);
    const float ellipsis = width("…", size);
    float w = 0;
    std::size_t keep = 0;
    each_code_point(text, [&](char32_t c, std::size_t at, std::size_t n) {
        if (keep != at) return;  // already cut
        float a = (c >= 32 && c < 127 ? advance[static_cast<std::size_t>(c - 32)] : other_advance) * size / reference_size;
        if (w + a + ellipsis > max_width) return;
        w += a;
        keep = at + n;
    });
    return keep == 0 ? std::string() : std::string(text.substr(0, keep)) + "…";
}

}  // namespace kbp::viewer
