// The checks the data schemas' "x-kbp-check" keywords name (check_data.hpp loads and runs
// them): what a JSON Schema cannot say about a value.
//   names of the catalog: own-name (the file's name), recipe, recipe-part, target, target-name,
//     architecture, kernel-catalog (a kernels/ file), kernel (an instance of this kernel file),
//     any-kernel (of any kernel file), family (explain text exists), block (of this architecture)
//   closed vocabularies: op (an ops file's op; linear:<role>), arm, layer-kind, state-roles,
//     compute, where, format ({settings} of the file filled in; "fx32" is FixedPoint32)
//   patterns: op-glob and format-glob (a glob or re: that matches some op / format),
//     name-glob (a glob, or a re: that compiles)
//   expressions (expr.hpp) that parse and name only what they may: config-expression (config
//     fields: any name), symbol-expression (the architecture's symbols), layer-expression (and
//     the layer index i), state-expression (and the cost's values, state_bytes.hpp),
//     cost-expression (the cost's values only), integer-text (a whole number once settings are
//     filled in)
//   shapes: range ([lo, hi], lo <= hi), recipe-entry (include stands alone), table-row (a row
//     without a kernel names its family), fraction-rule (rule "arg" names its arg),
//     fusion-rule (one member spec per pattern element), block-wiring (each op's inputs made
//     earlier in the block, names unique, the output a tensor of the block, as many output
//     formats as outputs).
// A new check is a name here and a branch in check_names.cpp; a schema names it where it holds.
#pragma once

#include <map>
#include <set>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "planner/catalog.hpp"
#include "planner/data_schema.hpp"

namespace kbp::planner {

// What data files may refer to, from the whole catalog.
struct Vocabulary {
    std::vector<std::string> architectures, recipes, parts, targets, engines;
    std::vector<std::string> kernel_catalogs;  // kernels/ and fusion/ files by name
    std::vector<std::string> kernels;   // every instance of every kernel file
    std::vector<std::string> families;  // with explain text
    std::vector<std::string> ops;       // defined by the ops files
    std::string ops_files;              // their origins, for messages
    std::vector<std::string> mma;       // the targets' MMA instructions (tensor_core:<mma>)
    std::string mma_files;              // the targets that list them, for messages
    std::set<std::string> weighted_ops;
    std::map<std::string, const DataFile*> part_files;  // recipes/parts by name

    static Vocabulary of(const Catalog& catalog);
};

// Every check name the hook knows.
std::span<const std::string_view> extra_check_names();

// The x-kbp-check hook for `file` (which `names` and the file must outlive).
ExtraCheck name_checks(const DataFile& file, const Vocabulary& names);

}  // namespace kbp::planner
