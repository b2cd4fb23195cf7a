// kbp calibrate: fits where a roofline loses time on each target, from published measurements
// (a kbp-measurements/v1 file, samples/measurements.json), and judges the fit on the rows it
// never saw.
//
// Every row kbp can plan (its `kbp_sample` config, its own `kbp_recipe` or the file's recipe for
// its precision, a target for its device, its devices stated and all tensor-parallel: --tp) is
// planned for its batch as a decode arm and costed at its mean context
// (the prompt plus half the generated tokens): first as a bare roofline, then with the target's
// fitted figures. For each target the fit chooses, on that target's `fit` rows only, the
// bandwidth efficiency (0.20..1.00, by search: the roofline is a max per kernel, not linear)
// and, for that efficiency, the step overhead that least-squares the relative error (closed
// form, at least 0); with one or two fit rows, the overhead stays 0 (two figures fitted on two
// rows match them exactly, whatever the truth). `held_out` rows are costed with the
// result and never inform it. A row kbp cannot plan is listed with the reason.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/cost.hpp"
#include "planner/plan.hpp"

namespace kbp::planner {

struct CalibrationRow {
    std::string id, split, model, device, precision, engine;
    double measured_tok_s = 0;
    std::int64_t batch = 1, context = 0;
    std::optional<double> before_tok_s, after_tok_s;  // bare roofline; with the fitted figures
    std::string not_costed;                           // why the row was not planned, or ""
};

struct TargetFit {
    std::string target;
    Calibration calibration;
    std::vector<std::string> fitted_on;
    std::string date;  // the day the fit was made (UTC, YYYY-MM-DD)
    double median_error = 0, max_error = 0;  // |estimate / measured - 1| on the fit rows
};

struct CalibrationReport {
    std::string measurements;  // the file, as named
    std::string sha256;        // of its bytes
    std::vector<CalibrationRow> rows;
    std::vector<TargetFit> fits;
};

// Calibrates on `measurements_path`. Config paths in it (samples/<kbp_sample>/config.json) are
// relative to the measurement file's folder. A malformed file is an error "FILE: /pointer: msg".
Result<CalibrationReport> calibrate(const Planner& planner, const std::string& measurements_path);

// The table of rows (measured, before, after, ratio) and the fitted figures per target, and the
// held-out errors; `markdown` for a table a README can hold.
std::string calibration_text(const CalibrationReport& report, bool markdown = false);
// calibrations/<target>.json for one fit (planner/data/schemas/calibrations.schema.json).
std::string calibration_file(const TargetFit& fit);

}  // namespace kbp::planner
