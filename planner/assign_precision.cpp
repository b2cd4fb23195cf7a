// assign_precision: the formats every node reads and writes. A weighted op (projection,
// router, LM head, experts, latent attention) takes its weight and activation formats from
// the recipe: its entries are matched in order on the op's canonical name ("dsa.q_a") and op
// ("linear:mla_q_a"), later entries overriding earlier ones, included parts in place. An
// activation may depend on the arm's rows ([{"max_rows": 2, "format": "bf16"}, ...]). Other
// ops have the formats their architecture entry gives. A recipe's `activation_format` replaces
// every float format of those (and of the projections' outputs): "fx32" turns a plan into
// FixedPoint32 ("fx32/f?" until fraction_bits decides F). Its `op_formats` entries then set the
// formats of named non-weighted ops (the attention op's int8 Q/K/V, the embedding table).
// Every format must exist on the target. An entry that matches no op is a warning when the
// blocks the model's layers use have ops of its kind (so a shared recipe's expert entry is silent
// on a dense model).
#include <algorithm>
#include <charconv>
#include <tuple>

#include "planner/passes.hpp"
#include "schema/names.hpp"

namespace kbp::planner {
namespace {

struct Entry {
    const FormatEntry* entry;
    std::string where;  // "recipes/x.json: /entries/3"
    bool used = false;
    bool from_part = false;  // a reusable part: not every model has every op it names
};

}  // namespace

std::string recipes_for_kind(Catalog& catalog, const std::string& kind, const std::string& architecture) {
    auto of_kind = [&](const std::string& target) {
        auto t = catalog.get("targets", target);
        return t && (*t)->target_record->kind.value_or("") == kind;
    };
    std::string names;
    for (const DataFile* r : recipes_made_for(catalog, of_kind, architecture))
        names += (names.empty() ? "" : ", ") + r->name + " (made for " + r->recipe_record->target.value_or("") + ")";
    return names.empty() ? "; 'kbp catalog' lists the recipes" : "; recipes for a " + kind + " and " + architecture + ": " + names;
}

Status assign_precision(Ir& ir) {
    // The entries in order, parts spliced in where they are included.
    std::vector<Entry> entries;
    std::size_t part = 0;
    const RecipeRecord& recipe = *ir.recipe->recipe_record;
    const auto& recipe_entries = recipe.entries;
    for (std::size_t i = 0; i < recipe_entries.size(); ++i) {
        if (recipe_entries[i].include) {
            const DataFile* p = ir.recipe_parts[part++];
            const auto& pe = p->recipe_part->entries;
            for (std::size_t k = 0; k < pe.size(); ++k) entries.push_back({&pe[k], p->origin + ": /entries/" + std::to_string(k), false, true});
            continue;
        }
        entries.push_back({&recipe_entries[i], ir.recipe->origin + ": /entries/" + std::to_string(i)});
    }
    const std::vector<std::string>& target_formats = ir.target->target_record->formats;
    // A format the device stores but cannot compute in (NVFP4 widened to bf16 by FP4 Marlin on Hopper).
    const std::vector<std::string>& weight_only_formats = ir.target->target_record->weight_formats;
    // "fx32" in a recipe is FixedPoint32 with its fractional bits still to be decided.
    auto resolve = [](const std::string& f) { return f == "fx32" ? std::string("fx32/f?") : f; };
    // Where a {setting} in `raw` got its value: --set, or the recipe's settings.
    auto setting_sources = [&](const std::string& raw) {
        std::string out;
        for (std::size_t open = raw.find('{'); open != std::string::npos; open = raw.find('{', open + 1)) {
            std::string key = raw.substr(open + 1, raw.find('}', open) - open - 1);
            if (!ir.settings.count(key)) continue;
            bool flag = std::any_of(ir.request.settings.begin(), ir.request.settings.end(), [&](const auto& kv) { return kv.first == key; });
            out += ", {" + key + "} from " + (flag ? "--set " + key : ir.recipe->origin + ": /settings/" + key);
        }
        return out;
    };
    // `f` is `raw` with its {settings} filled in.
    enum class Role { weight, activation };
    auto check_format = [&](const std::string& f, const std::string& where, const std::string& raw = "", Role role = Role::activation) -> Status {
        const auto parsed = schema::Format::parse(resolve(f));
        const std::string from = raw.empty() || raw == f ? "" : " (" + raw + setting_sources(raw) + ")";
        if (!parsed.known()) return make_error(ErrorCode::invalid_input, where, "unknown format '" + f + "'" + from);
        std::string base(schema::format_doc_name(parsed));
        auto among = [&](const std::vector<std::string>& list) { return std::find(list.begin(), list.end(), base) != list.end(); };
        if (!target_formats.empty() && !among(target_formats) && !(role == Role::weight && among(weight_only_formats))) {
            const bool weight_only = among(weight_only_formats);
            return make_error(ErrorCode::unsupported, where,
                              "format '" + f + "'" + from + " is not available on target '" + ir.target->name + "'" + (weight_only ? " as an activation" : "") +
                                  " (" + ir.target->origin + (weight_only ? ": /weight_formats lists it for weights only; " : ": /formats; ") +
                                  ir.inputs_from + ")" + recipes_for_kind(*ir.catalog, ir.target->target_record->kind.value_or(""), ir.architecture_name()));
        }
        return Ok{};
    };
    std::optional<schema::Format> float_replacement;
    if (const auto& a = recipe.activation_format) {
        if (auto s = check_format(*a, ir.recipe->origin + ": /activation_format"); !s) return s;
        float_replacement = schema::Format::parse(resolve(*a));
    }
    auto replace_float = [&](schema::Format f) { return float_replacement && is_float(f) ? *float_replacement : f; };
    struct OpFormats {
        const OpFormat* formats;
        std::string where;
        bool used = false;
    };
    std::vector<OpFormats> op_formats;
    for (std::size_t i = 0; i < recipe.op_formats.size(); ++i) {
        const OpFormat& e = recipe.op_formats[i];
        std::string where = ir.recipe->origin + ": /op_formats/" + std::to_string(i);
        if (e.weight)
            if (auto s = check_format(*e.weight, where + "/weight", "", Role::weight); !s) return s;
        if (e.activation)
            if (auto s = check_format(*e.activation, where + "/activation"); !s) return s;
        op_formats.push_back({&e, where});
    }
    // The activation format at the arm's rows, with the text it was filled from.
    auto format_at_rows = [&](const std::variant<std::string, std::vector<ActivationTier>>& v,
                              const std::string& where) -> Result<std::pair<std::string, std::string>> {
        if (const auto* one = std::get_if<std::string>(&v)) return std::make_pair(ir.fill(*one), *one);
        const auto& tiers = std::get<std::vector<ActivationTier>>(v);
        for (std::size_t t = 0; t < tiers.size(); ++t) {
            const ActivationTier& tier = tiers[t];
            const std::string& format = tier.format;
            if (!tier.max_rows) return std::make_pair(ir.fill(format), format);
            const std::string raw = std::holds_alternative<std::string>(*tier.max_rows) ? std::get<std::string>(*tier.max_rows)
                                                                                        : std::to_string(std::get<std::int64_t>(*tier.max_rows));
            const std::string max = ir.fill(raw);
            std::int64_t limit = 0;
            auto [end, ec] = std::from_chars(max.data(), max.data() + max.size(), limit);
            if (ec != std::errc{} || end != max.data() + max.size() || max.empty())
                return make_error(ErrorCode::invalid_input, where + "/" + std::to_string(t) + "/max_rows",
                                  "'" + max + "' is not a whole number" + (raw == max ? "" : " (" + raw + setting_sources(raw) + ")"));
            if (ir.rows <= limit) return std::make_pair(ir.fill(format), format);
        }
        return make_error(ErrorCode::invalid_input, where, "no tier serves " + std::to_string(ir.rows) + " rows");
    };

    std::size_t overridden = 0;
    for (std::size_t index = 0; index < ir.nodes.size(); ++index) {
        IrNode& n = ir.nodes[index];
        auto& p = n.node.precision;
        const Json& spec_precision = n.spec->value("precision", Json::object());
        if (index < ir.imported.size() && ir.imported[index]) {
            // The checkpoint's own precision (import_quant.cpp).
            const ImportedFormats& imported = *ir.imported[index];
            if (auto s = check_format(std::string(imported.weight.name()), imported.where, "", Role::weight); !s) return s;
            if (auto s = check_format(std::string(imported.activation.name()), imported.where); !s) return s;
            p.weight = imported.weight;
            p.activation = imported.activation;
            std::string out = spec_precision.contains("output") ? spec_precision["output"][0].get<std::string>() : "bf16";
            p.output = std::vector<schema::Format>{replace_float(schema::Format::parse(out))};
            n.why.recipe = imported.where;
        } else if (!n.weighted) {
            // A lookup table's format (the embedding's), when the architecture gives one.
            if (spec_precision.contains("weight") && spec_precision["weight"].is_string())
                p.weight = schema::Format::parse(spec_precision["weight"].get<std::string>());
            if (spec_precision.contains("activation"))
                p.activation = replace_float(schema::Format::parse(spec_precision["activation"].get<std::string>()));
            if (spec_precision.contains("output")) {
                std::vector<schema::Format> outs;
                for (const auto& f : spec_precision["output"]) outs.push_back(replace_float(schema::Format::parse(f.get<std::string>())));
                p.output = outs;
            }
            for (auto& e : op_formats) {
                const OpFormat& j = *e.formats;
                if (j.match && !name_matches(*j.match, n.local)) continue;
                if (j.op && !name_matches(*j.op, n.node.op.name())) continue;
                e.used = true;
                if (j.weight) p.weight = schema::Format::parse(resolve(*j.weight));
                if (j.activation) p.activation = schema::Format::parse(resolve(*j.activation));
                n.why.recipe = e.where;
            }
        } else {
            std::optional<std::string> weight, activation;
            std::string last, weight_where, activation_where, weight_raw, activation_raw;
            for (auto& e : entries) {
                const FormatEntry& j = *e.entry;
                if (j.match && !name_matches(*j.match, n.local)) continue;
                if (j.op && !name_matches(*j.op, n.node.op.name())) continue;
                e.used = true;
                if (j.weight) {
                    weight_raw = *j.weight;
                    weight = ir.fill(weight_raw);
                    weight_where = e.where + "/weight";
                }
                if (j.activation) {
                    auto a = format_at_rows(*j.activation, e.where + "/activation");
                    if (!a) return a.error();
                    std::tie(activation, activation_raw) = *a;
                    activation_where = e.where + "/activation";
                }
                last = e.where;
            }
            if (!weight || !activation) {
                std::string parts;
                for (const DataFile* part : ir.recipe_parts) parts += (parts.empty() ? " (nor its parts: " : ", ") + part->origin;
                return make_error(ErrorCode::unsupported, ir.recipe->origin + ": /entries",
                                  "no entry gives '" + n.local + "' (" + n.node.op.name() + ") a " + (weight ? "activation" : "weight") + " format" +
                                      (parts.empty() ? "" : parts + ")"));
            }
            if (auto s = check_format(*weight, weight_where, weight_raw, Role::weight); !s) return s;
            if (auto s = check_format(*activation, activation_where, activation_raw); !s) return s;
            p.weight = schema::Format::parse(resolve(*weight));
            p.activation = schema::Format::parse(resolve(*activation));
            std::string out = spec_precision.contains("output") ? spec_precision["output"][0].get<std::string>() : "bf16";
            p.output = std::vector<schema::Format>{replace_float(schema::Format::parse(out))};
            n.why.recipe = last;
        }
        if (auto given = ir.request.node_formats.find(n.node.id); given != ir.request.node_formats.end()) {
            // The caller's choice for this node (kbp tune), over the recipe's or the checkpoint's.
            const std::string where = "node_formats/" + n.node.id;
            if (!n.weighted)
                return make_error(ErrorCode::invalid_input, where, "'" + n.node.id + "' has no weight whose format could be chosen");
            if (auto s = check_format(given->second.weight, where + "/weight", "", Role::weight); !s) return s;
            if (auto s = check_format(given->second.activation, where + "/activation"); !s) return s;
            p.weight = schema::Format::parse(given->second.weight);
            p.activation = schema::Format::parse(given->second.activation);
            n.why.recipe = given->second.why.empty() ? where : given->second.why;
            ++overridden;
        }
        for (std::size_t o = 0; o < n.outputs.size(); ++o) {
            if (!p.output || o >= p.output->size())
                return make_error(ErrorCode::invalid_input, ir.architecture->origin + ": /blocks/" + n.block,
                                  "'" + n.local + "' has " + std::to_string(n.outputs.size()) + " outputs but fewer output formats");
            n.outputs[o].format = (*p.output)[o];
        }
    }
    if (overridden < ir.request.node_formats.size()) {
        std::vector<std::string> ids;
        for (const auto& n : ir.nodes) ids.push_back(n.node.id);
        for (const auto& [id, formats] : ir.request.node_formats)
            if (std::find(ids.begin(), ids.end(), id) == ids.end())
                return make_error(ErrorCode::invalid_input, "node_formats/" + id,
                                  "this model has no node '" + id + "'" + schema::layered_name_hint(id, ids, "nodes", "the model"));
    }
    // An entry for an op this model never has (the experts of a recipe shared with MoE models, on
    // a dense one, or on a dense Nemotron-H whose architecture lays MoE layers out for others) is
    // not a mistake: only an entry that could match an op of the blocks its layers use is worth a word.
    std::vector<std::string> architecture_ops, used_blocks;
    for (const auto& n : ir.nodes)
        if (std::find(used_blocks.begin(), used_blocks.end(), n.block.view()) == used_blocks.end()) used_blocks.emplace_back(n.block.view());
    const Json blocks = ir.architecture->json.value("blocks", Json::object());
    for (const auto& [block, spec] : blocks.items()) {
        if (std::find(used_blocks.begin(), used_blocks.end(), block) == used_blocks.end()) continue;
        for (const auto& op : spec.value("ops", Json::array())) architecture_ops.push_back(op.value("op", ""));
    }
    auto could_match = [&](const FormatEntry& entry) {
        if (!entry.op) return true;
        return std::any_of(architecture_ops.begin(), architecture_ops.end(), [&](const std::string& op) { return name_matches(*entry.op, op); });
    };
    // The recipe under an imported precision only fills in what the checkpoint does not say:
    // its entries for what the checkpoint did say are not mistakes.
    for (const auto& e : entries)
        if (!ir.quant && !e.used && !e.from_part && could_match(*e.entry)) ir.warnings.push_back(e.where + ": matches no op of this model");
    for (const auto& e : op_formats)
        if (!e.used) ir.warnings.push_back(e.where + ": matches no op of this model");
    return Ok{};
}

}  // namespace kbp::planner
