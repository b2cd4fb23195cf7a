// A cost sweep (`kbp stats --cost --sweep ... --json`, "kbp-sweep/v1") drawn as an SVG line
// chart: tokens/s over the swept axis (log2, as the points double), memory-bound points blue,
// compute-bound ones orange, and the range where weights and caches no longer fit the target's
// memory shaded red. Written directly as SVG text (no Graphviz: there is nothing to lay out), with
// fixed decimals, so the same sweep gives the same bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "schema/result.hpp"

namespace kbp::exporters {

// True when `text` (a file's first sweep_head_bytes bytes are enough) looks like a sweep
// ({"schema": "kbp-sweep/v1", ...}) rather than a plan.
inline constexpr std::size_t sweep_head_bytes = 256;
bool is_sweep_json(std::string_view text);

// The chart of the sweep in `text`; `origin` names it in errors ("FILE: /points/2/tokens_per_s: ...").
Result<std::string> sweep_chart_svg(const std::string& text, const std::string& origin, const std::string& title = "");

}  // namespace kbp::exporters
