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
// and, for that efficiency, one fixed cost that least-squares the relative error (closed form,
// at least 0): a step overhead beside the target's launch figure, or a cost per kernel launch in
// its place, whichever fits the rows better (the second where time grows with the kernel count);
// where the rows split models over several devices, the second also fits a cost per collective
// in place of the interconnect's latency (an all-reduce at decode is a barrier kernel, not a hop);
// with one or two fit rows, neither is fitted (two figures fitted on two rows match them
// exactly, whatever the truth). A kernel family that is the main family (half
// the roofline step or more) of at least two fit rows, but not of all, gets an efficiency of its
// own, fitted on the same rows; the pooled one is then fitted again around it. `held_out` rows
// are costed with the result and never inform it. A row kbp cannot plan is listed with the reason.
// Each fit row is also priced by its target's fit on its other fit rows (leave one out): an error
// on a row the fit never saw for the fit rows too, since the held-out half alone is a dozen rows.
//
// Engines differ for real on one device (llama.cpp, vLLM, TensorRT-LLM): where at least two of a
// target's fit rows come from one engine, and not every fit row does, that engine gets a fit of
// its own on those rows (the same rule: an overhead only on more than two). A row is then also
// costed with its engine's figures, which `kbp stats --cost --engine NAME` applies; without it the
// pooled fit stands. Each row is planned with its engine (engines/<name>.json whose
// measured_as names the row's engine: "NIM (vLLM)" is vllm), so the launches it is fitted on are
// that engine's; a row no engine file claims is not costed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cost/cost.hpp"
#include "planner/plan.hpp"

namespace kbp::planner {

struct CalibrationRow {
    std::string id, split, model, device, precision, engine;
    double measured_tok_s = 0;
    std::int64_t batch = 1, context = 0;
    std::string engine_key;                           // the engine file it was planned with ("vllm"), "" when none claims it
    std::string source_date;                          // its source's date (YYYY-MM-DD)
    std::optional<double> before_tok_s, after_tok_s;  // bare roofline; with the target's pooled figures
    std::optional<double> engine_tok_s;               // with its engine's figures, where its engine has a fit
    std::optional<double> left_out_tok_s;             // a fit row: with its target's fit on the other fit rows
    std::string not_costed;                           // why the row was not planned, or ""
    // What it measured, as kbp plans it: "qwen3-235b-a22b bf16 on 8 b200, sglang, batch 1" (its
    // sample, recipe, devices, engine, rows): two costed rows with one configuration measured one
    // thing, and how far apart they are bounds how close any fit can come to both.
    std::string configuration;
};

struct TargetFit {
    std::string target;
    std::string engine;  // "" for the target's pooled fit, else the engine key its rows share
    Calibration calibration;
    std::vector<std::string> fitted_on;
    std::string date;  // the newest source date of its fit rows (YYYY-MM-DD): not the day it ran, so the same file gives the same bytes
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
// The key calibration files give an engine's name: "NIM (vLLM)" -> "nim-vllm"; words that are a
// version ("0.16.0", "v0.5.12") are dropped: "vLLM 0.16.0" -> "vllm".
std::string engine_key(const std::string& engine);
// The file one fit is written to: "<target>.json", or "<target>.<engine>.json".
std::string calibration_file_name(const TargetFit& fit);
// calibrations/<target>.json for one fit (planner/data/schemas/calibrations.schema.json).
std::string calibration_file(const TargetFit& fit);

}  // namespace kbp::planner
