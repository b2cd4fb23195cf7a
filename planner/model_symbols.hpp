// The model's numbers: the architecture's `symbols` evaluated over the config, checked against
// the limits a model can have and the architecture's own consistency checks, plus the config
// fields that describe the plan without shaping it (recorded in the plan's `config_fields`).
//
// A symbol is written in the architecture as
//   "hidden_size/num_attention_heads"              an integer expression over config fields;
//   ["head_dim", "hidden_size/num_attention_heads"] alternatives: the first whose fields the
//                                                    config has (null counts as absent);
//   {"from": "sliding_window", "default": 0}        a default when the config has none;
//   {"from": ["rope_scaling/rope_type", ...], "names": {"default": 1, "yarn": 4}}
//                                                    a field that is a name, read as the number
//                                                    given it (the first field the config has; a
//                                                    path reaches into an object); a name not
//                                                    listed is refused at the field.
// Every symbol must lie in its `limits` ([1, 2^24] unless the architecture says otherwise), so
// that sizes are bounded and products cannot overflow; `checks` are expressions over symbols
// that must hold ("q_heads % kv_heads == 0"), each naming the config field to blame.
#pragma once

#include "planner/ir.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

Status resolve_symbols(Ir& ir);

// A config field by name, or by a path into its objects ("rope_scaling/rope_type"); nullptr
// when the config lacks it.
const Json* config_field(const Json& config, std::string_view path);

// A config field as an integer: integers, booleans (1 / 0) and whole-valued numbers; nullopt
// when absent, null, or anything else.
std::optional<std::int64_t> config_integer(const Json& config, std::string_view key);

}  // namespace kbp::planner
