// The settings kbp knows (planner/data/vocabulary/settings.json) and what values each takes:
// one of named values (a value may stand for a format, which the target must list), a whole
// number in a range, any format the target lists, or a name matching a pattern. A recipe's
// settings and --set are checked here, so that a misspelt name or value is refused where it was
// given instead of planned as a default, and a KV cache format the target lacks is not costed as
// another. The vocabulary also says what one cached value costs: its format's bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "planner/catalog.hpp"

namespace kbp::planner {

// What is wrong with setting `name` = `value`, or "" when nothing is: an unknown name (with a
// did-you-mean), a value its type refuses (with a did-you-mean or the values it takes), or, when
// `target` is given, a format the target does not list (naming the target file and its formats).
std::string setting_problem(const Catalog& catalog, const std::string& name, const std::string& value, const DataFile* target);

// The settings the vocabulary knows, by name.
std::vector<std::string> setting_names(const Catalog& catalog);

// Bytes one value of a cache in `dtype` (a kv_cache_dtype value: a "cache <dtype>" step) takes:
// its format's bytes; nullopt for a name that is no kv_cache_dtype value.
std::optional<std::int64_t> cache_bytes_per_value(const Catalog& catalog, std::string_view dtype);

// The kv_cache_dtype values the vocabulary lists, "a, b, c".
std::string cache_dtype_names(const Catalog& catalog);

}  // namespace kbp::planner
