// The input files a kbp plan records in its provenance (path and sha256), found again: `kbp
// why` replays the planning from them and `kbp stats --cost` costs the plan on its own target.
// A recorded path is relative to where kbp ran when it planned: it is looked for beside the
// plan, then from the current directory, then by its file name beside the plan, and a file is
// taken only when its bytes have the recorded sha256 (an edited config would make the replay
// explain, or the cost price, another plan).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "schema/blueprint.hpp"
#include "schema/result.hpp"

namespace kbp::cli {

// Whether a recorded path is a file compiled into kbp ("embedded:targets/h100.json").
bool is_embedded(const std::string& recorded_path);

// The index in plan.provenance->files of its target's file (named by the planner header's
// "target"), or nullopt for a plan without one.
std::optional<std::size_t> recorded_target(const schema::Blueprint& plan);

// A path to the file recorded at plan.provenance->files[index], with the recorded bytes.
// `given` (a --config FILE) replaces the search. Errors name the file that differs, or where
// it was looked for and the option that names it (`option`, e.g. "--config FILE").
Result<std::string> find_recorded(const schema::Blueprint& plan, std::size_t index, const std::string& plan_file,
                                  const std::optional<std::string>& given, const std::string& option);

}  // namespace kbp::cli
