// kbp plan: run the planner and write the plan.
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/plan_request.hpp"
#include "cost/cost.hpp"
#include "planner/plan.hpp"
#include "schema/memory.hpp"
#include "schema/numbers.hpp"
#include "schema/stats.hpp"
#include "schema/file_io.hpp"
#include "schema/names.hpp"
#include "schema/validator.hpp"
#include "schema/writer.hpp"

namespace kbp::cli {
namespace {

const std::vector<OptionSpec> plan_options{
    {"--arm", "", true},     {"--rows", "", true},       {"--arms", "", true},   {"--target", "", true},
    {"--recipe", "", true},  {"--set", "", true, true},  {"--catalog", "", true}, {"--output", "-o", true},
    {"--ranges", "", true},  {"--tp", "", true},        {"--engine", "", true},
    {"--compact", ""},       {"--quiet", "-q"},          {"--verbose", "-v"},
};

// What `kbp plan CONFIG` says on a terminal when no -o names where the plan goes: a few lines, not
// tens of thousands of JSON (Llama-3.1-8B's plan is 32,399 lines).
void print_summary(const schema::Blueprint& b, const planner::Planner& planner) {
    const auto stats = schema::compute_stats(b);
    auto header_text = [&](const char* key) { return header_string(b, key).value_or("?"); };
    std::cout << "plan: " << header_text("architecture") << ", recipe " << header_text("recipe") << ", target " << header_text("target")
              << ", engine " << header_text("engine") << "; " << b.arm.mode.name() << ", " << b.arm.rows << (b.arm.rows == 1 ? " row" : " rows") << "\n";
    std::cout << "  " << stats.layers << " layers, " << schema::with_commas(stats.nodes) << " ops, " << schema::with_commas(stats.groups)
              << " groups launching " << schema::with_commas(stats.launches) << " kernels, " << stats.quant_points << " quantization points\n";
    const auto& m = stats.memory;
    char params[160];
    std::snprintf(params, sizeof params, "  parameters %.1fB, %.1fB active per token\n", m.parameters / 1e9, m.active_parameters / 1e9);
    std::cout << params << (m.mtp ? schema::mtp_text(*m.mtp) : "");
    if (auto cost = planner::estimate_cost(planner.catalog(), b, planner::CostOptions{}); cost) {
        char line[256];
        std::snprintf(line, sizeof line, "  weights %.2f GB; a step %.1f us at 4096 tokens of context -> %.1f tokens/s\n", cost->stored_weight_bytes / 1e9,
                      cost->total.time_us, cost->tokens_per_s);
        std::cout << line;
    }
    std::cout << "the plan itself is JSON: -o FILE writes it, -o - prints it here ('kbp stats FILE' and 'kbp view FILE' read it)\n";
}

// Plans one arm, validates the result, writes it to `out` (or, when there is none, prints its
// summary); returns the exit code. `chosen` (if given) gets what the request left to defaults.
int plan_one(const planner::Planner& planner, const planner::PlanRequest& r, const std::optional<std::string>& out, bool compact, bool quiet,
             bool verbose, std::string* chosen = nullptr) {
    auto plan = planner.plan(r);
    if (!plan) return report(plan.error());
    if (auto w = planner::memory_fit_warning(planner.catalog(), plan->blueprint, r.config_path)) plan->warnings.push_back(*w);
    if (chosen) *chosen = plan->defaults_chosen;
    if (!quiet) {
        if (!plan->defaults_chosen.empty()) std::cerr << "kbp plan: " << plan->defaults_chosen << "\n";
        for (const auto& w : plan->warnings) warn(w);
    }
    if (verbose) {
        auto list = [](const std::vector<std::string>& names) {
            std::string out;
            for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
            return out.empty() ? std::string("none") : out;
        };
        std::cerr << "kbp plan: config fields kbp did not read: " << list(plan->config_unread) << "\n";
        std::cerr << "kbp plan: config fields taken as metadata (planner/data/vocabulary/config-fields.json): " << list(plan->config_metadata) << "\n";
    }
    auto problems = schema::validate(plan->blueprint);
    if (!problems.empty()) {
        print_diagnostics("<plan " + r.arm + ">", problems, 20);
        return report(make_error(ErrorCode::unsupported, r.config_path, "the planner produced an invalid plan (a bug in kbp or its data)"));
    }
    if (!out) {
        print_summary(plan->blueprint, planner);
        return 0;
    }
    if (auto s = schema::write_blueprint_file(*out, plan->blueprint, {.pretty = !compact}); !s) return report(s.error());
    return 0;
}

}  // namespace

int run_plan(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("plan", argc, argv, plan_options, 1, 1, code);
    if (!args) return code;
    auto request = request_of("plan", *args, argc, argv, code);
    if (!request) return code;
    bool compact = args->flag("--compact"), quiet = args->flag("--quiet");
    auto arms_value = args->value("--arms");
    auto load_planner = [&] { return planner::Planner::load(request->catalog_dir); };
    if (!arms_value) {
        auto planner = load_planner();
        if (!planner) return report(planner.error());
        // Without -o: the JSON into a pipe, as always; on a terminal, a summary.
        std::optional<std::string> out = args->value("--output");
        if (!out && !isatty(STDOUT_FILENO)) out = "-";
        return plan_one(*planner, *request, out, compact, quiet, args->flag("--verbose"));
    }

    // Several arms: one file each into the folder -o names.
    auto dir = args->value("--output");
    if (!dir || *dir == "-") return usage_error("plan", "--arms writes one file per arm: -o names a folder");
    std::vector<std::pair<std::string, std::int64_t>> arms;
    if (*arms_value == "all") {
        for (const auto& a : planner::standard_arms()) arms.push_back({a.arm, a.rows});
    } else {
        std::string list = *arms_value;
        for (std::size_t start = 0; start <= list.size();) {
            auto comma = list.find(',', start);
            std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            auto colon = item.find(':');
            std::string arm = item.substr(0, colon);
            std::int64_t rows = 0;
            if (colon != std::string::npos) {
                auto v = parse_int(item.substr(colon + 1));
                if (!v) return usage_error("plan", "--arms takes ARM[:ROWS],...: bad rows in '" + item + "'");
                rows = *v;
            } else {
                bool found = false;
                for (const auto& a : planner::arm_specs())
                    if (arm == a.name) rows = a.default_rows, found = true;
                if (!found) return usage_error("plan", "unknown arm '" + arm + "'" + schema::name_hint(arm, planner::arm_names(), "arms"));
            }
            arms.push_back({arm, rows});
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
    }
    // One catalog, loaded and checked once, for every arm.
    auto planner = load_planner();
    if (!planner) return report(planner.error());
    std::error_code ec;
    std::filesystem::create_directories(*dir, ec);
    if (ec) return report(make_error(ErrorCode::output, *dir, ec.message()));
    bool bar = isatty(STDERR_FILENO) && !quiet;
    std::string chosen;  // the same for every arm: said once, at the end
    for (std::size_t i = 0; i < arms.size(); ++i) {
        auto r = *request;
        r.arm = arms[i].first;
        r.rows = arms[i].second;
        std::string name = r.arm + "-r" + std::to_string(*r.rows) + ".plan.json";
        if (bar) {
            int done = static_cast<int>(30 * (i + 1) / arms.size());
            std::fprintf(stderr, "\r[%s%s] %zu/%zu %-24s", std::string(done, '#').c_str(), std::string(30 - done, '.').c_str(), i + 1,
                         arms.size(), name.c_str());
        }
        if (int c = plan_one(*planner, r, (std::filesystem::path(*dir) / name).string(), compact, true, i == 0 && args->flag("--verbose"), i == 0 ? &chosen : nullptr); c != 0)
            return c;
    }
    if (bar) std::fprintf(stderr, "\n");
    if (!quiet) std::cerr << "kbp plan: wrote " << arms.size() << " plans to " << *dir << (chosen.empty() ? "" : "; " + chosen) << "\n";
    return 0;
}

}  // namespace kbp::cli
