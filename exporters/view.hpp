// What a picture of a blueprint shows: the view model every exporter draws from.
//
// A view is a graph of ViewNodes inside nested ViewClusters, joined by ViewEdges, all in plan
// order so that the same plan and options always give the same output:
//   flat       every op; clusters layer → block → fused group (a group of two or more ops is
//              drawn as a box around them); one edge per blueprint edge.
//   groups     one node per fused kernel group (its rule, kernels and member ops); clusters
//              layer → block; one edge per tensor crossing between two groups (fused edges stay
//              inside the box); bytes per token add up over the tensor's readers in the group.
//   collapsed  one cluster per layer template ("kda+moe × 31") with its blocks and groups, one
//              node per template op (shown with its first instance's fields), the template's
//              edges, and the port edges between consecutive templates of the layout: for each
//              pair of templates that follow each other (itself included), one edge from the out
//              port to each fused group of in ports (the seed's three in ports share a group,
//              so one edge per pair), labelled with how many layer boundaries it stands for.
// --layers and --block cut a piece out: a flat or groups view keeps the ops (or groups) of the
// chosen layers / blocks and draws each outside node an edge reaches as a small stub, so the
// cut shows where its inputs come from and where its outputs go. A block type (--block dsa)
// names every block of that type, and identical ones (the same ops, formats, kernels, fused
// rules and tensors) are drawn once, their cluster saying how many it stands for ("l3.dsa × 11,
// layers 3, 7, ..."): the seed's eleven DSA blocks are one picture, not eleven side by side.
//
// Names are stable and never pointers: an op is named by its blueprint id ("l3.dsa.q_a"), a
// group by "g" + its id ("g52"), a template op by "<template>/<local id>" ("kda+moe/kda.q");
// clusters by "cluster_" + what they hold ("cluster_l3", "cluster_l3.dsa", "cluster_g52",
// "cluster_t:kda+moe", "cluster_t:kda+moe/kda", "cluster_t:kda+moe/g4").
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/blueprint.hpp"
#include "schema/result.hpp"

namespace kbp::exporters {

enum class ViewKind : std::uint8_t { flat, groups, collapsed };

std::optional<ViewKind> parse_view_kind(std::string_view text);
std::string_view view_kind_name(ViewKind kind);

struct ViewOptions {
    ViewKind kind = ViewKind::flat;
    std::optional<std::vector<std::int64_t>> layers{};  // ascending layer indices; nullopt = all
    std::string block{};  // a block type ("dsa") or a block id ("l3.dsa", "embed"); "" = all
};

// "3", "3-7", "0-2,7,9-11": ascending, without repeats, each within [0, layer_count).
Result<std::vector<std::int64_t>> parse_layer_list(std::string_view text, std::int64_t layer_count);

// A blueprint written in collapsed form only gets its flat lists from the templates; every
// other blueprint is left as it is. Views read the flat lists.
Status ensure_flat(schema::Blueprint& b);

enum class ClusterKind : std::uint8_t { layer, block, group, layer_template };

struct ViewCluster {
    std::string name;  // the DOT subgraph name, always starting with "cluster"
    ClusterKind kind = ClusterKind::layer;
    int parent = -1;   // index into View::clusters, -1 = the graph itself
    std::optional<std::int64_t> layer;        // layer clusters (and what they hold)
    std::string block;                        // block clusters: "l3.dsa", or "kda" inside a template
    const schema::Group* group = nullptr;     // group clusters (collapsed: the first instance's)
    std::int64_t group_id = -1;               // the group's id (collapsed: local to the template)
    const schema::Template* layer_template = nullptr;  // template clusters
    std::string placement;                    // template clusters: "prologue", "layers", "epilogue"
    std::vector<std::int64_t> instances;      // template clusters: the layers it serves
    int depth = 0;                            // 0 for a top-level cluster
};

enum class ViewNodeKind : std::uint8_t { op, group, stub };

struct ViewNode {
    std::string name;  // the DOT node name (see above)
    ViewNodeKind kind = ViewNodeKind::op;
    int cluster = -1;  // the innermost cluster holding it, -1 = none
    // op: the blueprint node (collapsed: the first instance's); stub in a flat view: the node
    // outside the cut.
    const schema::Node* op = nullptr;
    // group: the group; stub in a groups view: the group outside the cut.
    const schema::Group* group = nullptr;
    std::string local;     // a short name for labels: "q_a", "kda.q", "g52"
    bool incoming = true;  // stub: feeds the cut (true) or reads from it (false)
};

enum class EdgeRole : std::uint8_t { data, port };

struct ViewEdge {
    int from = 0, to = 0;  // indices into View::nodes
    EdgeRole role = EdgeRole::data;
    const schema::Edge* edge = nullptr;  // the (first) blueprint edge it draws
    schema::Format format;
    std::optional<std::int64_t> bytes_per_token;  // summed over `readers`
    int readers = 1;          // blueprint edges drawn as this one (groups view: one per reader op)
    bool fused = false;       // the tensor never leaves its kernel
    std::int64_t transitions = 0;  // port edges: how many layer boundaries it stands for
    // Port edges: the in-port ops it feeds (`to` is the first); when they share a fused group,
    // one edge stands for all of them and ends at the group's box (head_cluster).
    std::vector<int> in_ports;
    int head_cluster = -1;
};

struct View {
    ViewKind kind = ViewKind::flat;
    const schema::Blueprint* plan = nullptr;
    ViewOptions options;
    std::vector<ViewCluster> clusters;  // a parent always comes before its children
    std::vector<ViewNode> nodes;
    std::vector<ViewEdge> edges;
    std::shared_ptr<const schema::Collapsed> collapsed;  // the templates a collapsed view shows
    // --block TYPE in a flat or groups view: each drawn block id -> the layers of the identical
    // blocks it stands for, its own first (absent: a block that stands for itself only).
    std::map<std::string, std::vector<std::int64_t>> alike;

    // What the cut shows, for titles: "layers 3-7, block dsa" or "".
    std::string filter_text() const;
    // Counts of the view's parts.
    std::size_t count_nodes(ViewNodeKind kind) const;
    // Innermost cluster holding both clusters a and b (-1 = the graph).
    int common_cluster(int a, int b) const;
};

// Builds the view of `b` (its flat lists must be present: see ensure_flat). The view points
// into `b`, which must outlive it. Fails with a usage error when the cut selects nothing.
Result<View> build_view(const schema::Blueprint& b, const ViewOptions& options);

}  // namespace kbp::exporters
