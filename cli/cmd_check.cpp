// kbp check: every problem of every file, not just the first.
#include <algorithm>
#include <charconv>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "schema/memory.hpp"
#include "schema/reader.hpp"
#include "schema/validator.hpp"

namespace kbp::cli {

int run_check(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("check", argc, argv, {{"--max-problems", "", true}, {"--quiet", "-q"}}, 1, 1u << 20, code);
    if (!args) return code;
    std::size_t max = 50;
    if (auto v = args->value("--max-problems")) {
        auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), max);
        if (ec != std::errc{} || end != v->data() + v->size()) return usage_error("check", "--max-problems takes a number");
    }
    bool quiet = args->flag("--quiet");
    int result = 0;
    for (const auto& file : args->positional) {
        auto b = schema::load_blueprint(file);
        if (!b) {
            std::cerr << prefix("error") << as_plan_error(b.error(), file).text() << "\n";
            result = exit_code(ErrorCode::invalid_input);
            continue;
        }
        auto problems = schema::validate(*b);
        if (!problems.empty()) {
            print_diagnostics(file, problems, max);
            result = exit_code(ErrorCode::invalid_input);
            continue;
        }
        if (!quiet)
            std::cout << file << ": ok (" << b->arm.mode.name() << " rows " << b->arm.rows << ": " << b->layers.size()
                      << " layers, " << b->nodes.size() << " nodes, " << b->edges.size() << " edges, " << b->groups.size()
                      << " groups" << (b->collapsed_only ? ", collapsed form only" : "") << ")\n";
        // Valid, but not finished: a GPNPU plan made without ranges for some tensors.
        const auto open = schema::compute_memory(*b).unknown_fixed_point;
        if (!open.empty()) {
            std::cerr << prefix("note") << file << ": " << open.size()
                      << " ops have FixedPoint32 fractional bits or template arguments that no calibrated range decided (kbp plan --ranges):";
            for (std::size_t i = 0; i < std::min(open.size(), max); ++i) std::cerr << (i ? ", " : " ") << printable(open[i]);
            if (open.size() > max) std::cerr << ", ... (" << open.size() - max << " more)";
            std::cerr << "\n";
        }
    }
    return result;
}

}  // namespace kbp::cli
