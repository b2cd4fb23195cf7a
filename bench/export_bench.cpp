// kbp-export-bench: how fast kbp's exporters turn a plan into DOT and pictures.
//
// Prints, for the plan (default: the GLM-5.3-Flash decode plan) and for a synthetic plan of about
// 40,000 ops made from it (the seed's layer templates repeated over ~1,000 layers, expanded):
//   DOT export time per view (view model + cgraph graph + agwrite), best of N runs;
// and, for the plan itself, the time to lay out and render SVG of the collapsed and the flat
// view (ratio flat / collapsed), and of flat cuts of growing size: the measurements behind
// `kbp render`'s warning and refusal thresholds (exporters/render.hpp).
//
// usage: kbp-export-bench [PLAN] [--runs N] [--layers L] [--skip-render]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "exporters/dot.hpp"
#include "exporters/render.hpp"
#include "exporters/view.hpp"
#include "schema/reader.hpp"
#include "schema/synthetic.hpp"
#include "schema/validator.hpp"

namespace {

namespace ex = kbp::exporters;
using kbp::schema::Blueprint;

double best_ms(int runs, const std::function<void()>& f) {
    double best = 1e300;
    for (int i = 0; i < runs; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    return best;
}

// The seed's collapsed form stretched to `layers` layers and expanded: a plan of the same shape,
// ~38.7 ops per layer.
Blueprint scaled_plan(const Blueprint& seed, std::size_t layers) {
    auto b = kbp::schema::relayout(seed, kbp::schema::glm_layout(layers), true);
    if (!b) {
        std::fprintf(stderr, "kbp-export-bench: cannot build the synthetic plan: %s\n", b.error().text().c_str());
        std::exit(2);
    }
    return std::move(*b);
}

ex::View view_of(const Blueprint& b, ex::ViewKind kind, std::optional<std::vector<std::int64_t>> layers = std::nullopt) {
    auto v = ex::build_view(b, {.kind = kind, .layers = std::move(layers)});
    if (!v) {
        std::fprintf(stderr, "kbp-export-bench: %s\n", v.error().text().c_str());
        std::exit(2);
    }
    return std::move(*v);
}

void dot_rows(const char* plan, const Blueprint& b, int runs) {
    for (auto kind : {ex::ViewKind::flat, ex::ViewKind::groups, ex::ViewKind::collapsed}) {
        std::size_t bytes = 0, nodes = 0, edges = 0, clusters = 0;
        double ms = best_ms(runs, [&] {
            auto v = view_of(b, kind);
            auto dot = ex::export_dot(v);
            bytes = dot->size();
            nodes = v.nodes.size();
            edges = v.edges.size();
            clusters = v.clusters.size();
        });
        double view_ms = best_ms(runs, [&] { (void)view_of(b, kind); });
        std::printf("%-26s %-10s %7zu %7zu %8zu %10.1f %8.1f %8.1f\n", plan, std::string(ex::view_kind_name(kind)).c_str(),
                    nodes, edges, clusters, bytes / 1e3, ms, view_ms);
    }
}

// Best of 3 for small views, one run for large ones (the first render also loads Graphviz's plugins).
double render_ms(const ex::View& v, std::size_t& bytes) {
    return best_ms(v.nodes.size() < 500 ? 3 : 1, [&] {
        auto svg = ex::render_view(v, {}, {.format = ex::ImageFormat::svg, .force = true});
        if (!svg) {
            std::fprintf(stderr, "kbp-export-bench: render: %s\n", svg.error().text().c_str());
            std::exit(2);
        }
        bytes = svg->size();
    });
}

}  // namespace

int main(int argc, char** argv) {
    std::string path = KBP_DEFAULT_PLAN;
    int runs = 5;
    std::size_t layers = 1035;
    bool render = true;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--layers") && i + 1 < argc) layers = static_cast<std::size_t>(std::atol(argv[++i]));
        else if (!std::strcmp(argv[i], "--skip-render")) render = false;
        else path = argv[i];
    }
    auto seed = kbp::schema::load_blueprint(path);
    if (!seed || !kbp::schema::validate(*seed).empty()) {
        std::fprintf(stderr, "kbp-export-bench: %s: not a valid plan\n", path.c_str());
        return 2;
    }
    auto t0 = std::chrono::steady_clock::now();
    Blueprint big = scaled_plan(*seed, layers);
    double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    auto problems = kbp::schema::validate(big);
    std::printf("plan: %s (%zu ops); synthetic plan: %zu layers, %zu ops, %zu edges, %zu groups, built in %.0f ms, "
                "%zu validation problems\n\n",
                path.c_str(), seed->nodes.size(), big.layers.size(), big.nodes.size(), big.edges.size(), big.groups.size(),
                build_ms, problems.total());

    std::printf("DOT export (view + cgraph + agwrite), best of %d runs\n", runs);
    std::printf("%-26s %-10s %7s %7s %8s %10s %8s %8s\n", "plan", "view", "nodes", "edges", "clusters", "DOT kB", "ms",
                "view ms");
    dot_rows("seed", *seed, runs);
    std::string big_name = "synthetic " + std::to_string(big.nodes.size()) + " ops";
    dot_rows(big_name.c_str(), big, std::max(1, runs / 2));
    if (!render) return 0;

    std::printf("\nSVG render of the seed (dot layout + svg), best of 3 below 500 nodes, else one run\n");
    std::printf("%-26s %7s %7s %7s %10s %8s\n", "view", "nodes", "edges", "clusters", "SVG kB", "ms");
    std::size_t bytes = 0;
    auto collapsed = view_of(*seed, ex::ViewKind::collapsed);
    double t_collapsed = render_ms(collapsed, bytes);
    std::printf("%-26s %7zu %7zu %7zu %10.1f %8.0f\n", "collapsed", collapsed.nodes.size(), collapsed.edges.size(),
                collapsed.clusters.size(), bytes / 1e3, t_collapsed);
    auto groups3 = view_of(*seed, ex::ViewKind::groups, std::vector<std::int64_t>{3});
    double t_groups3 = render_ms(groups3, bytes);
    std::printf("%-26s %7zu %7zu %7zu %10.1f %8.0f\n", "groups, layer 3", groups3.nodes.size(), groups3.edges.size(),
                groups3.clusters.size(), bytes / 1e3, t_groups3);
    auto groups = view_of(*seed, ex::ViewKind::groups);
    double t_groups = render_ms(groups, bytes);
    std::printf("%-26s %7zu %7zu %7zu %10.1f %8.0f\n", "groups", groups.nodes.size(), groups.edges.size(),
                groups.clusters.size(), bytes / 1e3, t_groups);
    double t_flat = 0;
    for (std::int64_t last : {4, 9, 19, 29, 44}) {
        if (last >= static_cast<std::int64_t>(seed->layers.size())) break;
        std::vector<std::int64_t> cut;
        for (std::int64_t l = 0; l <= last; ++l) cut.push_back(l);
        bool all = last + 1 == static_cast<std::int64_t>(seed->layers.size());
        auto v = all ? view_of(*seed, ex::ViewKind::flat) : view_of(*seed, ex::ViewKind::flat, cut);
        double t = render_ms(v, bytes);
        std::string name = all ? "flat (whole plan)" : "flat, layers 0-" + std::to_string(last);
        std::printf("%-26s %7zu %7zu %7zu %10.1f %8.0f\n", name.c_str(), v.nodes.size(), v.edges.size(), v.clusters.size(),
                    bytes / 1e3, t);
        if (all) t_flat = t;
    }
    if (t_flat > 0) std::printf("\nratio flat / collapsed render: %.1f\n", t_flat / t_collapsed);
    return 0;
}
