// Running the real kbp binary from a test: `kbp ARGS` with stdout and stderr captured in files.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "support.hpp"

namespace kbp::test {

struct Run {
    int exit = -1;
    std::string out, err;
};

// A shell word: 'text' with embedded quotes escaped.
inline std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs `kbp ARGS` (ARGS already quoted as needed); standard input is `stdin_file` or empty.
inline Run kbp_run(const TempDir& dir, const std::string& args, const std::string& stdin_file = "") {
    std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
    std::string cmd = quote(KBP_CLI_PATH) + " " + args + " >" + quote(out) + " 2>" + quote(err) +
                      (stdin_file.empty() ? " </dev/null" : " <" + quote(stdin_file));
    int status = std::system(cmd.c_str());
    Run r;
    r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

inline std::string show(const Run& r) {
    return "exit " + std::to_string(r.exit) + "\nstdout: " + r.out.substr(0, 400) + "\nstderr: " + r.err.substr(0, 800);
}

// The seed's path as a shell word.
inline std::string seed_arg() { return quote(seed_path()); }

// A bundled sample's file (samples/<path>), and the Llama-3.1-8B config as a shell word.
inline std::string sample_path(const std::string& path) { return source_dir() + "/samples/" + path; }
inline std::string llama_arg() { return quote(sample_path("llama-3.1-8b/config.json")); }

}  // namespace kbp::test
