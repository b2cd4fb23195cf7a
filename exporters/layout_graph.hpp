// A small graph to lay out, and where a layered layout engine put its parts. The desktop viewer
// lays out each unit of a plan (a layer template, an expanded layer, "embed", "head") with this,
// through dot (dot_layout.hpp) or its own quick placement while dot works.
//
// Sizes and coordinates are points (1/72 inch), y growing downwards, the origin at the top left
// of the layout's bounding box.
#pragma once

#include <string>
#include <vector>

namespace kbp::exporters {

struct LayoutPoint {
    float x = 0, y = 0;
};

struct LayoutRect {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct LayoutGraph {
    struct Node {
        float width = 0, height = 0;
        int cluster = -1;  // innermost cluster, -1 = none
    };
    struct Cluster {
        int parent = -1;           // -1 = the graph; a parent comes before its children
        float title_height = 0;    // room kept at the top for the cluster's title
    };
    struct Edge {
        int from = 0, to = 0;
    };
    std::vector<Node> nodes;
    std::vector<Cluster> clusters;
    std::vector<Edge> edges;
    float node_gap = 14;  // between nodes of one rank
    float rank_gap = 22;  // between ranks
};

struct GraphLayout {
    float width = 0, height = 0;
    std::vector<LayoutRect> nodes;                  // per node
    std::vector<LayoutRect> clusters;               // per cluster
    std::vector<std::vector<LayoutPoint>> edges;    // per edge: a polyline from tail to head
    std::vector<bool> edge_arrow;                   // per edge: the last segment ends in an arrowhead
    std::string engine;                             // "dot", "quick"
};

}  // namespace kbp::exporters
