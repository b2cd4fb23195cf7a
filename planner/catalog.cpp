#include "planner/catalog.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "planner/architecture_extends.hpp"
#include "planner/check_data.hpp"
#include "planner/data_records.hpp"
#include "planner/embedded_data.hpp"
#include "schema/names.hpp"
#include "schema/sha256.hpp"
#include "schema/file_io.hpp"
#include "schema/file_kind.hpp"
#include "schema/json_parse.hpp"

namespace kbp::planner {

Status Catalog::add(std::string relative, std::string origin, std::string text) {
    std::filesystem::path p(relative);
    if (p.extension() != ".json") return Ok{};
    std::string kind = p.parent_path().generic_string();
    // The schemas are kbp's own (check_data.cpp reads them): a catalog folder does not replace them.
    if (kind == "schemas") return Ok{};
    if (std::find(data_kinds().begin(), data_kinds().end(), kind) == data_kinds().end()) {
        std::vector<std::string> kinds(data_kinds().begin(), data_kinds().end());
        auto near = schema::closest_of(kind, kinds);
        std::string all;
        for (const auto& k : kinds) all += (all.empty() ? "" : ", ") + k;
        return make_error(ErrorCode::invalid_input, origin,
                          "'" + kind + "/' holds no kind of planner data" + (near.empty() ? " (" + all + ")" : " (did you mean '" + near + "/'?)"));
    }
    auto json = schema::parse_json(text, origin, "a planner data file");
    if (!json) return json.error();
    DataFile f;
    f.kind = std::move(kind);
    f.name = p.stem().string();
    f.origin = std::move(origin);
    f.sha256 = schema::sha256_hex(text);
    f.text = std::move(text);
    f.json = std::move(*json);
    (*files_)[f.kind + "/" + f.name] = std::move(f);
    return Ok{};
}

Result<Catalog> Catalog::load(const std::optional<std::string>& override_dir) {
    Catalog c;
    for (const auto& e : embedded_files())
        if (auto s = c.add(std::string(e.path), "embedded:" + std::string(e.path), std::string(e.text)); !s) return s.error();
    if (override_dir) {
        namespace fs = std::filesystem;
        std::error_code ec;
        if (!fs::is_directory(*override_dir, ec))
            return make_error(ErrorCode::usage, *override_dir, "--catalog names no folder");
        std::vector<fs::path> paths;
        for (const auto& entry : fs::recursive_directory_iterator(*override_dir, ec))
            if (entry.is_regular_file() && entry.path().extension() == ".json") paths.push_back(entry.path());
        std::sort(paths.begin(), paths.end());
        for (const auto& path : paths) {
            auto text = read_file(path.string());
            if (!text) return text.error();
            auto relative = fs::relative(path, *override_dir).generic_string();
            if (auto s = c.add(relative, path.string(), std::move(*text)); !s) return s.error();
        }
    }
    if (auto s = resolve_extends(*c.files_); !s) return s.error();
    if (auto s = check_catalog(c); !s) return s.error();
    for (auto& [key, f] : *c.files_)
        if (auto s = read_records(f); !s) return s.error();
    return c;
}

Catalog Catalog::share() const {
    Catalog c;
    c.files_ = files_;
    return c;
}

bool looks_like_path(const std::string& name_or_path) {
    return name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json");
}

Result<const DataFile*> Catalog::get(const std::string& kind, const std::string& name_or_path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (looks_like_path(name_or_path) && fs::is_regular_file(name_or_path, ec)) return file(kind, name_or_path);
    auto it = files_->find(kind + "/" + name_or_path);
    if (it == files_->end()) {
        std::vector<std::string> names;
        std::string known;
        for (const auto* f : all(kind)) {
            names.push_back(f->name);
            known += (known.empty() ? "" : ", ") + f->name;
        }
        std::string near = schema::closest_of(name_or_path, names);
        return make_error(ErrorCode::invalid_input, name_or_path,
                          "no " + kind + " file '" + name_or_path + "'" +
                              (!near.empty() ? " (did you mean '" + near + "'?)" : known.empty() ? "" : " (known: " + known + ")"));
    }
    return &it->second;
}

Result<const DataFile*> Catalog::file(const std::string& kind, const std::string& path) {
    auto text = read_file(path);
    if (!text) return text.error();
    // A plan where a config belongs, a YAML recipe: say what the file is.
    static const std::map<std::string, schema::FileKind> expected{
        {"configs", schema::FileKind::model_config}, {"ranges", schema::FileKind::ranges},   {"recipes", schema::FileKind::recipe},
        {"targets", schema::FileKind::target},       {"kernels", schema::FileKind::kernels}, {"fusion", schema::FileKind::fusion},
        {"ops", schema::FileKind::ops},              {"architectures", schema::FileKind::architecture},
        {"sensitivity", schema::FileKind::sensitivity}};
    if (auto it = expected.find(kind); it != expected.end())
        if (auto what = schema::wrong_kind(*text, it->second); !what.empty()) return make_error(ErrorCode::invalid_input, path + ": /", what);
    auto json = schema::parse_json(*text, path, "a planner data file");
    if (!json) return json.error();
    auto f = std::make_unique<DataFile>();
    f->kind = kind;
    f->name = std::filesystem::path(path).stem().string();
    f->origin = path;
    f->sha256 = schema::sha256_hex(*text);
    f->text = std::move(*text);
    f->json = std::move(*json);
    if (kind == "architectures")
        if (auto s = resolve_extends(*f, *this); !s) return s.error();
    if (std::find(data_kinds().begin(), data_kinds().end(), kind) != data_kinds().end())
        if (auto s = check_data_file(*f, *this); !s) return s.error();
    if (auto s = read_records(*f); !s) return s.error();
    loaded_.push_back(std::move(f));
    return loaded_.back().get();
}

std::vector<const DataFile*> Catalog::all(const std::string& kind) const {
    std::vector<const DataFile*> out;
    for (const auto& [key, f] : *files_)
        if (f.kind == kind) out.push_back(&f);
    return out;
}

std::vector<const DataFile*> recipes_made_for(const Catalog& catalog, const std::function<bool(const std::string& target)>& wants_target,
                                              const std::string& architecture) {
    std::vector<const DataFile*> out;
    for (const DataFile* f : catalog.all("recipes")) {
        const RecipeRecord& recipe = *f->recipe_record;
        if (!recipe.target || !wants_target(*recipe.target)) continue;
        const auto& archs = recipe.architectures;
        if (archs && std::find(archs->begin(), archs->end(), architecture) == archs->end()) continue;
        out.push_back(f);
    }
    return out;
}

}  // namespace kbp::planner
