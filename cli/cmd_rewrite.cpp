// kbp fmt / expand / collapse: read a blueprint, rewrite one form of it, write it atomically.
#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "schema/file_io.hpp"
#include "schema/reader.hpp"
#include "schema/templates.hpp"
#include "schema/validator.hpp"
#include "schema/writer.hpp"

namespace kbp::cli {
namespace {

int write(const schema::Blueprint& b, const Args& args) {
    auto text = schema::write_blueprint(b, {.pretty = !args.flag("--compact")});
    if (auto s = write_file_atomic(args.value("--output").value_or("-"), text); !s) return report(s.error());
    return 0;
}

// Both forms of a blueprint must say the same: where the expansion first differs from the flat
// lists ("/edges/308", or "/edges" when only the counts differ), or "" when it does not.
std::string first_difference(const schema::FlatLists& flat, const schema::Blueprint& b) {
    auto in = [](const char* list, const auto& expanded, const auto& actual) -> std::string {
        for (std::size_t i = 0; i < std::min(expanded.size(), actual.size()); ++i)
            if (!(expanded[i] == actual[i])) return std::string("/") + list + "/" + std::to_string(i);
        return expanded.size() == actual.size() ? "" : std::string("/") + list;
    };
    for (auto where : {in("nodes", flat.nodes, b.nodes), in("edges", flat.edges, b.edges), in("groups", flat.groups, b.groups)})
        if (!where.empty()) return where;
    return "";
}

}  // namespace

int run_fmt(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("fmt", argc, argv, {{"--output", "-o", true}, {"--compact", ""}, {"--force", ""}}, 1, 1, code);
    if (!args) return code;
    const std::string& file = args->positional[0];
    if (args->flag("--force")) {
        auto b = schema::load_blueprint(file);
        if (!b) return report(as_plan_error(b.error(), file));
        return write(*b, *args);
    }
    auto b = load_valid(file, code);
    if (!b) return code;
    return write(*b, *args);
}

int run_expand(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("expand", argc, argv, {{"--output", "-o", true}, {"--compact", ""}}, 1, 1, code);
    if (!args) return code;
    const std::string& file = args->positional[0];
    auto b = schema::load_blueprint(file);
    if (!b) return report(as_plan_error(b.error(), file));
    if (!b->collapsed) return report(make_error(ErrorCode::invalid_input, file + ": /collapsed", "no collapsed form to expand"));
    if (b->collapsed_only) {
        auto flat = schema::expand_templates(*b);
        if (!flat) return report(flat.error().with_context(file));
        if (!flat->complete)
            return report(make_error(ErrorCode::unsupported, file + ": /collapsed/templates",
                                     "the templates lack steps, tensors or group rules; only a flat plan can be rebuilt "
                                     "from them ('kbp collapse' writes complete templates)"));
        b->nodes = std::move(flat->nodes);
        b->edges = std::move(flat->edges);
        b->groups = std::move(flat->groups);
        b->collapsed_only = false;
    }
    auto problems = schema::validate(*b);
    if (!problems.empty()) {
        print_diagnostics(file, problems, 20);
        return report(make_error(ErrorCode::invalid_input, file, "the expanded blueprint is invalid"));
    }
    return write(*b, *args);
}

int run_collapse(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("collapse", argc, argv, {{"--output", "-o", true}, {"--compact", ""}, {"--only", ""}}, 1, 1, code);
    if (!args) return code;
    const std::string& file = args->positional[0];
    auto b = load_valid(file, code);
    if (!b) return code;
    if (b->collapsed_only) return write(*b, *args);
    auto collapsed = schema::collapse_layers(*b, {.detail = true});
    if (!collapsed) return report(collapsed.error().with_context(file));
    b->collapsed = std::move(*collapsed);
    auto flat = schema::expand_templates(*b);
    if (!flat || !flat->complete)
        return report(make_error(ErrorCode::unsupported, file, "the collapsed form does not expand back to the flat lists"));
    if (auto where = first_difference(*flat, *b); !where.empty())
        return report(make_error(ErrorCode::unsupported, file + ": " + where,
                                 "the collapsed form expands to something else here, so kbp cannot collapse this plan losslessly"));
    b->collapsed_only = args->flag("--only");
    return write(*b, *args);
}

}  // namespace kbp::cli
