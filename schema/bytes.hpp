// How many bytes a tensor row takes in each number format, and the row space an edge lives in.
// These are the rules `bytes_per_token` follows on every edge (checked by the validator,
// applied by the planner).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/blueprint.hpp"

namespace kbp::schema {

// Bytes of one row of `dim` values in `format` (codes + scales), or nullopt when the format
// is unknown to this version. bf16 2d; f32, i32 4d; fp8/token d+4 (an f32 scale per row);
// nvfp4/g16 d/2 + d/16 + 4 (packed codes, an E4M3 scale per 16, an f32 global scale);
// int4/b128 d/2 + 4 d/128 + d/256 (MatMulNBits: an f32 scale and a 4-bit zero point per 128);
// int8/b32 d + 2 d/32 (llama.cpp's Q8_0: an f16 scale per block of 32); fp8/g128 d + 4 d/128;
// int4/g<G> d/2 + 2 d/G (an f16 scale per group), int4/g<G>z + d/2G (a 4-bit zero point per
// group); nf4/b64 d/2 + 4 d/64, nf4/b64dq d/2 + d/64 + 4 d/16384 (bitsandbytes' double quant);
// fp8/b128 (a weight's 128 x 128 blocks) d plus its share of the block scales.
std::optional<std::int64_t> row_bytes(const Format& format, std::int64_t dim);

// Bytes of a whole weight matrix of `rows` x `cols` values stored in `format`.
std::optional<std::int64_t> weight_bytes(const Format& format, std::int64_t rows, std::int64_t cols);

// Per node: true when the node runs in the expert row space (one row per token and routed
// expert): some input edge is in that space. An edge with rows == null (a quantized
// activation) is in the row space of its producer's inputs.
std::vector<bool> nodes_in_expert_rows(const Blueprint& b);
bool edge_in_expert_rows(const Edge& e, const std::vector<bool>& node_in_expert_rows);

// Value of a symbolic dim such as "lin_k_heads*lin_k_dim*2+lin_v_heads*lin_v_dim" given
// `lookup` for names; nullopt when a name is unknown or the text is not an expression.
// Grammar: sum := product (('+'|'-') product)*; product := atom (('*'|'/') atom)*;
// atom := integer | name | '(' sum ')'. Division is exact integer division.
std::optional<std::int64_t> eval_dim(std::string_view text, const std::vector<Symbol>& symbols,
                                     std::string* error = nullptr);

}  // namespace kbp::schema
