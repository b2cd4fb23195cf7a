// The kbp subcommands. Each takes its arguments after the subcommand name, prints its own
// output, and returns the process exit code: 0 ok, else kbp::exit_code of the error's code
// (schema/result.hpp: 1 usage, 2 invalid input, 3 output error, 4 unsupported, 70 a bug).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "schema/result.hpp"

namespace kbp::cli {

struct Command {
    const char* name;
    const char* summary;
    const char* usage;  // the full --help text
    int (*run)(int argc, char** argv);  // argv[0] is the subcommand name
};

int run_check(int argc, char** argv);
int run_stats(int argc, char** argv);
int run_fmt(int argc, char** argv);
int run_expand(int argc, char** argv);
int run_collapse(int argc, char** argv);
int run_plan(int argc, char** argv);
int run_why(int argc, char** argv);
int run_catalog(int argc, char** argv);
int run_export(int argc, char** argv);
int run_render(int argc, char** argv);
int run_diff(int argc, char** argv);
int run_view(int argc, char** argv);
int run_calibrate(int argc, char** argv);
int run_tune(int argc, char** argv);

// The subcommand table, in the order `kbp --help` lists it.
std::span<const Command> commands();
const Command* find_command(const std::string& name);

// The names of the subcommands, for "did you mean".
std::vector<std::string> command_names();

// Every message kbp prints starts "kbp CMD: error: " (or "warning: ", "note: "), CMD the
// subcommand running: main names it before running it.
void set_running(const char* command);
std::string prefix(const char* severity);

// Prints "kbp CMD: error: <text>" on stderr and returns the error's exit code.
int report(const kbp::Error& error);
// Prints a usage error for `command` and returns its exit code (exit_code(ErrorCode::usage)).
int usage_error(const std::string& command, const std::string& message);
// Prints "kbp CMD: warning: <text>" on stderr.
void warn(const std::string& text);

}  // namespace kbp::cli
