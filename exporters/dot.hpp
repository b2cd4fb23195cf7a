// Graphviz DOT of a view, built through cgraph (so Graphviz's own writer quotes every name and
// its own reader accepts the result).
//
// What the picture says, in every view:
//   ops are rounded boxes filled by --color; an inserted quantization point is a red hexagon,
//   an op owning state a blue cylinder (both also named in the legend);
//   a group of two or more fused ops sits in a dark-bordered box labelled with its fusion rule
//   and kernels (groups view: one table per group listing rule, kernels and member ops);
//   an edge that crosses kernels is solid, coloured by its format, labelled "format bytes/token",
//   and wider the more bytes it moves; an edge that stays inside its kernel is dashed grey;
//   a port edge between templates (collapsed view) is purple and says how many layer
//   boundaries it stands for;
//   the graph's label holds the title and the legend.
#pragma once

#include <string>

#include "exporters/palette.hpp"
#include "exporters/view.hpp"
#include "schema/result.hpp"

namespace kbp::exporters {

struct DotOptions {
    ColorBy color = ColorBy::precision;
    std::string title{};  // the legend's first line; "" = none
    bool legend = true;
};

// The DOT text of `view` (deterministic: the same view and options give the same bytes).
Result<std::string> export_dot(const View& view, const DotOptions& options = {});

}  // namespace kbp::exporters
