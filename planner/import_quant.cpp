#include "planner/import_quant.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>

#include "planner/data_schema.hpp"
#include "planner/module_match.hpp"
#include "planner/regex_cache.hpp"
#include "schema/names.hpp"

namespace kbp::planner {
namespace {

Error refuse(const std::string& where, const std::string& message) { return make_error(ErrorCode::invalid_input, where, message); }

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// What a method decided for one module.
struct ModuleScheme {
    bool quantized = false;
    std::string weight = "bf16", activation = "bf16";
    std::string where;  // the config entry that decided it
    bool operator==(const ModuleScheme& o) const { return quantized == o.quantized && weight == o.weight && activation == o.activation; }
    std::string text() const { return quantized ? weight + " weights, " + activation + " activations" : "unquantized"; }
};

// A list of module names or patterns a config gives, with which of them matched a module.
struct NameList {
    std::string where;  // "config.json: /quantization_config/ignore"
    std::vector<std::string> entries;
    std::vector<bool> used;
};

Result<NameList> name_list(const QuantSource& q, const Json& j, const std::string& key) {
    NameList list{q.at("/" + key), {}, {}};
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return list;
    if (!it->is_array()) return refuse(list.where, "expected a list of module names");
    for (std::size_t i = 0; i < it->size(); ++i) {
        const Json& e = (*it)[i];
        if (!e.is_string()) return refuse(list.where + "/" + std::to_string(i), "expected a module name or pattern");
        const std::string s = e.get<std::string>();
        if (s.rfind("re:", 0) == 0 && !compiled_regex(std::string_view(s).substr(3)).regex)
            return refuse(list.where + "/" + std::to_string(i), "'" + s + "' is not a regular expression kbp reads: " + compiled_regex(std::string_view(s).substr(3)).problem);
        list.entries.push_back(s);
    }
    list.used.assign(list.entries.size(), false);
    return list;
}

// The first entry matching `module` (marked used), or -1.
int match_in(NameList& list, const std::string& module, const std::function<bool(const std::string&, const std::string&)>& matches) {
    for (std::size_t i = 0; i < list.entries.size(); ++i)
        if (matches(module, list.entries[i])) {
            list.used[i] = true;
            return static_cast<int>(i);
        }
    return -1;
}

// Entries naming one instance of a routed expert (`pattern` has '*' for the index) count as
// used: the engines resolve the experts' scheme from expert 0 alone.
void mark_instances(NameList& list, const std::string& pattern) {
    if (pattern.find('*') == std::string::npos) return;
    for (std::size_t i = 0; i < list.entries.size(); ++i)
        if (list.entries[i].rfind("re:", 0) != 0 && name_matches(pattern, list.entries[i])) list.used[i] = true;
}

// A method: what each module of the model gets, and what of the config matched nothing.
struct Method {
    // `module` is the name matched (expert 0 for routed experts), `pattern` the plan's ('*' for
    // every expert): an entry naming another expert counts as used. Kind `other` (embeddings,
    // routers) only marks the exclusion lists that name it and is never quantized.
    std::function<Result<ModuleScheme>(const std::string& module, const std::string& pattern, ModuleKind kind)> scheme;
    std::function<Status(std::vector<std::string>& warnings)> unused;  // refuse or warn
    std::string summary;  // "compressed-tensors, 2 groups"
};

void warn_unused(const NameList& list, std::vector<std::string>& warnings) {
    for (std::size_t i = 0; i < list.entries.size(); ++i)
        if (!list.used[i])
            warnings.push_back(list.where + "/" + std::to_string(i) + ": '" + list.entries[i] +
                               "' matches no module kbp plans (the engines load the checkpoint all the same)");
}

// --- compressed-tensors -------------------------------------------------------------------

// QuantizationArgs with compressed-tensors' defaults filled in (quant_args.py): those of the
// quantizer table's "defaults" (symmetric, dynamic), and strategy group when group_size is
// given, else tensor.
Json with_defaults(const Json& args, const Json& defaults) {
    Json a = args;
    for (const auto& [k, v] : defaults.items())
        if (!a.contains(k) || a[k].is_null()) a[k] = v;
    if (!a.contains("strategy") || a["strategy"].is_null()) a["strategy"] = a.contains("group_size") && !a["group_size"].is_null() ? "group" : "tensor";
    if (a.contains("type") && a["type"].is_string()) a["type"] = lower(a["type"].get<std::string>());
    if (a["strategy"].is_string()) a["strategy"] = lower(a["strategy"].get<std::string>());
    return a;
}

// The row of `rows` whose args all equal `args`'s; its format, or what kbp reads.
Result<std::string> format_of_args(const Json& args, const Json& table, const char* rows_key, const char* key, const std::string& where) {
    const Json a = with_defaults(args, table.value("defaults", Json::object()));
    const Json& rows = table.at(rows_key);
    std::string known;
    for (const auto& row : rows) {
        bool all = true;
        for (const auto& [k, v] : row.at("args").items())
            if (!a.contains(k) || a[k] != v) all = false;
        if (all) return row.at(key).get<std::string>();
        known += (known.empty() ? "" : "; ") + row.at(key).get<std::string>() + " " + row.at("args").dump();
    }
    Json shown = Json::object();
    for (const char* k : {"num_bits", "type", "strategy", "group_size", "block_structure", "symmetric", "dynamic"})
        if (a.contains(k)) shown[k] = a[k];
    return refuse(where, "no kbp format for " + shown.dump() + " (kbp reads: " + known + ")");
}

// A target naming a module class ("Linear") rather than a module: no dots, no "re:", and not
// a top-level module's name.
bool is_class_target(const std::string& t) { return t.rfind("re:", 0) != 0 && t.find('.') == std::string::npos && t != "lm_head"; }

// vLLM matches a class target contained in the layer's class name, case-insensitively
// (_find_first_match with check_contains): every vLLM linear class ends in "Linear", and its
// fused MoE is added under the "Linear" target (_add_fused_moe_to_target_scheme_map).
bool class_contains(const std::string& t) { return !t.empty() && std::string("linear").find(lower(t)) != std::string::npos; }

struct CtGroup {
    std::string name, where;
    std::string weight, activation;
    NameList targets;
};

Result<Method> compressed_tensors(const QuantSource& q) {
    const Json& j = *q.json;
    const Json& table = q.table->json;
    // The compression formats kbp knows: those a kbp format is saved in, plus the container names.
    std::vector<std::string> formats{"naive-quantized", "mixed-precision", "dense"};
    for (const auto& row : table.at("weights")) formats.push_back(row.at("compression").get<std::string>());
    auto check_format = [&](const Json& parent, const std::string& where) -> Status {
        auto f = parent.find("format");
        if (f == parent.end() || f->is_null()) return Ok{};
        if (!f->is_string()) return refuse(where, "expected a compression format name");
        if (std::find(formats.begin(), formats.end(), f->get<std::string>()) == formats.end())
            return refuse(where, "compression format '" + f->get<std::string>() + "' has no kbp format (kbp reads: " + schema::quoted_names(formats) + ")");
        return Ok{};
    };
    if (auto s = check_format(j, q.at("/format")); !s) return s.error();
    auto groups_it = j.find("config_groups");
    if (groups_it == j.end() || !groups_it->is_object() || groups_it->empty()) return refuse(q.at("/config_groups"), "missing: compressed-tensors names its schemes in config_groups");
    auto groups = std::make_shared<std::vector<CtGroup>>();
    for (const auto& [name, g] : groups_it->items()) {
        CtGroup group;
        group.name = name;
        group.where = q.at("/config_groups/" + pointer_token(name));
        if (!g.is_object()) return refuse(group.where, "expected a quantization scheme object");
        if (auto s = check_format(g, group.where + "/format"); !s) return s.error();
        const Json weights = g.value("weights", Json());
        if (!weights.is_object()) return refuse(group.where + "/weights", "kbp plans weight formats: a scheme without weights (activations alone) has none");
        auto w = format_of_args(weights, table, "weights", "format", group.where + "/weights");
        if (!w) return w.error();
        group.weight = *w;
        group.activation = "bf16";
        if (const Json acts = g.value("input_activations", Json()); acts.is_object()) {
            auto a = format_of_args(acts, table, "input_activations", "format", group.where + "/input_activations");
            if (!a) return a.error();
            group.activation = *a;
        }
        QuantSource at_group = q;
        at_group.pointer += "/config_groups/" + pointer_token(name);
        auto targets = name_list(at_group, g, "targets");
        if (!targets) return targets.error();
        group.targets = std::move(*targets);
        if (group.targets.entries.empty()) return refuse(group.where + "/targets", "a scheme without targets quantizes nothing");
        groups->push_back(std::move(group));
    }
    auto ignore = std::make_shared<NameList>();
    if (auto list = name_list(q, j, "ignore"); !list) return list.error();
    else *ignore = std::move(*list);

    Method m;
    m.summary = "compressed-tensors, " + std::to_string(groups->size()) + (groups->size() == 1 ? " group" : " groups") +
                (ignore->entries.empty() ? "" : ", " + std::to_string(ignore->entries.size()) + " ignore " + (ignore->entries.size() == 1 ? "entry" : "entries"));
    m.scheme = [groups, ignore](const std::string& module, const std::string& pattern, ModuleKind kind) -> Result<ModuleScheme> {
        if (int i = match_in(*ignore, module, equal_or_regex); i >= 0) return ModuleScheme{false, "bf16", "bf16", ignore->where + "/" + std::to_string(i)};
        if (kind == ModuleKind::other) return ModuleScheme{};
        for (auto& g : *groups) mark_instances(g.targets, pattern);
        // A name target first (any group, in order), then a class name contained in the module's
        // class: every module kbp names here is a Linear (find_matched_target).
        for (auto& g : *groups)
            if (int i = match_in(g.targets, module, equal_or_regex); i >= 0) return ModuleScheme{true, g.weight, g.activation, g.targets.where + "/" + std::to_string(i)};
        for (auto& g : *groups)
            if (int i = match_in(g.targets, module, [](const std::string&, const std::string& t) { return is_class_target(t) && class_contains(t); }); i >= 0)
                return ModuleScheme{true, g.weight, g.activation, g.targets.where + "/" + std::to_string(i)};
        return ModuleScheme{false, "bf16", "bf16", ""};
    };
    m.unused = [groups, ignore](std::vector<std::string>& w) -> Status {
        for (const auto& g : *groups)
            for (std::size_t i = 0; i < g.targets.entries.size(); ++i)
                if (!g.targets.used[i] && is_class_target(g.targets.entries[i]))
                    w.push_back(g.targets.where + "/" + std::to_string(i) + ": class '" + g.targets.entries[i] + "' is no module kbp plans (kbp's weighted modules are Linear)");
                else if (!g.targets.used[i])
                    return refuse(g.targets.where + "/" + std::to_string(i), "'" + g.targets.entries[i] + "' names no module of the model kbp plans: the checkpoint was made for another model");
        warn_unused(*ignore, w);
        return Ok{};
    };
    return m;
}

// --- ModelOpt -----------------------------------------------------------------------------

Result<ModuleScheme> algo_scheme(const Json& table, const std::string& algo, const std::string& where, const Json& config) {
    std::vector<std::string> known;
    for (const auto& row : table.at("quant_algos")) {
        known.push_back(row.at("quant_algo").get<std::string>());
        if (lower(row.at("quant_algo").get<std::string>()) != lower(algo)) continue;
        if (row.contains("group_size") && config.contains("group_size") && config["group_size"].is_number_integer() && config["group_size"] != row["group_size"])
            return refuse(where, algo + " with group_size " + config["group_size"].dump() + ": kbp's " + row.at("weight").get<std::string>() + " has groups of " +
                                     row["group_size"].dump());
        return ModuleScheme{true, row.at("weight").get<std::string>(), row.at("activation").get<std::string>(), where};
    }
    return refuse(where, "quant_algo '" + algo + "' has no kbp formats (kbp reads: " + schema::quoted_names(known) + ", MIXED_PRECISION)");
}

Result<Method> modelopt(const QuantSource& q) {
    const Json& j = *q.json;
    const Json& table = q.table->json;
    auto algo_it = j.find("quant_algo");
    if (algo_it == j.end() || !algo_it->is_string()) return refuse(q.at("/quant_algo"), "missing: ModelOpt names its scheme in quant_algo");
    const std::string algo = algo_it->get<std::string>();
    auto exclude = std::make_shared<NameList>();
    const std::string exclude_key = j.contains("exclude_modules") ? "exclude_modules" : "ignore";
    if (auto list = name_list(q, j, exclude_key); !list) return list.error();
    else *exclude = std::move(*list);
    Method m;
    m.summary = "ModelOpt " + algo + (exclude->entries.empty() ? "" : ", " + std::to_string(exclude->entries.size()) + " excluded module patterns");
    auto excluded = [exclude](const std::string& module) -> std::optional<ModuleScheme> {
        if (int i = match_in(*exclude, module, [](const std::string& mod, const std::string& e) { return module_matches(mod, e, "wildcard"); }); i >= 0)
            return ModuleScheme{false, "bf16", "bf16", exclude->where + "/" + std::to_string(i)};
        return std::nullopt;
    };
    if (lower(algo) == "mixed_precision") {
        auto layers_it = j.find("quantized_layers");
        if (layers_it == j.end() || !layers_it->is_object()) return refuse(q.at("/quantized_layers"), "missing: MIXED_PRECISION names each quantized module's quant_algo there");
        // Each entry's scheme, checked now so that an unknown algorithm is refused wherever it is.
        auto layers = std::make_shared<std::map<std::string, std::pair<ModuleScheme, bool>>>();
        for (const auto& [name, spec] : layers_it->items()) {
            const std::string where = q.at("/quantized_layers/" + pointer_token(name));
            if (!spec.is_object() || !spec.contains("quant_algo") || !spec["quant_algo"].is_string()) return refuse(where, "expected {\"quant_algo\": ...}");
            auto s = algo_scheme(table, spec["quant_algo"].get<std::string>(), where + "/quant_algo", spec);
            if (!s) return s.error();
            (*layers)[name] = {*s, false};
        }
        m.summary += " (" + std::to_string(layers->size()) + " quantized_layers)";
        m.scheme = [layers, excluded](const std::string& module, const std::string& pattern, ModuleKind kind) -> Result<ModuleScheme> {
            if (auto e = excluded(module)) return *e;
            if (kind == ModuleKind::other) return ModuleScheme{};
            if (pattern.find('*') != std::string::npos)
                for (auto& [name, entry] : *layers)
                    if (name_matches(pattern, name)) entry.second = true;
            // The module, or an enclosing one (a layer's experts listed as one FusedMoE).
            std::string name = module;
            while (true) {
                if (auto it = layers->find(name); it != layers->end()) {
                    it->second.second = true;
                    return it->second.first;
                }
                auto dot = name.rfind('.');
                if (dot == std::string::npos) break;
                name.resize(dot);
            }
            return ModuleScheme{false, "bf16", "bf16", ""};
        };
        m.unused = [layers, exclude, q](std::vector<std::string>& w) -> Status {
            for (const auto& [name, entry] : *layers)
                if (!entry.second)
                    return refuse(q.at("/quantized_layers/" + pointer_token(name)), "'" + name + "' names no module of the model kbp plans: the checkpoint was made for another model");
            warn_unused(*exclude, w);
            return Ok{};
        };
        return m;
    }
    auto one = algo_scheme(table, algo, q.at("/quant_algo"), j);
    if (!one) return one.error();
    m.scheme = [scheme = *one, excluded](const std::string& module, const std::string&, ModuleKind kind) -> Result<ModuleScheme> {
        if (auto e = excluded(module)) return *e;
        if (kind == ModuleKind::other) return ModuleScheme{};
        return scheme;
    };
    m.unused = [exclude](std::vector<std::string>& w) -> Status {
        warn_unused(*exclude, w);
        return Ok{};
    };
    return m;
}

// --- the methods of one scheme (fp8, awq, gptq, mxfp4, bitsandbytes) ----------------------

// The config's fields as the table reads them: aliases resolved, defaults filled.
Json method_fields(const Json& config, const Json& table) {
    Json f = config;
    const Json aliases = table.value("aliases", Json::object()), defaults = table.value("defaults", Json::object());
    for (const auto& [alias, field] : aliases.items())
        if (f.contains(alias) && !f.contains(field.get<std::string>())) f[field.get<std::string>()] = f[alias];
    for (const auto& [k, v] : defaults.items())
        if (!f.contains(k) || f[k].is_null()) f[k] = v;
    return f;
}

Result<ModuleScheme> method_scheme(const Json& fields, const Json& table, const QuantSource& q, const std::string& where) {
    std::string known;
    for (const auto& row : table.at("schemes")) {
        bool all = true;
        for (const auto& [k, v] : row.at("when").items())
            if (!fields.contains(k) || fields[k] != v) all = false;
        if (all) return ModuleScheme{true, row.at("weight").get<std::string>(), row.at("activation").get<std::string>(), where};
        known += (known.empty() ? "" : "; ") + row.at("when").dump() + " -> " + row.at("weight").get<std::string>();
    }
    Json shown = Json::object();
    for (const auto& row : table.at("schemes"))
        for (const auto& [k, v] : row.at("when").items())
            if (fields.contains(k)) shown[k] = fields[k];
    return refuse(where, q.method + " " + shown.dump() + " has no kbp format (kbp reads: " + known + ")");
}

Result<Method> one_scheme_method(const QuantSource& q) {
    const Json& table = q.table->json;
    const Json fields = method_fields(*q.json, table);
    auto base = method_scheme(fields, table, q, q.at());
    if (!base) return base.error();
    const std::string quantizes = table.value("quantizes", "linear_and_experts");
    const std::string how = table.at("exclude").at("match").get<std::string>();
    auto excludes = std::make_shared<std::vector<NameList>>();
    for (const auto& field : table.at("exclude").at("fields")) {
        auto list = name_list(q, *q.json, field.get<std::string>());
        if (!list) return list.error();
        excludes->push_back(std::move(*list));
    }
    // GPTQ's modules_in_block_to_quantize: the only modules of a layer quantized.
    auto include = std::make_shared<std::optional<std::vector<std::string>>>();
    if (auto key = table.value("include_field", ""); !key.empty())
        if (auto it = q.json->find(key); it != q.json->end() && !it->is_null()) {
            if (!it->is_array()) return refuse(q.at("/" + key), "expected lists of module names");
            std::vector<std::string> names;
            for (std::size_t i = 0; i < it->size(); ++i) {
                const Json& block = (*it)[i];
                if (!block.is_array()) return refuse(q.at("/" + key + "/" + std::to_string(i)), "expected a list of module names");
                for (const auto& n : block)
                    if (n.is_string()) names.push_back(n.get<std::string>());
            }
            *include = std::move(names);
        }
    // GPTQ's dynamic: "-:<regex>" leaves the modules it re.matches unquantized, "+:<regex>" gives
    // them other fields (gptq_utils.py get_dynamic_override).
    struct Override {
        std::string pattern, where;
        bool exclude;
        Json fields;
    };
    auto overrides = std::make_shared<std::vector<Override>>();
    if (auto key = table.value("dynamic_field", ""); !key.empty())
        if (auto it = q.json->find(key); it != q.json->end() && it->is_object())
            for (const auto& [rule, value] : it->items()) {
                const std::string where = q.at("/" + key + "/" + pointer_token(rule));
                const bool minus = rule.rfind("-:", 0) == 0;
                std::string pattern = rule.rfind("+:", 0) == 0 || minus ? rule.substr(2) : rule;
                if (!compiled_regex(pattern).regex) return refuse(where, "'" + pattern + "' is not a regular expression kbp reads: " + compiled_regex(pattern).problem);
                Json merged = fields;
                if (value.is_object())
                    for (const auto& [k, v] : value.items()) merged[k] = v;
                if (!minus)
                    if (auto s = method_scheme(merged, table, q, where); !s) return s.error();
                overrides->push_back({"re:" + pattern, where, minus, merged});
            }
    const std::string lm_head = table.value("lm_head", "never");
    const auto lm_head_field = q.json->find(table.value("lm_head_field", "lm_head"));
    const bool lm_head_quantized = lm_head == "field" && lm_head_field != q.json->end() && lm_head_field->is_boolean() && lm_head_field->get<bool>();

    Method m;
    m.summary = q.method + " " + base->weight + (base->activation == "bf16" ? "" : " x " + base->activation);
    m.scheme = [=](const std::string& module, const std::string&, ModuleKind kind) -> Result<ModuleScheme> {
        const ModuleScheme bf16{false, "bf16", "bf16", ""};
        for (auto& list : *excludes)
            if (int i = match_in(list, module, [&how](const std::string& mod, const std::string& e) { return module_matches(mod, e, how); }); i >= 0)
                return ModuleScheme{false, "bf16", "bf16", list.where + "/" + std::to_string(i)};
        if (kind == ModuleKind::other) return bf16;
        if (kind == ModuleKind::lm_head && !lm_head_quantized) return bf16;
        if (kind == ModuleKind::linear && quantizes == "experts") return bf16;
        if (kind == ModuleKind::experts && quantizes == "linear") return bf16;
        if (include->has_value() && kind != ModuleKind::lm_head) {
            const std::string relative = within_layer(module);
            if (std::find((*include)->begin(), (*include)->end(), relative) == (*include)->end()) return bf16;
        }
        for (const auto& o : *overrides)
            if (equal_or_regex(module, o.pattern)) {
                if (o.exclude) return ModuleScheme{false, "bf16", "bf16", o.where};
                return method_scheme(o.fields, table, q, o.where);
            }
        return *base;
    };
    m.unused = [excludes](std::vector<std::string>& w) -> Status {
        for (const auto& list : *excludes) warn_unused(list, w);
        return Ok{};
    };
    return m;
}

Result<Method> method_for(const QuantSource& q) {
    if (q.method == "compressed-tensors") return compressed_tensors(q);
    if (q.method == "modelopt") return modelopt(q);
    return one_scheme_method(q);
}

// "q, k and v" style list of what disagrees, for the refusal.
std::string scheme_place(const ModuleScheme& s) { return s.text() + (s.where.empty() ? " (matched by nothing)" : " (" + s.where + ")"); }

}  // namespace

Result<std::optional<QuantSource>> find_quant_source(const DataFile& config, const std::string& config_path, Catalog& catalog) {
    const Json& cfg = config.json;
    QuantSource q;
    q.file = &config;
    for (const auto& [pointer, holder, key] : std::vector<std::tuple<std::string, const Json*, std::string>>{
             {"/quantization_config", &cfg, "quantization_config"},
             {"/text_config/quantization_config", cfg.contains("text_config") && cfg["text_config"].is_object() ? &cfg["text_config"] : nullptr, "quantization_config"},
             {"/compression_config", &cfg, "compression_config"}}) {
        if (!holder) continue;
        auto it = holder->find(key);
        if (it == holder->end() || it->is_null()) continue;
        if (!it->is_object()) return refuse(config.origin + ": " + pointer, "expected an object");
        q.pointer = pointer;
        q.json = &*it;
        break;
    }
    if (!q.json) {
        // ModelOpt's sidecar: {"producer": ..., "quantization": {"quant_algo": ...}}.
        namespace fs = std::filesystem;
        const fs::path sidecar = fs::path(config_path).parent_path() / "hf_quant_config.json";
        std::error_code ec;
        if (!fs::is_regular_file(sidecar, ec)) return std::optional<QuantSource>();
        auto file = catalog.file("quant_configs", sidecar.string());
        if (!file) return file.error();
        q.file = *file;
        auto it = q.file->json.find("quantization");
        if (!q.file->json.is_object() || it == q.file->json.end() || !it->is_object())
            return refuse(q.file->origin + ": /quantization", "missing: ModelOpt's hf_quant_config.json holds its scheme there");
        q.pointer = "/quantization";
        q.json = &*it;
        q.method = "modelopt";
    } else {
        auto m = q.json->find("quant_method");
        if (m == q.json->end() || !m->is_string()) return refuse(q.at("/quant_method"), "missing: a quantization config names its quant_method");
        q.method = lower(m->get<std::string>());
    }
    std::vector<std::string> known;
    for (const DataFile* t : catalog.all("quantizers")) {
        if (t->json.value("export_only", false)) continue;  // GGUF: what kbp export quant writes, never a checkpoint's method
        const std::string method = t->json.value("method", t->name);
        known.push_back(method);
        if (method == q.method) q.table = t;
    }
    if (!q.table)
        return refuse(q.at("/quant_method"), "kbp does not read quant_method '" + q.method + "' (it reads " + schema::quoted_names(known) +
                                                 "); pass --recipe to plan another precision");
    return std::optional<QuantSource>(q);
}

Result<std::optional<std::string>> quant_kv_cache_dtype(const QuantSource& q) {
    const Json& j = *q.json;
    const Json& table = q.table->json;
    if (q.method == "compressed-tensors") {
        auto kv = j.find("kv_cache_scheme");
        if (kv == j.end() || kv->is_null()) return std::optional<std::string>();
        if (!kv->is_object()) return refuse(q.at("/kv_cache_scheme"), "expected QuantizationArgs");
        auto f = format_of_args(*kv, table, "kv_cache", "kv_cache_dtype", q.at("/kv_cache_scheme"));
        if (!f) return f.error();
        return std::optional<std::string>(*f);
    }
    if (q.method == "modelopt") {
        auto kv = j.find("kv_cache_quant_algo");
        if (kv == j.end() || kv->is_null()) {
            // Newer inline exports: a compressed-tensors style kv_cache_scheme.
            auto scheme = j.find("kv_cache_scheme");
            if (scheme == j.end() || !scheme->is_object()) return std::optional<std::string>();
            auto f = format_of_args(*scheme, table, "kv_cache", "kv_cache_dtype", q.at("/kv_cache_scheme"));
            if (!f) return f.error();
            return std::optional<std::string>(*f);
        }
        std::vector<std::string> known;
        for (const auto& row : table.at("kv_cache_quant_algos")) {
            known.push_back(row.at("kv_cache_quant_algo").get<std::string>());
            if (kv->is_string() && lower(kv->get<std::string>()) == lower(known.back())) return std::optional<std::string>(row.at("kv_cache_dtype").get<std::string>());
        }
        return refuse(q.at("/kv_cache_quant_algo"), (kv->is_string() ? "'" + kv->get<std::string>() + "'" : kv->dump()) +
                                                         " is not a KV cache format kbp plans (it reads " + schema::quoted_names(known) + ")");
    }
    return std::optional<std::string>();
}

Status import_precision(Ir& ir) {
    if (!ir.quant) return Ok{};
    const QuantSource& q = *ir.quant;
    auto method = method_for(q);
    if (!method) return method.error();
    ir.imported.assign(ir.nodes.size(), std::nullopt);
    // The scheme of each packed group (q/k/v, gate/up, a layer's experts), with the module that set it.
    std::map<std::string, std::pair<ModuleScheme, std::string>> packed;
    std::size_t quantized = 0, kept = 0, named = 0;
    const auto tie = ir.config->json.find("tie_word_embeddings");
    const bool tied = tie != ir.config->json.end() && tie->is_boolean() && tie->get<bool>();
    for (std::size_t i = 0; i < ir.nodes.size(); ++i) {
        IrNode& n = ir.nodes[i];
        // Routers are Linear layers the engines build without a quant method: never quantized,
        // as embeddings are, though an exclusion list may name them.
        const ModuleKind kind = module_kind(n.node.op) == ModuleKind::router ? ModuleKind::other : module_kind(n.node.op);
        if (n.modules.empty()) continue;
        // Tied embeddings: the checkpoint stores no lm_head of its own, the engines read the
        // embedding table, unquantized.
        if (!n.weighted || kind == ModuleKind::other || (kind == ModuleKind::lm_head && tied)) {
            // Not quantized, but an exclusion list may name it (routers, embeddings).
            for (const auto& full : n.modules)
                if (auto s = method->scheme(representative_module(full), full, ModuleKind::other); !s) return s.error();
            continue;
        }
        ++named;
        std::optional<ModuleScheme> op_scheme;
        std::string first;
        for (const auto& full : n.modules) {
            const std::string module = representative_module(full);
            auto s = method->scheme(module, full, kind);
            if (!s) return s.error();
            if (op_scheme && !(*op_scheme == *s))
                return refuse(op_scheme->where.empty() ? s->where : op_scheme->where,
                              first + " and " + module + " are one op of kbp's and one module of the engines' (" + n.node.id + "), but get " +
                                  scheme_place(*op_scheme) + " and " + scheme_place(*s) + ": vLLM requires all shards of a fused layer to share a scheme");
            if (!op_scheme) {
                op_scheme = *s;
                first = module;
            }
            if (auto group = packed_group(module); !group.empty()) {
                auto [it, fresh] = packed.emplace(group, std::make_pair(*s, module));
                if (!fresh && !(it->second.first == *s))
                    return refuse(it->second.first.where.empty() ? s->where : it->second.first.where,
                                  it->second.second + " and " + module + " are loaded as one " + group.substr(group.rfind('.') + 1) + " by the engines, but get " +
                                      scheme_place(it->second.first) + " and " + scheme_place(*s) +
                                      ": vLLM requires one scheme for all of them (compressed_tensors/utils.py should_ignore_layer, compressed_tensors_moe.py)");
            }
        }
        (op_scheme->quantized ? quantized : kept) += n.modules.size();
        ir.imported[i] = ImportedFormats{schema::Format::parse(op_scheme->weight), schema::Format::parse(op_scheme->activation),
                                         op_scheme->where.empty() ? q.at() + " (no entry matches: unquantized)" : op_scheme->where};
    }
    if (named == 0)
        return refuse(q.at(), "architecture '" + ir.architecture_name() + "' (" + ir.architecture->origin +
                                  ") names none of its ops' checkpoint modules, so kbp cannot match the checkpoint's quantization to them; pass --recipe");
    if (auto s = method->unused(ir.warnings); !s) return s;
    const std::string what = q.pointer == "/quantization" ? q.file->origin : ir.config->origin + "'s " + q.pointer.substr(q.pointer.rfind('/') + 1);
    const std::string line = "precision from " + what + " (" + method->summary + "): " + std::to_string(quantized) + " modules quantized, " +
                             std::to_string(kept) + " kept unquantized";
    ir.defaults_chosen = line + (ir.defaults_chosen.empty() ? "" : ", " + ir.defaults_chosen);
    return Ok{};
}

}  // namespace kbp::planner
