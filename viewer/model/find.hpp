// Find: ops by id, op, kernel, family, fusion rule or format, within a layer range and a block
// type. A query is words, all of which must match (case-insensitive substrings); a word is
// either "field:text" (id: op: kernel: family: rule: format:) or plain text matching any field.
// "kernel:w4a4 format:nvfp4" finds the ops of W4A4 kernels that touch NVFP4.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "viewer/model/document.hpp"

namespace kbp::viewer {

struct FindRequest {
    std::string query;
    std::string layers;  // "" = all, else as --layers: "3-7", "0-2,9"
    std::string block;   // "" = all, else a block type: "dsa", "moe", "embed"
};

struct FindResult {
    std::vector<std::int32_t> nodes;  // in plan order
    std::string error;                // a bad query or layer range, said in one line
};

FindResult find_nodes(const Document& doc, const FindRequest& request);

}  // namespace kbp::viewer
