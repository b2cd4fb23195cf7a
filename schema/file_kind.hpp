// What a file looks like, for one given where kbp expected another kind: a plan given to
// `kbp plan`, a model config given to `kbp check`, a YAML file anywhere. The error then says
// what the file is ("this is a kbp plan, not a model config") instead of the first member the
// expected kind lacks.
#pragma once

#include "schema/result.hpp"

#include <string>
#include <string_view>

namespace kbp::schema {

enum class FileKind {
    unknown,
    plan,          // kbp-graph/v2
    model_config,  // a HuggingFace config.json (model_type)
    ranges,        // kbp-ranges/v1
    sensitivity,   // kbp-sensitivity/v1 (kbp tune --sensitivity)
    frontier,      // kbp-frontier/v1 (kbp tune --frontier)
    view,          // kbp-view/v1 (kbp export json)
    diff,          // kbp-diff/v1 (kbp diff --json)
    stage,         // a compile stage's STAGE.json, build_knobs.json or ops.json
    recipe,        // planner data: recipes/
    target,        // planner data: targets/
    kernels,       // planner data: kernels/
    fusion,        // planner data: fusion/
    ops,           // planner data: ops/
    architecture,  // planner data: architectures/
    yaml,          // not JSON: YAML
};

// The kind `text` looks like (unknown when it looks like none, or is broken JSON).
FileKind file_kind(std::string_view text);
// "a kbp plan (kbp-graph/v2)", "a model config (model_type)", ...
std::string describe(FileKind kind);
// When `text` is clearly of another kind than `expected`: "this is a kbp plan (kbp-graph/v2),
// not a model config (model_type)" and what to do; "" otherwise.
std::string wrong_kind(std::string_view text, FileKind expected);
// A plan that did not load (`error`), said as the file being of another kind when it clearly
// is one ("FILE: /: this is a model config ..."), else `error` unchanged: the CLI and the
// viewer say the same of a config.json given as a plan.
Error as_plan_error(const Error& error, const std::string& file);

}  // namespace kbp::schema
