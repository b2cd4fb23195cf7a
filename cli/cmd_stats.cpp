// kbp stats: what a plan is made of, for people or (--json) for scripts.
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "schema/file_io.hpp"
#include "schema/stats.hpp"

namespace kbp::cli {

int run_stats(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("stats", argc, argv, {{"--json", ""}, {"--output", "-o", true}}, 1, 1, code);
    if (!args) return code;
    const std::string& file = args->positional[0];
    auto b = load_valid(file, code);
    if (!b) return code;
    auto stats = schema::compute_stats(*b);
    std::string text = args->flag("--json") ? schema::stats_json(stats) : file + ": " + schema::stats_text(stats);
    if (auto s = write_file_atomic(args->value("--output").value_or("-"), text); !s) return report(s.error());
    return 0;
}

}  // namespace kbp::cli
