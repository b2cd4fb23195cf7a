// The sizes kbp plans. A config field that makes a size exceed one is refused with the field
// named (Ir::config_error), so the planner's arithmetic cannot overflow and every plan it
// writes stays within the kbp-graph/v2 format's bounds (schema/reader.cpp).
#pragma once

#include <cstdint>

namespace kbp::planner {

// A symbol's value or a tensor's width: the format's bound on dim_value and symbols.
constexpr std::int64_t max_size = std::int64_t{1} << 40;
// An edge's bytes per token: the format's bound.
constexpr std::int64_t max_bytes_per_token = std::int64_t{1} << 48;
// Layers of one model: planning time and the plan grow with them, linearly (published decoders
// have fewer than 200; an architecture file's "limits" may bound its own family lower). The
// bound admits the million-node plans kbp's memory benchmarks plan (25,640 GLM layers).
constexpr std::int64_t max_layers = 32768;

}  // namespace kbp::planner
