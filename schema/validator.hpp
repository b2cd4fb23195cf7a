// The invariants of kbp-graph/v2, each failure reported with a JSON pointer.
//
// Checked: schema name; layer indices, blocks and templates; node `order` = index and unique
// ids; group ids = index, every node in exactly one group, group nodes contiguous and in
// order, a node's group, `where` and kernel agree with its group; edges reference existing
// nodes, run forward, are ordered by producer, `fused` exactly when both ends share a group;
// an edge's format is one its producer writes; `bytes_per_token` follows format, dim_value
// and row space (bytes.hpp) and is null only inside a kernel; `requant` only where the format
// changes and on the right side; symbolic dims agree with `symbols` when present; collapsed
// templates expand back to the flat lists; `explain` covers every family and format used.
#pragma once

#include "schema/blueprint.hpp"
#include "schema/diagnostic.hpp"

namespace kbp::schema {

struct ValidateOptions {
    std::size_t max_problems = 10000;  // beyond this only the count grows
};

Diagnostics validate(const Blueprint& b, const ValidateOptions& options = {});

}  // namespace kbp::schema
