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
    // A file the plan read, as kbp plan was given it: from the working folder, else beside the plan.
    auto on_disk = [&](const std::string& path) -> std::optional<std::string> {
        std::error_code ec;
        if (std::filesystem::is_regular_file(path, ec)) return path;
        auto beside = std::filesystem::path(plan_path).parent_path() / path;
        if (std::filesystem::is_regular_file(beside, ec)) return beside.string();
        return std::nullopt;
    };
    const std::string& config = b.provenance->files.front().path;
    auto config_path = on_disk(config);
    if (!config_path) {
        out.missing = "the plan's config " + config + " is not on this machine (kbp why needs it)";
        return out;
    }
    r.config_path = *config_path;
    r.arm = std::string(b.arm.mode.name());
    r.rows = b.arm.rows;
    if (b.arm.parallel) r.tp = b.arm.parallel->tp;  // a tensor-parallel plan replays its split
    const auto& header = b.provenance->planner_header;
    auto get = [&](const char* key) -> std::optional<std::string> {
        const auto* v = header.find(key);
        return v && v->is_string() ? std::optional<std::string>(v->string()) : std::nullopt;
    };
    // A plan of the checkpoint's own precision replays it from the config, not from the recipe
    // that filled in around it (as kbp why does).
    if (!get("precision")) r.recipe = get("recipe");
    r.target = get("target");
    r.engine = get("engine");
    // Calibrated ranges give the FixedPoint fractional bits: without them every F is unknown.
    if (auto ranges = get("ranges")) {
        auto path = on_disk(*ranges);
        if (!path) {
            out.missing = "the plan's ranges " + *ranges + " are not on this machine (kbp why needs them)";
            return out;
        }
        r.ranges = *path;
    }
    r.settings = planner::recorded_settings(b);
    r.node_formats = planner::recorded_node_formats(b);
    out.request = std::move(r);
    return out;
}

}  // namespace kbp::viewer
