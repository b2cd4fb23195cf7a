// The plan request the planning commands share (kbp plan, kbp tune): the model, arm, rows,
// target, recipe, engine, ranges, tensor parallelism, settings and catalog from their options.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cli/args.hpp"
#include "planner/plan.hpp"

namespace kbp::cli {

std::optional<std::int64_t> parse_int(const std::string& s);
// "kbp plan CONFIG ...": the command line, for a plan's provenance.
std::string command_line(int argc, char** argv);
// Builds the request from the options; nullopt after printing a usage error (its exit code in `code`).
std::optional<planner::PlanRequest> request_of(const char* command, const Args& args, int argc, char** argv, int& code);

}  // namespace kbp::cli
