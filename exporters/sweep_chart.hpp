// A cost sweep (`kbp stats --cost --sweep ... --json`, "kbp-sweep/v1") drawn as an SVG line
// chart: tokens/s over the swept axis (log2, as the points double), memory-bound points blue,
// compute-bound ones orange, and the range where weights and caches no longer fit the target's
// memory shaded red (chart_svg.hpp: SVG text, the same sweep gives the same bytes).
#pragma once

#include <string>

#include "schema/result.hpp"

namespace kbp::exporters {

// The chart of the sweep in `text`; `origin` names it in errors ("FILE: /points/2/tokens_per_s: ...").
Result<std::string> sweep_chart_svg(const std::string& text, const std::string& origin, const std::string& title = "");

}  // namespace kbp::exporters
