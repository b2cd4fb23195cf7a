#include "viewer/model/camera.hpp"

#include <algorithm>

namespace kbp::viewer {

void Camera::fit(const Box& world, const Box& viewport, float margin) {
    double w = std::max(1.0f, world.width()), h = std::max(1.0f, world.height());
    double vw = std::max(1.0f, viewport.width() - 2 * margin), vh = std::max(1.0f, viewport.height() - 2 * margin);
    zoom = std::min({vw / w, vh / h, max_zoom});
    cx = (world.x0 + world.x1) / 2.0;
    cy = (world.y0 + world.y1) / 2.0;
}

void Camera::zoom_at(Vec2 screen, double factor, const Box& viewport, double min_zoom) {
    Vec2 before = to_world(screen, viewport);
    zoom = std::clamp(zoom * factor, min_zoom, max_zoom);
    Vec2 after = to_world(screen, viewport);
    cx += before.x - after.x;
    cy += before.y - after.y;
}

}  // namespace kbp::viewer
