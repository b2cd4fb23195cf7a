// Steps the subcommands share: parse their options (handling --help), load and validate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "schema/blueprint.hpp"
#include "schema/diagnostic.hpp"
#include "schema/file_kind.hpp"

namespace kbp::cli {

// Parses a subcommand's arguments. On --help prints the usage and sets exit_code 0; on a
// usage error prints it and sets exit_code 1. Returns nullopt in both cases.
std::optional<Args> parse_command(const char* command, int argc, char** argv, const std::vector<OptionSpec>& specs,
                                  std::size_t min_positional, std::size_t max_positional, int& exit_code);

// Prints up to `max` diagnostics as "FILE: /pointer: message", then how many were left out.
void print_diagnostics(const std::string& file, const schema::Diagnostics& d, std::size_t max);

// "key=value" -> {key, value}; nullopt without '=' or with an empty key (--set, a plan's settings).
std::optional<std::pair<std::string, std::string>> setting_of(const std::string& kv);

// `error` from reading FILE as a plan, or, when FILE is clearly another kind of file (a model
// config, YAML, ...), an error that says so.
using schema::as_plan_error;

// The plan's planner_header string `key` ("target", "engine", ...), if it has one.
std::optional<std::string> header_string(const schema::Blueprint& b, const char* key);

// Loads FILE and requires it to validate; prints what is wrong. nullopt + exit code on failure.
std::optional<schema::Blueprint> load_valid(const std::string& file, int& exit_code, std::size_t max_problems = 20);

}  // namespace kbp::cli
