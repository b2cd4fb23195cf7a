// resolve_inputs: decides what the plan is made from. The config names the model
// (`model_type` picks the architecture file); the recipe and target come from the flags, else
// the config's "kbp" hints, else the architecture's defaults; the recipe's settings are
// overridden by --set; the architecture's symbols are evaluated over the config's numbers; the
// arm's rows are checked against the arm's range.
#include <algorithm>

#include <filesystem>
#include <set>

#include "planner/check_data.hpp"
#include "planner/config_fields_read.hpp"
#include "planner/data_schema.hpp"
#include "planner/expr.hpp"
#include "planner/import_quant.hpp"
#include "planner/model_symbols.hpp"
#include "planner/model_types.hpp"
#include "planner/limits.hpp"
#include "planner/passes.hpp"
#include "planner/ranges.hpp"
#include "planner/settings_types.hpp"
#include "schema/file_io.hpp"
#include "schema/names.hpp"

namespace kbp::planner {
namespace {

Error unsupported(std::string where, std::string message) {
    return make_error(ErrorCode::unsupported, std::move(where), std::move(message));
}

std::optional<std::string> hint(const Json& config, const char* key) {
    if (auto k = config.find("kbp"); k != config.end() && k->is_object())
        if (auto v = k->find(key); v != k->end() && v->is_string()) return v->get<std::string>();
    return std::nullopt;
}

// The one catalog recipe made for `target` that serves `architecture`; "" when none or several are.
std::string recipe_made_for(const Catalog& catalog, const std::string& target, const std::string& architecture) {
    auto found = recipes_made_for(catalog, [&](const std::string& t) { return t == target; }, architecture);
    return found.size() == 1 ? found.front()->name : "";
}

}  // namespace

Status resolve_inputs(Ir& ir, Catalog& catalog) {
    const auto& req = ir.request;
    // The config: read as a catalog file so provenance gets its digest.
    auto config = catalog.file("configs", req.config_path);
    if (!config) return config.error();
    ir.config = *config;
    const Json& cfg = ir.config->json;
    const std::string& cfg_name = ir.config->origin;
    if (!cfg.is_object()) return make_error(ErrorCode::invalid_input, cfg_name + ": /", "a model config is a JSON object");
    if (auto s = check_config_hints(*ir.config); !s) return s;
    auto type = cfg.find("model_type");
    if (type == cfg.end() || !type->is_string())
        return make_error(ErrorCode::invalid_input, cfg_name + ": /model_type", "missing (the model's architecture name)");
    std::string model_type = type->get<std::string>();
    ir.architecture = architecture_for(catalog, model_type);
    // A multimodal wrapper around a text model kbp plans: that model is planned (model_types.hpp).
    std::optional<WrappedModel> wrapped;
    if (!ir.architecture) {
        wrapped = wrapped_model(catalog, *ir.config, model_type);
        if (!wrapped) return unsupported(cfg_name + ": /model_type", unplanned_model_type(catalog, cfg, model_type));
        ir.architecture = wrapped->architecture;
    }
    const Json& arch = ir.architecture->json;

    auto defaults = arch.value("defaults", Json::object());
    // A file the config's hints name is found beside the config, wherever kbp runs.
    auto beside_config = [&](const std::string& name) {
        namespace fs = std::filesystem;
        if (!looks_like_path(name) || fs::path(name).is_absolute()) return name;
        return (fs::path(req.config_path).parent_path() / name).lexically_normal().string();
    };
    // A checkpoint that declares its own precision is planned in it unless a recipe is named
    // (import_quant.hpp); the bf16 recipe then gives what the declaration does not reach.
    const bool recipe_named = req.recipe || hint(cfg, "recipe");
    if (auto q = find_quant_source(*ir.config, req.config_path, catalog); !q) {
        if (!recipe_named) return q.error();
    } else if (*q && recipe_named) {
        ir.warnings.push_back((req.recipe ? "--recipe " + *req.recipe : cfg_name + ": /kbp/recipe") + " overrides the checkpoint's own precision (" +
                              (*q)->at() + ", quant_method " + (*q)->method + ")");
    } else if (*q) {
        ir.quant = **q;
    }
    if (wrapped) {
        ir.text_config = wrapped->config;
        ir.config = ir.text_config.get();
        ir.config_pointer = wrapped->pointer;
        ir.module_roots = wrapped->module_roots;
    }
    std::string recipe_name = ir.quant ? "bf16"
                              : req.recipe ? *req.recipe
                              : hint(cfg, "recipe") ? beside_config(*hint(cfg, "recipe"))
                                                    : defaults.value("recipe", "");
    // `--target qc-u` alone: the architecture's default recipe is a GPU's (fp8-dynamic for
    // llama), which the GPNPU cannot serve; the one recipe made for that target and this
    // architecture is what the user means.
    const std::string made_for = req.target && !recipe_named && !ir.quant ? recipe_made_for(catalog, *req.target, ir.architecture_name()) : "";
    if (!made_for.empty()) recipe_name = made_for;
    // Where the recipe's and target's names came from, for errors: the flag, the config's hint,
    // else the data's default.
    auto named_at = [&](const std::optional<std::string>& flag, const char* key, const std::string& data_where) {
        return flag ? "--" + std::string(key) : hint(cfg, key) ? cfg_name + ": /kbp/" + key : data_where;
    };
    // A name the catalog lacks is an error where the name was given; a file that does not load, in the file.
    auto at_name = [&](const Error& e, const std::string& name, const std::string& where) {
        return e.where == name ? e.at(where) : e;
    };
    const std::string recipe_default =
        made_for.empty() ? ir.architecture->origin + ": /defaults/recipe" : "--target " + *req.target + " (the recipe made for it)";
    if (recipe_name.empty()) return unsupported(recipe_default, "missing, and " + cfg_name + " names no kbp.recipe: pass --recipe NAME|FILE");
    auto recipe = catalog.get("recipes", recipe_name);
    if (!recipe) return at_name(recipe.error(), recipe_name, named_at(req.recipe, "recipe", recipe_default));
    ir.recipe = *recipe;
    std::string target_name = req.target ? *req.target
                              : hint(cfg, "target") ? beside_config(*hint(cfg, "target"))
                                                    : ir.recipe->recipe_record->target.value_or(defaults.value("target", ""));
    const std::string target_default =
        ir.recipe->recipe_record->target ? ir.recipe->origin + ": /target" : ir.architecture->origin + ": /defaults/target";
    if (target_name.empty())
        return unsupported(target_default, "missing, and neither " + cfg_name + " (kbp.target) nor " + ir.architecture->origin +
                                               " (defaults.target) names one: pass --target NAME|FILE");
    auto target_file = catalog.get("targets", target_name);
    if (!target_file) return at_name(target_file.error(), target_name, named_at(req.target, "target", target_default));
    ir.target = *target_file;
    ir.inputs_from = (ir.quant ? "precision from " + ir.quant->at() + " (the checkpoint's own; --recipe plans another)"
                               : "recipe '" + ir.recipe->name + "' from " + named_at(req.recipe, "recipe", recipe_default + " as " + cfg_name + " names no kbp.recipe")) +
                     ", target '" + ir.target->name + "' from " +
                     named_at(req.target, "target", target_default + " as " + cfg_name + " names no kbp.target");

    // Recipe parts, in the order the recipe includes them.
    for (const RecipeEntry& e : ir.recipe->recipe_record->entries)
        if (e.include) {
            auto part = catalog.get("recipes/parts", *e.include);
            if (!part) return part.error();
            ir.recipe_parts.push_back(*part);
        }

    // The engine: --engine, else the recipe's, else the target's first; one the target runs.
    const TargetRecord& target = *ir.target->target_record;
    const std::string& target_id = target.name;
    const std::vector<std::string>& engines = target.engines;
    const std::string engine_name = req.engine ? *req.engine : ir.recipe->recipe_record->engine.value_or(engines.front());
    const std::string engine_where = req.engine ? "--engine" : ir.recipe->recipe_record->engine ? ir.recipe->origin + ": /engine" : ir.target->origin + ": /engines/0";
    if (std::find(engines.begin(), engines.end(), engine_name) == engines.end()) {
        std::string list;
        for (const auto& e : engines) list += (list.empty() ? "" : ", ") + e;
        const std::string near = schema::closest_of(engine_name, engines);
        return make_error(ErrorCode::invalid_input, engine_where,
                          "engine '" + engine_name + "' does not run on target '" + target_id + "' (" +
                              (near.empty() || near == engine_name ? "it runs: " + list : "did you mean '" + near + "'?") + ")");
    }
    auto engine = catalog.get("engines", engine_name);
    if (!engine) return engine.error().at(engine_where);
    ir.engine = *engine;
    // Kernel tables and fusion rules the engine reads, those that apply to this architecture
    // and target.
    std::string arch_name = ir.architecture_name();
    const Json catalogs = ir.engine->json.value("catalogs", Json::array());
    for (const auto& name : catalogs) {
        for (const char* kind : {"kernels", "fusion"}) {
            auto f = catalog.get(kind, name.get<std::string>());
            if (!f) continue;  // a catalog may be kernels or fusion rules alone (the engine's schema checked the name)
            const auto& applies_to = std::string(kind) == "kernels" ? (*f)->kernel_catalog->applies_to : (*f)->fusion_catalog->applies_to;
            if (!applies(applies_to, arch_name, target_id)) continue;
            (std::string(kind) == "kernels" ? ir.kernels : ir.fusion).push_back(*f);
        }
    }
    // A file that applies may stand in for another of its kind (its "replaces"): the seed's
    // GLM-5.3-Flash catalogs on GB10 run their own kernels and fusions, not the generic ones.
    auto erase_replaced = [](std::vector<const DataFile*>& files, auto replaces_of) {
        std::set<std::string> replaced;
        for (const DataFile* f : files)
            if (const auto& names = replaces_of(*f)) replaced.insert(names->begin(), names->end());
        std::erase_if(files, [&](const DataFile* f) { return replaced.count(f->name) > 0; });
    };
    erase_replaced(ir.kernels, [](const DataFile& f) -> const auto& { return f.kernel_catalog->replaces; });
    erase_replaced(ir.fusion, [](const DataFile& f) -> const auto& { return f.fusion_catalog->replaces; });
    if (ir.kernels.empty()) {
        std::string which;
        for (const DataFile* f : catalog.all("kernels"))
            for (const auto& name : catalogs)
                if (name == f->name)
                    which += (which.empty() ? "" : "; ") + f->origin + " applies to " + applies_to_text(f->kernel_catalog->applies_to);
        return unsupported(ir.engine->origin + ": /catalogs", "engine '" + ir.engine->name + "' has no kernel catalog for architecture '" + arch_name +
                                                                  "' on target '" + target_id + "' (" + which + ")");
    }
    for (const char* name : {"families", "formats"}) {
        auto f = catalog.get("explain", name);
        if (!f) return f.error();
        ir.explain.push_back(*f);
    }
    ir.ops = catalog.all("ops");

    // Settings: the recipe's, then --set, each a setting kbp knows with a value its type takes
    // (settings_types.hpp), refused where it was given: a misspelt name or value is not planned
    // as a default, and a format the target lacks (an fp8 KV cache on the GPNPU) is not costed as
    // another.
    for (const auto& [k, v] : ir.recipe->recipe_record->settings) {
        ir.settings[k] = setting_text(v);
        if (req.settings.end() != std::find_if(req.settings.begin(), req.settings.end(), [&key = k](const auto& kv) { return kv.first == key; }))
            continue;  // --set replaces it: its value is checked there
        if (auto problem = setting_problem(catalog, k, ir.settings[k], ir.target); !problem.empty()) {
            // A recipe made for another target: name the ones made for a target like this one.
            const bool elsewhere = ir.recipe->recipe_record->target.value_or("") != ir.target->name;
            return make_error(ErrorCode::invalid_input, ir.recipe->origin + ": /settings/" + k,
                              problem + (elsewhere ? recipes_for_kind(catalog, target.kind.value_or("gpu"), ir.architecture_name()) : ""));
        }
    }
    // The KV cache the checkpoint declares (import_quant.hpp), checked as a recipe's would be.
    if (ir.quant) {
        auto kv = quant_kv_cache_dtype(*ir.quant);
        if (!kv) return kv.error();
        if (*kv) {
            if (auto problem = setting_problem(catalog, "kv_cache_dtype", **kv, ir.target); !problem.empty())
                return make_error(ErrorCode::unsupported, ir.quant->at(), problem);
            ir.settings["kv_cache_dtype"] = **kv;
        }
    }
    for (const auto& [k, v] : req.settings) {
        if (auto problem = setting_problem(catalog, k, v, ir.target); !problem.empty())
            return make_error(ErrorCode::invalid_input, "--set " + k, problem);
        if (!ir.recipe->recipe_record->setting(k))
            ir.warnings.push_back("--set " + k + ": recipe '" + ir.recipe->name + "' does not set " + k + " (added: only the data that reads {" + k +
                                  "} changes)");
        ir.settings[k] = v;
    }

    // Symbols from the config's numbers, bounded and checked (model_symbols.hpp).
    if (auto s = resolve_symbols(ir); !s) return s;
    // The config fields nothing read, recorded so that none is ignored unseen (config_fields_read.hpp).
    auto fields = config_fields_read(ir.config->json, arch, catalog);
    ir.config_unread = std::move(fields.unread);
    ir.config_metadata = std::move(fields.metadata);
    if (!ir.config_unread.empty()) {
        schema::JsonArray unread;
        for (const auto& f : ir.config_unread) unread.emplace_back(f);
        ir.config_fields.emplace_back("unread", std::move(unread));
    }

    // Calibrated ranges for FixedPoint32 formats.
    if (req.ranges) {
        auto ranges = catalog.file("ranges", *req.ranges);
        if (!ranges) return ranges.error();
        ir.ranges = *ranges;
        auto parsed = read_ranges(*ir.ranges);
        if (!parsed) return parsed.error();
        ir.tensor_ranges = std::move(*parsed);
    }

    // The arm.
    const ArmSpec* arm = nullptr;
    for (const auto& a : arm_specs())
        if (req.arm == a.name) arm = &a;
    if (!arm) {
        return make_error(ErrorCode::usage, "--arm", "unknown arm '" + req.arm + "'" + schema::name_hint(req.arm, arm_names(), "arms"));
    }
    std::int64_t rows = req.rows.value_or(arm->default_rows);
    // A model with multi-token-prediction layers verifies what they draft: the last accepted token
    // and one drafted by each MTP layer (vLLM's num_speculative_tokens = num_nextn_predict_layers
    // for deepseek_mtp), so its verify arm defaults to that count.
    auto mtp_layers = mtp_count(ir);
    if (!mtp_layers) return mtp_layers.error();
    const bool mtp_verify = !req.rows && req.arm == "verify" && *mtp_layers > 0;
    if (mtp_verify) rows = std::clamp<std::int64_t>(1 + *mtp_layers, arm->min_rows, arm->max_rows);
    if (rows < arm->min_rows || rows > arm->max_rows) {
        if (arm->min_rows == arm->max_rows) {
            // An arm of fixed rows: say which arms --rows is for.
            std::string sized;
            for (const auto& a : arm_specs())
                if (a.min_rows != a.max_rows)
                    sized += (sized.empty() ? "" : ", ") + std::string(a.name) + " " + std::to_string(a.min_rows) + "-" + std::to_string(a.max_rows);
            return make_error(ErrorCode::usage, "--rows", "the " + req.arm + " arm is " + std::to_string(arm->min_rows) +
                                                              " row, not " + std::to_string(rows) + "; --rows is for " + sized);
        }
        return make_error(ErrorCode::usage, "--rows", std::to_string(rows) + " is outside the " + req.arm + " arm's range " +
                                                          std::to_string(arm->min_rows) + "-" + std::to_string(arm->max_rows));
    }
    ir.rows = rows;
    // What was left to defaults, said once so that no choice is invisible.
    auto chose = [&](const std::string& what) { ir.defaults_chosen += (ir.defaults_chosen.empty() ? "" : ", ") + what; };
    if (wrapped) chose(wrapped->said);
    if (!req.target)
        chose("target " + ir.target->name + " (" +
              (hint(cfg, "target")           ? "the config's kbp.target"
               : ir.recipe->recipe_record->target ? "recipe " + ir.recipe->name + "'s"
                                                    : "default of architecture '" + arch_name + "'") +
              ")");
    if (!req.recipe && !ir.quant)
        chose("recipe " + ir.recipe->name + " (" +
              (hint(cfg, "recipe")  ? "the config's kbp.recipe"
               : !made_for.empty() ? "the one made for target " + ir.target->name
                                   : "default of architecture '" + arch_name + "'") +
              ")");
    if (mtp_verify) chose("rows " + std::to_string(rows) + " (verify: the last token and " + std::to_string(rows - 1) + " drafted by the MTP layers)");
    else if (!req.rows && arm->min_rows != arm->max_rows) chose("rows " + std::to_string(rows) + " (" + req.arm + " default)");
    // Last, as its own list: the fields the config lacks, given transformers' defaults.
    if (!ir.config_defaults_used.empty()) {
        std::string used;
        for (const auto& d : ir.config_defaults_used) used += (used.empty() ? "" : ", ") + d;
        chose("transformers' defaults for the fields the config lacks (" + ir.architecture->origin + " /config_defaults): " + used);
    }
    if (const auto& arms = target.arms) {
        if (std::find(arms->begin(), arms->end(), req.arm) == arms->end()) {
            std::string names;
            for (const auto& a : *arms) names += (names.empty() ? "" : ", ") + a;
            return unsupported("--arm", "target '" + target_id + "' plans the " + names + " arm only (" +
                                            target.arms_about.value_or("its kernels serve no other") + "; " +
                                            ir.target->origin + ": /arms)");
        }
    }
    return Ok{};
}

}  // namespace kbp::planner
