// A view as JSON, for scripts (`kbp export json`): the same nodes, clusters and edges a picture
// of the view would draw, with the blueprint fields behind them, in plan order.
//
// Format "kbp-view/v1":
//   {format, view, filter {layers, block}, plan {blueprint_id, arm, layers, nodes, edges, groups},
//    clusters [{name, kind, parent, ...}], nodes [{name, kind, cluster, ...}],
//    edges [{from, to, role, tensor, format, bytes_per_token, readers, fused, requant, ...}]}
// Cluster and node names are the DOT names (see view.hpp); `parent` and `cluster` refer to
// cluster names, `from` and `to` to node names; null where there is none.
#pragma once

#include <string>

#include "exporters/view.hpp"
#include "schema/result.hpp"

namespace kbp::exporters {

// Pretty-printed JSON ending in a newline; the same view gives the same bytes.
Result<std::string> export_view_json(const View& view);

}  // namespace kbp::exporters
