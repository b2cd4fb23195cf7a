// The data files the passes read as typed records (kernel_records.hpp, fusion_records.hpp,
// target_records.hpp, recipe_records.hpp):
// each is read into its records once, when the catalog loads it and its schema has passed it
// (check_data.hpp), so every plan made from one loaded catalog reads the same records and none
// reads the file's JSON by key.
#pragma once

#include "planner/catalog.hpp"
#include "planner/fusion_records.hpp"
#include "planner/kernel_records.hpp"
#include "planner/recipe_records.hpp"
#include "planner/target_records.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

// Fills `file`'s records if its kind has them (kernels, fusion, targets, recipes and their
// parts); other kinds are left as they are.
Status read_records(DataFile& file);

}  // namespace kbp::planner
