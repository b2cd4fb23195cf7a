#include "viewer/model/draw_list.hpp"

#include <algorithm>
#include <cmath>

namespace kbp::viewer {

void DrawList::clear() {
    prims_.clear();
    points_.clear();
    chars_.clear();
}

void DrawList::fill_rect(const Box& b, Rgba color, float rounding) {
    prims_.push_back({PrimKind::fill_rect, color, 1, rounding, b, 0, 0, false});
}

void DrawList::rect(const Box& b, Rgba color, float thickness, float rounding) {
    prims_.push_back({PrimKind::rect, color, thickness, rounding, b, 0, 0, false});
}

void DrawList::line(Vec2 a, Vec2 b, Rgba color, float thickness) {
    prims_.push_back({PrimKind::line, color, thickness, 0, {a.x, a.y, b.x, b.y}, 0, 0, false});
}

void DrawList::polyline(const Vec2* points, std::size_t count, Rgba color, float thickness, bool closed) {
    if (count < 2) return;
    prims_.push_back({PrimKind::polyline, color, thickness, 0, {}, static_cast<std::uint32_t>(points_.size()),
                      static_cast<std::uint32_t>(count), closed});
    points_.insert(points_.end(), points, points + count);
}

void DrawList::fill_poly(const Vec2* points, std::size_t count, Rgba color) {
    if (count < 3) return;
    prims_.push_back({PrimKind::fill_poly, color, 1, 0, {}, static_cast<std::uint32_t>(points_.size()), static_cast<std::uint32_t>(count), false});
    points_.insert(points_.end(), points, points + count);
}

void DrawList::text(Vec2 at, float size, Rgba color, std::string_view text) {
    if (text.empty()) return;
    prims_.push_back({PrimKind::text, color, size, 0, {at.x, at.y, at.x, at.y}, static_cast<std::uint32_t>(chars_.size()),
                      static_cast<std::uint32_t>(text.size()), false});
    chars_.append(text);
}

void DrawList::clip(const Box& b) { prims_.push_back({PrimKind::clip, 0, 0, 0, b, 0, 0, false}); }

std::size_t DrawList::count(PrimKind kind) const {
    return static_cast<std::size_t>(std::count_if(prims_.begin(), prims_.end(), [&](const Prim& p) { return p.kind == kind; }));
}

std::size_t DrawList::estimated_vertices() const {
    auto line_vertices = [](std::size_t points, float thickness) -> std::size_t {
        bool textured = thickness == std::floor(thickness) && thickness < 63;
        if (textured) return points * 2;
        return points * (thickness > 1 ? 4 : 3);
    };
    auto corner_points = [](float rounding) -> std::size_t { return rounding > 0 ? 4 * 4 : 4; };
    std::size_t n = 0;
    for (const auto& p : prims_) {
        switch (p.kind) {
            case PrimKind::fill_rect: n += p.rounding > 0 ? 2 * corner_points(p.rounding) : 4; break;
            case PrimKind::rect: n += line_vertices(corner_points(p.rounding), p.size); break;
            case PrimKind::line: n += line_vertices(2, p.size); break;
            case PrimKind::polyline: n += line_vertices(p.count, p.size); break;
            case PrimKind::fill_poly: n += 2 * p.count; break;
            case PrimKind::text:
                for (char c : text_of(p)) n += c != ' ' && (static_cast<unsigned char>(c) & 0xc0) != 0x80 ? 4 : 0;
                break;
            case PrimKind::clip: break;
        }
    }
    return n;
}

}  // namespace kbp::viewer
