// Reading a kbp-graph/v2 blueprint (simdjson's DOM parser, which dispatches at run time to
// the host's fastest kernel; bench/ measures it against the On-Demand fallback).
//
// Reading checks shape: JSON syntax and encoding (reported as FILE:LINE:COL), then types,
// required members and number ranges (reported as FILE: /json/pointer). The format's
// cross-references (groups, edges, templates, bytes) are the validator's job (validator.hpp).
#pragma once

#include <string>
#include <string_view>

#include "blueprint.hpp"
#include "result.hpp"

namespace kbp::schema {

// Parses `json` (any bytes); `file` names it in errors. A string with 64 bytes of spare
// capacity (as read_file returns) is parsed without a copy.
Result<Blueprint> read_blueprint(const std::string& json, std::string_view file);

// Reads the file at `path` ("-" is standard input).
Result<Blueprint> load_blueprint(const std::string& path);

// Line and column (1-based, column in bytes) of byte `offset` of `text`.
std::string line_col(std::string_view text, std::size_t offset);

}  // namespace kbp::schema
