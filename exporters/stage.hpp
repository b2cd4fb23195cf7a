// `kbp export stage`: a plan as the input of a staged compile pipeline's stage.
//
// The stage a plan feeds is named by the plan itself (provenance.planner_header.stage, written
// by the planner from the recipe): a GPNPU plan feeds `custom_op` (the custom ops with their
// template arguments and fractional bits), a GPU plan `launches` (its kernels, launches, fused
// groups and their knobs). The tag begins with the model, "<name>-<digest8>_" (its config's
// folder and a digest of what the plan took from the config: schema/model_identity.hpp), then
// the knobs: DIR/custom_op/sarashina2.2-3b-<digest8>_packed_hr2/, so exports of different
// models into one DIR sit side by side. The stage lives in DIR/<stage>/<tag>/:
//   build_knobs.json  the knobs the stage is built with (kbp-build-knobs/v1)
//   ops.json          launches and per-op records (kbp-stage-ops/v1)
//   STAGE.json        what it was made from, with sha256 of every input and output (kbp-stage/v1)
// The folder is content-addressed: exporting an unchanged plan again rewrites nothing; a knob
// change gives a new tag (a folder beside it); a folder whose files were edited or lost is
// refused, never silently reused. STAGE.json is written last, so an interrupted export leaves
// a folder without it, which the next run also refuses until it is removed (or --force).
#pragma once

#include <string>
#include <vector>

#include "schema/blueprint.hpp"
#include "schema/result.hpp"

namespace kbp::exporters {

struct StagePlan {
    std::string path;    // the plan file as the user named it
    std::string sha256;  // of its bytes
};

// The three files of a stage, as bytes (deterministic: the same plan gives the same bytes).
struct StageFiles {
    std::string stage, tag;
    std::string build_knobs, ops, stage_record;
};

// Builds the files; an error (exit 4) when the plan is not finished: FixedPoint32 bits or
// custom-op arguments that no calibrated range decided.
Result<StageFiles> stage_files(const schema::Blueprint& b, const StagePlan& plan);

enum class StageAction { built, rebuilt, unchanged };

struct StageReport {
    std::string dir;  // DIR/<stage>/<tag>
    StageAction action = StageAction::built;
    std::string reason;  // why it was rebuilt
};

// Writes (or keeps) DIR/<stage>/<tag>/. `force` rebuilds a stage whose files were edited.
Result<StageReport> export_stage(const schema::Blueprint& b, const StagePlan& plan, const std::string& out_dir, bool force);

}  // namespace kbp::exporters
