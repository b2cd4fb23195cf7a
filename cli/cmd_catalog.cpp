// kbp catalog: what the planner knows by name (targets, recipes, architectures), a line each
// with the first phrase of its description, and which files a --catalog folder adds or replaces.
#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "planner/plan.hpp"
#include "schema/names.hpp"

namespace kbp::cli {
namespace {

// The kinds listed, in order.
const std::vector<std::string> listed_kinds{"targets", "recipes", "architectures"};

// The description up to its first ':' or '.' or ';' (a phrase), at most 72 characters.
std::string summary_of(const planner::DataFile& f) {
    std::string d = f.json.value("description", std::string());
    auto end = d.find_first_of(":;");
    if (auto stop = d.find(". "); stop < end) end = stop;
    d = d.substr(0, end);
    if (d.size() > 72) d = d.substr(0, 69) + "...";
    return d;
}

// What a line adds after the summary: a recipe's own target, an architecture's model types and
// defaults, where a file came from when a --catalog folder gave it.
std::string details_of(const planner::DataFile& f) {
    std::string out;
    if (f.kind == "recipes" && f.json.contains("target")) out += " [target " + f.json["target"].get<std::string>() + "]";
    if (f.kind == "architectures") {
        std::string types;
        for (const auto& t : f.json.value("model_types", nlohmann::ordered_json::array())) types += (types.empty() ? "" : " ") + t.get<std::string>();
        auto d = f.json.value("defaults", nlohmann::ordered_json::object());
        out += " [model_type " + types + "; default recipe " + d.value("recipe", std::string("-")) + ", target " + d.value("target", std::string("-")) + "]";
    }
    if (f.origin.rfind("embedded:", 0) != 0) out += " (" + f.origin + ")";
    return out;
}

}  // namespace

int run_catalog(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("catalog", argc, argv, {{"--catalog", "", true}}, 0, 1, code);
    if (!args) return code;
    std::vector<std::string> kinds = listed_kinds;
    if (!args->positional.empty()) {
        const std::string& kind = args->positional[0];
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
            return usage_error("catalog", "unknown kind '" + kind + "'" + schema::name_hint(kind, kinds, "kinds"));
        kinds = {kind};
    }
    auto planner = planner::Planner::load(args->value("--catalog"));
    if (!planner) return report(planner.error());
    for (const auto& kind : kinds) {
        auto files = planner->catalog().all(kind);
        std::size_t width = 0;
        for (const auto* f : files) width = std::max(width, f->name.size());
        std::cout << kind << " (" << files.size() << "):\n";
        for (const auto* f : files)
            std::cout << "  " << f->name << std::string(width + 2 - f->name.size(), ' ') << summary_of(*f) << details_of(*f) << "\n";
    }
    return 0;
}

}  // namespace kbp::cli
