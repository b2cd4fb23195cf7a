// Integer expressions over named values, for the planner's data files: symbol definitions
// ("moe_intermediate_size*n_shared_experts") and layer conditions ("(i + 1) % attn_interval == 0").
// Grammar (C precedence): or := and ('||' and)*; and := cmp ('&&' cmp)*;
// cmp := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)?; sum := prod (('+'|'-') prod)*;
// prod := unary (('*'|'/'|'%') unary)*; unary := '-' unary | '!' unary | atom;
// atom := integer | name | ('min'|'max') '(' or ',' or ')' | '(' or ')'. Comparisons give 1 or 0.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/result.hpp"

namespace kbp::planner {

using Lookup = std::function<std::optional<std::int64_t>(std::string_view)>;

// The value of `text`, or an error naming what is wrong (unknown name, division by zero, ...).
Result<std::int64_t> eval_expr(std::string_view text, const Lookup& lookup);

// The names `text` refers to, in order of first use, or an error naming what is wrong with its
// syntax; nothing is evaluated (a data file's expressions are checked when it is loaded).
Result<std::vector<std::string>> expr_names(std::string_view text);

}  // namespace kbp::planner
