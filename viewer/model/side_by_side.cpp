// ViewModel, side by side: the two plans of a diff drawn at once, a in the left pane and b in the
// right. One plan is still the shown one (the inspector, find and the selection are its); the
// other pane follows it: same pan and zoom steps, same folded layers, and the selected op marked
// and centred there too when it has an op of that id. Comparing two arms is mostly looking at the
// same place of both, which switching with 'd' made a matter of memory.
#include <filesystem>

#include "viewer/model/view_model.hpp"

namespace kbp::viewer {
namespace {

constexpr float divider_width = 6;
constexpr Rgba divider_fill = rgba(214, 214, 222);
constexpr Rgba caption_fill = rgba(255, 255, 255, 230);
constexpr Rgba caption_ink = rgba(70, 70, 80);
constexpr Rgba shown_caption_ink = rgba(25, 90, 170);

}  // namespace

void ViewModel::set_side_by_side(bool on) {
    side_by_side_ = on;
    if (!side_by_side()) return;
    // Both panes start on the whole plan, with the shown side's folds.
    sides_[0].auto_fit = sides_[1].auto_fit = true;
    mirror_folds(shown_);
}

Box ViewModel::pane(int side) const {
    if (!side_by_side()) return viewport_;
    const float middle = (viewport_.x0 + viewport_.x1) / 2;
    return side == 0 ? Box{viewport_.x0, viewport_.y0, middle - divider_width / 2, viewport_.y1}
                     : Box{middle + divider_width / 2, viewport_.y0, viewport_.x1, viewport_.y1};
}

int ViewModel::side_at(Vec2 screen) const {
    if (!side_by_side()) return shown_;
    return screen.x < (viewport_.x0 + viewport_.x1) / 2 ? 0 : 1;
}

void ViewModel::focus_pane_at(Vec2 screen) {
    if (side_by_side()) show_side(side_at(screen));
}

FrameStats ViewModel::frame_side_by_side(DrawList& out) {
    FrameStats shown_stats;
    for (int side = 0; side < 2; ++side) {
        Side& s = sides_[side];
        if (!s.scene) continue;
        const Box p = pane(side);
        reflow_if_resized(side);
        if (s.auto_fit) fit_with_headers(s, p);
        out.clip(p);
        FrameStats stats = build_frame(context(side, p), out);
        if (side == shown_) shown_stats = stats;
        // Which plan the pane holds; the shown one's caption in the selection's blue.
        std::string caption = std::string(side == 0 ? "a: " : "b: ") + std::filesystem::path(s.doc->path()).filename().string();
        const float height = metrics_.line_height * 13 + 6;
        const float width = metrics_.width(caption, 13) + 12;
        out.fill_rect({p.x0 + 6, p.y0 + 6, p.x0 + 6 + width, p.y0 + 6 + height}, caption_fill, 3);
        out.text({p.x0 + 12, p.y0 + 9}, 13, side == shown_ ? shown_caption_ink : caption_ink, caption);
    }
    out.clip(viewport_);
    const float middle = (viewport_.x0 + viewport_.x1) / 2;
    out.fill_rect({middle - divider_width / 2, viewport_.y0, middle + divider_width / 2, viewport_.y1}, divider_fill);
    return shown_stats;
}

void ViewModel::mirror_folds(int from) {
    if (!side_by_side()) return;
    const Side& a = sides_[from];
    Side& b = sides_[1 - from];
    // Layers are matched by index: the same model's arms (or recipes) share their layers.
    std::vector<char> expanded(b.expanded.size(), 0);
    for (std::size_t i = 0; i < a.expanded.size(); ++i) {
        const auto& layer = a.doc->instances()[i].layer;
        if (!a.expanded[i] || !layer) continue;
        if (auto j = b.doc->instance_of_layer(*layer); j >= 0) expanded[static_cast<std::size_t>(j)] = 1;
    }
    if (expanded == b.expanded) return;
    b.expanded = std::move(expanded);
    rebuild_scene(1 - from);
}

void ViewModel::centre_other_on_selection() {
    if (selection_.kind != SelectionKind::node) return;
    const Side& s = shown();
    Side& other = sides_[1 - shown_];
    if (!other.scene) return;
    auto node = other.doc->find_node(s.doc->plan().nodes[static_cast<std::size_t>(selection_.index)].id);
    if (node < 0) return;
    Place p = other.scene->place_of_node(static_cast<std::size_t>(node));
    if (p.row < 0) return;
    const Box box = other.scene->node_box(p);
    other.auto_fit = false;
    other.camera.cx = (box.x0 + box.x1) / 2;
    other.camera.cy = (box.y0 + box.y1) / 2;
    other.camera.zoom = s.camera.zoom;
}

}  // namespace kbp::viewer
