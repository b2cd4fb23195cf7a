#include "viewer/model/why.hpp"

#include <filesystem>

namespace kbp::viewer {

WhyInputs why_inputs(const schema::Blueprint& b, const std::string& plan_path) {
    WhyInputs out;
    if (!b.provenance || b.provenance->kind != "kbp" || b.provenance->files.empty()) {
        out.missing = "not a plan kbp made: its provenance names no inputs to replay";
        return out;
    }
    planner::PlanRequest r;
    r.config_path = b.provenance->files.front().path;
    // As kbp plan was given it: from the working folder, else beside the plan.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(r.config_path, ec)) {
        auto beside = std::filesystem::path(plan_path).parent_path() / r.config_path;
        if (!std::filesystem::is_regular_file(beside, ec)) {
            out.missing = "the plan's config " + r.config_path + " is not on this machine (kbp why needs it)";
            return out;
        }
        r.config_path = beside.string();
    }
    r.arm = std::string(b.arm.mode.name());
    r.rows = b.arm.rows;
    const auto& header = b.provenance->planner_header;
    auto get = [&](const char* key) -> std::optional<std::string> {
        const auto* v = header.find(key);
        return v && v->is_string() ? std::optional<std::string>(v->string()) : std::nullopt;
    };
    r.recipe = get("recipe");
    r.target = get("target");
    r.engine = get("engine");
    if (auto settings = get("settings")) {
        // "key=value key=value", as kbp plan writes them.
        std::string s = *settings;
        for (std::size_t start = 0; start < s.size();) {
            auto space = s.find(' ', start);
            std::string kv = s.substr(start, space == std::string::npos ? std::string::npos : space - start);
            auto eq = kv.find('=');
            if (eq != std::string::npos && eq > 0) r.settings.push_back({kv.substr(0, eq), kv.substr(eq + 1)});
            if (space == std::string::npos) break;
            start = space + 1;
        }
    }
    out.request = std::move(r);
    return out;
}

}  // namespace kbp::viewer
