// What a frame draws, as plain primitives in screen pixels: the view model fills it, the window
// hands each primitive to Dear ImGui's draw list, tests count and inspect it without a window.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "viewer/model/geometry.hpp"

namespace kbp::viewer {

// clip: what follows is drawn inside `box` only (the window clips to it; two panes side by side
// each keep to their own).
enum class PrimKind : std::uint8_t { fill_rect, rect, line, polyline, fill_poly, text, clip };

struct Prim {
    PrimKind kind = PrimKind::fill_rect;
    Rgba color = 0;
    float size = 1;      // line thickness, or text size in pixels
    float rounding = 0;  // rectangles
    Box box;             // rectangles; line: (x0, y0) -> (x1, y1); text: position (x0, y0)
    std::uint32_t first = 0, count = 0;  // polyline / fill_poly points, or text bytes
    bool closed = false;                 // polyline
};

class DrawList {
public:
    void clear();
    void fill_rect(const Box& b, Rgba color, float rounding = 0);
    void rect(const Box& b, Rgba color, float thickness, float rounding = 0);
    void line(Vec2 a, Vec2 b, Rgba color, float thickness);
    void polyline(const Vec2* points, std::size_t count, Rgba color, float thickness, bool closed = false);
    void fill_poly(const Vec2* points, std::size_t count, Rgba color);  // convex
    void text(Vec2 at, float size, Rgba color, std::string_view text);
    void clip(const Box& b);

    const std::vector<Prim>& prims() const { return prims_; }
    const Vec2* points(const Prim& p) const { return points_.data() + p.first; }
    std::string_view text_of(const Prim& p) const { return std::string_view(chars_).substr(p.first, p.count); }
    std::size_t count(PrimKind kind) const;
    // The vertices Dear ImGui 1.86 makes of these primitives with anti-aliasing on (lines of
    // whole-pixel thickness from its texture, four per visible glyph): a close estimate of what
    // a frame submits, for tests that run without a window.
    std::size_t estimated_vertices() const;

private:
    std::vector<Prim> prims_;
    std::vector<Vec2> points_;
    std::string chars_;
};

}  // namespace kbp::viewer
