// ViewModel::state_json: what the viewer shows, as JSON, for tests and `kbp-view --dump-state`
// (the window's screenshot shows the same; this says it in words).
#include <nlohmann/json.hpp>

#include "viewer/model/view_model.hpp"

namespace kbp::viewer {

std::string ViewModel::state_json(const FrameStats& last) const {
    using J = nlohmann::ordered_json;
    J o = J::object();
    J files = J::array();
    for (int side = 0; side < 2; ++side)
        if (const auto* d = sides_[side].doc.get())
            files.push_back({{"side", side == 0 ? "a" : "b"},
                             {"path", d->path()},
                             {"arm", std::string(d->plan().arm.mode.name())},
                             {"rows", d->plan().arm.rows},
                             {"nodes", d->plan().nodes.size()},
                             {"units", d->units().size()},
                             {"lists_read", d->lists_read()}});
    o["files"] = std::move(files);
    o["shown"] = shown_ == 0 ? "a" : "b";
    o["side_by_side"] = side_by_side();
    J errors = J::array();
    for (const auto& e : errors_) errors.push_back({{"message", e.failure.message}, {"problems", e.failure.problems}});
    o["errors"] = std::move(errors);
    o["color"] = std::string(color_mode_name(color_));
    J legend = J::array();
    for (const auto& l : this->legend()) legend.push_back({{"key", l.key}, {"color", hex_of(l.fill)}, {"ops", l.ops}});
    o["legend"] = std::move(legend);
    const Side& s = shown();
    if (s.scene) {
        std::size_t folded = 0;
        for (const auto& r : s.scene->rows()) folded += r.folded;
        o["rows"] = s.scene->rows().size();
        o["folded_rows"] = folded;
        bool final = true;
        for (const auto& u : s.units) final = final && u.final;
        o["layouts_final"] = final;
    }
    o["camera"] = {{"zoom", s.camera.zoom}, {"cx", s.camera.cx}, {"cy", s.camera.cy}};
    static const char* kinds[] = {"none", "node", "edge", "group"};
    o["selection"] = {{"kind", kinds[static_cast<int>(selection_.kind)]}, {"index", selection_.index}};
    o["inspector"] = inspector_text(inspector_);
    o["why"] = why_text();
    o["find"] = {{"query", find_request_.query}, {"results", find_result_.nodes.size()}, {"error", find_result_.error}};
    if (diff_) {
        auto n = diff::count(diff_->nodes), g = diff::count(diff_->groups), e = diff::count(diff_->edges);
        o["diff"] = {{"nodes", {{"added", n.added}, {"removed", n.removed}, {"changed", n.changed}}},
                     {"groups", {{"added", g.added}, {"removed", g.removed}, {"changed", g.changed}}},
                     {"edges", {{"added", e.added}, {"removed", e.removed}, {"changed", e.changed}}}};
    }
    static const char* details[] = {"strips", "blobs", "boxes", "labels"};
    o["frame"] = {{"detail", details[static_cast<int>(last.detail)]}, {"rows", last.rows},     {"nodes", last.nodes},
                  {"edges", last.edges},                              {"labels", last.labels}, {"blobs", last.blobs},
                  {"bands", last.bands},                              {"connectors", last.connectors}};
    return o.dump(2) + "\n";
}

}  // namespace kbp::viewer
