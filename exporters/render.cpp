// Rendering: build the same cgraph graph `kbp export dot` writes, lay it out with dot, render
// it in memory (gvRenderData), then free the layout and the graph (the context stays).
// Graphviz reports problems through agerr; they are collected and returned with a failure
// instead of being printed.
#include "exporters/render.hpp"

#include <graphviz/gvc.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "exporters/cgraph_build.hpp"
#include "exporters/text.hpp"

// Graphviz keeps some caches (fonts, plugin tables) for the life of the process; under
// LeakSanitizer they would fail every run that renders. Only Graphviz's and its renderers'
// libraries are named.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libgvc.so\nleak:libcgraph.so\nleak:libgvplugin\nleak:libcairo.so\nleak:libpango\n"
           "leak:libfontconfig.so\nleak:libglib\nleak:libgobject\nleak:libharfbuzz\nleak:libpixman\n";
}
// ... and say nothing of them: a suppressed leak must not add lines to a command's stderr, which
// the tests read line by line.
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
#endif

namespace kbp::exporters {

using detail::ErrorCapture;

namespace {

struct PixelSize {
    std::int64_t width = 0, height = 0;
};

// The PNG a laid-out graph makes: its bounding box plus the pad on each side, in points, at the
// 96 dpi Graphviz renders bitmaps at.
PixelSize png_size(Agraph_t* g) {
    constexpr double bitmap_dpi = 96, points_per_inch = 72;
    double pad = points_per_inch * 0.2;  // dot.cpp's pad="0.2" (inches)
    if (const char* p = agget(g, const_cast<char*>("pad")); p && *p) pad = points_per_inch * std::atof(p);
    boxf bb = GD_bb(g);
    auto pixels = [&](double points) { return static_cast<std::int64_t>(std::ceil((points + 2 * pad) * bitmap_dpi / points_per_inch)); };
    return {pixels(bb.UR.x - bb.LL.x), pixels(bb.UR.y - bb.LL.y)};
}

}  // namespace

std::optional<ImageFormat> parse_image_format(std::string_view text) {
    if (text == "svg") return ImageFormat::svg;
    if (text == "png") return ImageFormat::png;
    return std::nullopt;
}

std::optional<ImageFormat> image_format_for_path(std::string_view path) {
    auto dot = path.rfind('.');
    if (dot == std::string_view::npos) return std::nullopt;
    std::string ext(path.substr(dot + 1));
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return parse_image_format(ext);
}

std::string smaller_pictures(const View& view) {
    std::vector<std::string> options;
    if (view.kind != ViewKind::collapsed) options.push_back("--view collapsed");
    if (view.kind == ViewKind::flat) options.push_back("--view groups");
    const schema::Blueprint* plan = view.plan;
    std::size_t layers = plan ? plan->layers.size() : 0;
    if (layers > 1 && (!view.options.layers || view.options.layers->size() > 1))
        options.push_back(layers > 7 ? "--layers 3-7" : "--layers 0");
    // A block type this plan has (GLM's "dsa" is no use for a Llama plan, whose blocks are
    // "attn" and "mlp"): the first of its first layer's, as "l0.attn" -> "attn".
    if (view.options.block.empty() && plan && !plan->layers.empty() && !plan->layers.front().blocks.empty()) {
        const std::string& block = plan->layers.front().blocks.front();
        auto dot = block.find('.');
        options.push_back("--block " + (dot == std::string::npos ? block : block.substr(dot + 1)));
    }
    std::string out;
    for (std::size_t i = 0; i < options.size(); ++i) out += (i == 0 ? "" : i + 1 == options.size() ? " or " : ", ") + options[i];
    return out;
}

RenderEstimate estimate_render(const View& view, const RenderOptions& options) {
    RenderEstimate e;
    e.nodes = view.nodes.size();
    e.edges = view.edges.size();
    e.clusters = view.clusters.size();
    double n = static_cast<double>(e.nodes);
    e.seconds = 2.2e-6 * n * n;  // fitted to the measurements in render.hpp
    e.slow = e.nodes > options.warn_nodes;
    e.too_large = e.nodes > options.max_nodes;
    if (e.slow) {
        char when[64];
        if (e.seconds < 120) std::snprintf(when, sizeof when, "about %.0f s", e.seconds);
        else if (e.seconds < 7200) std::snprintf(when, sizeof when, "about %.0f minutes", e.seconds / 60);
        else std::snprintf(when, sizeof when, "about %.0f hours", e.seconds / 3600);
        e.advice = "the " + std::string(view_kind_name(view.kind)) + " view has " +
                   grouped(static_cast<std::int64_t>(e.nodes)) + " nodes and " +
                   grouped(static_cast<std::int64_t>(e.edges)) + " edges; laying it out takes " + when +
                   " (on 2 cores; growing with the square of the nodes). " + smaller_pictures(view) +
                   " draw a readable piece in well under a second";
    }
    return e;
}

Result<std::string> render_view(const View& view, const DotOptions& dot, const RenderOptions& options) {
    auto estimate = estimate_render(view, options);
    if (estimate.too_large && !options.force)
        return make_error(ErrorCode::unsupported, "", estimate.advice + "; --force lays it out anyway");

    ErrorCapture errors;
    GVC_t* gvc = detail::graphviz_context();
    if (!gvc) return make_error(ErrorCode::unsupported, "", "Graphviz: cannot create a context");
    auto graph = detail::make_graph(view, dot);
    if (gvLayout(gvc, graph->root(), "dot") != 0) {
        std::string why = errors.text();
        return make_error(ErrorCode::unsupported, "", "Graphviz could not lay out the graph" + (why.empty() ? "" : ": " + why));
    }
    if (options.format == ImageFormat::png) {
        // cairo's bitmaps stop at 32,767 px a side; past that Graphviz would shrink the picture to
        // fit and warn, giving an unreadable sliver. Refuse instead, before rendering.
        auto size = png_size(graph->root());
        if (size.width > max_png_side || size.height > max_png_side) {
            gvFreeLayout(gvc, graph->root());
            return make_error(ErrorCode::unsupported, "",
                              "the picture would be " + grouped(size.width) + " × " + grouped(size.height) +
                                  " px, past the " + grouped(max_png_side) + " px a PNG side can have; " +
                                  smaller_pictures(view) + " draw less, or SVG output (-o OUT.svg) has no such limit");
        }
    }
    const char* format = options.format == ImageFormat::svg ? "svg" : "png:cairo";
    char* data = nullptr;
    unsigned int length = 0;
    int rc = gvRenderData(gvc, graph->root(), format, &data, &length);
    std::string image;
    if (rc == 0 && data) image.assign(data, length);
    if (data) gvFreeRenderData(data);
    gvFreeLayout(gvc, graph->root());
    graph.reset();
    if (rc != 0 || image.empty()) {
        std::string why = errors.text();
        return make_error(ErrorCode::unsupported, "",
                          std::string("Graphviz could not render ") + format + (why.empty() ? "" : ": " + why));
    }
    return image;
}

}  // namespace kbp::exporters
