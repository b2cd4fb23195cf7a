// kbp view: starts the desktop viewer, kbp-view, with the same arguments. kbp itself links no
// GL, so it runs on a headless server; only kbp-view needs a display.
//
// kbp-view is looked for in $KBP_VIEW, beside kbp, in the build tree (build/viewer/app/ beside
// build/cli/), then on PATH.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <vector>

#include "cli/commands.hpp"

namespace kbp::cli {
namespace {

std::vector<std::string> candidates() {
    std::vector<std::string> out;
    if (const char* env = std::getenv("KBP_VIEW"); env && *env) out.push_back(env);
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        out.push_back((self.parent_path() / "kbp-view").string());
        out.push_back((self.parent_path().parent_path() / "viewer" / "app" / "kbp-view").string());
    }
    return out;
}

}  // namespace

int run_view(int argc, char** argv) {
    if (argc >= 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
        std::cout << find_command("view")->usage;
        return 0;
    }
    std::vector<char*> args;
    std::string name = "kbp-view";
    args.push_back(name.data());
    for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    for (const auto& path : candidates())
        if (access(path.c_str(), X_OK) == 0) {
            execv(path.c_str(), args.data());
            return report(make_error(ErrorCode::unsupported, path, "cannot start the viewer"));
        }
    execvp("kbp-view", args.data());  // returns only when kbp-view is not on PATH
    return report(make_error(ErrorCode::unsupported, "kbp-view",
                             "the desktop viewer is not installed (it is built with kbp: build/viewer/app/kbp-view)"));
}

}  // namespace kbp::cli
