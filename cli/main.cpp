// kbp: plans and shows how an LLM's inference is laid out as kernels.
// This file only picks the subcommand; the work is in the kbp_* libraries.
#include <cstring>
#include <iostream>

#include "cli/commands.hpp"

namespace {

void print_overview() {
    std::cout << "kbp " KBP_VERSION " - kernel blueprints for LLM inference (kbp-graph/v2)\n\n"
                 "usage: kbp <command> [options] [args]\n\ncommands:\n";
    for (const auto& c : kbp::cli::commands()) std::cout << "  " << c.name << std::string(10 - std::strlen(c.name), ' ') << c.summary << "\n";
    std::cout << "\n'kbp <command> --help' describes one command. Exit codes: 0 ok, 1 usage error,\n"
                 "2 invalid input, 3 output not written, 4 input kbp cannot serve.\n";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        print_overview();
        return 1;
    }
    std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        print_overview();
        return 0;
    }
    if (name == "--version" || name == "-V" || name == "version") {
        std::cout << "kbp " KBP_VERSION "\n";
        return 0;
    }
    for (const auto& c : kbp::cli::commands())
        if (name == c.name) return c.run(argc - 1, argv + 1);
    std::cerr << "kbp: error: unknown command '" << name << "' (see 'kbp --help')\n";
    return 1;
}
