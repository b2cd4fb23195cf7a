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
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "planner/catalog.hpp"
#include "schema/blueprint.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

// One node's formats given by the caller instead of the recipe's (kbp tune's per-module choice):
// the weight and activation format names, and why (what `kbp why` prints as the deciding entry).
struct NodeFormats {
    std::string weight, activation;
    std::string why;
    bool operator==(const NodeFormats&) const = default;
};

struct PlanRequest {
    std::string config_path;
    std::string arm = "decode";
    std::optional<std::int64_t> rows;
    std::optional<std::string> target;  // name or path; default: the config's, else the recipe's
    std::optional<std::string> recipe;  // name or path; default: the config's, else the architecture's
    std::optional<std::string> engine;  // engines/<name>.json; default: the recipe's, else the target's first
    std::optional<std::string> ranges;  // calibrated ranges (kbp-ranges/v1) for FixedPoint32 formats
    std::vector<std::pair<std::string, std::string>> settings;  // --set key=value
    std::int64_t tp = 1;  // tensor parallelism: devices the heads and MLP widths split over (tensor_parallel.hpp)
    // Per node id ("l3.mlp.down"), formats that replace the recipe's for that weighted node; the
    // plan records them (planner_header.node_formats) so a replay makes the same plan. A node id
    // the model lacks is refused.
    std::map<std::string, NodeFormats> node_formats;
    std::optional<std::string> catalog_dir;  // read by make_plan and why_node; a Planner has its catalog
    std::string command;  // the command line, for provenance
};

// What a plan kbp made records of its request in provenance.planner_header, read back for a
// replay (kbp why) or another plan like it (kbp tune): the settings ("k=v k=v", every one the
// plan resolved) and the per-node formats that replaced the recipe's.
std::vector<std::pair<std::string, std::string>> recorded_settings(const schema::Blueprint& plan);
std::map<std::string, NodeFormats> recorded_node_formats(const schema::Blueprint& plan);

// The passes' names in the order they run (after resolve_inputs), as plan.cpp's table has them.
std::vector<std::string_view> pass_names();

struct PlanOutput {
    schema::Blueprint blueprint;
    std::vector<std::string> warnings;  // e.g. a recipe entry that matched nothing
    std::string defaults_chosen;        // what the request left to defaults, as chosen (Ir::defaults_chosen)
    std::vector<std::string> config_unread, config_metadata;  // the config fields kbp did not read, and those it took as metadata
};

// A planner keeps its catalog: loaded and checked once, then read by every plan it makes (the
// 17 arms of `kbp plan --arms all`, `kbp why`'s replay, each plan's fit check). It is the
// ninja-like choice over a process-wide cache keyed by catalog folder: who loads the catalog,
// and when, is in plain sight, and a --catalog folder edited while a process runs (the viewer)
// is read again by loading a new Planner rather than going stale in a hidden cache.
// plan() and why() only read the Planner: several threads may plan with one.
class Planner {
public:
    // The embedded catalog, then the files of `catalog_dir` (if given); an error names the file.
    static Result<Planner> load(const std::optional<std::string>& catalog_dir);
    explicit Planner(Catalog catalog) : catalog_(std::move(catalog)) {}

    // The plan `request` describes (its catalog_dir is not read: this planner's catalog is used).
    Result<PlanOutput> plan(const PlanRequest& request) const;
    // The decisions behind one node of the plan `request` describes: recipe entry, kernel table
    // row and fusion rule (with the rules it beat). Used by `kbp why`. `recorded` (a plan's
    // provenance files) must be what the replay reads, digest for digest: else the replay would
    // explain another plan, and it is refused naming the file that differs.
    Result<std::string> why(const PlanRequest& request, const std::string& node_id,
                            std::span<const schema::FileDigest> recorded = {}) const;
    const Catalog& catalog() const { return catalog_; }

private:
    Catalog catalog_;
};

// One plan with a catalog of its own (loaded from request.catalog_dir): Planner::plan.
Result<PlanOutput> make_plan(const PlanRequest& request);

// Planner::why with a catalog of its own (loaded from request.catalog_dir).
Result<std::string> why_node(const PlanRequest& request, const std::string& node_id, std::span<const schema::FileDigest> recorded = {});

struct ArmSpec {
    const char* name;
    std::int64_t min_rows;
    std::int64_t max_rows;
    std::int64_t default_rows;
    const char* about;
};
std::span<const ArmSpec> arm_specs();
// Their names, for "did you mean".
std::vector<std::string> arm_names();

// The arms `--arms all` plans (those the reference GB10 planner ran): decode, multi_seq at 2,
// 4, 8, 12, 16, 24, 32, 48, 64, 96 and 128 rows, verify at 2, 3, 4 and 8, draft.
struct ArmRun {
    const char* arm;
    std::int64_t rows;
};
std::span<const ArmRun> standard_arms();

}  // namespace kbp::planner
