#include "planner/check_data.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "planner/check_names.hpp"
#include "planner/data_schema.hpp"
#include "planner/embedded_data.hpp"
#include "planner/settings_types.hpp"

namespace kbp::planner {
namespace {

using Json = nlohmann::ordered_json;

// In the order they are checked: a recipe's check reads its parts, checked by then.
constexpr std::array<std::string_view, 12> kinds{"vocabulary", "ops", "explain", "recipes/parts", "architectures", "recipes", "engines", "targets", "kernels", "fusion", "calibrations", "quantizers"};

struct Schema {
    std::string origin;  // "embedded:schemas/recipes.schema.json"
    Json json;
    std::optional<SchemaProblem> unsupported;  // what of it kbp does not check (a build problem)
};

// The schemas compiled into kbp (planner/data/schemas/<key>.schema.json), by key.
const std::map<std::string, Schema>& schemas() {
    static const std::map<std::string, Schema> all = [] {
        std::map<std::string, Schema> out;
        const std::string folder = "schemas/", suffix = ".schema.json";
        for (const auto& f : embedded_files()) {
            std::string path(f.path);
            if (path.rfind(folder, 0) != 0 || !path.ends_with(suffix)) continue;
            std::string key = path.substr(folder.size(), path.size() - folder.size() - suffix.size());
            Json json = Json::parse(std::string(f.text), nullptr, false);
            auto unsupported = json.is_discarded() ? std::optional<SchemaProblem>(SchemaProblem{"", "not JSON"}) : unsupported_in_schema(json);
            out[key] = Schema{"embedded:" + path, std::move(json), std::move(unsupported)};
        }
        return out;
    }();
    return all;
}

// Recipes' parts are "recipes-parts"; the explain and vocabulary files have a schema each.
std::string schema_key(const DataFile& f) {
    if (f.kind == "explain" || f.kind == "vocabulary") return f.kind + "-" + f.name;
    std::string key = f.kind;
    std::replace(key.begin(), key.end(), '/', '-');
    return key;
}

Error located(ErrorCode code, const std::string& origin, const std::string& pointer, std::string message) {
    return make_error(code, origin + ": " + (pointer.empty() ? "/" : pointer), std::move(message));
}

Status check_file(const DataFile& f, const Vocabulary& names) {
    auto it = schemas().find(schema_key(f));
    if (it == schemas().end()) {
        if (f.kind == "explain") return located(ErrorCode::invalid_input, f.origin, "", "explain/ holds families.json and formats.json only");
        if (f.kind == "vocabulary") return located(ErrorCode::invalid_input, f.origin, "", "vocabulary/ holds settings.json, config-fields.json and model-types.json only");
        return located(ErrorCode::invalid_input, f.origin, "", "kbp has no schema for '" + f.kind + "' files");
    }
    const Schema& schema = it->second;
    if (const auto& p = schema.unsupported) return located(ErrorCode::invalid_input, schema.origin, p->pointer, p->message + " (a kbp build problem)");
    if (auto p = check_schema(f.json, schema.json, name_checks(f, names))) return located(ErrorCode::invalid_input, f.origin, p->pointer, p->message);
    return Ok{};
}

// What no single file shows: two architectures planning one model_type, an op defined twice.
Status check_across(const Catalog& catalog) {
    std::map<std::string, const DataFile*> claimed;
    for (const DataFile* a : catalog.all("architectures")) {
        const auto& types = a->json.at("model_types");
        for (std::size_t i = 0; i < types.size(); ++i) {
            auto [it, fresh] = claimed.emplace(types[i].get<std::string>(), a);
            if (!fresh)
                return located(ErrorCode::invalid_input, a->origin, "/model_types/" + std::to_string(i),
                               "model_type '" + it->first + "' is planned by " + it->second->origin + " too");
        }
    }
    std::map<std::string, const DataFile*> defined;
    for (const DataFile* f : catalog.all("ops"))
        for (const auto& [name, _] : f->json.at("ops").items()) {
            auto [it, fresh] = defined.emplace(name, f);
            if (!fresh) return located(ErrorCode::invalid_input, f->origin, "/ops/" + pointer_token(name), "op '" + name + "' is defined by " + it->second->origin + " too");
        }
    // Every recipe's settings are settings kbp knows, with values their types take (the
    // target's formats are checked when a plan names the target).
    for (const DataFile* r : catalog.all("recipes"))
        if (auto settings = r->json.find("settings"); settings != r->json.end())
            for (const auto& [k, v] : settings->items())
                if (auto problem = setting_problem(catalog, k, v.is_string() ? v.get<std::string>() : v.dump(), nullptr); !problem.empty())
                    return located(ErrorCode::invalid_input, r->origin, "/settings/" + pointer_token(k), problem);
    // A KV cache's bytes are its format's: every kv_cache_dtype value names one.
    for (const DataFile* f : catalog.all("vocabulary"))
        if (auto kv = f->json.find("settings"); kv != f->json.end() && kv->contains("kv_cache_dtype")) {
            const Json values = kv->at("kv_cache_dtype").value("values", Json::object());
            for (const auto& [k, v] : values.items())
                if (!cache_bytes_per_value(catalog, k))
                    return located(ErrorCode::invalid_input, f->origin, "/settings/kv_cache_dtype/values/" + pointer_token(k),
                                   "a KV cache value needs the format whose bytes a cached value takes");
        }
    return Ok{};
}

}  // namespace

std::span<const std::string_view> data_kinds() { return kinds; }

Status check_catalog(const Catalog& catalog) {
    const auto names = Vocabulary::of(catalog);
    for (auto kind : kinds) {
        auto files = catalog.all(std::string(kind));
        // An architecture after those it extends: a fault in a parent is reported in the parent's
        // file, not in the first child's merge of it.
        std::stable_sort(files.begin(), files.end(), [](const DataFile* a, const DataFile* b) { return a->bases.size() < b->bases.size(); });
        for (const DataFile* f : files)
            if (auto s = check_file(*f, names); !s) return s;
    }
    return check_across(catalog);
}

Status check_data_file(const DataFile& file, const Catalog& catalog) { return check_file(file, Vocabulary::of(catalog)); }

Status check_config_hints(const DataFile& config) {
    auto hints = config.json.find("kbp");
    if (hints == config.json.end()) return Ok{};
    const Schema& schema = schemas().at("config-kbp");
    if (auto p = check_schema(*hints, schema.json)) return located(ErrorCode::invalid_input, config.origin, "/kbp" + p->pointer, p->message);
    return Ok{};
}

}  // namespace kbp::planner
