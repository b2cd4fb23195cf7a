// Larger plans of the same make, for benchmarks and tests: a plan's layer templates (kbp's
// lossless collapse) laid over another layout. The exporters' and the viewer's benchmarks and
// the tests' large-plan cases all build their synthetic plans here, so they measure one thing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "schema/blueprint.hpp"
#include "schema/result.hpp"

namespace kbp::schema {

// `plan` over `layout` (one template name per layer): each layer copies the plan's first layer of
// that template, renumbered ("l7.dsa" blocks for layer 7). The result holds the collapsed form
// and, when `expand`, the flat nodes, edges and groups too (else it is collapsed-only).
Result<Blueprint> relayout(const Blueprint& plan, const std::vector<std::string>& layout, bool expand);

// The GLM-5.3-Flash pattern over `layers` layers: 0-2 kda+mlp, then dsa+moe on every layer whose
// index % 4 == 3 and kda+moe between (the seed's; 1,035 layers give 40,350 ops).
std::vector<std::string> glm_layout(std::size_t layers);

}  // namespace kbp::schema
