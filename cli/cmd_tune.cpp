// kbp tune: choose each module's format by what the plan costs on the device, within a budget.
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/plan_request.hpp"
#include "cost/cost.hpp"
#include "schema/file_io.hpp"
#include "schema/validator.hpp"
#include "schema/writer.hpp"
#include "tune/tune.hpp"

namespace kbp::cli {
namespace {

const std::vector<OptionSpec> tune_options{
    {"--arm", "", true},        {"--rows", "", true},      {"--target", "", true},      {"--recipe", "", true},
    {"--set", "", true, true},  {"--catalog", "", true},   {"--output", "-o", true},    {"--tp", "", true},
    {"--engine", "", true},     {"--candidates", "", true}, {"--sensitivity", "", true}, {"--budget", "", true},
    {"--objective", "", true},  {"--context", "", true},   {"--frontier", "", true},    {"--json", ""},
    {"--compact", ""},
};

std::vector<std::string> split_list(const std::string& list) {
    std::vector<std::string> out;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

}  // namespace

int run_tune(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("tune", argc, argv, tune_options, 1, 1, code);
    if (!args) return code;
    auto base = request_of("tune", *args, argc, argv, code);
    if (!base) return code;
    tune::TuneRequest request;
    request.base = std::move(*base);
    auto candidates = args->value("--candidates");
    if (!candidates || split_list(*candidates).empty()) return usage_error("tune", "--candidates names the recipes to choose from: R1,R2,...");
    request.candidates = split_list(*candidates);
    auto budget_text = args->value("--budget");
    if (!budget_text) return usage_error("tune", "--budget KIND=VALUE is required (memory=40GB, effective_bits=4.8, sensitivity=0.05, tokens_s=150)");
    auto budget = tune::parse_budget(*budget_text);
    if (!budget) return usage_error("tune", budget.error().message);
    request.budget = *budget;
    if (auto objective = args->value("--objective")) {
        auto m = tune::parse_objective(*objective);
        if (!m) return usage_error("tune", "--objective takes time, memory or sensitivity, not '" + *objective + "'");
        request.objective = *m;
    }
    if (auto context = args->value("--context")) {
        auto v = parse_int(*context);
        if (!v || *v < 0) return usage_error("tune", "--context takes a whole number of tokens");
        request.context = *v;
    }
    request.sensitivity = args->value("--sensitivity");
    auto out = args->value("--output");
    if (!out || *out == "-") return usage_error("tune", "-o PLAN names the tuned plan's file");

    auto planner = planner::Planner::load(request.base.catalog_dir);
    if (!planner) return report(planner.error());
    auto result = tune::tune(*planner, request);
    if (!result) return report(result.error());
    if (auto w = planner::memory_fit_warning(planner->catalog(), result->plan.blueprint, request.base.config_path)) result->plan.warnings.push_back(*w);
    for (const auto& w : result->plan.warnings) warn(w);
    auto problems = schema::validate(result->plan.blueprint);
    if (!problems.empty()) {
        print_diagnostics("<tuned plan>", problems, 20);
        return report(make_error(ErrorCode::unsupported, request.base.config_path, "the tuned plan is invalid (a bug in kbp or its data)"));
    }
    if (auto s = schema::write_blueprint_file(*out, result->plan.blueprint, {.pretty = !args->flag("--compact")}); !s) return report(s.error());
    const std::string frontier = tune::frontier_json(*result);
    if (auto path = args->value("--frontier"))
        if (auto s = kbp::write_file_atomic(*path, frontier); !s) return report(s.error());
    std::cout << (args->flag("--json") ? frontier : tune::tune_text(*result));
    return 0;
}

}  // namespace kbp::cli
