// A plan's cost along one axis: `kbp stats --cost --sweep context=1k..128k` (the cache grows) or
// `--sweep rows=1..128` (more tokens per step), so a user sees where a plan turns compute-bound
// and where its caches stop fitting. The rows axis re-costs the plan's own kernels at other row
// counts (a what-if: `kbp plan --rows N` would choose kernels for N).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost/cost.hpp"

namespace kbp::planner {

enum class SweepAxis { context, rows };

struct SweepSpec {
    SweepAxis axis = SweepAxis::context;
    std::vector<std::int64_t> values;  // ascending
};

// "context=1k..128k" (doubling from the first to the last; k = 1024), "rows=1..128", or a list
// "context=1024,8192,32768". An error says what was expected (a usage error).
Result<SweepSpec> parse_sweep(const std::string& text);

struct SweepPoint {
    std::int64_t value = 0;
    double tokens_per_s = 0;
    double step_us = 0;
    double compute_share = 0;  // of the step's time, in groups whose FLOPs outlast their bytes
    double memory_needed_bytes = 0;  // weights + caches at the point's context + activations held (as CostReport)
    bool fits = true;                // within the target's memory (always, when it gives none)
};

struct Sweep {
    std::string target;
    std::string mode;  // the plan's arm
    SweepSpec spec;
    std::int64_t rows = 1, context = 0;  // the fixed other axis
    double memory_bytes = 0;             // the target's (0: not given)
    // Costed on another target than the plan's (CostReport::what_if_reason); empty otherwise.
    std::string what_if_reason;
    // Its calibration fitted on other splits than the plan's (calibration_split_caveat); or empty.
    std::string calibration_caveat;
    std::vector<SweepPoint> points;
};

Result<Sweep> sweep_cost(const Catalog& catalog, const schema::Blueprint& plan, const CostOptions& options, const SweepSpec& spec);
// With a catalog of its own (options.catalog_dir).
Result<Sweep> sweep_cost(const schema::Blueprint& plan, const CostOptions& options, const SweepSpec& spec);

std::string sweep_text(const Sweep& sweep);
// {"schema": "kbp-sweep/v1", ...}: what `kbp render` draws as a line chart.
std::string sweep_json(const Sweep& sweep);

}  // namespace kbp::planner
