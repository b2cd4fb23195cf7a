// A LayoutGraph laid out by Graphviz's dot engine through gvc (no `dot` program is run): nodes of
// fixed sizes, clusters with room for their titles, edges as splines flattened to polylines.
//
// Graphviz is not thread-safe: lay out from one thread at a time per process (the viewer runs
// every layout on its one layout thread).
#pragma once

#include "exporters/layout_graph.hpp"
#include "schema/result.hpp"

namespace kbp::exporters {

Result<GraphLayout> dot_layout(const LayoutGraph& graph);

}  // namespace kbp::exporters
