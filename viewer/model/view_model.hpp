// The viewer's whole state, with no window: the open plans (a, and b to compare with), their
// layouts, folds, cameras, colouring, selection, find results, diff and panels' data. The window
// (viewer/app) draws what this says and forwards input as calls; tests drive it the same way.
//
// Threads: plans load on a worker (std::async) and are taken by update() as soon as their folded
// view can be drawn, their flat lists and cost following on a thread of the Document's; layouts run on the
// LayoutService's thread; `kbp why` answers on another worker. Everything here is otherwise
// touched by the UI thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diff/diff.hpp"
#include "viewer/model/camera.hpp"
#include "viewer/model/colouring.hpp"
#include "viewer/model/document.hpp"
#include "viewer/model/draw_list.hpp"
#include "viewer/model/find.hpp"
#include "viewer/model/frame.hpp"
#include "viewer/model/inspector.hpp"
#include "viewer/model/layout_service.hpp"
#include "viewer/model/overview.hpp"
#include "viewer/model/scene.hpp"
#include "viewer/model/text_metrics.hpp"

namespace kbp::viewer {

enum class SelectionKind : std::uint8_t { none, node, edge, group };

struct Selection {
    SelectionKind kind = SelectionKind::none;
    std::int64_t index = -1;  // flat index in the shown plan
    bool operator==(const Selection&) const = default;
};

// A plan being read on a thread of its own.
struct PendingLoad {
    std::string path;
    std::chrono::steady_clock::time_point started;
    std::future<Loaded> result;
    std::future<void> thread;
};
// Starts reading `path`; `wake` is called on that thread once the result can be taken.
PendingLoad start_loading(const std::string& path, std::function<void()> wake = {}, LoadOptions options = {});

class ViewModel {
public:
    ViewModel(LayoutEngine engine, TextMetrics metrics);
    ~ViewModel();
    ViewModel(const ViewModel&) = delete;
    ViewModel& operator=(const ViewModel&) = delete;

    // ---- files ----
    // Starts loading `path` as plan a (side 0) or b (side 1, to compare with a). What was open
    // stays until the new file has loaded; a file that fails keeps it and adds an error.
    void open(const std::string& path, int side = 0);
    // The same with a load started elsewhere (kbp-view reads its plans while its window opens).
    void open(PendingLoad load, int side = 0);
    // Called on the loading thread when a plan has loaded (the window: to stop waiting for input).
    void set_wake(std::function<void()> wake) { wake_ = std::move(wake); }
    // Opens a plan already in memory (benchmarks: a synthetic plan), at once.
    void open_plan(schema::Blueprint plan, const std::string& name, int side = 0);
    void close_second();
    // Files dropped on the window: the first replaces a, a second one opens as b.
    void drop(const std::vector<std::string>& paths);
    // Reloads the files that changed on disk since they were read.
    void reload_changed();
    bool loading() const;
    // A load has finished and waits for update() to take it.
    bool arrived() const;
    // An open plan's flat lists or cost are still being indexed (its folded view is drawn
    // meanwhile; what needs them waits): completion() says how far, 0 to 1. They are made on a
    // thread once a frame has been built after the plan came (so not at the first frame's
    // cost), or at settle().
    bool completing() const;
    double completion(int side) const;
    // Something is still on its way: a load, the rest of one, a layout or a `kbp why` answer.
    bool busy() const;
    // The folded view is drawn whole: no load, layout or answer on its way (the flat lists and
    // cost may still be).
    bool drawn() const;
    // While held, a plan's flat lists and cost are not begun (a picture of the first frame).
    void hold_completion(bool held) { completion_held_ = held; }
    const Document* document(int side) const;
    int shown_side() const { return shown_; }
    void show_side(int side);

    struct LoadError {
        LoadFailure failure;
        bool dismissed = false;
    };
    const std::vector<LoadError>& errors() const { return errors_; }
    void dismiss_errors();

    // ---- each frame ----
    // Takes finished loads, layouts and answers; rebuilds what they change.
    void update();
    // Blocks until loads and layouts are done (or `seconds` pass), updating; true when done.
    bool settle(double seconds = 30);
    FrameStats frame(const Box& viewport, DrawList& out);
    Hit hit(Vec2 screen) const;
    std::string tooltip(Vec2 screen) const;

    // ---- side by side ----
    // With two plans open, both at once: a in the left pane, b in the right, panned, zoomed and
    // folded together, the selected op marked in both (matched by id). Input goes to the pane
    // under the cursor, whose plan becomes the shown one (inspector, find). With one plan open
    // the canvas is one pane whatever this says.
    void set_side_by_side(bool on);
    bool side_by_side() const { return side_by_side_ && sides_[0].doc && sides_[1].doc; }
    bool side_by_side_asked() const { return side_by_side_; }  // what was asked, with one plan open or two
    // Where a side is drawn: its half of the canvas side by side, else the whole canvas.
    Box pane(int side) const;

    // ---- view ----
    ColorMode color_mode() const { return color_; }
    void set_color_mode(ColorMode mode);
    const Colouring* colouring() const;
    // What the canvas's fills mean: the shown plan's legend, and side by side also what only the
    // other pane draws ("added" in b, "removed" in a), its key naming the pane.
    std::vector<LegendEntry> legend() const;
    Camera& camera();
    void fit();            // the whole plan
    void pan(float dx, float dy);
    void zoom_at(Vec2 screen, double factor);
    void set_zoom(double zoom, Vec2 world_centre);  // benchmarks
    // The zoom alone (both panes side by side), the centre kept and a selection still followed.
    void set_zoom_level(double zoom);
    const Scene* scene() const;

    // Folding (of the shown plan).
    void expand_all();
    void fold_all();
    Status expand_layers(const std::string& layers);  // "all" or "3-7,9"
    void toggle_row(std::int32_t row);
    bool all_expanded() const;

    // ---- input ----
    void click(Vec2 screen);
    void double_click(Vec2 screen);

    // ---- selection and inspector ----
    const Selection& selection() const { return selection_; }
    void select(Selection s, bool centre = false);
    Status select_id(const std::string& node_id, bool centre = true);
    const std::vector<InspectorSection>& inspector() const { return inspector_; }
    std::string why_text() const;  // the `kbp why` answer for the selected op, or why there is none

    // ---- find ----
    void find(const FindRequest& request);
    const FindRequest& find_request() const { return find_request_; }
    const FindResult& find_result() const { return find_result_; }
    std::int64_t find_cursor() const { return find_cursor_; }
    void find_next(int step = 1);  // selects and centres the next result
    void jump_to_result(std::size_t index);

    // ---- overview and diff ----
    const Heatmap* heatmap();
    const Budget* budget();
    const diff::PlanDiff* plan_diff() const { return diff_ ? &*diff_ : nullptr; }
    // Centres on a diff item's node (switching to the plan that has it).
    void jump_to_change(const diff::ItemChange& item);

    // The state tests and --dump-state read: files, errors, legend, selection, inspector, rows,
    // diff counts, find results, as JSON.
    std::string state_json(const FrameStats& last) const;

    const TextMetrics& metrics() const { return metrics_; }
    double load_ms(int side) const { return sides_[side].load_ms; }

private:
    struct Side {
        std::shared_ptr<const Document> doc;
        std::uint64_t generation = 0;
        std::vector<UnitGeometry> units;
        std::vector<char> expanded;
        std::unique_ptr<Scene> scene;
        Flow flow;  // the pane its scene's columns are made for
        std::unique_ptr<Colouring> colours;
        std::vector<char> found;
        std::vector<DiffMark> marks;
        Camera camera;
        bool auto_fit = true;
        std::future<Loaded> pending;
        std::future<void> loader;  // the thread that fulfils `pending`
        std::string pending_path;
        std::optional<Heatmap> heatmap;
        std::optional<Budget> budget;
        double load_ms = 0;
        std::chrono::steady_clock::time_point load_started;
        std::uint64_t adopted_at_frame = 0;  // frames_ when doc came
        bool lists_taken = false;            // what came of doc's flat lists read after is handled
    };

    std::function<void()> wake_;
    std::vector<std::shared_ptr<const Document>> retiring_;  // replaced, still being indexed
    LayoutService layouts_;
    TextMetrics metrics_;
    Side sides_[2];
    int shown_ = 0;
    std::uint64_t next_generation_ = 1;
    std::uint64_t frames_ = 0;  // frames built
    ColorMode color_ = ColorMode::precision;
    bool color_chosen_ = false;  // the user picked a mode: a new diff does not switch to diff
    bool side_by_side_ = false;
    Selection selection_;
    bool follow_ = false;  // keep the selection centred while layouts settle, until the user moves
    std::vector<InspectorSection> inspector_;
    std::vector<LoadError> errors_;
    bool completion_held_ = false;
    FindRequest find_request_;
    FindResult find_result_;
    std::int64_t find_cursor_ = -1;
    std::optional<diff::PlanDiff> diff_;
    std::vector<std::int32_t> diff_item_of_node_[2];
    Box viewport_{0, 0, 1280, 800};
    std::chrono::steady_clock::time_point last_reload_check_{};
    // `kbp why`: answers by node id, and the one being worked out.
    mutable std::map<std::string, std::string> why_answers_;
    std::future<std::string> why_pending_;
    std::string why_pending_id_;

    Side& shown() { return sides_[shown_]; }
    const Side& shown() const { return sides_[shown_]; }
    void adopt(int side, std::shared_ptr<const Document> doc);
    void retire(std::shared_ptr<const Document> doc);
    // A plan shown before its flat lists were read: once they are, its replacement is shown or,
    // invalid, it is dropped with an error (Document::ListsToRead).
    void take_lists();
    void drop_side(int side);
    void rebuild_scene(int side);
    // What a side's columns are made for: its pane and the row titles' metrics.
    Flow flow_for(int side) const;
    // At fit, a pane whose size changed flows its rows into columns again.
    void reflow_if_resized(int side);
    void recolour(int side);
    void recompute_diff();
    void refresh_inspector();
    void start_why();
    void centre_on(const Box& world, double min_zoom);
    // The side's whole plan in `pane`, with room left of the cards for their row headers.
    void fit_with_headers(Side& s, const Box& pane) const;
    void centre_on_selection(double min_zoom);
    FrameContext context(int side, const Box& viewport) const;
    // The side whose pane holds `screen` (the shown one unless side by side).
    int side_at(Vec2 screen) const;
    // Whether a pan, zoom or fit of the view moves this side's camera: the shown side's, and side
    // by side both.
    bool moves_with_view(int side) const { return side == shown_ || side_by_side(); }
    // Side by side: input at `screen` goes to that pane's plan, which becomes the shown one.
    void focus_pane_at(Vec2 screen);
    FrameStats frame_side_by_side(DrawList& out);
    // The folds of `from`'s layers given to the same layers of the other side.
    void mirror_folds(int from);
    // The other side's camera centred on the op the selection names there (same id).
    void centre_other_on_selection();
};

}  // namespace kbp::viewer
