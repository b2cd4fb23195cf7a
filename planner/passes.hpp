// The planner passes, in order (plan.hpp describes each). Every pass reads and extends the
// Ir; an error names the data file and JSON pointer, or the config field, that caused it.
#pragma once

#include "planner/catalog.hpp"
#include "planner/fusion_records.hpp"
#include "planner/ir.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

Status resolve_inputs(Ir& ir, Catalog& catalog);
Status expand_layers(Ir& ir);
// The model's multi-token-prediction layers (the architecture's mtp.count; 0 without an `mtp`).
Result<std::int64_t> mtp_count(const Ir& ir);
// The MTP modules a checkpoint declares but kbp cannot lay out (the architecture's
// mtp_not_laid_out.count; 0 without one): the draft arm then plans the whole model.
Result<std::int64_t> mtp_modules_not_laid_out(const Ir& ir);
Status assign_precision(Ir& ir);
Status insert_smoothing(Ir& ir);
Status insert_quant(Ir& ir);
Status choose_kernels(Ir& ir);
Status form_groups(Ir& ir);
Status assign_fraction_bits(Ir& ir);
Status describe_steps(Ir& ir);
Status check_budgets(Ir& ir);
// The catalog's recipes made for a target of `kind` ("gpnpu") that serve `architecture`, as a
// hint ("; recipes for a gpnpu and llama: chimera-w4a16 (made for qc-u)"): what to pass as
// --recipe when the one chosen cannot run there.
std::string recipes_for_kind(Catalog& catalog, const std::string& kind, const std::string& architecture);
// Moves the nodes out of `ir` (it keeps everything else).
Result<schema::Blueprint> build_blueprint(Ir& ir);

// Shared by choose_kernels and form_groups: the placeholders a rule name or knob may use
// ({role} {block} {attn} {slot} {rows}), and applying a kernel assignment (kernel, family,
// compute, where, point) from a table row or a fusion rule's member spec to a node.
// A table row's or rule's conditions: a glob on one of the node's formats (absent = any), and
// (step_matches, for a KernelRow or a FusionRule) the arm's rows range, arm names and settings.
bool format_matches(const std::optional<std::string>& glob, const std::optional<schema::Format>& f);
template <class Conditions> bool step_matches(const Conditions& row, const Ir& ir);
// Every named setting has that value ("settings": {"proj_mode": "packed"}).
bool settings_match(const std::map<std::string, std::string>& conditions, const Ir& ir);
std::map<std::string, std::string> placeholders(const Ir& ir, const IrNode& n);
Json fill_json(const Ir& ir, const Json& v, const std::map<std::string, std::string>& extra);
schema::JsonValue to_value(const Json& v);
// `spec` is a KernelRow or a MemberSpec; `instances` the kernel catalog its kernel is defined in.
template <class Spec> Status apply_assignment(const Ir& ir, IrNode& n, const Spec& spec, const KernelCatalog* instances);

}  // namespace kbp::planner
