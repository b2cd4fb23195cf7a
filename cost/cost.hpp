// A roofline cost of a plan on its target: per kernel group and per step, the weight bytes
// read (for MoE only the experts the step's rows route to, plus the shared expert), the
// activation bytes that cross between kernels, the state bytes (KV / latent cache at a
// context length, recurrent and conv state), the FLOPs, and a time: the larger of bytes over
// memory bandwidth and FLOPs over the peak of the format, plus a launch overhead. Summed over
// groups (kernels run one after another) it gives the step time and the implied tokens/s.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cost/tp_cost.hpp"
#include "schema/blueprint.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

class Catalog;

// Where the roofline loses time on a target, fitted on published measurements (`kbp
// calibrate`, planner/data/calibrations/<target>.json): memory-bound kernels reach
// `bandwidth_efficiency` of the datasheet's bandwidth, and every step costs `step_overhead_us`
// beyond its kernels and launches. Some kernel families stream weights worse or better than the
// rest (a batch-1 FP8 GEMV with per-token scales against llama.cpp's quantized GEMV on GB10):
// where the fit found such a family, its kernels reach `family_efficiency[family]` instead.
// Where the rows' fixed cost grows with their kernel count rather than per step (a CUDA graph
// replays every launch; a host loop pays each), the fit gives the launch cost per kernel,
// `launch_overhead_us`, in place of the target's own figure, and no step overhead.
struct Calibration {
    double bandwidth_efficiency = 1.0;
    double step_overhead_us = 0.0;
    std::string origin;  // how it was fitted ("" for figures given by hand)
    std::map<std::string, double> family_efficiency;
    std::optional<double> launch_overhead_us;  // per kernel launch, instead of the target's
    // The tensor-parallel degrees of the rows it was fitted on (empty: not recorded). A plan on
    // another split is priced by figures that carry what those splits cost (their sync, their
    // smaller kernels) beyond the all-reduces kbp prices: said beside the cost.
    std::vector<std::int64_t> fitted_tp;
    // What one collective (an all-reduce, the logits' gather) costs beyond moving its bytes, in
    // place of the interconnect's latency_us: fitted where the fit rows split models over several
    // devices, since an engine's all-reduce at decode is a kernel of its own that every device
    // must reach before any goes on (a barrier: the slowest device's skew, the custom
    // all-reduce's two synchronizing flag exchanges), not only a hop's latency.
    std::optional<double> all_reduce_us;

    double efficiency_of(const std::string& family) const {
        auto it = family_efficiency.find(family);
        return it == family_efficiency.end() ? bandwidth_efficiency : it->second;
    }
    bool is_bare() const {
        return bandwidth_efficiency == 1.0 && step_overhead_us == 0.0 && family_efficiency.empty() && !launch_overhead_us && !all_reduce_us;
    }
};

// The fixed costs a calibration charges, as `kbp stats --cost` and `kbp calibrate` print them:
// "5.74 us per kernel launch, 11.50 us per all-reduce" or "+2503.0 us per step".
std::string calibration_fixed_costs(const Calibration& c);

// "" when `c` was fitted on rows split over `tp` devices (or does not say how its rows were
// split); else why its figures may not fit a plan on `tp` devices.
std::string calibration_split_caveat(const Calibration& c, std::int64_t tp);

struct CostOptions {
    std::int64_t context = 4096;          // tokens already in each sequence's cache
    std::optional<std::string> target;    // default: the plan's provenance names it
    std::optional<std::string> catalog_dir;  // read by the overload without a catalog
    // The digest the target file must have: the plan's own target, as its provenance records it
    // (a target of the same name with other figures would price another device).
    std::optional<std::string> target_sha256;
    // Instead of the target's calibration file (kbp calibrate tries candidates; {1, 0} is the
    // bare roofline).
    std::optional<Calibration> calibration;
    // The calibration fitted on one engine's rows (calibrations/<target>.<engine>.json) instead of
    // the target's pooled one; an engine without one on the target is an error.
    std::optional<std::string> engine;
};

struct GroupCost {
    std::int64_t group = 0;
    std::string rule;
    double weight_bytes = 0, activation_bytes = 0, state_bytes = 0, flops = 0;
    double time_us = 0;
    std::string bound;  // "memory", "compute", "launch", "host"
    // What the calibration prices (price_step): the main kernel family, and the group's times at
    // the datasheet's bandwidth and peak; a host group's time is its memory time alone.
    std::string family;
    double memory_us = 0, compute_us = 0;
    bool on_host = false;
    std::int64_t launches = 0;  // the kernels it launches (schema::launches_of), each paying a launch; the step's total in CostReport::total
};

struct CostReport {
    std::string target;
    std::string mode;
    std::int64_t rows = 1, context = 0;
    double bandwidth_gbps = 0;
    double compute_tops = 0;                  // a GPNPU's PE array (0: a GPU, costed per format)
    std::optional<std::int64_t> ocm_bytes;    // a GPNPU's on-chip memory
    std::int64_t reserved_bytes = 0;          // persistent state the plan reserves (KV cache)
    std::int64_t largest_live_bytes = 0;      // activations live at once, at their peak
    std::string largest_live_at;
    bool activations_on_chip = false;         // they fit the OCM: not charged to DDR
    double memory_bytes = 0;                  // the target's memory (0: not given)
    double stored_weight_bytes = 0;           // every weight of the model, all experts, a tied LM head's table once
    // A tied LM head's weight when it reads the embedding's own storage (memory.hpp): in
    // stored_weight_bytes once, as the table, and in the step's weights read twice (the gather's
    // one row, the head's whole table).
    double tied_head_bytes = 0;
    double resident_state_bytes = 0;          // what the caches hold at the context length
    double activation_memory_bytes = 0;       // activations live at once, when they are held in the target's memory
    double headroom_bytes = 0;                // memory - weights - caches - activations (negative: short)
    // The largest context (tokens per sequence, at the arm's rows) whose caches fit beside the
    // weights and activations; 0 when even an empty cache does not fit, nullopt when the caches
    // do not limit it (they stop growing) or the target gives no memory. Capped by the model's
    // max_position_embeddings (as the plan's config_fields record it): no engine runs a longer
    // context, whatever memory would hold (memory_context_tokens).
    std::optional<std::int64_t> max_context_tokens;
    std::optional<std::int64_t> memory_context_tokens;     // what memory alone would hold
    std::optional<std::int64_t> max_position_embeddings;  // the cap, when the plan records it
    // Costed on another target than the plan was made for: the figure ignores whether that
    // target's kernels exist (cost.cpp says why this is a label, not a refusal).
    bool what_if = false;
    std::string what_if_reason;
    std::vector<GroupCost> groups;
    GroupCost total;
    double tokens_per_s = 0;
    TpCost communication;  // --tp N: the step's all-reduces, included in total.time_us
    std::vector<std::pair<std::string, double>> time_by_family;  // us per step, largest first
    std::vector<std::string> notes;  // what the estimate leaves out (state a plan's symbols cannot size)
    std::optional<Calibration> calibration;  // applied, when the target has one (or options gave one)
    double target_launch_us = 3.0;  // the target's own launch figure, which a calibration may replace
};

// With a catalog loaded once (a Planner's: its plans' fit checks): options.catalog_dir is not read.
Result<CostReport> estimate_cost(const Catalog& catalog, const schema::Blueprint& plan, const CostOptions& options);
// With a catalog of its own, loaded from options.catalog_dir (`kbp stats --cost`: one estimate).
Result<CostReport> estimate_cost(const schema::Blueprint& plan, const CostOptions& options);
// The step time of `report` under `calibration`: the sum estimate_cost makes, over the bytes and
// FLOPs it already summed per group, without walking the plan again (kbp calibrate tries some
// 160 candidates on every row: re-costing each plan would make a fit of the shipped rows take
// minutes under a sanitizer).
double step_time_us(const CostReport& report, const Calibration& calibration);
std::string cost_text(const CostReport& report, std::size_t top_groups = 12);
std::string cost_json(const CostReport& report);
// "needs 141.2 GB (weights 141.1 GB + state 0.5 GB at 4096 tokens x 1 rows + activations 0.1 GB)
// of 85.9 GB: short by 55.3 GB; it does not fit at any context" (stats' memory line and `kbp plan`'s warning).
std::string memory_fit_text(const CostReport& report);
// The warning kbp gives beside a plan that does not fit its target's memory (every weight, the
// caches at the default context, the activations live at once), naming the target's file and
// how many devices the weights alone need; nullopt when it fits, or when the plan cannot be
// costed. `config_path` names the model ("llama-3.3-70b", its folder).
std::optional<std::string> memory_fit_warning(const Catalog& catalog, const schema::Blueprint& plan, const std::string& config_path);
// "  WHAT-IF: <reason>\n" under a cost's or a sweep's heading; "" when `reason` is empty (the
// plan's own target).
std::string what_if_line(const std::string& reason);

}  // namespace kbp::planner
