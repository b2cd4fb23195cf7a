// Rendering: build the same cgraph graph `kbp export dot` writes, lay it out with dot, render
// it in memory (gvRenderData), then free the layout and the graph (the context stays).
// Graphviz reports problems through agerr; they are collected and returned with a failure
// instead of being printed.
#include "exporters/render.hpp"

#include <graphviz/gvc.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

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
#endif

namespace kbp::exporters {

using detail::ErrorCapture;

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
                   " (on 2 cores; growing with the square of the nodes). --view collapsed, --view groups, "
                   "--layers 3-7 or --block dsa draw a readable piece in well under a second";
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
