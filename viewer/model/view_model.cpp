#include "viewer/model/view_model.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "exporters/text.hpp"
#include "exporters/view.hpp"
#include "viewer/model/math_text.hpp"
#include "viewer/model/why.hpp"

namespace kbp::viewer {
namespace {

bool ready(const std::future<Loaded>& f) {
    return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

}  // namespace

ViewModel::ViewModel(LayoutEngine engine, TextMetrics metrics) : layouts_(std::move(engine)), metrics_(metrics) {}

ViewModel::~ViewModel() {
    for (auto& s : sides_)
        if (s.pending.valid()) s.pending.wait();
    if (why_pending_.valid()) why_pending_.wait();
}

// ---- files -------------------------------------------------------------------------------------

PendingLoad start_loading(const std::string& path, std::function<void()> wake, LoadOptions options) {
    PendingLoad load{path, std::chrono::steady_clock::now(), {}, {}};
    // The result is handed over before the window is woken, so that the woken frame finds it.
    auto done = std::make_shared<std::promise<Loaded>>();
    load.result = done->get_future();
    load.thread = std::async(std::launch::async, [path, done, wake = std::move(wake), options] {
        done->set_value(load_document(path, options));
        if (wake) wake();
    });
    return load;
}

void ViewModel::open(const std::string& path, int side) { open(start_loading(path, wake_), side); }

void ViewModel::open(PendingLoad load, int side) {
    if (side == 1 && !sides_[0].doc && !sides_[0].pending.valid()) side = 0;
    Side& s = sides_[side];
    if (s.pending.valid()) s.pending.wait();
    s.pending_path = std::move(load.path);
    s.load_started = load.started;
    s.pending = std::move(load.result);
    s.loader = std::move(load.thread);
}

void ViewModel::open_plan(schema::Blueprint plan, const std::string& name, int side) {
    auto t0 = std::chrono::steady_clock::now();
    auto doc = std::make_shared<Document>(std::move(plan), name);

    sides_[side].load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    adopt(side, std::move(doc));
}

void ViewModel::close_second() {
    Side& s = sides_[1];
    if (s.pending.valid()) s.pending.wait();
    if (s.doc) layouts_.cancel(s.generation);
    retire(std::move(s.doc));
    s = Side{};
    if (shown_ == 1) shown_ = 0;
    diff_.reset();
    sides_[0].marks.clear();
    if (color_ == ColorMode::diff && !color_chosen_) color_ = ColorMode::precision;
    recolour(0);
    refresh_inspector();
}

void ViewModel::drop(const std::vector<std::string>& paths) {
    if (paths.empty()) return;
    open(paths[0], 0);
    if (paths.size() > 1) open(paths[1], 1);
}

void ViewModel::reload_changed() {
    for (int side = 0; side < 2; ++side) {
        Side& s = sides_[side];
        if (!s.doc || s.pending.valid() || s.doc->path().empty()) continue;
        auto now = stamp_of(s.doc->path());
        if (!now || !s.doc->stamp || *now == *s.doc->stamp) continue;
        open(s.doc->path(), side);
    }
}

bool ViewModel::loading() const { return sides_[0].pending.valid() || sides_[1].pending.valid(); }

void ViewModel::retire(std::shared_ptr<const Document> doc) {
    // A plan replaced while its thread still indexes it would block this thread until done (its
    // destructor waits): it is kept until the thread has finished, then dropped.
    if (doc && doc.use_count() == 1 && doc->indexing()) retiring_.push_back(std::move(doc));
}

bool ViewModel::arrived() const { return ready(sides_[0].pending) || ready(sides_[1].pending); }

bool ViewModel::completing() const {
    for (const auto& s : sides_)
        if (s.doc && !s.doc->complete()) return true;
    return false;
}

double ViewModel::completion(int side) const { return sides_[side].doc ? sides_[side].doc->completion() : 0.0; }

bool ViewModel::busy() const { return loading() || completing() || !layouts_.idle() || why_pending_.valid(); }

bool ViewModel::drawn() const { return !loading() && layouts_.idle() && !why_pending_.valid(); }

const Document* ViewModel::document(int side) const { return sides_[side].doc.get(); }

void ViewModel::show_side(int side) {
    if (side == shown_ || !sides_[side].doc) return;
    std::string id;
    if (selection_.kind == SelectionKind::node && shown().doc) id = shown().doc->plan().nodes[static_cast<std::size_t>(selection_.index)].id;
    shown_ = side;
    selection_ = {};
    if (!id.empty()) {
        auto n = shown().doc->find_node(id);
        if (n >= 0) selection_ = {SelectionKind::node, n};
    }
    find(find_request_);
    refresh_inspector();
}

void ViewModel::dismiss_errors() {
    for (auto& e : errors_) e.dismissed = true;
}

void ViewModel::adopt(int side, std::shared_ptr<const Document> doc) {
    Side& s = sides_[side];
    // A reload keeps the folds (by layer), the camera and the selection (by id).
    std::vector<std::int64_t> expanded_layers;
    bool reload = s.doc && s.doc->path() == doc->path();
    if (reload)
        for (std::size_t i = 0; i < s.expanded.size(); ++i)
            if (s.expanded[i] && s.doc->instances()[i].layer) expanded_layers.push_back(*s.doc->instances()[i].layer);
    std::string selected_id;
    if (reload && side == shown_ && selection_.kind == SelectionKind::node)
        selected_id = s.doc->plan().nodes[static_cast<std::size_t>(selection_.index)].id;
    if (s.doc) layouts_.cancel(s.generation);

    retire(std::move(s.doc));
    s.doc = std::move(doc);
    s.generation = next_generation_++;
    s.adopted_at_frame = frames_;
    s.lists_taken = false;
    s.heatmap.reset();
    s.budget.reset();
    s.units.clear();
    for (std::size_t u = 0; u < s.doc->units().size(); ++u) {
        UnitGeometry g;
        g.shape = unit_shape(*s.doc, u, metrics_);
        g.layout = quick_layout(g.shape.graph);
        g.final = !layouts_.enabled();
        if (layouts_.enabled()) layouts_.submit(s.generation, static_cast<std::int32_t>(u), g.shape.graph);
        s.units.push_back(std::move(g));
    }
    s.expanded.assign(s.doc->instances().size(), 0);
    for (auto l : expanded_layers)
        if (auto i = s.doc->instance_of_layer(l); i >= 0) s.expanded[static_cast<std::size_t>(i)] = 1;
    if (!reload) s.auto_fit = true;
    rebuild_scene(side);
    recompute_diff();
    if (side == shown_) {
        if (!reload) selection_ = {};
        if (!selected_id.empty()) {
            auto n = s.doc->find_node(selected_id);
            selection_ = n >= 0 ? Selection{SelectionKind::node, n} : Selection{};
        }
        find(find_request_);
        refresh_inspector();
    }
}

// ---- each frame --------------------------------------------------------------------------------

void ViewModel::update() {
    for (int side = 0; side < 2; ++side) {
        Side& s = sides_[side];
        if (!ready(s.pending)) continue;
        Loaded loaded = s.pending.get();
        s.load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s.load_started).count();
        if (loaded.failure) errors_.push_back({std::move(*loaded.failure), false});
        else adopt(side, std::move(loaded.document));
    }
    for (const auto& s : sides_)
        if (s.doc && frames_ > s.adopted_at_frame && !completion_held_) s.doc->complete_in_background();
    take_lists();
    std::erase_if(retiring_, [](const auto& d) { return !d->indexing(); });
    bool changed[2] = {false, false};
    for (auto& done : layouts_.take()) {
        for (int side = 0; side < 2; ++side) {
            Side& s = sides_[side];
            if (!s.doc || s.generation != done.owner || done.unit < 0 || static_cast<std::size_t>(done.unit) >= s.units.size()) continue;
            auto& g = s.units[static_cast<std::size_t>(done.unit)];
            if (done.layout) g.layout = std::move(*done.layout);  // else the quick layout stays
            g.final = true;
            changed[side] = true;
        }
    }
    for (int side = 0; side < 2; ++side)
        if (changed[side]) rebuild_scene(side);
    if (why_pending_.valid() && why_pending_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        why_answers_[why_pending_id_] = why_pending_.get();
        start_why();
    }
    auto now = std::chrono::steady_clock::now();
    if (now - last_reload_check_ > std::chrono::milliseconds(500)) {
        last_reload_check_ = now;
        reload_changed();
    }
}

void ViewModel::take_lists() {
    for (int side = 0; side < 2; ++side) {
        Side& s = sides_[side];
        if (!s.doc || s.lists_taken || !s.doc->lists_read()) continue;
        s.lists_taken = true;
        if (auto next = s.doc->replacement()) {
            adopt(side, next);  // as a reload: folds, camera and selection kept
        } else if (const auto& failure = s.doc->late_failure()) {
            errors_.push_back({*failure, false});
            drop_side(side);
        }
    }
}

void ViewModel::drop_side(int side) {
    Side& s = sides_[side];
    layouts_.cancel(s.generation);
    retire(std::move(s.doc));
    Side left;  // what is on its way to this side stays so
    left.pending = std::move(s.pending);
    left.loader = std::move(s.loader);
    left.pending_path = std::move(s.pending_path);
    left.load_started = s.load_started;
    s = std::move(left);
    recompute_diff();
    const int other = 1 - side;
    if (shown_ == side && sides_[other].doc) shown_ = other;
    if (color_ == ColorMode::diff && !color_chosen_) color_ = ColorMode::precision;
    recolour(other);
    selection_ = {};
    find(find_request_);
    refresh_inspector();
}

bool ViewModel::settle(double seconds) {
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
        update();
        bool why_busy = why_pending_.valid();
        for (const auto& s : sides_)
            if (s.doc && !completion_held_) s.doc->complete_in_background();
        if (!loading() && !completing() && layouts_.idle() && !why_busy) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

FrameContext ViewModel::context(int side, const Box& viewport) const {
    const Side& s = sides_[side];
    FrameContext f{*s.doc, *s.scene, *s.colours, s.camera, viewport, metrics_, {}, 14};
    if (side != shown_) {
        // The other pane marks the selected op by its id, when it has one of that id.
        if (selection_.kind == SelectionKind::node && shown().doc)
            f.highlights.node = s.doc->find_node(shown().doc->plan().nodes[static_cast<std::size_t>(selection_.index)].id);
        return f;
    }
    if (selection_.kind == SelectionKind::node) f.highlights.node = selection_.index;
    if (selection_.kind == SelectionKind::edge) f.highlights.edge = selection_.index;
    if (selection_.kind == SelectionKind::group) f.highlights.group = selection_.index;
    if (!s.found.empty()) f.highlights.found = &s.found;
    if (!s.marks.empty()) f.highlights.marks = &s.marks;
    return f;
}

FrameStats ViewModel::frame(const Box& viewport, DrawList& out) {
    out.clear();
    viewport_ = viewport;
    ++frames_;
    if (side_by_side()) return frame_side_by_side(out);
    Side& s = shown();
    if (!s.doc || !s.scene) return {};
    reflow_if_resized(shown_);
    if (s.auto_fit) fit_with_headers(s, viewport);
    return build_frame(context(shown_, viewport), out);
}

void ViewModel::fit_with_headers(Side& s, const Box& pane) const {
    // Row headers too thin for their band stand left of the cards: keep room for the widest, so
    // no card's title or badge is cut at the pane's left edge (the scene leaves the same room left
    // of each column after the first).
    const float gutter = s.scene->title_room();
    Box inner{pane.x0 + std::min(gutter, pane.width() / 3), pane.y0, pane.x1, pane.y1};
    s.camera.fit(s.scene->bounds(), inner);
    s.camera.cx -= ((inner.x0 + inner.x1) / 2 - (pane.x0 + pane.x1) / 2) / s.camera.zoom;
}

Flow ViewModel::flow_for(int side) const {
    const Box p = pane(side);
    return {p.width(), p.height(), &metrics_, 14};  // FrameContext::ui_font
}

void ViewModel::reflow_if_resized(int side) {
    Side& s = sides_[side];
    if (!s.scene || !s.auto_fit || s.flow == flow_for(side)) return;
    s.flow = flow_for(side);
    s.scene->place(s.flow);
}

Hit ViewModel::hit(Vec2 screen) const {
    const int side = side_at(screen);
    const Side& s = sides_[side];
    if (!s.doc || !s.scene) return {};
    return hit_test(context(side, pane(side)), screen);
}

std::string ViewModel::tooltip(Vec2 screen) const {
    const Side& s = sides_[side_at(screen)];
    Hit h = hit(screen);
    if (h.kind == HitKind::none) return "";
    const auto& plan = s.doc->plan();
    const auto& rows = s.scene->rows();
    if (h.kind == HitKind::badge) {
        const Row& row = rows[static_cast<std::size_t>(h.row)];
        return row.folded ? "expand the " + std::to_string(row.instances.size()) + " layers of " + row.title : "fold this layer into its template";
    }
    if (h.kind == HitKind::node) {
        const auto& n = plan.nodes[static_cast<std::size_t>(s.scene->flat_node(h.row, h.local))];
        std::string t = n.id + "\n" + n.op.name() + "  " + exporters::precision_signature(n);
        if (n.kernel) t += "\n" + *n.kernel;
        if (n.inserted) t += "\ninserted quantization point";
        if (n.state) t += "\nstate " + schema::state_roles_name(*n.state);
        const Row& row = rows[static_cast<std::size_t>(h.row)];
        if (row.folded) t += "\n(shown for layer " + std::to_string(*n.layer) + "; " + row.badge + " folded)";
        return t;
    }
    if (h.kind == HitKind::edge) {
        const Row& row = rows[static_cast<std::size_t>(h.row)];
        const auto& inst = s.doc->instances()[static_cast<std::size_t>(row.instances.front())];
        const auto& e = plan.edges[static_cast<std::size_t>(inst.edges[static_cast<std::size_t>(h.local)])];
        std::string t = e.id + "  " + std::string(e.format.name());
        if (e.bytes_per_token) t += "  " + exporters::bytes_text(*e.bytes_per_token) + " per token";
        return t + (e.fused ? "\nfused: stays inside the kernel" : "\ncrosses kernels");
    }
    if (h.kind == HitKind::group) {
        const Row& row = rows[static_cast<std::size_t>(h.row)];
        const auto& cluster = s.units[static_cast<std::size_t>(row.unit)].shape.clusters[static_cast<std::size_t>(h.local)];
        auto flat = s.scene->flat_node(h.row, cluster.first_node);
        const auto& g = plan.groups[static_cast<std::size_t>(plan.nodes[static_cast<std::size_t>(flat)].group)];
        std::string t = "group g" + std::to_string(g.id) + " " + g.rule;
        for (const auto& k : g.kernels) t += "\n" + k;
        return t;
    }
    if (h.kind == HitKind::connector) {
        const auto& c = s.scene->connectors()[static_cast<std::size_t>(h.connector)];
        const auto& e = plan.edges[static_cast<std::size_t>(c.edge)];
        return e.id + " to the next row (" + std::to_string(c.count) + (c.count == 1 ? " edge)" : " edges)");
    }
    const Row& row = rows[static_cast<std::size_t>(h.row)];
    return row.title + (row.badge.empty() ? "" : " " + row.badge) + (row.detail.empty() ? "" : "\n" + row.detail);
}

// ---- view --------------------------------------------------------------------------------------

void ViewModel::set_color_mode(ColorMode mode) {
    color_ = mode;
    color_chosen_ = true;
    recolour(0);
    recolour(1);
}

const Colouring* ViewModel::colouring() const { return shown().colours.get(); }

std::vector<LegendEntry> ViewModel::legend() const {
    const Colouring* c = colouring();
    if (!c) return {};
    std::vector<LegendEntry> out = c->legend();
    const Colouring* other = sides_[1 - shown_].colours.get();
    if (!side_by_side() || !other) return out;
    for (const auto& e : other->legend()) {
        auto same = std::find_if(out.begin(), out.end(), [&](const LegendEntry& o) { return o.key == e.key && o.fill == e.fill; });
        if (same != out.end()) continue;
        LegendEntry in_other = e;
        in_other.key += shown_ == 0 ? " (in b)" : " (in a)";
        out.push_back(std::move(in_other));
    }
    return out;
}

Camera& ViewModel::camera() { return shown().camera; }

const Scene* ViewModel::scene() const { return shown().scene.get(); }

void ViewModel::fit() {
    follow_ = false;
    for (int side = 0; side < 2; ++side)
        if (moves_with_view(side)) sides_[side].auto_fit = true;
}

void ViewModel::pan(float dx, float dy) {
    follow_ = false;
    for (int side = 0; side < 2; ++side)
        if (moves_with_view(side)) {
            sides_[side].auto_fit = false;
            sides_[side].camera.pan(dx, dy);
        }
}

void ViewModel::zoom_at(Vec2 screen, double factor) {
    // Side by side, each pane zooms at the same place of itself as the one under the cursor.
    const Box& at = pane(side_at(screen));
    for (int side = 0; side < 2; ++side) {
        Side& s = sides_[side];
        if (!moves_with_view(side) || !s.scene) continue;
        s.auto_fit = false;
        follow_ = false;
        const Box p = pane(side);
        Camera fitted;
        fitted.fit(s.scene->bounds(), p);
        s.camera.zoom_at({screen.x - at.x0 + p.x0, screen.y - at.y0 + p.y0}, factor, p, std::max(1e-6, fitted.zoom * 0.5));
    }
}

void ViewModel::set_zoom(double zoom, Vec2 centre) {
    Side& s = shown();
    follow_ = false;
    s.auto_fit = false;
    s.camera.zoom = zoom;
    s.camera.cx = centre.x;
    s.camera.cy = centre.y;
    if (side_by_side()) {
        // The other pane: the same zoom, on the selected op when it has it.
        Side& other = sides_[1 - shown_];
        other.auto_fit = false;
        other.camera.zoom = zoom;
        centre_other_on_selection();
    }
}

void ViewModel::set_zoom_level(double zoom) {
    for (int side = 0; side < 2; ++side)
        if (moves_with_view(side)) {
            sides_[side].auto_fit = false;
            sides_[side].camera.zoom = zoom;
        }
    if (follow_) centre_on_selection(0);
}

void ViewModel::rebuild_scene(int side) {
    Side& s = sides_[side];
    if (!s.doc) return;
    s.flow = flow_for(side);
    s.scene = std::make_unique<Scene>(*s.doc, s.units, s.expanded, s.flow);
    if (!s.colours) recolour(side);
    if (follow_ && side == shown_) centre_on_selection(0);
    else if (follow_ && side_by_side()) centre_other_on_selection();
}

void ViewModel::recolour(int side) {
    Side& s = sides_[side];
    if (!s.doc) return;
    static const std::vector<DiffMark> none;
    s.colours = std::make_unique<Colouring>(*s.doc, color_, color_ == ColorMode::diff ? s.marks : none);
}

void ViewModel::expand_all() {
    Side& s = shown();
    std::fill(s.expanded.begin(), s.expanded.end(), 1);
    rebuild_scene(shown_);
    mirror_folds(shown_);
}

void ViewModel::fold_all() {
    Side& s = shown();
    std::fill(s.expanded.begin(), s.expanded.end(), 0);
    rebuild_scene(shown_);
    mirror_folds(shown_);
}

bool ViewModel::all_expanded() const {
    const Side& s = shown();
    return !s.expanded.empty() && std::all_of(s.expanded.begin(), s.expanded.end(), [](char c) { return c != 0; });
}

Status ViewModel::expand_layers(const std::string& layers) {
    Side& s = shown();
    if (!s.doc) return make_error(ErrorCode::usage, "", "no plan is open");
    if (layers == "all") {
        expand_all();
        return Ok{};
    }
    auto list = exporters::parse_layer_list(layers, static_cast<std::int64_t>(s.doc->plan().layers.size()));
    if (!list) return list.error();
    for (auto l : *list)
        if (auto i = s.doc->instance_of_layer(l); i >= 0) s.expanded[static_cast<std::size_t>(i)] = 1;
    rebuild_scene(shown_);
    mirror_folds(shown_);
    return Ok{};
}

void ViewModel::toggle_row(std::int32_t r) {
    Side& s = shown();
    if (!s.scene || r < 0 || static_cast<std::size_t>(r) >= s.scene->rows().size()) return;
    const Row row = s.scene->rows()[static_cast<std::size_t>(r)];
    if (!s.doc->units()[static_cast<std::size_t>(row.unit)].layered) return;
    for (auto i : row.instances) s.expanded[static_cast<std::size_t>(i)] = row.folded ? 1 : 0;
    // Keep the row where it was on screen (its top, and its middle across: the columns may move).
    const Box before = row.box;
    rebuild_scene(shown_);
    const Row& now = s.scene->rows()[static_cast<std::size_t>(s.scene->row_of_instance(row.instances.front()))];
    s.auto_fit = false;
    follow_ = false;
    s.camera.cy += now.box.y0 - before.y0;
    s.camera.cx += (now.box.x0 + now.box.x1) / 2 - (before.x0 + before.x1) / 2;
    mirror_folds(shown_);
}

// ---- input -------------------------------------------------------------------------------------

void ViewModel::click(Vec2 screen) {
    focus_pane_at(screen);
    Side& s = shown();
    if (!s.scene) return;
    Hit h = hit(screen);
    const auto& rows = s.scene->rows();
    switch (h.kind) {
        case HitKind::badge: toggle_row(h.row); return;
        case HitKind::node: select({SelectionKind::node, s.scene->flat_node(h.row, h.local)}); return;
        case HitKind::edge: {
            const auto& inst = s.doc->instances()[static_cast<std::size_t>(rows[static_cast<std::size_t>(h.row)].instances.front())];
            select({SelectionKind::edge, inst.edges[static_cast<std::size_t>(h.local)]});
            return;
        }
        case HitKind::group: {
            const Row& row = rows[static_cast<std::size_t>(h.row)];
            const auto& cluster = s.units[static_cast<std::size_t>(row.unit)].shape.clusters[static_cast<std::size_t>(h.local)];
            auto flat = s.scene->flat_node(h.row, cluster.first_node);
            select({SelectionKind::group, s.doc->plan().nodes[static_cast<std::size_t>(flat)].group});
            return;
        }
        case HitKind::connector: select({SelectionKind::edge, s.scene->connectors()[static_cast<std::size_t>(h.connector)].edge}); return;
        case HitKind::row:
        case HitKind::none: select({}); return;
    }
}

void ViewModel::double_click(Vec2 screen) {
    focus_pane_at(screen);
    Side& s = shown();
    Hit h = hit(screen);
    if (h.kind == HitKind::row || h.kind == HitKind::badge) {
        s.auto_fit = false;
        follow_ = false;
        s.camera.fit(s.scene->rows()[static_cast<std::size_t>(h.row)].box, pane(shown_));
    }
}

// ---- selection ---------------------------------------------------------------------------------

void ViewModel::select(Selection sel, bool centre) {
    selection_ = sel;
    refresh_inspector();
    start_why();
    follow_ = centre && sel.kind != SelectionKind::none;
    if (follow_) centre_on_selection(0.8);
}

void ViewModel::centre_on_selection(double min_zoom) {
    Side& s = shown();
    const Selection& sel = selection_;
    if (!s.scene || sel.kind == SelectionKind::none) return;
    const auto& plan = s.doc->plan();
    std::int64_t node = sel.index;
    if (sel.kind == SelectionKind::edge) node = plan.edges[static_cast<std::size_t>(sel.index)].from;
    if (sel.kind == SelectionKind::group) node = plan.groups[static_cast<std::size_t>(sel.index)].nodes.front();
    Place p = s.scene->place_of_node(static_cast<std::size_t>(node));
    if (p.row >= 0) centre_on(s.scene->node_box(p), min_zoom);
    if (side_by_side()) centre_other_on_selection();
}

Status ViewModel::select_id(const std::string& id, bool centre) {
    const Side& s = shown();
    if (!s.doc) return make_error(ErrorCode::usage, "", "no plan is open");
    auto n = s.doc->find_node(id);
    if (n < 0) return make_error(ErrorCode::invalid_input, "--select", s.doc->unknown_node(id));
    select({SelectionKind::node, n}, centre);
    return Ok{};
}

void ViewModel::centre_on(const Box& world, double min_zoom) {
    Side& s = shown();
    s.auto_fit = false;
    s.camera.cx = (world.x0 + world.x1) / 2;
    s.camera.cy = (world.y0 + world.y1) / 2;
    s.camera.zoom = std::clamp(s.camera.zoom, min_zoom, Camera::max_zoom);
}

void ViewModel::refresh_inspector() {
    inspector_.clear();
    const Side& s = shown();
    if (!s.doc || selection_.kind == SelectionKind::none) return;
    const diff::ItemChange* change = nullptr;
    auto idx = static_cast<std::size_t>(selection_.index);
    if (diff_ && selection_.kind == SelectionKind::node && idx < diff_item_of_node_[shown_].size()) {
        auto item = diff_item_of_node_[shown_][idx];
        if (item >= 0) change = &diff_->nodes[static_cast<std::size_t>(item)];
    }
    switch (selection_.kind) {
        case SelectionKind::node: inspector_ = inspect_node(*s.doc, idx, change); break;
        case SelectionKind::edge: inspector_ = inspect_edge(*s.doc, idx, change); break;
        case SelectionKind::group: inspector_ = inspect_group(*s.doc, idx, change); break;
        case SelectionKind::none: break;
    }
}

namespace {
std::string why_key(std::uint64_t generation, const std::string& id) { return std::to_string(generation) + ":" + id; }

// kbp why's text with the $...$ maths of any data it quotes (a kernel row's notes) as Unicode.
std::string readable_maths(const std::string& text) {
    if (text.find('$') == std::string::npos) return text;
    std::string out;
    for (std::size_t start = 0; start < text.size();) {
        std::size_t end = text.find('\n', start);
        std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        out += prose_text(line).lines.front();
        if (end == std::string::npos) break;
        out += '\n';
        start = end + 1;
    }
    return out;
}
}  // namespace

void ViewModel::start_why() {
    const Side& s = shown();
    if (why_pending_.valid() || !s.doc || selection_.kind != SelectionKind::node) return;
    const auto& id = s.doc->plan().nodes[static_cast<std::size_t>(selection_.index)].id;
    std::string key = why_key(s.generation, id);
    if (why_answers_.count(key)) return;
    auto inputs = why_inputs(s.doc->plan(), s.doc->path());
    if (!inputs.request) {
        why_answers_[key] = inputs.missing;
        return;
    }
    why_pending_id_ = key;
    why_pending_ = std::async(std::launch::async, [request = *inputs.request, id]() -> std::string {
        auto text = planner::why_node(request, id);
        return text ? readable_maths(*text) : "kbp why: " + text.error().text();
    });
}

std::string ViewModel::why_text() const {
    const Side& s = shown();
    if (!s.doc || selection_.kind != SelectionKind::node) return "";
    std::string key = why_key(s.generation, s.doc->plan().nodes[static_cast<std::size_t>(selection_.index)].id);
    if (auto it = why_answers_.find(key); it != why_answers_.end()) return it->second;
    return key == why_pending_id_ ? "replaying the planning…" : "";
}

// ---- find --------------------------------------------------------------------------------------

void ViewModel::find(const FindRequest& request) {
    find_request_ = request;
    Side& s = shown();
    find_result_ = s.doc ? find_nodes(*s.doc, request) : FindResult{};
    find_cursor_ = -1;
    s.found.assign(s.doc ? s.doc->plan().nodes.size() : 0, 0);
    for (auto n : find_result_.nodes) s.found[static_cast<std::size_t>(n)] = 1;
    if (find_result_.nodes.empty()) s.found.clear();
}

void ViewModel::find_next(int step) {
    auto n = static_cast<std::int64_t>(find_result_.nodes.size());
    if (n == 0) return;
    find_cursor_ = ((find_cursor_ < 0 ? (step > 0 ? -1 : 0) : find_cursor_) + step % n + n) % n;
    jump_to_result(static_cast<std::size_t>(find_cursor_));
}

void ViewModel::jump_to_result(std::size_t index) {
    if (index >= find_result_.nodes.size()) return;
    find_cursor_ = static_cast<std::int64_t>(index);
    select({SelectionKind::node, find_result_.nodes[index]}, true);
}

// ---- overview and diff -------------------------------------------------------------------------

const Heatmap* ViewModel::heatmap() {
    Side& s = shown();
    if (!s.doc) return nullptr;
    if (!s.heatmap) s.heatmap = build_heatmap(*s.doc);
    return &*s.heatmap;
}

const Budget* ViewModel::budget() {
    Side& s = shown();
    if (!s.doc) return nullptr;
    if (!s.budget) s.budget = build_budget(*s.doc);
    return &*s.budget;
}

void ViewModel::recompute_diff() {
    diff_.reset();
    for (auto& m : diff_item_of_node_) m.clear();
    sides_[0].marks.clear();
    sides_[1].marks.clear();
    if (sides_[0].doc && sides_[1].doc) {
        diff_ = diff::diff_plans(sides_[0].doc->plan(), sides_[1].doc->plan());
        for (int side = 0; side < 2; ++side) {
            auto n = sides_[side].doc->plan().nodes.size();
            sides_[side].marks.assign(n, DiffMark::none);
            diff_item_of_node_[side].assign(n, -1);
        }
        for (std::size_t i = 0; i < diff_->nodes.size(); ++i) {
            const auto& item = diff_->nodes[i];
            DiffMark m = item.status == diff::ChangeKind::added     ? DiffMark::added
                         : item.status == diff::ChangeKind::removed ? DiffMark::removed
                                                                    : DiffMark::changed;
            if (item.index_a) {
                sides_[0].marks[static_cast<std::size_t>(*item.index_a)] = m;
                diff_item_of_node_[0][static_cast<std::size_t>(*item.index_a)] = static_cast<std::int32_t>(i);
            }
            if (item.index_b) {
                sides_[1].marks[static_cast<std::size_t>(*item.index_b)] = m;
                diff_item_of_node_[1][static_cast<std::size_t>(*item.index_b)] = static_cast<std::int32_t>(i);
            }
        }
        if (!color_chosen_) color_ = ColorMode::diff;
    }
    recolour(0);
    recolour(1);
}

void ViewModel::jump_to_change(const diff::ItemChange& item) {
    int side = item.index_b && sides_[1].doc ? 1 : 0;
    auto index = side == 1 ? item.index_b : item.index_a;
    if (!index) return;
    show_side(side);
    const auto& plan = shown().doc->plan();
    if (static_cast<std::size_t>(*index) < plan.nodes.size() && plan.nodes[static_cast<std::size_t>(*index)].id == item.key)
        select({SelectionKind::node, *index}, true);
    else if (static_cast<std::size_t>(*index) < plan.groups.size() && !plan.groups[static_cast<std::size_t>(*index)].nodes.empty() &&
             plan.nodes[static_cast<std::size_t>(plan.groups[static_cast<std::size_t>(*index)].nodes.front())].id == item.key)
        select({SelectionKind::group, *index}, true);
    else if (static_cast<std::size_t>(*index) < plan.edges.size())
        select({SelectionKind::edge, *index}, true);
}

}  // namespace kbp::viewer
