#include "planner/model_symbols.hpp"

#include <cctype>
#include <cmath>
#include <algorithm>
#include <map>

#include "planner/expr.hpp"
#include "planner/passes.hpp"
#include "planner/tensor_parallel.hpp"
#include "schema/numbers.hpp"

namespace kbp::planner {
namespace {

constexpr std::int64_t default_max = std::int64_t{1} << 24;  // any width, count or length

Error bad_config(const Ir& ir, const std::string& field, std::string message) {
    return make_error(ErrorCode::invalid_input, ir.config_at(field), std::move(message));
}

// A config's per-layer attention kinds against its layer count. It knows the field's JSON
// pointer, not the file: its caller adds that (Result::context).
Status check_layer_types(const Json& layer_types, std::optional<std::int64_t> layers) {
    auto bad = [](const std::string& pointer, std::string message) { return make_error(ErrorCode::invalid_input, pointer, std::move(message)); };
    if (!layer_types.is_array()) return bad("/layer_types", "expected an array of layer kinds");
    if (layers && static_cast<std::int64_t>(layer_types.size()) != *layers)
        return bad("/layer_types", std::to_string(layer_types.size()) + " entries for " + std::to_string(*layers) + " layers");
    for (std::size_t i = 0; i < layer_types.size(); ++i)
        if (!layer_types[i].is_string()) return bad("/layer_types/" + std::to_string(i), "expected a layer kind name");
    return Ok{};
}

// The one config field a symbol's expression names, or "" when it names several.
std::string lone_field(const std::string& expr) {
    for (char c : expr)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return "";
    return expr;
}

}  // namespace

const Json* config_field(const Json& config, std::string_view path) {
    const Json* at = &config;
    std::size_t start = 0;
    while (true) {
        std::size_t slash = path.find('/', start);
        std::string key(path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
        if (!at->is_object()) return nullptr;
        auto it = at->find(key);
        if (it == at->end()) return nullptr;
        at = &*it;
        if (slash == std::string_view::npos) return at;
        start = slash + 1;
    }
}

std::optional<std::int64_t> config_integer(const Json& config, std::string_view key) {
    auto it = config.find(std::string(key));
    if (it == config.end() || it->is_null()) return std::nullopt;
    if (it->is_number_integer()) return it->get<std::int64_t>();
    if (it->is_boolean()) return it->get<bool>() ? 1 : 0;
    if (it->is_number_float()) {
        double d = it->get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9.0e15) return static_cast<std::int64_t>(d);
    }
    return std::nullopt;
}

Status resolve_symbols(Ir& ir) {
    // The family's defaults for fields the config lacks (transformers' own, e.g. gemma ties its
    // embeddings unless told otherwise).
    Json with_defaults;
    if (auto d = ir.architecture->json.find("config_defaults"); d != ir.architecture->json.end() && d->is_object()) {
        with_defaults = ir.config->json;
        for (const auto& [k, v] : d->items())
            if (!with_defaults.contains(k) || with_defaults[k].is_null()) {
                with_defaults[k] = v;
                ir.config_defaults_used.push_back(k + " " + v.dump());
            }
    }
    const Json& arch = ir.architecture->json;
    // A field a symbol reads with {"list": "equal"} may be an integer or a list of them, one a
    // layer (Hunyuan-A13B's moe_topk, num_shared_expert, moe_intermediate_size): kbp's symbols
    // hold one value a model, so a list is read as its one value when every entry is that value,
    // and a list whose entries differ is refused at the first that differs.
    Json flattened;
    std::vector<std::pair<std::string, std::size_t>> list_fields;  // checked against the layer count below
    const Json symbols = arch.value("symbols", Json::object());
    for (const auto& [name, spec] : symbols.items()) {
        if (!spec.is_object() || spec.value("list", std::string()) != "equal") continue;
        const Json& from = spec.value("from", Json());
        std::vector<std::string> fields;
        if (from.is_string()) fields.push_back(from.get<std::string>());
        else if (from.is_array())
            for (const auto& a : from)
                if (a.is_string()) fields.push_back(a.get<std::string>());
        for (const auto& field : fields) {
            const Json& source = flattened.is_null() ? (with_defaults.is_null() ? ir.config->json : with_defaults) : flattened;
            auto it = source.find(field);
            if (lone_field(field) != field || it == source.end() || !it->is_array()) continue;
            const Json list = *it;
            if (list.empty()) return bad_config(ir, field, "an empty list (expected an integer, or one a layer)");
            for (std::size_t i = 0; i < list.size(); ++i) {
                if (!list[i].is_number_integer())
                    return bad_config(ir, field + "/" + std::to_string(i), "expected an integer (" + field + " is a list, one value a layer)");
                if (list[i] != list[0])
                    return bad_config(ir, field + "/" + std::to_string(i),
                                      list[i].dump() + " where entry 0 is " + list[0].dump() + ": architecture '" + ir.architecture_name() +
                                          "' plans one value of " + field + " for every layer (the symbol '" + name + "')");
            }
            if (flattened.is_null()) flattened = source;
            flattened[field] = list[0];
            list_fields.emplace_back(field, list.size());
        }
    }
    const Json& cfg = !flattened.is_null() ? flattened : with_defaults.is_null() ? ir.config->json : with_defaults;
    const std::string& origin = ir.architecture->origin;
    const std::string arch_name = ir.architecture_name();
    const Json limits = arch.value("limits", Json::object());
    std::map<std::string, std::string> field_of;  // symbol -> the config field it came from

    TensorSplit tensor_split(ir);  // --tp N: per-device heads and widths
    for (const auto& [name, spec] : symbols.items()) {
        const std::string where = origin + ": /symbols/" + name;
        // The alternatives and the default this symbol has.
        std::vector<std::string> alternatives;
        std::optional<std::int64_t> fallback;
        const Json& from = spec.is_object() ? spec.value("from", Json()) : spec;
        if (from.is_string()) alternatives.push_back(from.get<std::string>());
        else if (from.is_array())
            for (const auto& a : from)
                if (a.is_string()) alternatives.push_back(a.get<std::string>());
        if (spec.is_object() && spec.contains("default")) {
            if (!spec["default"].is_number_integer())
                return make_error(ErrorCode::invalid_input, where + "/default", "expected an integer");
            fallback = spec["default"].get<std::int64_t>();
        }
        if (alternatives.empty())
            return make_error(ErrorCode::invalid_input, where, "a symbol is an expression, a list of them, or {\"from\": ..., \"default\": N}");
        std::optional<std::int64_t> value;
        std::string first_missing;
        // {"from": "position_embedding_type", "names": {"nope": 0, "rope": 1}}: a config field that
        // is a name, read as the number the architecture gives it; a name it does not list is refused
        // at the field (a kind of model the architecture does not lay out), never read as another.
        // The field may be a path into an object ("rope_scaling/rope_type"), and a list names
        // alternatives: the first the config has is read (["hidden_activation", "hidden_act"]).
        if (spec.is_object() && spec.contains("names")) {
            const Json& names = spec["names"];
            std::string field;  // a copy: the list is cleared below
            const Json* found = nullptr;
            for (const auto& a : alternatives)
                if (const Json* v = config_field(cfg, a); v && !v->is_null()) {
                    field = a;
                    found = v;
                    break;
                }
            if (found) {
                auto code = found->is_string() ? names.find(found->get<std::string>()) : names.end();
                if (code == names.end() || !code->is_number_integer()) {
                    std::vector<std::string> listed;
                    for (const auto& [n, v] : names.items()) listed.push_back(n);
                    return bad_config(ir, field, (found->is_string() ? "'" + found->get<std::string>() + "'" : std::string("the value")) +
                                                     " is not one architecture '" + arch_name + "' plans (it plans " +
                                                     schema::quoted_names(listed) + ")");
                }
                value = code->get<std::int64_t>();
                field_of[name] = field;
                ir.symbol_fields[name] = {field};
            }
            if (!value && !alternatives.empty()) first_missing = alternatives.front();
            alternatives.clear();  // read by name or not at all: the default, else missing
        }
        for (const auto& expr : alternatives) {
            // "linear_attn_config/num_heads" where the config's linear_attn_config is an object: a
            // path to a member (Kimi Linear's KDA sizes), not a division.
            if (const std::size_t slash = expr.find('/'); slash != std::string::npos && lone_field(expr.substr(0, slash)) == expr.substr(0, slash)) {
                if (const Json* outer = config_field(cfg, expr.substr(0, slash)); outer && outer->is_object()) {
                    const Json* member = config_field(cfg, expr);
                    std::optional<std::int64_t> v;
                    if (member && member->is_number_integer()) v = member->get<std::int64_t>();
                    ir.symbol_fields[name] = {expr.substr(0, slash)};
                    if (v) {
                        value = v;
                        field_of[name] = expr;
                        break;
                    }
                    if (first_missing.empty()) first_missing = expr;
                    continue;
                }
            }
            std::string missing;
            std::vector<std::string> fields;  // the config fields the expression reads, through earlier symbols too
            auto v = eval_expr(expr, [&](std::string_view key) -> std::optional<std::int64_t> {
                auto add = [&](const std::string& f) {
                    if (std::find(fields.begin(), fields.end(), f) == fields.end()) fields.push_back(f);
                };
                if (auto s = ir.symbol(key)) {
                    for (const auto& f : ir.symbol_fields[std::string(key)]) add(f);
                    return s;
                }
                add(std::string(key));
                auto n = config_integer(cfg, key);
                if (!n && missing.empty()) missing = std::string(key);
                return n;
            });
            if (v || missing.empty()) ir.symbol_fields[name] = fields;
            if (v) {
                value = *v;
                if (auto f = lone_field(expr); !f.empty() && !ir.symbol(f)) field_of[name] = f;
                break;
            }
            if (missing.empty())  // the config has the fields; the arithmetic failed (division by zero, overflow)
                return ir.config_error({name}, "symbol '" + name + "': " + v.error().message + " (" + where + " is '" + expr + "')",
                                       v.error().message.find("division by zero") != std::string::npos);
            // A field the config gives as a number that is not whole (LFM2's block_ffn_dim_multiplier
            // 1.5) is refused at the field, never read as absent and replaced by the default.
            if (auto it = cfg.find(missing); it != cfg.end() && it->is_number_float())
                return bad_config(ir, missing, "not an integer: " + it->dump() + " (" + where + " reads it)");
            if (first_missing.empty()) first_missing = missing;
        }
        if (!value) {
            if (!fallback)
                return bad_config(ir, first_missing,
                                  "missing or not an integer (" + where + " reads it)");
            value = fallback;
        }
        // Bounded: a model's widths and counts are positive and far from overflowing.
        std::int64_t lo = 1, hi = default_max;
        if (auto l = limits.find(name); l != limits.end()) {
            if (!l->is_array() || l->size() != 2 || !(*l)[0].is_number_integer() || !(*l)[1].is_number_integer())
                return make_error(ErrorCode::invalid_input, origin + ": /limits/" + name, "expected [min, max]");
            lo = (*l)[0].get<std::int64_t>();
            hi = (*l)[1].get<std::int64_t>();
        }
        if (*value < lo || *value > hi) {
            std::string what = *value < 0    ? " is negative"
                               : *value < lo ? " is less than " + schema::with_commas(lo)
                               : hi == default_max ? " is more than kbp plans (" + schema::with_commas(hi) + ")"
                                                   : " is more than " + schema::with_commas(hi);
            what = schema::with_commas(*value) + what + " (" + where + ")";
            if (field_of.count(name)) return bad_config(ir, field_of[name], what);
            return ir.config_error({name}, "symbol '" + name + "' = " + what, *value < lo);
        }
        tensor_split.split(name, spec, field_of.count(name) ? field_of[name] : std::string(), *value);
        ir.symbols.push_back({name, *value});
    }
    if (auto s = tensor_split.status(); !s) return s;
    ir.kv_head_replicas = tensor_split.kv_head_replicas();

    // The architecture's consistency checks: a config that cannot be a model is refused.
    const Json checks = arch.value("checks", Json::array());
    for (std::size_t i = 0; i < checks.size(); ++i) {
        const Json& c = checks[i];
        const std::string where = origin + ": /checks/" + std::to_string(i);
        if (!c.is_object() || !c.contains("expr") || !c["expr"].is_string())
            return make_error(ErrorCode::invalid_input, where, "a check is {\"expr\": ..., \"field\": ..., \"message\": ...}");
        auto v = eval_expr(c["expr"].get<std::string>(), [&](std::string_view key) { return ir.symbol(key); });
        if (!v) return v.error().with_context(where + "/expr");
        if (*v) continue;
        return bad_config(ir, c.value("field", std::string()), ir.fill(c.value("message", c["expr"].get<std::string>())) +
                                                                  " (architecture '" + arch_name + "': " + c["expr"].get<std::string>() + ")");
    }

    // A per-layer list read as one value has one entry a layer.
    for (const auto& [field, size] : list_fields)
        if (auto layers = ir.symbol("layers"); layers && static_cast<std::int64_t>(size) != *layers)
            return bad_config(ir, field, std::to_string(size) + " entries for " + std::to_string(*layers) + " layers");

    // Per-layer attention kinds must cover the layers.
    if (auto lt = cfg.find("layer_types"); lt != cfg.end() && !lt->is_null())
        if (auto s = check_layer_types(*lt, ir.symbol("layers")); !s) return s.error().at(ir.config_at(s.error().where.substr(1)));

    // Fields that describe the plan (rope scaling, tied embeddings, soft-caps, windows).
    schema::JsonObject described;
    for (const auto& f : arch.value("describes", Json::array()))
        if (f.is_string())
            if (auto it = cfg.find(f.get<std::string>()); it != cfg.end() && !it->is_null())
                described.emplace_back(f.get<std::string>(), to_value(*it));
    ir.config_fields = std::move(described);
    return Ok{};
}

}  // namespace kbp::planner
