// A kernel catalog (planner/data/kernels/<name>.json) as typed records, read once when the
// catalog loads (data_records.hpp) and read by choose_kernels, form_groups, assign_fraction_bits,
// describe_steps and check_budgets. Each record's table follows its schema
// (planner/data/schemas/kernels.schema.json) member by member, in the schema's order; the
// schema says what each member means, and tests/test_data_records.cpp holds the two together.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "planner/record_reader.hpp"

namespace kbp::planner {

// A count of bits: a whole number, or text filled in for each plan ("{imf_headroom}").
using BitsOrText = IntegerOrText;
// A nullable member that may also be absent: absent leaves the node's as it is, null clears it.
using NullableName = std::optional<std::optional<std::string>>;

// The architectures and targets a kernel or fusion file serves; a list left out: all.
struct AppliesTo {
    std::optional<std::vector<std::string>> architectures;
    std::optional<std::vector<std::string>> targets;
};

// How a FixedPoint32 output's fractional bits follow (assign_fraction_bits.cpp).
struct FractionRule {
    std::string rule;  // range, input, arg
    std::optional<std::string> arg;
    std::optional<BitsOrText> total, cap, headroom;
};

// How one of a custom op's template arguments follows.
struct TemplateArg {
    std::string name;
    std::string rule;  // members, output, input
    std::optional<std::string> members;  // all (default), leading, last
    std::optional<BitsOrText> total, cap, headroom;
};

struct KernelInstance {
    std::string family;
    std::optional<std::string> compute;  // null: nothing runs on the device
    std::optional<std::string> about;
    std::optional<std::vector<TemplateArg>> template_args;
    std::optional<std::vector<std::string>> steps;
};

// One row of the table: its conditions, then what it assigns to the node it serves.
struct KernelRow {
    std::string op;
    std::optional<std::string> block, kind, weight, activation, output;
    std::optional<std::array<std::int64_t, 2>> rows;
    std::optional<std::vector<std::string>> arms;
    std::optional<std::map<std::string, std::string>> settings;
    NullableName kernel;  // required; null: a host step, or `launches` several
    std::optional<std::string> family;
    NullableName compute;
    std::optional<std::string> where;
    std::optional<Json> point;  // the family's knobs, free-form: filled per node
    std::string rule;
    std::optional<std::vector<std::string>> launches;
    std::optional<std::string> refuse;
    std::optional<std::vector<std::string>> steps;
    std::optional<FractionRule> fraction_bits;
    std::optional<std::string> about;

    const Json* json = nullptr;  // the row as written (`kbp why` prints it); not a member of its own
};

struct KernelBudget {
    std::optional<std::string> name;
    std::string point;
    BitsOrText limit_bytes;
    std::string setting;
};

struct KernelCatalog {
    std::string name;
    std::optional<std::string> description;
    std::optional<AppliesTo> applies_to;
    std::optional<std::vector<std::string>> replaces;
    std::optional<std::string> fraction_bits_about;
    std::map<std::string, std::vector<std::string>> members;  // op -> the parts one node of it packs
    std::map<std::string, KernelInstance> instances;
    std::vector<KernelRow> table;
    std::vector<KernelBudget> budgets;
};

// Whether a file that says `applies_to` serves this architecture on this target.
bool applies(const std::optional<AppliesTo>& applies_to, const std::string& architecture, const std::string& target);
// As JSON text, for a message ("{}" when it serves all).
std::string applies_to_text(const std::optional<AppliesTo>& applies_to);

}  // namespace kbp::planner

namespace kbp::schema {

template <> inline constexpr auto record_fields<planner::AppliesTo> = std::tuple{
    field("architectures", &planner::AppliesTo::architectures, Presence::optional),
    field("targets", &planner::AppliesTo::targets, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::FractionRule> = std::tuple{
    field("rule", &planner::FractionRule::rule),
    field("arg", &planner::FractionRule::arg, Presence::optional),
    field("total", &planner::FractionRule::total, Presence::optional),
    field("cap", &planner::FractionRule::cap, Presence::optional),
    field("headroom", &planner::FractionRule::headroom, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::TemplateArg> = std::tuple{
    field("name", &planner::TemplateArg::name),
    field("rule", &planner::TemplateArg::rule),
    field("members", &planner::TemplateArg::members, Presence::optional),
    field("total", &planner::TemplateArg::total, Presence::optional),
    field("cap", &planner::TemplateArg::cap, Presence::optional),
    field("headroom", &planner::TemplateArg::headroom, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::KernelInstance> = std::tuple{
    field("family", &planner::KernelInstance::family),
    field("compute", &planner::KernelInstance::compute),
    field("about", &planner::KernelInstance::about, Presence::optional),
    field("template", &planner::KernelInstance::template_args, Presence::optional),
    field("steps", &planner::KernelInstance::steps, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::KernelRow> = std::tuple{
    field("op", &planner::KernelRow::op),
    field("block", &planner::KernelRow::block, Presence::optional),
    field("kind", &planner::KernelRow::kind, Presence::optional),
    field("weight", &planner::KernelRow::weight, Presence::optional),
    field("activation", &planner::KernelRow::activation, Presence::optional),
    field("output", &planner::KernelRow::output, Presence::optional),
    field("rows", &planner::KernelRow::rows, Presence::optional),
    field("arms", &planner::KernelRow::arms, Presence::optional),
    field("settings", &planner::KernelRow::settings, Presence::optional),
    field("kernel", &planner::KernelRow::kernel),
    field("family", &planner::KernelRow::family, Presence::optional),
    field("compute", &planner::KernelRow::compute, Presence::optional),
    field("where", &planner::KernelRow::where, Presence::optional),
    field("point", &planner::KernelRow::point, Presence::optional),
    field("rule", &planner::KernelRow::rule),
    field("launches", &planner::KernelRow::launches, Presence::optional),
    field("refuse", &planner::KernelRow::refuse, Presence::optional),
    field("steps", &planner::KernelRow::steps, Presence::optional),
    field("fraction_bits", &planner::KernelRow::fraction_bits, Presence::optional),
    field("about", &planner::KernelRow::about, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::KernelBudget> = std::tuple{
    field("name", &planner::KernelBudget::name, Presence::optional),
    field("point", &planner::KernelBudget::point),
    field("limit_bytes", &planner::KernelBudget::limit_bytes),
    field("setting", &planner::KernelBudget::setting),
};

template <> inline constexpr auto record_fields<planner::KernelCatalog> = std::tuple{
    field("name", &planner::KernelCatalog::name),
    field("description", &planner::KernelCatalog::description, Presence::optional),
    field("applies_to", &planner::KernelCatalog::applies_to, Presence::optional),
    field("replaces", &planner::KernelCatalog::replaces, Presence::optional),
    field("fraction_bits_about", &planner::KernelCatalog::fraction_bits_about, Presence::optional),
    field("members", &planner::KernelCatalog::members, Presence::defaulted),
    field("instances", &planner::KernelCatalog::instances),
    field("table", &planner::KernelCatalog::table),
    field("budgets", &planner::KernelCatalog::budgets, Presence::defaulted),
};

}  // namespace kbp::schema
