// A kbp tune frontier ("kbp-frontier/v1": tune::frontier_json; schema/kbp-frontier-v1.schema.json)
// read back and drawn as a chart (chart_svg.hpp): the budget's measure across, tokens/s up (or
// the objective, when it is memory or sensitivity); every Pareto point a dot, joined as the step
// line of the best objective any budget up to that point buys; the uniform base recipe, the
// chosen point and the bits-only allocation kbp tune compares it with marked and labelled with
// their figures; the budget a dashed line, the side past it shaded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schema/result.hpp"

namespace kbp::exporters {

// tune::Measure's names, as the file spells them: the budget's kind and the objective.
enum class FrontierMeasure : std::uint8_t { time, memory, effective_bits, sensitivity, tokens_s };

struct FrontierPoint {
    double time_us = 0, tokens_s = 0, memory_bytes = 0, effective_bits = 0, sensitivity = 0;
};

struct Frontier {
    std::string budget;  // as kbp tune was given it: "sensitivity=6", "memory=40GB"
    FrontierMeasure budget_kind = FrontierMeasure::memory;
    double limit = 0;  // the budget's value: bytes, bits per weight, a score, tokens/s
    FrontierMeasure objective = FrontierMeasure::time;
    FrontierPoint base, chosen, planned;  // the base recipe's plan; the choice, estimated and planned
    // The bits-only allocation at the choice's effective bits (by score per bit alone), planned:
    // what kbp tune compares its choice with.
    std::optional<FrontierPoint> bits_only;
    std::vector<FrontierPoint> points;    // every Pareto point
};

// Reads a kbp-frontier/v1 file's text; `origin` names it in errors, one line each, invalid input:
// "FILE:LINE:COL: ..." for broken JSON, "FILE: /points/3/tokens_s: ..." for a wrong value,
// "FILE: /: this is a kbp plan (kbp-graph/v2), not a Pareto frontier ..." for another kind of file.
Result<Frontier> read_frontier(const std::string& text, const std::string& origin);

// The chart; `title` replaces the default heading (the subtitle still names the budget and
// the objective).
std::string frontier_chart_svg(const Frontier& frontier, const std::string& title = "");

}  // namespace kbp::exporters
