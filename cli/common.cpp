#include "cli/common.hpp"

#include <iostream>

#include "cli/commands.hpp"
#include "schema/file_io.hpp"
#include "schema/file_kind.hpp"
#include "schema/reader.hpp"
#include "schema/validator.hpp"

namespace kbp::cli {

std::optional<Args> parse_command(const char* command, int argc, char** argv, const std::vector<OptionSpec>& specs,
                                  std::size_t min_positional, std::size_t max_positional, int& exit_code) {
    auto args = parse_args(argc, argv, 1, specs);
    if (!args) {
        exit_code = usage_error(command, args.error().message);
        return std::nullopt;
    }
    if (args->flag("--help")) {
        std::cout << find_command(command)->usage;
        exit_code = 0;
        return std::nullopt;
    }
    auto n = args->positional.size();
    if (n < min_positional || n > max_positional) {
        // The usage line names the arguments: "missing arguments (usage: kbp stats FILE [--json] [-o OUT])".
        std::string usage = find_command(command)->usage;
        usage = usage.substr(0, usage.find('\n'));
        exit_code = usage_error(command, std::string(n < min_positional ? "missing arguments" : "too many arguments") + " (" + usage + ")");
        return std::nullopt;
    }
    return std::move(*args);
}

void print_diagnostics(const std::string& file, const schema::Diagnostics& d, std::size_t max) {
    std::size_t shown = 0;
    for (const auto& item : d.items()) {
        if (shown == max) break;
        std::cerr << prefix("error") << printable(file) << ": " << item.pointer << ": " << item.message << "\n";
        ++shown;
    }
    if (d.total() > shown) std::cerr << prefix("error") << printable(file) << ": ... and " << d.total() - shown << " more problems\n";
}

std::optional<std::pair<std::string, std::string>> setting_of(const std::string& kv) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    return std::make_pair(kv.substr(0, eq), kv.substr(eq + 1));
}

std::optional<std::string> header_string(const schema::Blueprint& b, const char* key) {
    const auto* v = b.provenance ? b.provenance->planner_header.find(key) : nullptr;
    return v && v->is_string() ? std::optional<std::string>(v->string()) : std::nullopt;
}

std::optional<schema::Blueprint> load_valid(const std::string& file, int& exit_code, std::size_t max_problems) {
    auto b = schema::load_blueprint(file);
    if (!b) {
        exit_code = report(as_plan_error(b.error(), file));
        return std::nullopt;
    }
    auto problems = schema::validate(*b);
    if (!problems.empty()) {
        print_diagnostics(file, problems, max_problems);
        std::cerr << prefix("error") << file << ": invalid blueprint (" << problems.total() << " problems; 'kbp check' lists them)\n";
        exit_code = kbp::exit_code(ErrorCode::invalid_input);
        return std::nullopt;
    }
    return std::move(*b);
}

}  // namespace kbp::cli
