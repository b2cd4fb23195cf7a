// kbp diff: what changed between two plans, for people or (--json) for scripts and CI guards.
//
// Exit codes follow diff(1) and cmp(1) rather than the other subcommands, so that a CI job can
// tell "the plan changed" from "the check could not run": 0 equal, 1 different, 2 trouble (usage
// error, unreadable or invalid plan), 3 output not written.
#include <charconv>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "diff/diff.hpp"
#include "exporters/view.hpp"
#include "schema/file_io.hpp"

namespace kbp::cli {
namespace {

constexpr int exit_equal = 0, exit_different = 1, exit_trouble = 2;

std::optional<schema::Blueprint> load_side(const std::string& file, int& code) {
    auto b = load_valid(file, code);
    if (!b) {
        if (code != exit_code(ErrorCode::output)) code = exit_trouble;
        return std::nullopt;
    }
    if (auto s = exporters::ensure_flat(*b); !s) {
        report(s.error());
        code = exit_trouble;
        return std::nullopt;
    }
    return b;
}

}  // namespace

int run_diff(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("diff", argc, argv, {{"--json", ""}, {"--output", "-o", true}, {"--max-items", "", true}, {"--each-layer", ""}}, 2, 2, code);
    if (!args) return code == 0 ? 0 : exit_trouble;
    std::size_t max_items = 40;
    if (auto v = args->value("--max-items")) {
        auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), max_items);
        if (ec != std::errc{} || end != v->data() + v->size()) {
            usage_error("diff", "--max-items takes a number");
            return exit_trouble;
        }
    }
    const std::string& file_a = args->positional[0];
    const std::string& file_b = args->positional[1];
    auto a = load_side(file_a, code);
    if (!a) return code;
    auto b = load_side(file_b, code);
    if (!b) return code;

    auto d = diff::diff_plans(*a, *b);
    std::string text = args->flag("--json") ? diff::diff_json(d, *a, *b, file_a, file_b)
                                            : diff::diff_text(d, file_a, file_b, max_items, !args->flag("--each-layer"));
    if (auto s = write_file_atomic(args->value("--output").value_or("-"), text); !s) return report(s.error());
    return d.equal() ? exit_equal : exit_different;
}

}  // namespace kbp::cli
