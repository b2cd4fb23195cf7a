// `kbp why` for the inspector: when a plan was made by kbp and the config its provenance names is
// on disk, the planning is replayed for the selected op (off the UI thread: it plans the arm
// again) and the recipe entry, kernel table row and fusion rule behind it are shown.
#pragma once

#include <optional>
#include <string>

#include "planner/plan.hpp"
#include "schema/blueprint.hpp"

namespace kbp::viewer {

// The request that made `plan` (read from `plan_path`), or why there is none ("not a plan kbp
// made", "the config samples/x/config.json is not on this machine"). The config is looked for as
// kbp plan was given it (from the working folder), then beside the plan.
struct WhyInputs {
    std::optional<planner::PlanRequest> request;
    std::string missing;
};
WhyInputs why_inputs(const schema::Blueprint& plan, const std::string& plan_path);

}  // namespace kbp::viewer
