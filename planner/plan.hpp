// kbp plan: from a model's config.json, a precision recipe and a hardware target to a
// kbp-graph/v2 blueprint for one arm (decode, multi_seq, verify, draft, prefill).
//
// The catalog's data files are checked against their kinds' schemas as it loads
// (check_data.hpp), so the passes read them without type checks. The passes, each in its own
// file, run in this order:
//   resolve_inputs   config, architecture, recipe, target, settings, symbols, arm rows
//   expand_layers    prologue + one block per layer slot + epilogue, tensors wired
//   assign_precision recipe entries -> weight / activation formats of weighted ops
//   insert_smoothing SmoothQuant multiplies before the projections a recipe smooths (GPNPU)
//   insert_quant     act_quant nodes where a reader needs a quantized activation
//   choose_kernels   the kernel table row for every node at the arm's rows
//   form_groups      fusion rules over consecutive nodes; the rest are groups of one
//   fraction_bits    FixedPoint32 fractional bits and custom-op template arguments from ranges
//   describe_steps   each node's arithmetic as steps ("weight nvfp4/g16->bf16", "mma bf16*bf16")
//   check_budgets    memory a target reserves (the GPNPU's persistent KV cache) against its limit
//   build_blueprint  edges with dims and bytes, groups, collapsed form, explain, provenance
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "schema/blueprint.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

struct PlanRequest {
    std::string config_path;
    std::string arm = "decode";
    std::optional<std::int64_t> rows;
    std::optional<std::string> target;  // name or path; default: the config's, else the recipe's
    std::optional<std::string> recipe;  // name or path; default: the config's, else the architecture's
    std::optional<std::string> ranges;  // calibrated ranges (kbp-ranges/v1) for FixedPoint32 formats
    std::vector<std::pair<std::string, std::string>> settings;  // --set key=value
    std::optional<std::string> catalog_dir;
    std::string command;  // the command line, for provenance
};

struct PlanOutput {
    schema::Blueprint blueprint;
    std::vector<std::string> warnings;  // e.g. a recipe entry that matched nothing
};

Result<PlanOutput> make_plan(const PlanRequest& request);

// The decisions behind one node of the plan `request` describes: recipe entry, kernel table
// row and fusion rule (with the rules it beat). Used by `kbp why`.
Result<std::string> why_node(const PlanRequest& request, const std::string& node_id);

struct ArmSpec {
    const char* name;
    std::int64_t min_rows;
    std::int64_t max_rows;
    std::int64_t default_rows;
    const char* about;
};
std::span<const ArmSpec> arm_specs();

// The arms `--arms all` plans (those the reference GB10 planner ran): decode, multi_seq at 2,
// 4, 8, 12, 16, 24, 32, 48, 64, 96 and 128 rows, verify at 2, 3, 4 and 8, draft.
struct ArmRun {
    const char* arm;
    std::int64_t rows;
};
std::span<const ArmRun> standard_arms();

}  // namespace kbp::planner
