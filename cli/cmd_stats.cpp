// kbp stats: what a plan is made of, for people or (--json) for scripts; --cost adds the
// roofline cost of the plan on its target.
#include <charconv>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/recorded_inputs.hpp"
#include "cost/cost.hpp"
#include "cost/cost_sweep.hpp"
#include "schema/file_io.hpp"
#include "schema/stats.hpp"

namespace kbp::cli {
namespace {

// Without --target, the cost is on the target the plan was made with: the file its provenance
// records (a --catalog folder's, or one named by path), with the recorded bytes.
Status use_recorded_target(const schema::Blueprint& b, const std::string& file, planner::CostOptions& options) {
    auto index = recorded_target(b);
    if (options.target || !index) return Ok{};
    const auto& recorded = b.provenance->files[*index];
    options.target_sha256 = recorded.sha256;
    if (is_embedded(recorded.path) || options.catalog_dir) {
        options.target = b.provenance->planner_header.find("target")->string();
        return Ok{};
    }
    auto path = find_recorded(b, *index, file, std::nullopt, "--catalog DIR, or --target NAME|FILE to cost on another");
    if (!path) return path.error();
    options.target = *path;
    return Ok{};
}

}  // namespace

int run_stats(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("stats", argc, argv,
                              {{"--json", ""}, {"--output", "-o", true}, {"--cost", ""}, {"--context", "", true}, {"--target", "", true},
                               {"--catalog", "", true}, {"--sweep", "", true}, {"--engine", "", true}},
                              1, 1, code);
    if (!args) return code;
    const std::string& file = args->positional[0];
    auto b = load_valid(file, code);
    if (!b) return code;
    bool json = args->flag("--json");
    std::string text;
    if (!args->flag("--cost"))
        for (const char* cost_only : {"--context", "--target", "--catalog", "--sweep", "--engine"})
            if (args->value(cost_only)) return usage_error("stats", std::string(cost_only) + " goes with --cost (the roofline cost), which was not asked for");
    if (args->flag("--cost")) {
        planner::CostOptions options;
        if (auto c = args->value("--context")) {
            auto [end, ec] = std::from_chars(c->data(), c->data() + c->size(), options.context);
            if (ec != std::errc{} || end != c->data() + c->size() || options.context < 0)
                return usage_error("stats", "--context takes a number of tokens");
        }
        options.target = args->value("--target");
        options.catalog_dir = args->value("--catalog");
        options.engine = args->value("--engine");
        if (auto s = use_recorded_target(*b, file, options); !s) return report(s.error());
        if (auto sweep_arg = args->value("--sweep")) {
            auto spec = planner::parse_sweep(*sweep_arg);
            if (!spec) return usage_error("stats", spec.error().text());
            auto sweep = planner::sweep_cost(*b, options, *spec);
            if (!sweep) return report(sweep.error());
            text = json ? planner::sweep_json(*sweep) : file + ": " + planner::sweep_text(*sweep);
        } else {
            auto cost = planner::estimate_cost(*b, options);
            if (!cost) return report(cost.error());
            text = json ? planner::cost_json(*cost) : file + ": " + planner::cost_text(*cost);
        }
    } else {
        auto stats = schema::compute_stats(*b);
        text = json ? schema::stats_json(stats) : file + ": " + schema::stats_text(stats);
    }
    if (auto s = write_file_atomic(args->value("--output").value_or("-"), text); !s) return report(s.error());
    return 0;
}

}  // namespace kbp::cli
