#include "planner/check_names.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <regex>

#include "planner/expr.hpp"
#include "planner/ir.hpp"
#include "planner/plan.hpp"
#include "planner/regex_cache.hpp"
#include "planner/state_bytes.hpp"
#include "schema/blueprint.hpp"
#include "schema/names.hpp"

namespace kbp::planner {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

std::string hint(const std::string& text, const std::vector<std::string>& names, const char* plural) {
    return schema::name_hint(text, names, plural);
}

std::vector<std::string> keys_of(const Json& object) {
    std::vector<std::string> out;
    if (object.is_object())
        for (const auto& [k, _] : object.items()) out.push_back(k);
    return out;
}

template <class E> std::vector<std::string> names_of() {
    std::vector<std::string> out;
    for (auto n : schema::name_table<E>().subspan(1)) out.emplace_back(n);
    return out;
}

std::vector<std::string> format_names() {
    auto out = names_of<schema::FormatId>();
    for (int bits = 0; bits <= 31; ++bits) out.push_back("fx32/f" + std::to_string(bits));
    out.push_back("fx32/f?");
    return out;
}

std::vector<std::string> arm_names() {
    std::vector<std::string> out;
    for (const auto& a : arm_specs()) out.emplace_back(a.name);
    return out;
}

constexpr std::array<std::string_view, 1> layer_index{"i"};  // a layer condition's own name

bool is_glob(const std::string& s) { return s.find_first_of("*?") != std::string::npos; }

// What is wrong with a "re:" pattern (std::regex would throw on it), or "".
std::string regex_problem(const std::string& pattern) {
    const auto& compiled = compiled_regex(std::string_view(pattern).substr(3));
    return compiled.regex ? "" : "'" + pattern + "' is not a regular expression (" + compiled.problem + ")";
}

std::optional<SchemaProblem> at(const std::string& pointer, std::string message) { return SchemaProblem{pointer, std::move(message)}; }

// The {placeholders} of `text`, in order.
std::vector<std::string> placeholders_of(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
        auto close = text.find('}', open);
        if (close == std::string::npos) break;
        out.push_back(text.substr(open + 1, close - open - 1));
    }
    return out;
}

// Every string value inside `v`.
void strings_in(const Json& v, std::vector<std::string>& out) {
    if (v.is_string()) out.push_back(v.get<std::string>());
    if (v.is_structured())
        for (const auto& x : v) strings_in(x, out);
}

class Checks {
public:
    Checks(const DataFile& file, const Vocabulary& names) : file_(file), names_(names) {
        const Json& j = file.json;
        if (!j.is_object()) return;
        if (file.kind == "architectures") {
            symbols_ = keys_of(j.value("symbols", Json::object()));
            blocks_ = keys_of(j.value("blocks", Json::object()));
        }
        if (file.kind == "kernels") instances_ = keys_of(j.value("instances", Json::object()));
        if (file.kind == "recipes") settings_ = j.value("settings", Json::object());
    }

    std::optional<SchemaProblem> operator()(const std::string& check, const Json& v, const std::string& p) {
        const auto known_checks = extra_check_names();
        if (std::find(known_checks.begin(), known_checks.end(), check) == known_checks.end())
            return at(p, "the schema names an unknown x-kbp-check '" + check + "' (a kbp build problem)");
        // Shapes (the schema has checked the members' types).
        if (check == "range") return range(v, p);
        if (check == "recipe-entry") return recipe_entry(v, p);
        if (check == "table-row") return table_row(v, p);
        if (check == "fraction-rule") return fraction_rule(v, p);
        if (check == "fusion-rule") return fusion_rule(v, p);
        if (check == "block-wiring") return block_wiring(v, p);
        if (!v.is_string()) return std::nullopt;  // a null kernel, compute, ...: the schema allowed it
        const std::string& s = v.get_ref<const std::string&>();
        // Names of the catalog and of this file.
        if (check == "own-name") return s == file_.name ? std::nullopt : at(p, "'" + s + "' is not the file's name '" + file_.name + "'");
        if (check == "recipe") return among(s, names_.recipes, p, "a recipe of the catalog", "recipes");
        if (check == "recipe-part") return among(s, names_.parts, p, "a recipe part (recipes/parts/)", "parts");
        if (check == "target" || check == "target-name") return among(s, names_.targets, p, "a target of the catalog", "targets");
        if (check == "architecture") return among(s, names_.architectures, p, "an architecture of the catalog", "architectures");
        if (check == "kernel-catalog") return among(s, names_.kernel_catalogs, p, "a kernel catalog (kernels/ or fusion/)", "catalogs");
        if (check == "engine") return among(s, names_.engines, p, "an engine of the catalog (engines/)", "engines");
        if (check == "kernel") return among(s, instances_, p, "among this file's instances", "instances");
        if (check == "any-kernel") return among(s, names_.kernels, p, "an instance of a kernel file", "kernels");
        if (check == "family") return among(s, names_.families, p, "a kernel family with explain text (explain/families.json)", "families");
        if (check == "block") return among(s, blocks_, p, "a block of this architecture", "blocks");
        // Closed vocabularies.
        if (check == "op") return op(s, p);
        if (check == "arm") return among(s, arm_names(), p, "an arm", "arms");
        if (check == "layer-kind") return known<schema::LayerKindId>(s, p, "layer kind");
        if (check == "where") return known<schema::WhereId>(s, p, "place");
        if (check == "state-roles") return state_roles(s, p);
        if (check == "compute") return compute(s, p, names_);
        if (check == "format") return format(s, p);
        // Patterns.
        if (check == "op-glob") return op_glob(s, p);
        if (check == "format-glob") return format_glob(s, p);
        if (check == "name-glob") return s.rfind("re:", 0) == 0 && !regex_problem(s).empty() ? at(p, regex_problem(s)) : std::nullopt;
        // Expressions.
        if (check == "config-expression") return expression(s, p, nullptr, {});
        if (check == "symbol-expression") return expression(s, p, &symbols_, {});
        if (check == "layer-expression") return expression(s, p, &symbols_, layer_index);
        if (check == "state-expression") return expression(s, p, &symbols_, state_value_names());
        if (check == "cost-expression") return expression(s, p, &none_, state_value_names());
        if (check == "integer-text") return integer_text(s, p);
        return at(p, "x-kbp-check '" + check + "' has no branch in check_names.cpp (a kbp build problem)");
    }

private:
    // `what`: "a recipe of the catalog", "among this file's instances".
    static std::optional<SchemaProblem> among(const std::string& s, const std::vector<std::string>& names, const std::string& p,
                                              const std::string& what, const char* plural) {
        if (contains(names, s)) return std::nullopt;
        return at(p, "'" + s + "' is not " + what + hint(s, names, plural));
    }

    template <class E> static std::optional<SchemaProblem> known(const std::string& s, const std::string& p, const std::string& what) {
        if (schema::Named<E>::parse(s).known()) return std::nullopt;
        return at(p, "unknown " + what + " '" + s + "'" + hint(s, names_of<E>(), "known"));
    }

    std::optional<SchemaProblem> op(const std::string& s, const std::string& p) const {
        auto colon = s.find(':');
        std::string kind = s.substr(0, colon);
        if (!contains(names_.ops, kind)) {
            auto near = schema::closest_of(kind, names_.ops);
            return at(p, "unknown op '" + kind + "' (" + (near.empty() ? "" : "did you mean '" + near + "'? ") + "ops are defined in " + names_.ops_files + ")");
        }
        // The blueprint format's projections, and only they, carry the role of their weight.
        if (kind == "linear" && (colon == std::string::npos || colon + 1 == s.size()))
            return at(p, "a projection names its weight: linear:<role>");
        if (kind != "linear" && colon != std::string::npos) return at(p, "only a projection has a role (linear:<role>), not '" + kind + "'");
        return std::nullopt;
    }

    std::optional<SchemaProblem> op_glob(const std::string& s, const std::string& p) const {
        if (s.rfind("re:", 0) == 0) return regex_problem(s).empty() ? std::nullopt : at(p, regex_problem(s));
        std::string kind = s.substr(0, s.find(':'));
        if (!is_glob(s)) return op(s, p);
        for (const auto& o : names_.ops)
            if (name_matches(kind, o)) return std::nullopt;
        return at(p, "'" + s + "' matches no op" + hint(kind, names_.ops, "ops"));
    }

    // {name} placeholders filled from the recipe's own settings; nullopt when one is not a
    // setting of the file (a part's: the including recipe fills it).
    std::optional<std::string> filled(const std::string& s) const {
        std::string out = s;
        for (const auto& name : placeholders_of(s)) {
            auto it = settings_.find(name);
            if (it == settings_.end()) return std::nullopt;
            std::string value = it->is_string() ? it->get<std::string>() : it->dump();
            out.replace(out.find("{" + name + "}"), name.size() + 2, value);
        }
        return out;
    }

    // In a recipe, a {placeholder} must be one of its settings; an architecture's formats have
    // none (no setting fills them: planned as written, "{=1/0}" would be a format of no size).
    std::optional<SchemaProblem> unfilled(const std::string& s, const std::string& p) const {
        if (file_.kind == "architectures")
            return at(p, "'" + s + "': an architecture names its formats as they are, without {placeholders} (a recipe's settings choose formats)");
        if (file_.kind != "recipes") return std::nullopt;
        for (const auto& name : placeholders_of(s))
            if (!settings_.contains(name)) return at(p, "'{" + name + "}' names no setting of the recipe" + hint(name, keys_of(settings_), "settings"));
        return std::nullopt;
    }

    std::optional<SchemaProblem> format(const std::string& s, const std::string& p) const {
        auto text = filled(s);
        if (!text) return unfilled(s, p);
        if (schema::Format::parse(*text == "fx32" ? "fx32/f?" : *text).known()) return std::nullopt;
        auto formats = names_of<schema::FormatId>();
        return at(p, "unknown format '" + *text + "'" + (s != *text ? " (from '" + s + "')" : "") + hint(*text, formats, "formats"));
    }

    std::optional<SchemaProblem> format_glob(const std::string& s, const std::string& p) const {
        if (s.rfind("re:", 0) == 0) return regex_problem(s).empty() ? std::nullopt : at(p, regex_problem(s));
        if (!is_glob(s)) return format(s, p);
        auto formats = format_names();
        for (const auto& f : formats)
            if (name_matches(s, f)) return std::nullopt;
        return at(p, "'" + s + "' matches no format" + hint(s, names_of<schema::FormatId>(), "formats"));
    }

    static std::optional<SchemaProblem> state_roles(const std::string& s, const std::string& p) {
        for (const auto& role : schema::parse_state_roles(s)) {
            if (!role.state.known())
                return at(p, "unknown state '" + std::string(role.state.name()) + "'" + hint(std::string(role.state.name()), names_of<schema::StateNameId>(), "states"));
            if (!role.action.known())
                return at(p, "unknown state action '" + std::string(role.action.name()) + "'" +
                                 hint(std::string(role.action.name()), names_of<schema::StateActionId>(), "actions"));
        }
        return std::nullopt;
    }

    // A tensor-core instruction is one a target's `mma` table has, or a {placeholder} the
    // target's `instructions` fill.
    static std::optional<SchemaProblem> compute(const std::string& s, const std::string& p, const Vocabulary& names) {
        auto colon = s.find(':');
        std::string kind = s.substr(0, colon);
        if (auto k = known<schema::ComputeId>(kind, p, "compute kind")) return k;
        if (kind != "tensor_core") return std::nullopt;
        if (colon == std::string::npos) return at(p, "tensor_core names its instruction: tensor_core:<mma>");
        std::string unit = s.substr(colon + 1);
        if (unit.find('{') != std::string::npos || contains(names.mma, unit)) return std::nullopt;
        auto near = schema::closest_of(unit, names.mma);
        return at(p, "no target's mma table (" + names.mma_files + ") has the instruction '" + unit + "'" +
                         (near.empty() ? "" : " (did you mean '" + near + "'?)"));
    }

    std::optional<SchemaProblem> expression(const std::string& s, const std::string& p, const std::vector<std::string>* symbols,
                                            std::span<const std::string_view> also) const {
        auto names = expr_names(s);
        if (!names) return at(p, names.error().message);
        if (!symbols) return std::nullopt;
        std::vector<std::string> allowed = *symbols;
        for (auto a : also) allowed.emplace_back(a);
        for (const auto& n : *names)
            if (!contains(allowed, n)) return at(p, "'" + s + "': unknown name '" + n + "'" + hint(n, allowed, "names"));
        return std::nullopt;
    }

    std::optional<SchemaProblem> integer_text(const std::string& s, const std::string& p) const {
        auto text = filled(s);
        if (!text) return unfilled(s, p);
        std::int64_t v = 0;
        auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
        if (ec != std::errc{} || end != text->data() + text->size() || text->empty() || v < 1)
            return at(p, "'" + *text + "'" + (s != *text ? " (from '" + s + "')" : "") + " is not a whole number of at least 1");
        return std::nullopt;
    }

    static std::optional<SchemaProblem> range(const Json& v, const std::string& p) {
        if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer()) return std::nullopt;
        if (v[0].get<std::int64_t>() > v[1].get<std::int64_t>()) return at(p, v.dump() + " is no range: its low end is above its high end");
        return std::nullopt;
    }

    std::optional<SchemaProblem> recipe_entry(const Json& v, const std::string& p) const {
        auto include = v.find("include");
        if (include == v.end()) return std::nullopt;
        for (const auto& [k, _] : v.items())
            if (k != "include") return at(p + "/" + pointer_token(k), "an entry with \"include\" has no other members");
        // The part's {placeholders} are this recipe's settings.
        auto part = names_.part_files.find(include->get<std::string>());
        if (part == names_.part_files.end() || file_.kind != "recipes") return std::nullopt;
        std::vector<std::string> texts;
        strings_in(part->second->json.value("entries", Json::array()), texts);
        for (const auto& text : texts)
            for (const auto& name : placeholders_of(text))
                if (!settings_.contains(name))
                    return at(p + "/include", "part '" + part->first + "' (" + part->second->origin + ") reads the setting '" + name +
                                                  "', which the recipe does not set" + hint(name, keys_of(settings_), "settings"));
        return std::nullopt;
    }

    static std::optional<SchemaProblem> table_row(const Json& v, const std::string& p) {
        // A row that refuses its nodes runs nothing: no kernel, no launches, nothing to cost.
        if (v.contains("refuse")) {
            if (v.contains("kernel") && !v["kernel"].is_null()) return at(p + "/kernel", "a row that refuses its nodes has no kernel (null)");
            for (const char* key : {"launches", "family", "compute", "point", "steps"})
                if (v.contains(key)) return at(p + "/" + key, "a row that refuses its nodes has no " + std::string(key));
            return std::nullopt;
        }
        if (v.contains("kernel") && v["kernel"].is_null() && !v.contains("family"))
            return at(p + "/family", "missing (a row without a kernel names its family)");
        return std::nullopt;
    }

    static std::optional<SchemaProblem> fraction_rule(const Json& v, const std::string& p) {
        if (v.value("rule", std::string()) == "arg" && !v.contains("arg")) return at(p + "/arg", "missing (rule \"arg\" names the template argument)");
        return std::nullopt;
    }

    // One member spec per pattern element; a rule that names its kernels gives each member one
    // of them (or null): a node's kernel is among its group's.
    static std::optional<SchemaProblem> fusion_rule(const Json& v, const std::string& p) {
        // A rule that removes a later catalog's rule of its name has nothing else to say.
        if (v.contains("off")) {
            for (const char* key : {"pattern", "kernels", "members", "compute", "block", "rows", "arms", "settings", "across_blocks", "across_layers", "followed_by"})
                if (v.contains(key)) return at(p + "/" + key, "a rule that is off has no " + std::string(key));
            return std::nullopt;
        }
        for (const char* key : {"pattern", "kernels"})
            if (!v.contains(key)) return at(p + "/" + key, "missing (a rule that is not off needs its pattern and its kernels)");
        auto members = v.find("members");
        const Json& pattern = v.at("pattern");
        if (members != v.end() && members->is_array() && members->size() != pattern.size())
            return at(p + "/members", "has " + std::to_string(members->size()) + " member specs for a pattern of " +
                                          std::to_string(pattern.size()) + " ops (one each)");
        const Json& kernels = v.at("kernels");
        if (!kernels.is_array()) return std::nullopt;  // "members": the members' own kernels
        if (members == v.end()) return at(p + "/members", "missing (a rule that names its kernels gives each member one of them, or null)");
        const bool one = members->is_object();
        for (std::size_t k = 0; k < (one ? 1 : members->size()); ++k) {
            const Json& spec = one ? *members : (*members)[k];
            const std::string q = p + "/members" + (one ? "" : "/" + std::to_string(k));
            auto kernel = spec.find("kernel");
            if (kernel == spec.end()) return at(q + "/kernel", "missing (one of the rule's kernels, or null)");
            if (kernel->is_string() && std::find(kernels.begin(), kernels.end(), *kernel) == kernels.end())
                return at(q + "/kernel", "'" + kernel->get<std::string>() + "' is not among the rule's kernels " + kernels.dump());
        }
        return std::nullopt;
    }

    // Inside one architecture block: what expand_layers and assign_precision rely on.
    std::optional<SchemaProblem> block_wiring(const Json& block, const std::string& p) const {
        std::vector<std::string> ops, tensors, conditional;  // conditional: made by an op with an "if"
        const Json& list = block.at("ops");
        for (std::size_t k = 0; k < list.size(); ++k) {
            const Json& spec = list[k];
            const std::string q = p + "/ops/" + std::to_string(k);
            std::string name = spec.at("name").get<std::string>();
            if (contains(ops, name)) return at(q + "/name", "a second op named '" + name + "' in the block");
            ops.push_back(name);
            const auto in = spec.value("in", Json::array());
            for (std::size_t j = 0; j < in.size(); ++j) {
                std::string t = in[j].get<std::string>();
                if (t != "$in" && !contains(tensors, t))
                    return at(q + "/in/" + std::to_string(j), "tensor '" + t + "' is not made earlier in the block" + hint(t, tensors, "tensors"));
            }
            const auto out = spec.value("out", Json::array());
            for (std::size_t o = 0; o < out.size(); ++o) {
                std::string t = out[o].at("tensor").get<std::string>();
                // Ops under "if" conditions may make the same tensor each (only one of them exists).
                bool alternative = spec.contains("if") && contains(conditional, t);
                if (contains(tensors, t) && !alternative)
                    return at(q + "/out/" + std::to_string(o) + "/tensor", "tensor '" + t + "' is made a second time in the block");
                if (spec.contains("if")) conditional.push_back(t);
                tensors.push_back(t);
            }
            std::string kind = spec.at("op").get<std::string>();
            kind = kind.substr(0, kind.find(':'));
            const auto precision = spec.value("precision", Json::object());
            if (names_.weighted_ops.count(kind)) {
                if (out.size() > 1) return at(q + "/out", "an op with a weight has one output");
            } else if (!out.empty()) {
                auto formats = precision.value("output", Json::array());
                if (formats.size() < out.size())
                    return at(q + (precision.contains("output") ? "/precision/output" : "/precision"),
                              std::to_string(out.size()) + " outputs need as many output formats (op '" + kind + "' has no weight in " +
                                  names_.ops_files + ", so no recipe entry gives them)");
            }
        }
        if (auto output = block.find("output"); output != block.end() && output->is_string() && !contains(tensors, output->get<std::string>()))
            return at(p + "/output", "names no tensor of the block" + hint(output->get<std::string>(), tensors, "tensors"));
        return std::nullopt;
    }

    const DataFile& file_;
    const Vocabulary& names_;
    std::vector<std::string> symbols_, blocks_, instances_;
    const std::vector<std::string> none_;
    Json settings_ = Json::object();
};

}  // namespace

std::span<const std::string_view> extra_check_names() {
    static constexpr std::array<std::string_view, 34> names{
        "range",          "recipe-entry",  "table-row",  "fraction-rule", "fusion-rule",       "block-wiring",      "own-name",
        "recipe",         "recipe-part",   "target",     "target-name",   "architecture",      "kernel-catalog",    "kernel",
        "any-kernel",     "family",        "block",      "op",            "arm",               "layer-kind",        "where",
        "state-roles",    "compute",       "format",     "op-glob",       "format-glob",       "name-glob",         "config-expression",
        "symbol-expression", "layer-expression", "state-expression", "cost-expression", "integer-text", "engine"};
    return names;
}

Vocabulary Vocabulary::of(const Catalog& catalog) {
    Vocabulary v;
    auto names = [&](const char* kind) {
        std::vector<std::string> out;
        for (const DataFile* f : catalog.all(kind)) out.push_back(f->name);
        return out;
    };
    v.architectures = names("architectures");
    v.recipes = names("recipes");
    v.parts = names("recipes/parts");
    v.targets = names("targets");
    v.engines = names("engines");
    v.kernel_catalogs = names("kernels");
    for (const auto& n : names("fusion"))
        if (!contains(v.kernel_catalogs, n)) v.kernel_catalogs.push_back(n);
    for (const DataFile* f : catalog.all("recipes/parts")) v.part_files[f->name] = f;
    for (const DataFile* f : catalog.all("kernels"))
        if (f->json.is_object())
            for (const auto& k : keys_of(f->json.value("instances", Json::object()))) v.kernels.push_back(k);
    for (const DataFile* f : catalog.all("targets")) {
        v.mma_files += (v.mma_files.empty() ? "targets/" : ", targets/") + f->name + ".json";
        if (f->json.is_object())
            for (const auto& k : keys_of(f->json.value("mma", Json::object())))
                if (!contains(v.mma, k)) v.mma.push_back(k);
    }
    for (const DataFile* f : catalog.all("explain"))
        if (f->name == "families") v.families = keys_of(f->json);
    for (const DataFile* f : catalog.all("ops")) {
        v.ops_files += (v.ops_files.empty() ? "" : ", ") + f->origin;
        if (!f->json.is_object()) continue;
        const Json ops = f->json.value("ops", Json::object());
        for (const auto& [name, spec] : ops.items()) {
            v.ops.push_back(name);
            if (spec.is_object() && spec.value("weight", Json(false)) == Json(true)) v.weighted_ops.insert(name);
        }
    }
    return v;
}

ExtraCheck name_checks(const DataFile& file, const Vocabulary& names) {
    auto checks = std::make_shared<Checks>(file, names);
    return [checks](const std::string& check, const Json& v, const std::string& p) { return (*checks)(check, v, p); };
}

}  // namespace kbp::planner
