// kbp-view: the desktop viewer. Parses the command line, opens the window, and runs the frame
// loop over the view model; --screenshot, --dump-state and --bench-frames run the same loop
// headless (under Xvfb) and stop.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "exporters/dot_layout.hpp"
#include "schema/file_io.hpp"
#include "schema/synthetic.hpp"
#include "viewer/app/options.hpp"
#include "viewer/app/ui.hpp"
#include "viewer/app/window.hpp"
#include "viewer/model/settings.hpp"
#include "viewer/model/view_model.hpp"

// Mesa, GLFW, X11 and Graphviz keep caches for the life of the process (shader compilers, fonts,
// plugin tables); under LeakSanitizer they would fail every run. Only those libraries are named.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libGLX_mesa\nleak:libgallium\nleak:swrast_dri\nleak:libLLVM\nleak:libglfw\nleak:libX11\nleak:libxcb\n"
           "leak:libdrm\nleak:libglapi\nleak:libGL.so\nleak:libEGL\nleak:libdbus\nleak:libgvc.so\nleak:libcgraph.so\n"
           "leak:libgvplugin\nleak:libcairo.so\nleak:libpango\nleak:libfontconfig.so\nleak:libglib\nleak:libgobject\n"
           "leak:libharfbuzz\nleak:libpixman\nleak:libexpat\n";
}
#include <dlfcn.h>
// Mesa unloads its driver before LeakSanitizer looks, which then cannot name (or suppress) the
// driver's allocations: keep the driver loaded to the end.
static void keep_gl_driver_loaded() {
    for (const char* lib : {"libGLX_mesa.so.0", "swrast_dri.so", "/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so"})
        dlopen(lib, RTLD_NOW | RTLD_NODELETE | RTLD_GLOBAL);
}
#else
static void keep_gl_driver_loaded() {}
#endif

namespace {

using namespace kbp;
using namespace kbp::viewer;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct FrameTimes {
    double cpu_ms = 0, model_ms = 0, gl_ms = 0;
    std::size_t vertices = 0, canvas_vertices = 0;
    FrameStats stats;
};

class App {
public:
    App(app::Options o, std::unique_ptr<app::Window> w, Clock::time_point started, std::vector<PendingLoad> loads)
        : o_(std::move(o)),
          window_(std::move(w)),
          model_(o_.dot ? LayoutEngine(exporters::dot_layout) : LayoutEngine(), window_->metrics()),
          ui_(window_->ui_font(), window_->canvas_font(), !(o_.screenshot || o_.dump_state || o_.bench_frames > 0)),
          started_(started),
          loads_(std::move(loads)) {
        model_.set_wake(&app::Window::wake);
    }

    int run() {
        if (auto s = open_plans(); !s) {
            std::cerr << "kbp-view: error: " << s.error().text() << "\n";
            return kbp::exit_code(s.error().code);
        }
        if (o_.bench_frames > 0) return bench();
        if (o_.screenshot || o_.dump_state) return headless();
        load_settings_once();
        while (!window_->should_close() && !ui_.quit_requested()) {
            window_->poll(wait_for_input());
            if (auto drops = window_->take_drops(); !drops.empty()) model_.drop(drops);
            frame(true);
            remember_open_plans();
            window_->swap();
        }
        settings_.side_by_side = model_.side_by_side_asked();
        save_settings_now();
        return 0;
    }

private:
    app::Options o_;
    std::unique_ptr<app::Window> window_;
    ViewModel model_;
    app::Ui ui_;
    Clock::time_point started_;
    std::vector<PendingLoad> loads_;  // the plans, read since before the window opened
    std::optional<kbp::ErrorCode> startup_error_;  // a command-line action that could not be done
    bool started_actions_done_ = false;
    double first_frame_ms_ = -1, settled_ms_ = -1;
    std::string title_;
    // What a person's runs remember (never a headless run's): recent plans, side by side.
    ViewSettings settings_;
    std::string settings_path_;
    std::string remembered_[2];  // the paths last added to settings_.recent, per side

    void load_settings_once() {
        settings_path_ = settings_path();
        if (auto s = load_settings(settings_path_)) settings_ = std::move(*s);
        else std::cerr << "kbp-view: warning: " << s.error().text() << "\n";
        if (!o_.side) model_.set_side_by_side(settings_.side_by_side);
        ui_.set_recent(&settings_.recent);
    }

    void save_settings_now() {
        if (auto s = save_settings(settings_, settings_path_); !s) std::cerr << "kbp-view: warning: " << s.error().text() << "\n";
    }

    // A plan that loaded joins the recent list (saved at once: a crash keeps it).
    void remember_open_plans() {
        bool changed = false;
        for (int side = 0; side < 2; ++side) {
            const Document* d = model_.document(side);
            if (!d || d->path().empty() || d->path() == remembered_[side]) continue;
            remembered_[side] = d->path();
            std::error_code ec;
            auto absolute = std::filesystem::absolute(d->path(), ec);
            settings_.remember(ec ? d->path() : absolute.lexically_normal().string());
            changed = true;
        }
        if (changed) save_settings_now();
    }

    Status open_plans() {
        if (o_.bench_layers) {
            auto seed = load_document(o_.plans[0]);
            if (!seed.document) return make_error(ErrorCode::invalid_input, o_.plans[0], seed.failure->message);
            auto big = schema::relayout(seed.document->plan(), schema::glm_layout(*o_.bench_layers), true);
            if (!big) return big.error();
            model_.open_plan(std::move(*big), o_.plans[0] + " over " + std::to_string(*o_.bench_layers) + " layers");
            return Ok{};
        }
        for (std::size_t i = 0; i < loads_.size(); ++i) model_.open(std::move(loads_[i]), static_cast<int>(i));
        return Ok{};
    }

    // What the command line asks for once the plans are in.
    void startup_actions() {
        if (started_actions_done_ || model_.loading()) return;
        started_actions_done_ = true;
        if (o_.color) model_.set_color_mode(*o_.color);
        if (o_.side && *o_.side == "b") model_.show_side(1);
        if (o_.side && *o_.side == "both") model_.set_side_by_side(true);
        if (o_.expand)
            if (auto s = model_.expand_layers(*o_.expand); !s) std::cerr << "kbp-view: --expand: " << s.error().text() << "\n";
        if (o_.find) {
            ui_.set_find_text(*o_.find);
            model_.find({*o_.find, "", ""});
            ui_.show_panel(app::Panel::find);
        }
        if (o_.select)
            if (auto s = model_.select_id(*o_.select); !s) {
                // A window stays open for the person to pick another; a headless run stops, exit 2,
                // rather than write a screenshot of something else.
                std::cerr << "kbp-view: error: " << s.error().text() << "\n";
                startup_error_ = s.error().code;
            }
        if (o_.zoom) {
            if (model_.selection().kind != SelectionKind::none) {
                model_.set_zoom_level(*o_.zoom);  // the camera keeps following the selection
            } else if (const Scene* sc = model_.scene()) {
                const Box& b = sc->bounds();
                model_.set_zoom(*o_.zoom, {(b.x0 + b.x1) / 2, b.y0 + (b.y1 - b.y0) / 2});
            }
        }
        if (o_.panel) {
            static const std::pair<const char*, app::Panel> panels[] = {{"inspector", app::Panel::inspector}, {"find", app::Panel::find},
                                                                        {"overview", app::Panel::overview},   {"diff", app::Panel::diff},
                                                                        {"help", app::Panel::help}};
            for (const auto& [name, p] : panels)
                if (*o_.panel == name) ui_.show_panel(p);
        } else if (model_.document(1)) {
            ui_.show_panel(app::Panel::diff);
        }
    }

    FrameTimes frame(bool draw) {
        FrameTimes t;
        auto t0 = Clock::now();
        model_.update();
        startup_actions();
        if (model_.document(0)) {
            std::string title = "kbp-view — " + model_.document(0)->path();
            if (model_.document(1)) title += " vs " + model_.document(1)->path();
            if (title != title_) window_->set_title(title_ = title);
        }
        window_->new_frame();
        int w = 0, h = 0;
        window_->size(w, h);
        auto figures = ui_.draw(model_, static_cast<float>(w), static_cast<float>(h));
        window_->end_frame();
        t.cpu_ms = ms_since(t0);
        t.model_ms = figures.model_ms;
        t.canvas_vertices = figures.canvas_vertices;
        t.vertices = static_cast<std::size_t>(ImGui::GetDrawData()->TotalVtxCount);
        t.stats = ui_.last_stats();
        if (draw) {
            auto g0 = Clock::now();
            window_->draw_gl();
            window_->finish_gl();
            t.gl_ms = ms_since(g0);
        }
        ui_.status_ms = t.cpu_ms;
        if (first_frame_ms_ < 0 && model_.document(model_.shown_side())) first_frame_ms_ = ms_since(started_);
        return t;
    }

    // How long a frame waits for input. While a plan loads or indexes there is little to redraw
    // ("loading…", then the progress bar): a few frames a second leave the cores to the loading
    // (a frame of Mesa's software renderer takes one for 20 ms); a plan that has loaded wakes the
    // wait, so its first frame is not late.
    double wait_for_input() const {
        if (model_.arrived()) return 0;  // a plan read before the window could be woken
        if (model_.loading() && !model_.document(model_.shown_side())) return 0.25;
        if (model_.loading() || model_.completing()) return 0.1;
        return model_.busy() ? 1.0 / 60 : 0.25;
    }

    // Until nothing is on its way (or, --first-frame, until the folded view is drawn whole).
    bool settle(double seconds) {
        auto until = Clock::now() + std::chrono::duration<double>(seconds);
        auto done = [&] { return o_.first_frame ? model_.drawn() : !model_.busy(); };
        while (Clock::now() < until) {
            window_->poll(done() ? 0 : wait_for_input());
            frame(true);
            window_->swap();
            if (done() && started_actions_done_) {
                if (settled_ms_ < 0) settled_ms_ = ms_since(started_);
                return true;
            }
        }
        return false;
    }

    int headless() {
        model_.hold_completion(o_.first_frame);  // the lists are read after the screenshot
        if (!settle(120)) std::cerr << "kbp-view: warning: still loading or laying out after 120 s\n";
        if (startup_error_) return kbp::exit_code(*startup_error_);
        for (int i = 0; i < o_.frames; ++i) {
            window_->poll(0);
            frame(true);
            if (i + 1 == o_.frames && o_.screenshot) {
                if (auto s = window_->write_png(*o_.screenshot); !s) {
                    std::cerr << "kbp-view: error: " << s.error().text() << "\n";
                    return kbp::exit_code(kbp::ErrorCode::output);
                }
            }
            window_->swap();
        }
        if (o_.dump_state)
            if (auto s = write_file_atomic(*o_.dump_state, model_.state_json(ui_.last_stats())); !s) {
                std::cerr << "kbp-view: error: " << s.error().text() << "\n";
                return kbp::exit_code(kbp::ErrorCode::output);
            }
        return 0;
    }

    static double median(std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0 : v[v.size() / 2];
    }

    int bench() {
        if (!settle(600)) std::cerr << "kbp-view: warning: still laying out after 600 s\n";
        const Document* d = model_.document(model_.shown_side());
        if (!d || !model_.scene()) {
            std::cerr << "kbp-view: error: no plan to measure\n";
            return kbp::exit_code(kbp::ErrorCode::invalid_input);
        }
        std::size_t rows = model_.scene()->rows().size();
        std::printf("plan: %s (%zu ops, %zu rows on the canvas)\n", d->path().c_str(), d->plan().nodes.size(), rows);
        std::printf("time to first frame %.0f ms (load %.0f ms), layouts final at %.0f ms\n", first_frame_ms_, model_.load_ms(0), settled_ms_);
        std::printf("%-10s %9s %-7s %9s %9s %8s %8s %8s %8s %8s\n", "view", "zoom", "detail", "vertices", "canvas", "cpu ms", "cpu max",
                    "model ms", "gl ms", "rows");
        // Fit, then zooms of 4x each at the plan's middle, up to the labels' zoom and beyond.
        model_.fit();
        frame(true);
        window_->swap();
        Camera fitted = model_.camera();
        const Box& bounds = model_.scene()->bounds();
        Vec2 centre{(bounds.x0 + bounds.x1) / 2, (bounds.y0 + bounds.y1) / 2};
        std::vector<std::pair<std::string, double>> views{{"fit", fitted.zoom}};
        for (double z = fitted.zoom * 4; z < 2.0; z *= 4) {
            char name[32];  // "x16": zoom relative to fit
            std::snprintf(name, sizeof name, "x%.0f", z / fitted.zoom);
            views.push_back({name, z});
        }
        views.push_back({"1:1", 1.0});
        static const char* details[] = {"strips", "blobs", "boxes", "labels"};
        std::size_t worst = 0;
        for (const auto& [name, zoom] : views) {
            if (name == "fit") model_.fit();
            else model_.set_zoom(zoom, centre);
            std::vector<double> cpu, model_ms, gl;
            FrameTimes last;
            for (int i = 0; i < o_.bench_frames; ++i) {
                window_->poll(0);
                last = frame(true);
                window_->swap();
                cpu.push_back(last.cpu_ms);
                model_ms.push_back(last.model_ms);
                gl.push_back(last.gl_ms);
            }
            worst = std::max(worst, last.vertices);
            std::printf("%-10s %9.4f %-7s %9zu %9zu %8.2f %8.2f %8.2f %8.1f %8zu\n", name.c_str(), model_.camera().zoom,
                        details[static_cast<int>(last.stats.detail)], last.vertices, last.canvas_vertices, median(cpu),
                        *std::max_element(cpu.begin(), cpu.end()), median(model_ms), median(gl), last.stats.rows);
        }
        std::printf("most vertices in a frame: %zu\n", worst);
        return 0;
    }
};

}  // namespace

int main(int argc, char** argv) {
    auto started = Clock::now();
    auto options = app::parse_options(argc, argv);
    if (!options) {
        std::cerr << "kbp-view: " << options.error().message << " (see 'kbp-view --help')\n";
        return kbp::exit_code(kbp::ErrorCode::usage);
    }
    if (options->help) {
        std::cout << app::usage_text;
        return 0;
    }
    if (options->version) {
        std::cout << "kbp-view " KBP_VERSION "\n";
        return 0;
    }
    keep_gl_driver_loaded();
    // The plans are read while the window opens (a GL context and the fonts take a fifth of a
    // second): a plan's first frame comes as soon as it is read. The window wakes when one is.
    std::vector<PendingLoad> loads;
    if (!options->bench_layers)
        for (const auto& plan : options->plans) loads.push_back(start_loading(plan, &app::Window::wake));
    bool headless = options->screenshot || options->dump_state || options->bench_frames > 0;
    auto window = app::Window::open(options->width, options->height, "kbp-view", !headless);
    if (!window) {
        std::cerr << "kbp-view: error: " << window.error().text() << "\n";
        return kbp::exit_code(kbp::ErrorCode::unsupported);
    }
    App app(std::move(*options), std::move(*window), started, std::move(loads));
    return app.run();
}
