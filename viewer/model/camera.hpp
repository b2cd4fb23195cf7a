// Where the canvas looks: the world point at the viewport's centre and the zoom (screen pixels
// per world point). Pure arithmetic; the view model owns one per open plan.
#pragma once

#include "viewer/model/geometry.hpp"

namespace kbp::viewer {

struct Camera {
    double cx = 0, cy = 0;  // world point at the viewport's centre
    double zoom = 1;        // pixels per world point

    static constexpr double max_zoom = 4.0;

    Vec2 to_screen(double x, double y, const Box& viewport) const {
        return {static_cast<float>((x - cx) * zoom + (viewport.x0 + viewport.x1) / 2.0),
                static_cast<float>((y - cy) * zoom + (viewport.y0 + viewport.y1) / 2.0)};
    }
    Vec2 to_world(Vec2 p, const Box& viewport) const {
        return {static_cast<float>((p.x - (viewport.x0 + viewport.x1) / 2.0) / zoom + cx),
                static_cast<float>((p.y - (viewport.y0 + viewport.y1) / 2.0) / zoom + cy)};
    }
    Box to_screen(const Box& b, const Box& viewport) const {
        Vec2 a = to_screen(b.x0, b.y0, viewport), z = to_screen(b.x1, b.y1, viewport);
        return {a.x, a.y, z.x, z.y};
    }
    Box visible_world(const Box& viewport) const {
        Vec2 a = to_world({viewport.x0, viewport.y0}, viewport), z = to_world({viewport.x1, viewport.y1}, viewport);
        return {a.x, a.y, z.x, z.y};
    }
    // Shows all of `world` with `margin` pixels around it.
    void fit(const Box& world, const Box& viewport, float margin = 24);
    // Zooms by `factor` keeping the world point under `screen` where it is.
    void zoom_at(Vec2 screen, double factor, const Box& viewport, double min_zoom);
    void pan(float dx, float dy) {
        cx -= dx / zoom;
        cy -= dy / zoom;
    }
};

}  // namespace kbp::viewer
