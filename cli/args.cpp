#include "cli/args.hpp"

#include "schema/names.hpp"

namespace kbp::cli {

Result<Args> parse_args(int argc, char** argv, int first, const std::vector<OptionSpec>& specs) {
    Args args;
    bool options_done = false;
    for (int i = first; i < argc; ++i) {
        std::string a = argv[i];
        if (options_done || a == "-" || a.size() < 2 || a[0] != '-') {
            args.positional.push_back(a);
            continue;
        }
        if (a == "--") {
            options_done = true;
            continue;
        }
        if (a == "--help" || a == "-h") {
            args.values["--help"].push_back("");
            continue;
        }
        std::string name = a, value;
        bool inline_value = false;
        if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
            name = a.substr(0, eq);
            value = a.substr(eq + 1);
            inline_value = true;
        }
        const OptionSpec* spec = nullptr;
        for (const auto& s : specs)
            if (s.name == name || (!s.alias.empty() && s.alias == name)) spec = &s;
        if (!spec) {
            std::vector<std::string> names{"--help"};
            for (const auto& s : specs) names.push_back(s.name);
            return make_error(ErrorCode::usage, "", "unknown option '" + name + "'" + schema::name_hint(name, names, "options"));
        }
        if (spec->takes_value && !inline_value) {
            if (i + 1 >= argc) return make_error(ErrorCode::usage, "", "option '" + name + "' needs a value");
            value = argv[++i];
        } else if (!spec->takes_value && inline_value) {
            return make_error(ErrorCode::usage, "", "option '" + name + "' takes no value");
        }
        auto& slot = args.values[spec->name];
        if (!slot.empty() && !spec->repeatable) return make_error(ErrorCode::usage, "", "option '" + spec->name + "' given twice");
        slot.push_back(value);
    }
    return args;
}

}  // namespace kbp::cli
