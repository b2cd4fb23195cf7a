// kbp: plans and shows how an LLM's inference is laid out as kernels.
// This file only picks the subcommand; the work is in the kbp_* libraries.
#include <cstring>
#include <exception>
#include <iostream>

#include "cli/commands.hpp"
#include "schema/names.hpp"
#include "schema/result.hpp"

namespace {

// Exit status of a bug caught at the last moment (sysexits.h's EX_SOFTWARE).
constexpr int internal_error = kbp::exit_code(kbp::ErrorCode::internal);

void print_overview() {
    std::cout << "kbp " KBP_VERSION " - kernel blueprints for LLM inference (kbp-graph/v2)\n\n"
                 "usage: kbp <command> [options] [args]\n\ncommands:\n";
    for (const auto& c : kbp::cli::commands()) std::cout << "  " << c.name << std::string(10 - std::strlen(c.name), ' ') << c.summary << "\n";
    std::cout << "\n'kbp help <command>' or 'kbp <command> --help' describes one command. Exit codes: 0 ok, 1 usage error,\n"
                 "2 invalid input, 3 output not written, 4 input kbp cannot serve; 70 is a bug in kbp.\n";
}

// "unknown command 'pln' (did you mean 'plan'?)": a usage error.
int unknown_command(const std::string& name) {
    std::cerr << "kbp: error: unknown command '" << name << "'" << kbp::schema::name_hint(name, kbp::cli::command_names(), "commands")
              << " (see 'kbp --help')\n";
    return kbp::exit_code(kbp::ErrorCode::usage);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        print_overview();
        return kbp::exit_code(kbp::ErrorCode::usage);
    }
    std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        if (argc < 3 || name != "help") {
            print_overview();
            return 0;
        }
        // kbp help CMD: the command's own help, as 'kbp CMD --help' prints it.
        const auto* c = kbp::cli::find_command(argv[2]);
        if (!c) return unknown_command(argv[2]);
        std::cout << c->usage;
        return 0;
    }
    if (name == "--version" || name == "-V" || name == "version") {
        std::cout << "kbp " KBP_VERSION "\n";
        return 0;
    }
    for (const auto& c : kbp::cli::commands()) {
        if (name != c.name) continue;
        kbp::cli::set_running(c.name);
        // Every input problem is an error with its place (exit 2-4); an exception reaching here
        // is a bug in kbp: say so, distinctly, rather than abort.
        try {
            return c.run(argc - 1, argv + 1);
        } catch (const std::exception& e) {
            std::cerr << kbp::cli::prefix("internal error") << e.what() << " (a bug in kbp: please report it with the command)\n";
        } catch (...) {
            std::cerr << kbp::cli::prefix("internal error") << "(a bug in kbp: please report it with the command)\n";
        }
        return internal_error;
    }
    return unknown_command(name);
}
