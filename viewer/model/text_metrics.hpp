// How wide text is, without a font library: per-character advances at a reference size, filled
// from the window's font by the drawing layer (or approximated for tests and for work done
// before a window exists). Layout sizes nodes with it, so it must be a plain value that any
// thread can read.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace kbp::viewer {

struct TextMetrics {
    float reference_size = 13;               // the size the advances are for
    std::array<float, 95> advance{};         // printable ASCII ' '..'~'
    float other_advance = 7;                 // any other code point
    float line_height = 1.25f;               // in units of the size

    // An approximation of a sans-serif font (DejaVu Sans), for use without a window.
    static TextMetrics approximate();

    float width(std::string_view text, float size) const;
    // `text` cut to fit `max_width` at `size`, ending in "…" when cut.
    std::string fit(std::string_view text, float size, float max_width) const;
};

// World sizes of the canvas's text and boxes (Graphviz points).
namespace world {
inline constexpr float node_font = 12;
inline constexpr float node_pad_x = 7, node_pad_y = 5;
inline constexpr float glyph_cell = 7, glyph_gap = 6;  // the precision glyph: three cells W A O
inline constexpr float block_title = 13;
inline constexpr float group_title = 11;
inline constexpr float row_title = 17;
inline constexpr float row_header = 30;
inline constexpr float row_pad = 14;
inline constexpr float row_gap = 56;
}  // namespace world

}  // namespace kbp::viewer
