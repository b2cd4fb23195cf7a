// kbp stats: what a plan is made of, for people or (--json) for scripts; --cost adds the
// roofline cost of the plan on its target.
#include <charconv>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "planner/cost.hpp"
#include "schema/file_io.hpp"
#include "schema/stats.hpp"

namespace kbp::cli {

int run_stats(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("stats", argc, argv,
                              {{"--json", ""}, {"--output", "-o", true}, {"--cost", ""}, {"--context", "", true}, {"--target", "", true},
                               {"--catalog", "", true}},
                              1, 1, code);
    if (!args) return code;
    const std::string& file = args->positional[0];
    auto b = load_valid(file, code);
    if (!b) return code;
    bool json = args->flag("--json");
    std::string text;
    if (args->flag("--cost")) {
        planner::CostOptions options;
        if (auto c = args->value("--context")) {
            auto [end, ec] = std::from_chars(c->data(), c->data() + c->size(), options.context);
            if (ec != std::errc{} || end != c->data() + c->size() || options.context < 0)
                return usage_error("stats", "--context takes a number of tokens");
        }
        options.target = args->value("--target");
        options.catalog_dir = args->value("--catalog");
        auto cost = planner::estimate_cost(*b, options);
        if (!cost) return report(cost.error());
        text = json ? planner::cost_json(*cost) : file + ": " + planner::cost_text(*cost);
    } else {
        auto stats = schema::compute_stats(*b);
        text = json ? schema::stats_json(stats) : file + ": " + schema::stats_text(stats);
    }
    if (auto s = write_file_atomic(args->value("--output").value_or("-"), text); !s) return report(s.error());
    return 0;
}

}  // namespace kbp::cli
