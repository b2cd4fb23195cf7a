// Typed loading of the planner's data files. Each file is checked when the catalog loads (or,
// named by path, when it is read) against the JSON Schema of its kind
// (planner/data/schemas/<kind>.schema.json, data_schema.hpp) and the checks its "x-kbp-check"
// keywords name (check_names.cpp); then against what spans the catalog (a model_type two
// architectures claim, an op two ops files define). The passes may then read every member a
// schema requires or types without checking it again: a data file is an input language, and
// its problems are errors "<origin>: /json/pointer: message" with a "did you mean" where a
// name is near a known one, never an exception.
#pragma once

#include <span>
#include <string_view>

#include "planner/catalog.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

// The kinds of data file: the folders under planner/data/ ("recipes/parts" included).
std::span<const std::string_view> data_kinds();

// Every data file of `catalog`, then what spans files.
Status check_catalog(const Catalog& catalog);

// One file of `catalog`'s kinds that a command named by path (it may refer to the catalog's
// files: a recipe's parts, a target's kernel catalogs).
Status check_data_file(const DataFile& file, const Catalog& catalog);

// A model config's "kbp" member (its recipe and target hints), against
// schemas/config-kbp.schema.json; the rest of a config is the model's own.
Status check_config_hints(const DataFile& config);

}  // namespace kbp::planner
