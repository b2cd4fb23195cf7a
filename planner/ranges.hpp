// Calibrated ranges: the file `kbp plan --ranges FILE` reads to give FixedPoint32 formats their
// fractional bits (docs/ranges.md describes the format, schema/kbp-ranges-v1.schema.json
// publishes it):
//   {"schema": "kbp-ranges/v1", "model": "...", "source": "...",
//    "tensors": {"l3.mlp.f": {"min": -54.17, "max": 10572.1},
//                "l3.mlp.gate_up_smooth": {"min": ..., "max": ..., "parts": [{"min":..,"max":..}, ...]}}}
// Keys are the plan's tensor ids (edge ids); `parts` splits a tensor that one op packs from
// several members (gate|up) in member order.
#pragma once

#include <map>
#include <string>

#include "planner/catalog.hpp"
#include "planner/ir.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

// Reads and checks a ranges file: every error names the file and a JSON pointer.
Result<std::map<std::string, TensorRange>> read_ranges(const DataFile& file);

// Integer bits a FixedPoint32 value needs to hold every value of [-m, m]: max(0, ceil(log2 m)).
int integer_bits(double max_abs);

}  // namespace kbp::planner
