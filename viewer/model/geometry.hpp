// Plain geometry and colour for the view model: world coordinates are Graphviz points (y down),
// screen coordinates are pixels; colours are packed RGBA in the byte order Dear ImGui's IM_COL32
// uses (R in the low byte), so the drawing layer passes them through unchanged.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace kbp::viewer {

struct Vec2 {
    float x = 0, y = 0;
};

struct Box {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    float width() const { return x1 - x0; }
    float height() const { return y1 - y0; }
    bool contains(Vec2 p) const { return p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1; }
    bool overlaps(const Box& o) const { return x0 <= o.x1 && o.x0 <= x1 && y0 <= o.y1 && o.y0 <= y1; }
    Box moved(float dx, float dy) const { return {x0 + dx, y0 + dy, x1 + dx, y1 + dy}; }
    Box grown(float d) const { return {x0 - d, y0 - d, x1 + d, y1 + d}; }
    void include(const Box& o) {
        x0 = std::min(x0, o.x0), y0 = std::min(y0, o.y0), x1 = std::max(x1, o.x1), y1 = std::max(y1, o.y1);
    }
};

using Rgba = std::uint32_t;

constexpr Rgba rgba(std::uint8_t r, std::uint8_t g, std::uint8_t b, std::uint8_t a = 255) {
    return static_cast<Rgba>(r) | static_cast<Rgba>(g) << 8 | static_cast<Rgba>(b) << 16 | static_cast<Rgba>(a) << 24;
}

// "#rrggbb" (the palette's spelling) to a colour; grey for anything else.
Rgba parse_hex(std::string_view hex, std::uint8_t alpha = 255);
// A colour as "#rrggbb".
std::string hex_of(Rgba c);
Rgba with_alpha(Rgba c, std::uint8_t alpha);

}  // namespace kbp::viewer
