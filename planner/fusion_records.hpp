// A file of fusion rules (planner/data/fusion/<name>.json) as typed records, read once when the
// catalog loads (data_records.hpp) and read by form_groups. The tables follow the schema
// (planner/data/schemas/fusion.schema.json) member by member, in its order;
// tests/test_data_records.cpp holds the two together.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "planner/kernel_records.hpp"

namespace kbp::planner {

// One element of a pattern written as an object: an op glob and its formats.
struct PatternOp {
    std::string op;
    std::optional<std::string> weight, activation, output;
};
// An op glob alone, or an op with formats.
using PatternElement = std::variant<std::string, PatternOp>;

// What a member of the group becomes (its kernel, family, compute, where, knobs).
struct MemberSpec {
    NullableName kernel;
    std::optional<std::string> family;
    NullableName compute;
    std::optional<std::string> where;
    std::optional<Json> point;  // the family's knobs, free-form: filled per node
    std::optional<FractionRule> fraction_bits;
};

struct FusionRule {
    std::string name;
    std::optional<std::string> about;
    bool off = false;
    std::vector<PatternElement> pattern;  // every rule that is not off has one (check_names.cpp)
    std::optional<std::string> block, followed_by;
    bool across_blocks = false, across_layers = false;
    std::optional<std::array<std::int64_t, 2>> rows;
    std::optional<std::vector<std::string>> arms;
    std::optional<std::map<std::string, std::string>> settings;
    // "members": the members' own kernels; or the kernels the group launches.
    std::variant<std::string, std::vector<std::string>> kernels;
    // One spec for every member, or one per pattern element.
    std::optional<std::variant<MemberSpec, std::vector<MemberSpec>>> members;
    std::optional<std::string> compute;
};

struct FusionCatalog {
    std::string name;
    std::optional<std::string> description;
    std::optional<std::vector<std::string>> replaces;
    std::optional<AppliesTo> applies_to;
    std::vector<FusionRule> rules;
};

}  // namespace kbp::planner

namespace kbp::schema {

template <> inline constexpr auto record_fields<planner::PatternOp> = std::tuple{
    field("op", &planner::PatternOp::op),
    field("weight", &planner::PatternOp::weight, Presence::optional),
    field("activation", &planner::PatternOp::activation, Presence::optional),
    field("output", &planner::PatternOp::output, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::MemberSpec> = std::tuple{
    field("kernel", &planner::MemberSpec::kernel, Presence::optional),
    field("family", &planner::MemberSpec::family, Presence::optional),
    field("compute", &planner::MemberSpec::compute, Presence::optional),
    field("where", &planner::MemberSpec::where, Presence::optional),
    field("point", &planner::MemberSpec::point, Presence::optional),
    field("fraction_bits", &planner::MemberSpec::fraction_bits, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::FusionRule> = std::tuple{
    field("name", &planner::FusionRule::name),
    field("about", &planner::FusionRule::about, Presence::optional),
    field("off", &planner::FusionRule::off, Presence::defaulted),
    field("pattern", &planner::FusionRule::pattern, Presence::defaulted),
    field("block", &planner::FusionRule::block, Presence::optional),
    field("followed_by", &planner::FusionRule::followed_by, Presence::optional),
    field("across_blocks", &planner::FusionRule::across_blocks, Presence::defaulted),
    field("across_layers", &planner::FusionRule::across_layers, Presence::defaulted),
    field("rows", &planner::FusionRule::rows, Presence::optional),
    field("arms", &planner::FusionRule::arms, Presence::optional),
    field("settings", &planner::FusionRule::settings, Presence::optional),
    field("kernels", &planner::FusionRule::kernels, Presence::defaulted),
    field("members", &planner::FusionRule::members, Presence::optional),
    field("compute", &planner::FusionRule::compute, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::FusionCatalog> = std::tuple{
    field("name", &planner::FusionCatalog::name),
    field("description", &planner::FusionCatalog::description, Presence::optional),
    field("replaces", &planner::FusionCatalog::replaces, Presence::optional),
    field("applies_to", &planner::FusionCatalog::applies_to, Presence::optional),
    field("rules", &planner::FusionCatalog::rules),
};

}  // namespace kbp::schema
