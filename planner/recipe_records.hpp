// A precision recipe (planner/data/recipes/<name>.json) and a recipe part
// (planner/data/recipes/parts/<name>.json) as typed records, read once when the catalog loads
// (data_records.hpp) and read by resolve_inputs, assign_precision, insert_smoothing,
// check_budgets and build_blueprint. The tables follow the schemas
// (planner/data/schemas/recipes.schema.json, recipes-parts.schema.json) member by member, in
// their order; tests/test_data_records.cpp holds them together.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "planner/record_reader.hpp"

namespace kbp::planner {

// The activation format while a step has at most max_rows rows (the last tier: any rows).
struct ActivationTier {
    std::optional<IntegerOrText> max_rows;
    std::string format;
};

// Formats for the ops an entry matches (every op when it names neither match nor op).
struct FormatEntry {
    std::optional<std::string> match, op, weight;
    std::optional<std::variant<std::string, std::vector<ActivationTier>>> activation;
};

// A recipe's entry: formats, or {"include": part} alone (the part's entries stand there).
struct RecipeEntry : FormatEntry {
    std::optional<std::string> include;
};

// Formats of a named op without a weight.
struct OpFormat {
    std::optional<std::string> op, match, weight, activation;
};

// The roles of projections that share one smoothing vector (under these settings).
struct SharedSmoothing {
    std::vector<std::string> roles;
    std::optional<std::map<std::string, std::string>> settings;
};

struct Smoothing {
    std::vector<std::string> before;  // op globs
    std::optional<std::string> vector;  // its format (default f32)
    std::optional<std::vector<std::string>> steps;
    std::optional<std::vector<SharedSmoothing>> shared;
};

// What a compile stage fed by the plan is called and keyed by (kbp export stage).
struct Stage {
    std::optional<std::string> name, tag;
    std::optional<Json> knobs;  // name -> value, free-form and in order: filled per plan
};

struct RecipeRecord {
    std::string name;
    std::optional<std::string> description, checkpoint;
    std::optional<std::vector<std::string>> architectures;
    std::optional<std::string> target, engine;
    Keyed<Json> settings;  // name -> a string, number or boolean, in the file's order
    std::optional<Stage> stage;
    std::optional<std::string> activation_format;
    std::vector<OpFormat> op_formats;
    std::optional<Smoothing> smoothing;
    std::vector<RecipeEntry> entries;

    // The value the recipe gives setting `key`; nullptr when it gives none.
    const Json* setting(const std::string& key) const {
        for (const auto& [k, v] : settings)
            if (k == key) return &v;
        return nullptr;
    }
};

struct RecipePart {
    std::string name;
    std::optional<std::string> description;
    std::vector<FormatEntry> entries;
};

// A setting's value as text ("fp8", "2", "true").
inline std::string setting_text(const Json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

}  // namespace kbp::planner

namespace kbp::schema {

template <> inline constexpr auto record_fields<planner::ActivationTier> = std::tuple{
    field("max_rows", &planner::ActivationTier::max_rows, Presence::optional),
    field("format", &planner::ActivationTier::format),
};

template <> inline constexpr auto record_fields<planner::FormatEntry> = std::tuple{
    field("match", &planner::FormatEntry::match, Presence::optional),
    field("op", &planner::FormatEntry::op, Presence::optional),
    field("weight", &planner::FormatEntry::weight, Presence::optional),
    field("activation", &planner::FormatEntry::activation, Presence::optional),
};

// A FormatEntry's members, after the include.
template <> inline constexpr auto record_fields<planner::RecipeEntry> = std::tuple{
    field("include", &planner::RecipeEntry::include, Presence::optional),
    field("match", &planner::RecipeEntry::match, Presence::optional),
    field("op", &planner::RecipeEntry::op, Presence::optional),
    field("weight", &planner::RecipeEntry::weight, Presence::optional),
    field("activation", &planner::RecipeEntry::activation, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::OpFormat> = std::tuple{
    field("op", &planner::OpFormat::op, Presence::optional),
    field("match", &planner::OpFormat::match, Presence::optional),
    field("weight", &planner::OpFormat::weight, Presence::optional),
    field("activation", &planner::OpFormat::activation, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::SharedSmoothing> = std::tuple{
    field("roles", &planner::SharedSmoothing::roles),
    field("settings", &planner::SharedSmoothing::settings, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::Smoothing> = std::tuple{
    field("before", &planner::Smoothing::before),
    field("vector", &planner::Smoothing::vector, Presence::optional),
    field("steps", &planner::Smoothing::steps, Presence::optional),
    field("shared", &planner::Smoothing::shared, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::Stage> = std::tuple{
    field("name", &planner::Stage::name, Presence::optional),
    field("tag", &planner::Stage::tag, Presence::optional),
    field("knobs", &planner::Stage::knobs, Presence::optional),
};

template <> inline constexpr auto record_fields<planner::RecipeRecord> = std::tuple{
    field("name", &planner::RecipeRecord::name),
    field("description", &planner::RecipeRecord::description, Presence::optional),
    field("checkpoint", &planner::RecipeRecord::checkpoint, Presence::optional),
    field("architectures", &planner::RecipeRecord::architectures, Presence::optional),
    field("target", &planner::RecipeRecord::target, Presence::optional),
    field("engine", &planner::RecipeRecord::engine, Presence::optional),
    field("settings", &planner::RecipeRecord::settings, Presence::defaulted),
    field("stage", &planner::RecipeRecord::stage, Presence::optional),
    field("activation_format", &planner::RecipeRecord::activation_format, Presence::optional),
    field("op_formats", &planner::RecipeRecord::op_formats, Presence::defaulted),
    field("smoothing", &planner::RecipeRecord::smoothing, Presence::optional),
    field("entries", &planner::RecipeRecord::entries),
};

template <> inline constexpr auto record_fields<planner::RecipePart> = std::tuple{
    field("name", &planner::RecipePart::name),
    field("description", &planner::RecipePart::description, Presence::optional),
    field("entries", &planner::RecipePart::entries),
};

}  // namespace kbp::schema
