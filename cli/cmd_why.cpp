// kbp why: replays the planning a plan records and explains one node. The replay reads the
// plan's inputs again (recorded_inputs.hpp), each checked against its recorded sha256.
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/recorded_inputs.hpp"
#include "planner/plan.hpp"

namespace kbp::cli {
namespace {

// What to run for a plan without recorded decisions: plan it again with kbp.
std::string replan_advice(const schema::Blueprint& b, const std::string& file) {
    namespace fs = std::filesystem;
    std::error_code ec;
    auto beside = fs::path(file).parent_path() / "config.json";
    std::string config = fs::is_regular_file(beside, ec) ? beside.string() : "CONFIG";
    std::string rows;
    for (const auto& a : planner::arm_specs())
        if (b.arm.mode.name() == a.name && b.arm.rows != a.default_rows) rows = " --rows " + std::to_string(b.arm.rows);
    return "re-plan it with 'kbp plan " + config + " --arm " + std::string(b.arm.mode.name()) + rows +
           " -o plan.json', then run 'kbp why plan.json NODE_ID'";
}

}  // namespace

int run_why(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("why", argc, argv, {{"--catalog", "", true}, {"--config", "", true}}, 1, 2, code);
    if (!args) return code;
    const std::string& file = args->positional[0];
    if (args->positional.size() < 2)
        return usage_error("why", "missing NODE_ID: kbp why PLAN NODE_ID, e.g. kbp why " + file + " l3.mlp.down");
    auto b = load_valid(file, code);
    if (!b) return code;
    // The plan's provenance says how it was made; replaying that planning shows each decision.
    if (!b->provenance || b->provenance->kind != "kbp" || b->provenance->files.size() < 3)
        return report(make_error(ErrorCode::unsupported, file + ": /provenance",
                                 "not a plan kbp made" +
                                     (b->provenance ? " (its provenance is '" + b->provenance->kind + "')" : std::string()) +
                                     ": it records no decisions to replay; " + replan_advice(*b, file)));
    planner::PlanRequest r;
    auto config = find_recorded(*b, 0, file, args->value("--config"), "--config FILE");
    if (!config) return report(config.error());
    r.config_path = *config;
    r.arm = std::string(b->arm.mode.name());
    r.rows = b->arm.rows;
    if (b->arm.parallel) r.tp = b->arm.parallel->tp;  // a tensor-parallel plan replays its split
    r.catalog_dir = args->value("--catalog");
    // A recipe or target from the catalog is named; one read by path is found again by path.
    const auto& files = b->provenance->files;
    auto name_or_path = [&](std::optional<std::size_t> index, const char* key) -> Result<std::optional<std::string>> {
        if (!index || is_embedded(files[*index].path)) return header_string(*b, key);
        auto path = find_recorded(*b, *index, file, std::nullopt, "a copy beside the plan");
        if (!path) return path.error();
        return std::optional<std::string>(*path);
    };
    auto recipe = name_or_path(2, "recipe");
    if (!recipe) return report(recipe.error());
    auto target = name_or_path(recorded_target(*b), "target");
    if (!target) return report(target.error());
    // A plan of the checkpoint's own precision replays it from the config again, not from the
    // recipe that filled in around it.
    if (!header_string(*b, "precision")) r.recipe = *recipe;
    r.target = *target;
    r.engine = header_string(*b, "engine");  // absent in plans made before engines: the default then
    if (auto ranges = header_string(*b, "ranges")) {
        std::optional<std::size_t> index;
        for (std::size_t i = 0; i < files.size(); ++i)
            if (files[i].path == *ranges) index = i;
        auto path = name_or_path(index, "ranges");
        if (!path) return report(path.error());
        r.ranges = *path;
    }
    r.settings = planner::recorded_settings(*b);
    r.node_formats = planner::recorded_node_formats(*b);
    auto text = planner::why_node(r, args->positional[1], files);
    if (!text) return report(text.error());
    std::cout << *text;
    return 0;
}

}  // namespace kbp::cli
