// kbp-view-bench: what the viewer's model costs, without a window or GL (kbp-view --bench-frames
// measures the window's frames under Xvfb; this measures the model part anywhere).
//
// For the plan (default: the GLM-5.3-Flash decode plan), folded and expanded, and for a synthetic
// plan of ~40,000 ops (the plan's templates over 1,035 layers), expanded, prints: the time to
// load and index, to lay out every unit with dot, and to show the first frame (quick layout);
// then, at fit and at zooms 4x apart up to 2 pixels per point, at the plan's middle, the model's
// time to build a frame (culling and detail by zoom) and the vertices Dear ImGui would make of it.
//
// usage: kbp-view-bench [PLAN] [--frames N] [--layers L]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench/timing.hpp"
#include "exporters/dot_layout.hpp"
#include "schema/synthetic.hpp"
#include "viewer/model/unit_shape.hpp"
#include "viewer/model/view_model.hpp"

namespace {

using namespace kbp;
using namespace kbp::viewer;

const Box screen{0, 0, 1180, 860};  // the canvas of a 1600x1000 window

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

void zoom_rows(const char* name, ViewModel& m, int frames) {
    DrawList d;
    m.fit();
    m.frame(screen, d);
    double fit = m.camera().zoom;
    const Box& b = m.scene()->bounds();
    static const char* details[] = {"strips", "blobs", "boxes", "labels"};
    for (double z = fit;; z *= 4) {
        if (z > 2) z = 2;
        if (z == fit) m.fit();
        else m.set_zoom(z, {(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2});
        FrameStats stats;
        double ms = bench::best_ms(frames, [&] { stats = m.frame(screen, d); });
        std::printf("%-28s %9.4f %-7s %8zu %6zu %6zu %9zu %8.3f\n", name, m.camera().zoom, details[static_cast<int>(stats.detail)], stats.rows,
                    stats.nodes, stats.edges, d.estimated_vertices(), ms);
        if (z >= 2) break;
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::string path = KBP_DEFAULT_PLAN;
    int frames = 50;
    std::size_t layers = 1035;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) frames = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--layers") && i + 1 < argc) layers = static_cast<std::size_t>(std::atol(argv[++i]));
        else path = argv[i];
    }
    auto t0 = std::chrono::steady_clock::now();
    auto loaded = load_document(path);
    if (!loaded.document) {
        std::fprintf(stderr, "kbp-view-bench: %s\n", loaded.failure->message.c_str());
        return 2;
    }
    double load_ms = ms_since(t0);
    const auto& doc = *loaded.document;
    double dot_ms = 0;
    for (std::size_t u = 0; u < doc.units().size(); ++u) {
        auto shape = unit_shape(doc, u, TextMetrics::approximate());
        auto t = std::chrono::steady_clock::now();
        auto l = exporters::dot_layout(shape.graph);
        dot_ms += ms_since(t);
        if (!l) std::fprintf(stderr, "kbp-view-bench: dot: %s\n", l.error().text().c_str());
    }
    t0 = std::chrono::steady_clock::now();
    ViewModel seed_view(LayoutEngine(), TextMetrics::approximate());
    seed_view.open_plan(doc.plan(), path);
    DrawList d;
    seed_view.frame(screen, d);
    double first_ms = ms_since(t0);
    std::printf("plan %s: %zu ops, %zu units; load + validate + index + cost %.1f ms; dot over every unit %.1f ms; "
                "model to first frame %.1f ms\n\n",
                path.c_str(), doc.plan().nodes.size(), doc.units().size(), load_ms, dot_ms, first_ms);

    auto t1 = std::chrono::steady_clock::now();
    auto big = schema::relayout(doc.plan(), schema::glm_layout(layers), true);
    if (!big) {
        std::fprintf(stderr, "kbp-view-bench: %s\n", big.error().text().c_str());
        return 2;
    }
    double build_ms = ms_since(t1);
    t1 = std::chrono::steady_clock::now();
    ViewModel big_view(LayoutEngine(), TextMetrics::approximate());
    big_view.open_plan(std::move(*big), "synthetic");
    big_view.expand_all();
    big_view.frame(screen, d);
    std::printf("synthetic plan: %zu layers, %zu ops (built in %.0f ms); model to first frame, expanded %.1f ms\n\n", layers,
                big_view.document(0)->plan().nodes.size(), build_ms, ms_since(t1));

    std::printf("frames at a %gx%g canvas, best of %d\n", screen.width(), screen.height(), frames);
    std::printf("%-28s %9s %-7s %8s %6s %6s %9s %8s\n", "view", "zoom", "detail", "rows", "ops", "edges", "vertices", "ms");
    zoom_rows("plan, folded", seed_view, frames);
    seed_view.expand_all();
    zoom_rows("plan, expanded", seed_view, frames);
    zoom_rows("synthetic, expanded", big_view, frames);
    return 0;
}
