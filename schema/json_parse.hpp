// JSON files kbp reads with nlohmann (planner data, sensitivity scores, a tune frontier), parsed
// with their place: broken JSON is "FILE:LINE:COL: what" as the blueprint reader says it, YAML
// is said to be YAML, and a value nested deeper than a data file needs is refused before it is
// parsed (nlohmann copies and compares values recursively: 100,000 levels overflow the stack).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "schema/result.hpp"

namespace kbp::schema {

inline constexpr std::size_t max_json_nesting = 256;

// `text` parsed; `origin` names it in errors, and `kind` says what kbp expected when the text is
// YAML ("a planner data file"). Errors are ErrorCode::invalid_input.
Result<nlohmann::ordered_json> parse_json(const std::string& text, const std::string& origin, std::string_view kind);

}  // namespace kbp::schema
