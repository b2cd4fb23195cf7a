// What a unit looks like before it is placed: each op's label lines and box size, the block and
// fused-group boxes around them with their titles, and the graph a layout engine places. Made
// once per unit from its first instance (every instance of a unit has the same shape).
#pragma once

#include <string>
#include <vector>

#include "exporters/layout_graph.hpp"
#include "viewer/model/document.hpp"
#include "viewer/model/text_metrics.hpp"

namespace kbp::viewer {

struct ShapeCluster {
    bool group = false;     // a fused group (else a block)
    std::string title;      // a block's name ("kda") or a group's rule; drawn after "g<id> "
    std::int64_t group_offset = 0;  // group clusters: the group, counted from the unit's first
    std::int32_t first_node = 0;    // a member (local index): its group is the cluster's
    std::int64_t launches = 0;      // blocks: the kernels its groups launch a step (a group in the block of its first op)
};

struct UnitShape {
    exporters::LayoutGraph graph;
    std::vector<ShapeCluster> clusters;           // parallel to graph.clusters
    std::vector<std::vector<std::string>> lines;  // per node: name, formats, state roles
};

// The label lines of a node: its local name, its formats ("nvfp4/g16 × bf16 → bf16") and, when it
// owns state, its state roles.
std::vector<std::string> node_lines(const schema::Node& n, const std::string& local);

UnitShape unit_shape(const Document& doc, std::size_t unit, const TextMetrics& metrics);

// A quick layered placement (ranks by longest path, nodes in plan order along each rank), shown
// at once while dot works off the UI thread.
exporters::GraphLayout quick_layout(const exporters::LayoutGraph& graph);

}  // namespace kbp::viewer
