#include "planner/plan.hpp"

#include <array>

#include <cmath>
#include <filesystem>

#include "planner/import_quant.hpp"
#include "planner/state_bytes.hpp"
#include "planner/passes.hpp"
#include "planner/tensor_parallel.hpp"
#include "schema/memory.hpp"
#include "schema/names.hpp"
#include "schema/numbers.hpp"

namespace kbp::planner {
namespace {

const std::array<ArmSpec, 5> arms{{
    {"decode", 1, 1, 1, "one new token of one sequence per step"},
    {"multi_seq", 2, 128, 8, "one new token of each of 2-128 sequences per step"},
    {"verify", 2, 8, 4, "speculative verification: 2-8 drafted tokens of one sequence in one step"},
    {"draft", 1, 1, 1, "the draft model's step: one token"},
    {"prefill", 1, 1 << 20, 512, "a prompt of N tokens in one step"},
}};

const std::array<ArmRun, 17> standard{{
    {"decode", 1},     {"multi_seq", 2},  {"multi_seq", 4},  {"multi_seq", 8},  {"multi_seq", 12}, {"multi_seq", 16},
    {"multi_seq", 24}, {"multi_seq", 32}, {"multi_seq", 48}, {"multi_seq", 64}, {"multi_seq", 96}, {"multi_seq", 128},
    {"verify", 2},     {"verify", 3},     {"verify", 4},     {"verify", 8},     {"draft", 1},
}};

// The passes after resolve_inputs, by name, in the order they run (plan.hpp says what each does).
struct Pass {
    std::string_view name;
    Status (*run)(Ir&);
};
constexpr std::array<Pass, 10> passes{{
    {"expand_layers", expand_layers},
    {"import_precision", import_precision},
    {"assign_precision", assign_precision},
    {"insert_smoothing", insert_smoothing},
    {"insert_quant", insert_quant},
    {"choose_kernels", choose_kernels},
    {"form_groups", form_groups},
    {"assign_fraction_bits", assign_fraction_bits},
    {"describe_steps", describe_steps},
    {"check_budgets", check_budgets},
}};

Result<Ir> run(const Catalog& loaded, const PlanRequest& request) {
    // This plan's own catalog: the loaded files shared, plus the ones it reads by path.
    // The catalog owns the data files the Ir points at: the Ir keeps it alive (and passes may
    // look further files up in it, as an error's hint does).
    Ir ir;
    ir.catalog = std::make_shared<Catalog>(loaded.share());
    ir.request = request;
    if (auto s = resolve_inputs(ir, *ir.catalog); !s) return s.error();
    if (auto s = check_interconnect(ir); !s) return s.error();
    for (const Pass& pass : passes)
        if (auto s = pass.run(ir); !s) return s.error();
    return ir;
}

// The replay read the files the plan records, byte for byte (by digest; a path may differ).
Status same_inputs(const std::vector<const DataFile*>& read, std::span<const schema::FileDigest> recorded) {
    auto shortened = [](const std::string& sha) { return sha.substr(0, 12); };
    for (std::size_t i = 0; i < read.size() && i < recorded.size(); ++i) {
        if (read[i]->sha256 == recorded[i].sha256) continue;
        // A built-in file changed between kbp's versions: only planning again helps.
        if (read[i]->origin == recorded[i].path && recorded[i].path.rfind("embedded:", 0) == 0)
            return make_error(ErrorCode::invalid_input, read[i]->origin,
                              "kbp's built-in file has changed since the plan was made (sha256 " + shortened(recorded[i].sha256) + "...; now " +
                                  shortened(read[i]->sha256) + "...): replaying it would explain another plan; re-plan it with this kbp");
        return make_error(ErrorCode::invalid_input, read[i]->origin,
                              "not the file the plan was made with (" + recorded[i].path + ", sha256 " + shortened(recorded[i].sha256) +
                                  "...; this one " + shortened(read[i]->sha256) +
                                  "...): replaying it would explain another plan; re-plan it, or give the files it was made with (--catalog DIR for a folder's)");
    }
    if (read.size() != recorded.size())
        return make_error(ErrorCode::invalid_input, "/provenance/files",
                          "the plan records " + std::to_string(recorded.size()) + " input files, the replay read " +
                              std::to_string(read.size()) + ": it would explain another plan; re-plan it");
    return Ok{};
}

// A model with multi-token-prediction layers: the plan records their parameters beside the
// target's (the Hub's totals count both). The other figure comes from planning the other arm
// with the same request: the draft step for a target's plan, the target's decode step for a
// draft's. Parameters do not depend on the arm's rows or the formats, so rows 1 and the recipe's
// own formats will do: a tuned plan's node ids are not the other plan's, and a checkpoint's
// quantization_config names modules of the target that the draft step lacks (and the reverse),
// so the other plan takes the recipe this one resolved. Should it fail all the same, the plan
// says so in a warning and records no `mtp`, rather than refusing a plan that is whole.
std::string comma_joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

Status record_mtp(const Catalog& catalog, Ir& ir, schema::Blueprint& b) {
    auto layers = mtp_count(ir);
    if (!layers) return layers.error();
    const bool draft = ir.request.arm == "draft";
    if (*layers == 0) {
        // Modules the checkpoint has but no engine's code lays out: a draft plan of the whole
        // model is what a user gets, and must not pass for the MTP draft step.
        auto unlaid = mtp_modules_not_laid_out(ir);
        if (!unlaid) return unlaid.error();
        if (draft && *unlaid > 0) {
            const Json& m = ir.architecture->json["mtp_not_laid_out"];
            ir.warnings.push_back(ir.architecture->origin + ": /mtp_not_laid_out: the config declares " + std::to_string(*unlaid) +
                                  " multi-token-prediction modules (" + comma_joined(ir.fields_of({m["count"].get<std::string>()})) +
                                  ") that kbp does not lay out: " + m["why"].get<std::string>() +
                                  "; the draft arm plans the whole model at one row, as a separate draft model would run");
        }
        return Ok{};
    }
    PlanRequest other = ir.request;
    other.arm = draft ? "decode" : "draft";
    other.rows = 1;
    other.node_formats.clear();
    if (!other.recipe) other.recipe = ir.recipe->name;
    auto other_ir = run(catalog, other);
    auto other_plan = other_ir ? build_blueprint(*other_ir) : Result<schema::Blueprint>(other_ir.error());
    if (!other_plan) {
        ir.warnings.push_back("the multi-token-prediction layers' parameters are not counted: planning the " + other.arm +
                              " arm to count them failed: " + other_plan.error().text());
        return Ok{};
    }
    const auto mine = schema::compute_memory(b), theirs = schema::compute_memory(*other_plan);
    schema::Mtp mtp;
    mtp.layers = *layers;
    // The config fields behind the count ("num_nextn_predict_layers").
    const std::string count = ir.architecture->json["mtp"]["count"].get<std::string>();
    mtp.config_field = comma_joined(ir.fields_of({count}));
    if (mtp.config_field.empty()) {
        // Not in the config: the symbol's default counts them (Qwen3-Next's config has no
        // num_nextn_predict_layers, and vLLM's Qwen3NextMTP then runs one layer).
        const Json* from = nullptr;
        if (auto symbols = ir.architecture->json.find("symbols"); symbols != ir.architecture->json.end())
            if (auto symbol = symbols->find(count); symbol != symbols->end() && symbol->is_object())
                if (auto f = symbol->find("from"); f != symbol->end() && f->is_string()) from = &*f;
        mtp.config_field = from ? from->get<std::string>() + " absent, the default" : count;
    }
    // Every MTP layer is alike: the draft step plans the first, its layer nodes its own weights.
    mtp.parameters = *layers * (draft ? mine : theirs).layer_parameters;
    mtp.target_parameters = (draft ? theirs : mine).parameters;
    mtp.draft = draft;
    b.mtp = std::move(mtp);
    return Ok{};
}

}  // namespace

std::span<const ArmSpec> arm_specs() { return arms; }

std::vector<std::string> arm_names() {
    std::vector<std::string> out;
    for (const auto& a : arms) out.push_back(a.name);
    return out;
}

std::span<const ArmRun> standard_arms() { return standard; }

std::vector<std::pair<std::string, std::string>> recorded_settings(const schema::Blueprint& b) {
    std::vector<std::pair<std::string, std::string>> out;
    const auto* v = b.provenance ? b.provenance->planner_header.find("settings") : nullptr;
    if (!v || !v->is_string()) return out;
    const std::string& text = v->string();
    for (std::size_t start = 0; start < text.size();) {
        auto space = text.find(' ', start);
        const std::string item = text.substr(start, space == std::string::npos ? std::string::npos : space - start);
        if (auto eq = item.find('='); eq != std::string::npos && eq > 0) out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
        if (space == std::string::npos) break;
        start = space + 1;
    }
    return out;
}

std::map<std::string, NodeFormats> recorded_node_formats(const schema::Blueprint& b) {
    std::map<std::string, NodeFormats> out;
    const auto* chosen = b.provenance ? b.provenance->planner_header.find("node_formats") : nullptr;
    if (!chosen || !chosen->is_object()) return out;
    for (const auto& [id, f] : chosen->object()) {
        NodeFormats formats;
        for (auto [key, into] : {std::pair{"weight", &formats.weight}, {"activation", &formats.activation}, {"why", &formats.why}})
            if (const auto* v = f.find(key); v && v->is_string()) *into = v->string();
        out.emplace(id, std::move(formats));
    }
    return out;
}

std::vector<std::string_view> pass_names() {
    std::vector<std::string_view> out;
    for (const auto& p : passes) out.push_back(p.name);
    return out;
}

Result<Planner> Planner::load(const std::optional<std::string>& catalog_dir) {
    auto catalog = Catalog::load(catalog_dir);
    if (!catalog) return catalog.error();
    return Planner(std::move(*catalog));
}

Result<PlanOutput> make_plan(const PlanRequest& request) {
    auto planner = Planner::load(request.catalog_dir);
    if (!planner) return planner.error();
    return planner->plan(request);
}

Result<std::string> why_node(const PlanRequest& request, const std::string& node_id, std::span<const schema::FileDigest> recorded) {
    auto planner = Planner::load(request.catalog_dir);
    if (!planner) return planner.error();
    return planner->why(request, node_id, recorded);
}

Result<PlanOutput> Planner::plan(const PlanRequest& request) const {
    auto ir = run(catalog_, request);
    if (!ir) return ir.error();
    auto b = build_blueprint(*ir);
    if (!b) return b.error();
    // A GPNPU keeps the activations of a step in its on-chip memory; more spills to DDR.
    if (const auto& ocm = ir->target->target_record->ocm_bytes) {
        auto memory = schema::compute_memory(*b);
        if (memory.largest_live_bytes > *ocm)
            ir->warnings.push_back(ir->target->origin + ": /ocm_bytes: " + schema::with_commas(memory.largest_live_bytes) +
                                   " B of activations are live at once (before " + memory.largest_live_at + "), more than the " +
                                   schema::with_commas(*ocm) + " B on-chip memory: they spill to DDR");
    }
    if (auto s = record_mtp(catalog_, *ir, *b); !s) return s.error();
    // What the cost needs of each node beyond its edges, so the plan is costed from itself.
    record_node_costs(*b, catalog_);
    return PlanOutput{std::move(*b), ir->warnings, ir->defaults_chosen, ir->config_unread, ir->config_metadata};
}

Result<std::string> Planner::why(const PlanRequest& request, const std::string& node_id, std::span<const schema::FileDigest> recorded) const {
    auto ir = run(catalog_, request);
    if (!ir) return ir.error();
    if (!recorded.empty())
        if (auto s = same_inputs(ir->input_files(), recorded); !s) return s.error();
    for (const auto& n : ir->nodes) {
        if (n.node.id != node_id) continue;
        std::string out = node_id + " (" + n.node.op.name() + ", group " + std::to_string(n.node.group) + " " +
                          ir->groups[n.node.group].rule + ")\n";
        // The checkpoint's modules the node reads: what a quantization_config's targets and
        // ignore lists name it by.
        for (const auto& m : n.modules) out += "  module:      " + m + "\n";
        if (n.node.inserted) out += "  inserted:    " + n.why.inserted_for + "\n";
        if (!n.why.moved_from.empty())
            out += "  moved:       from " + n.why.moved_from + ": the engine runs it in this layer's first kernel (its fusion rule runs across layers)\n";
        if (!n.why.recipe.empty()) out += "  recipe:      " + n.why.recipe + "\n";
        out += "  kernel row:  " + n.why.kernel_row + (n.why.kernel_row_json ? " " + n.why.kernel_row_json->dump() : "") + "\n";
        out += "  fusion:      " + n.why.fusion + "\n";
        for (const auto& b : n.why.beaten) out += "    beat:      " + b + "\n";
        if (!n.why.fraction_bits.empty()) {
            out += "  fixed point: " + n.why.fraction_bits.front() + "\n";
            for (std::size_t k = 1; k < n.why.fraction_bits.size(); ++k) out += "               " + n.why.fraction_bits[k] + "\n";
        }
        return out;
    }
    std::vector<std::string> ids;
    for (const auto& n : ir->nodes) ids.push_back(n.node.id);
    return make_error(ErrorCode::invalid_input, node_id, "no node of that id in the plan" + schema::layered_name_hint(node_id, ids, "nodes", "the plan"));
}

}  // namespace kbp::planner
