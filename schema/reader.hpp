// Reading a kbp-graph/v2 blueprint (simdjson's DOM parser, which dispatches at run time to
// the host's fastest kernel; bench/ measures it against the On-Demand fallback).
//
// Reading checks shape: JSON syntax and encoding (reported as FILE:LINE:COL), then types,
// required members and number ranges (reported as FILE: /json/pointer). The format's
// cross-references (groups, edges, templates, bytes) are the validator's job (validator.hpp).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "blueprint.hpp"
#include "result.hpp"

namespace kbp::schema {

// How a plan is read. A plan of `pieces_above` bytes or more is read a piece at a time (the
// flat lists `piece_bytes` of elements at a time), so that memory holds the model and one
// piece's DOM rather than the whole file's DOM (about 2.9 times the file); a file is then mapped
// and its pages given back as they are read. The result, and any error, is the same either way.
struct ReadOptions {
    std::size_t pieces_above = std::size_t{64} << 20;
    std::size_t piece_bytes = std::size_t{4} << 20;
    // Told, as a plan read in pieces is read, the share of the file read so far (0 to 1).
    std::function<void(double)> progress;
};

// Parses `json` (any bytes); `file` names it in errors. A string with 64 bytes of spare
// capacity (as read_file returns) is parsed without a copy.
Result<Blueprint> read_blueprint(const std::string& json, std::string_view file, const ReadOptions& options = {});

// Reads the file at `path` ("-" is standard input).
Result<Blueprint> load_blueprint(const std::string& path, const ReadOptions& options = {});

// A big plan (at least `pieces_above` bytes, read in pieces) without its flat lists: every
// member read as load_blueprint reads it but nodes, edges and groups, which are scanned past
// (their brackets and strings, not their values) and left empty. What a view of the plan's
// layers and templates needs first, the flat lists read after (issue 30: a million-op plan's
// folded view before its lists). Nothing (nullopt) for a smaller plan, standard input, a file
// without flat lists and any file the piecewise reader cannot take or finds wrong:
// load_blueprint reads those and reports their errors. Nothing here is checked beyond shape.
std::optional<Blueprint> load_blueprint_without_lists(const std::string& path, const ReadOptions& options = {});

// Line and column (1-based, column in bytes) of byte `offset` of `text`.
std::string line_col(std::string_view text, std::size_t offset);

}  // namespace kbp::schema
