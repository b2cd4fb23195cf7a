#include "cli/recorded_inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "schema/file_io.hpp"
#include "schema/sha256.hpp"

namespace kbp::cli {
namespace {

namespace fs = std::filesystem;

// Where a recorded relative path may be now, in the order they are tried, without repeats.
std::vector<std::string> candidates(const std::string& recorded, const std::string& plan_file) {
    fs::path path(recorded);
    if (path.is_absolute()) return {recorded};
    fs::path plan_dir = fs::path(plan_file).parent_path();
    std::vector<std::string> out;
    for (const fs::path& p : {plan_dir / path, path, plan_dir / path.filename()}) {
        std::string s = p.lexically_normal().string();
        if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
    return out;
}

}  // namespace

bool is_embedded(const std::string& recorded_path) { return recorded_path.rfind("embedded:", 0) == 0; }

std::optional<std::size_t> recorded_target(const schema::Blueprint& plan) {
    if (!plan.provenance) return std::nullopt;
    const auto* name = plan.provenance->planner_header.find("target");
    if (!name || !name->is_string()) return std::nullopt;
    const auto& files = plan.provenance->files;
    // The target follows the config, the architecture and the recipe (and its parts, and the
    // architectures the architecture extends).
    for (std::size_t i = 3; i < files.size(); ++i) {
        const std::string& p = files[i].path;
        bool data_of_other_kind = is_embedded(p) ? p.rfind("embedded:targets/", 0) != 0
                                                 : p.find("/recipes/parts/") != std::string::npos || p.find("/architectures/") != std::string::npos;
        if (!data_of_other_kind && fs::path(p).stem() == name->string()) return i;
    }
    return std::nullopt;
}

Result<std::string> find_recorded(const schema::Blueprint& plan, std::size_t index, const std::string& plan_file,
                                  const std::optional<std::string>& given, const std::string& option) {
    const auto& recorded = plan.provenance->files.at(index);
    const std::string where = plan_file + ": /provenance/files/" + std::to_string(index);
    std::vector<std::string> tried = given ? std::vector<std::string>{*given} : candidates(recorded.path, plan_file);
    std::optional<std::string> differs;  // the first file found with other bytes
    for (const auto& path : tried) {
        std::error_code ec;
        if (!fs::is_regular_file(path, ec)) continue;
        auto bytes = read_file(path);
        if (!bytes) return bytes.error();
        if (schema::sha256_hex(*bytes) == recorded.sha256) return path;
        if (!differs) differs = path;
    }
    if (differs)
        return make_error(ErrorCode::invalid_input, *differs,
                          "changed since the plan was made (" + where + " records sha256 " + recorded.sha256.substr(0, 12) +
                              "...): it would be another plan; re-plan it, or pass the file it was made with (" + option + ")");
    std::string looked;
    for (const auto& p : tried) looked += (looked.empty() ? "" : ", ") + p;
    return make_error(ErrorCode::invalid_input, where,
                      "'" + recorded.path + "' is not there (looked for " + looked + "): pass it with " + option);
}

}  // namespace kbp::cli
