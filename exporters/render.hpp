// SVG and PNG of a view, laid out by Graphviz's dot engine and rendered through gvc (the
// library: no `dot` program is run). PNG comes from the cairo renderer.
//
// Layout time grows with the square of the graph. Measured on this project's 2-core machine
// (kbp-export-bench, SVG): the seed's collapsed view (116 ops) 56 ms; flat cuts of 373, 763 and
// 1,153 ops 0.36, 1.5 and 2.9 s; the whole flat view (1,740 ops, 2,504 labelled edges, 522
// clusters) 6.5 s; the groups view (909 groups) 1.7 s. That is about 2.2 µs × nodes²: ~9 s at
// 2,000 nodes, ~20 s at 3,000, about an hour for a 40,000-op plan. So a render estimates first:
// past `warn_nodes` it says it will take a while (and what is quicker); past `max_nodes` it
// refuses (exit 4) with that advice unless forced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "exporters/dot.hpp"
#include "exporters/view.hpp"
#include "schema/result.hpp"

namespace kbp::exporters {

enum class ImageFormat : std::uint8_t { svg, png };

std::optional<ImageFormat> parse_image_format(std::string_view text);  // "svg", "png"
// The format a file name asks for by its extension (".svg", ".png", any case).
std::optional<ImageFormat> image_format_for_path(std::string_view path);

// Past this many laid-out nodes a render says it will take a while (~2 s and more).
inline constexpr std::size_t default_warn_render_nodes = 1000;
// Past this many it is refused unless forced (~9 s and more, growing quadratically).
inline constexpr std::size_t default_max_render_nodes = 2000;

struct RenderOptions {
    ImageFormat format = ImageFormat::svg;
    bool force = false;
    std::size_t warn_nodes = default_warn_render_nodes;
    std::size_t max_nodes = default_max_render_nodes;
};

struct RenderEstimate {
    std::size_t nodes = 0;     // nodes dot lays out (ops, groups, stubs)
    std::size_t edges = 0;
    std::size_t clusters = 0;
    double seconds = 0;        // the layout time the measurements above predict
    bool slow = false;         // nodes > warn_nodes
    bool too_large = false;    // nodes > max_nodes
    std::string advice;        // when slow: how long, and what is quicker
};

RenderEstimate estimate_render(const View& view, const RenderOptions& options = {});

// The longest side of a PNG cairo can make. A PNG render lays the view out, and refuses
// (ErrorCode::unsupported) when the picture would be larger, rather than let Graphviz shrink it.
inline constexpr std::int64_t max_png_side = 32767;

// The options that draw less of `view`, as advice: "--view collapsed, --view groups, --layers 3-7
// or --block attn", naming only a block type the plan has.
std::string smaller_pictures(const View& view);

// The image's bytes. Refuses a view that is too large (ErrorCode::unsupported) unless forced, and
// a PNG past max_png_side whether forced or not.
// Not thread-safe (Graphviz is not): one render at a time per process.
Result<std::string> render_view(const View& view, const DotOptions& dot, const RenderOptions& options = {});

// A chart's SVG (chart_svg.hpp: its root names its width and height in px) as a PNG of that many
// pixels, by the route a plan's PNG takes: Graphviz draws the SVG as the image of a one-node
// graph through cairo, with its rsvg image loader. Graphviz reads an image by file name, so the
// SVG passes through a temporary file (removed before returning, or on a signal). Refuses
// (ErrorCode::unsupported) when this Graphviz cannot load SVG images (no libgvplugin_rsvg).
// Not thread-safe (Graphviz is not).
Result<std::string> svg_to_png(const std::string& svg);

}  // namespace kbp::exporters
