// A small command-line parser: positional arguments, `--flag`, and `-o VALUE` / `--opt=VALUE`.
// Each subcommand declares the options it takes; anything else is a usage error.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schema/result.hpp"

namespace kbp::cli {

struct OptionSpec {
    std::string name;   // "--output"
    std::string alias;  // "-o" or ""
    bool takes_value = false;
    bool repeatable = false;
};

struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::vector<std::string>> values;  // by long name

    bool flag(const std::string& name) const { return values.count(name) > 0; }
    std::optional<std::string> value(const std::string& name) const {
        auto it = values.find(name);
        if (it == values.end() || it->second.empty()) return std::nullopt;
        return it->second.back();
    }
    std::vector<std::string> all(const std::string& name) const {
        auto it = values.find(name);
        return it == values.end() ? std::vector<std::string>{} : it->second;
    }
};

// Parses argv[first..] against `specs`; "--help"/"-h" is always accepted as a flag.
Result<Args> parse_args(int argc, char** argv, int first, const std::vector<OptionSpec>& specs);

}  // namespace kbp::cli
