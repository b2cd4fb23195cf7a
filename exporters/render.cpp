// Rendering: build the same cgraph graph `kbp export dot` writes, lay it out with dot, render
// it in memory (gvRenderData), then free the layout and the graph (the context stays).
// Graphviz reports problems through agerr; they are collected and returned with a failure
// instead of being printed.
#include "exporters/render.hpp"

#include <graphviz/gvc.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>
#include <utility>
#include <vector>

#include "exporters/cgraph_build.hpp"
#include "exporters/text.hpp"
#include "schema/temp_cleanup.hpp"

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

// A file of `content` in the temporary folder, named for this process and a count, so that no
// two renders of one process share a name: Graphviz keeps the images it loaded by file name.
// Removed when it goes (or by a signal handler before).
class TempImage {
public:
    static Result<TempImage> write(std::string_view content, std::string_view extension) {
        static std::atomic<unsigned> count{0};
        std::error_code ec;
        const auto folder = std::filesystem::temp_directory_path(ec);
        if (ec) return make_error(ErrorCode::output, "", "no temporary folder for the image: " + ec.message());
        for (int attempt = 0; attempt < 16; ++attempt) {
            TempImage t;
            t.path_ = (folder / ("kbp-chart-" + std::to_string(::getpid()) + "-" + std::to_string(count++) + std::string(extension))).string();
            int fd = -1;
            {
                SignalsHeld held;
                fd = ::open(t.path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
                if (fd >= 0) t.slot_ = register_temp_file(t.path_.c_str());
            }
            if (fd < 0) {
                if (errno == EEXIST) continue;
                return make_error(ErrorCode::output, t.path_, std::string("cannot create the chart's temporary image: ") + std::strerror(errno));
            }
            t.owned_ = true;
            std::size_t done = 0;
            while (done < content.size()) {
                ssize_t n = ::write(fd, content.data() + done, content.size() - done);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) {
                    ::close(fd);
                    return make_error(ErrorCode::output, t.path_, std::string("cannot write the chart's temporary image: ") + std::strerror(errno));
                }
                done += static_cast<std::size_t>(n);
            }
            if (::close(fd) != 0) return make_error(ErrorCode::output, t.path_, std::string("cannot write the chart's temporary image: ") + std::strerror(errno));
            return t;
        }
        return make_error(ErrorCode::output, "", "no free temporary file name for the chart's image");
    }
    TempImage(TempImage&& o) noexcept : path_(std::move(o.path_)), slot_(o.slot_), owned_(std::exchange(o.owned_, false)) {}
    TempImage& operator=(TempImage&&) = delete;
    ~TempImage() {
        if (!owned_) return;
        SignalsHeld held;
        ::unlink(path_.c_str());
        forget_temp_file(slot_);
    }
    const std::string& path() const { return path_; }

private:
    TempImage() = default;
    std::string path_;
    int slot_ = -1;
    bool owned_ = false;
};

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

Result<std::string> svg_to_png(const std::string& svg) {
    static const std::regex size(R"re(^<svg[^>]* width="([0-9.]+)" height="([0-9.]+)")re");
    std::smatch m;
    if (!std::regex_search(svg, m, size)) return make_error(ErrorCode::internal, "", "the chart's SVG names no width and height");
    const double width = std::stod(m[1].str()), height = std::stod(m[2].str());
    // Graphviz tells an SVG image by its XML declaration.
    auto file = TempImage::write(svg.rfind("<?xml", 0) == 0 ? svg : "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg, ".svg");
    if (!file) return file.error();

    ErrorCapture errors;
    GVC_t* gvc = detail::graphviz_context();
    if (!gvc) return make_error(ErrorCode::unsupported, "", "Graphviz: cannot create a context");
    detail::CGraph graph("chart");
    // One node the picture's size (inches at the 96 px an inch Graphviz renders bitmaps at), no
    // pad or margin around it, the image filling it.
    graph.set(graph.root(), graph.declare(AGRAPH, "pad", ""), "0");
    graph.set(graph.root(), graph.declare(AGRAPH, "margin", ""), "0");
    Agnode_t* node = graph.node(graph.root(), "chart");
    auto inches = [](double px) { return std::to_string(px / 96.0); };
    const std::pair<const char*, std::string> attributes[] = {{"shape", "none"},       {"label", ""},           {"margin", "0"},
                                                              {"fixedsize", "true"},   {"width", inches(width)}, {"height", inches(height)},
                                                              {"imagescale", "true"},  {"image", file->path()}};
    for (const auto& [name, value] : attributes) graph.set(node, graph.declare(AGNODE, name, ""), value);
    if (gvLayout(gvc, graph.root(), "dot") != 0) {
        std::string why = errors.text();
        return make_error(ErrorCode::unsupported, "", "Graphviz could not place the chart" + (why.empty() ? "" : ": " + why));
    }
    char* data = nullptr;
    unsigned int length = 0;
    int rc = gvRenderData(gvc, graph.root(), "png:cairo", &data, &length);
    std::string image;
    if (rc == 0 && data) image.assign(data, length);
    if (data) gvFreeRenderData(data);
    gvFreeLayout(gvc, graph.root());
    // Without an SVG loader Graphviz warns and draws an empty picture: refused, not written.
    const std::string why = errors.text();
    if (rc != 0 || image.empty() || !why.empty())
        return make_error(ErrorCode::unsupported, "",
                          "Graphviz could not draw the chart as PNG" + (why.empty() ? std::string() : ": " + why) +
                              " (its rsvg plugin draws SVG images; -o OUT.svg needs none)");
    return image;
}

}  // namespace kbp::exporters
