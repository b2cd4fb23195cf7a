// kbp calibrate (planner/calibrate.hpp): on a synthetic target whose "measurements" were made by
// kbp's own cost with known figures, the fit recovers those figures; held-out rows never inform
// it; a calibration file changes `kbp stats --cost` as its figures say; a broken measurement
// file is refused with its place.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "cost/calibrate.hpp"
#include "cost/cost.hpp"
#include "support.hpp"

namespace {

namespace fs = std::filesystem;
using kbp::planner::Calibration;
using kbp::planner::Planner;
using kbp::test::OJson;

void write(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << text;
}

// A catalog folder with target "synth": an H100 with another bandwidth and launch overhead.
void add_synthetic_target(const kbp::test::TempDir& dir) {
    OJson t = OJson::parse(kbp::test::slurp(kbp::test::source_dir() + "/planner/data/targets/h100.json"));
    t["name"] = "synth";
    t["memory_bandwidth_gbps"] = 2000;
    t["launch_overhead_us"] = 4.0;
    write(dir.file("catalog/targets/synth.json"), t.dump(2));
}

struct Sample {
    const char* folder;
    const char* precision;
    const char* recipe;
    std::int64_t input, output;
    std::int64_t tp = 1;  // devices it is split over (--tp)
};
constexpr Sample samples[] = {
    {"llama-3.1-8b", "fp8", "fp8-dynamic", 128, 256},
    {"qwen3-8b", "bf16", "bf16", 1024, 512},
    {"qwen2.5-7b", "bf16", "bf16", 4096, 256},
    {"phi-3-mini-4k", "fp8", "fp8-dynamic", 256, 256},
    {"mistral-7b-v0.1", "fp8", "fp8-dynamic", 512, 128},
};
// Models split over several devices: their all-reduces tell a cost per collective apart from one
// per launch (each has another ratio of all-reduces to kernels than the single-device rows).
constexpr Sample split_samples[] = {
    {"llama-3.3-70b", "bf16", "bf16", 512, 256, 4},
    {"mistral-small-24b", "bf16", "bf16", 1024, 256, 2},
    {"qwq-32b", "bf16", "bf16", 256, 512, 2},
};

// kbp's own cost of `s` on "synth": with `c`, or with the catalog's calibration when none.
kbp::planner::CostReport synthetic_cost(const Planner& planner, const Sample& s, std::optional<Calibration> c,
                                        std::optional<std::string> engine = std::nullopt) {
    kbp::planner::PlanRequest request;
    request.config_path = kbp::test::source_dir() + "/samples/" + s.folder + "/config.json";
    request.recipe = s.recipe;
    request.target = "synth";
    request.tp = s.tp;
    request.engine = std::move(engine);
    auto plan = planner.plan(request);
    REQUIRE(plan);
    kbp::planner::CostOptions options;
    options.context = s.input + s.output / 2;
    options.target = "synth";
    options.calibration = std::move(c);
    auto cost = kbp::planner::estimate_cost(planner.catalog(), plan->blueprint, options);
    REQUIRE(cost);
    return *cost;
}

// The tokens/s kbp's own cost gives `s` on "synth" with `c`: what the fit must find again.
double synthetic_tok_s(const Planner& planner, const Sample& s, const Calibration& c, std::optional<std::string> engine = std::nullopt) {
    return synthetic_cost(planner, s, c, std::move(engine)).tokens_per_s;
}

OJson row(const Sample& s, const char* split, double tok_s) {
    return OJson{{"id", std::string("synth-") + s.folder},
                 {"split", split},
                 {"model", s.folder},
                 {"checkpoint", nullptr},
                 {"kbp_sample", s.folder},
                 {"architecture", "dense"},
                 {"precision", s.precision},
                 {"device", "synth"},
                 {"device_variant", "a synthetic H100 at 2 TB/s"},
                 {"device_count", s.tp},
                 {"tp", s.tp},
                 {"batch", 1},
                 {"input_tokens", s.input},
                 {"output_tokens", s.output},
                 {"engine", "vLLM"},  // engines/vllm.json's measured_as: the synthetic H100's default engine
                 {"engine_version", "test"},
                 {"decode_tok_s", tok_s},
                 {"reported", {{"metric", "decode_tok_s"}, {"value", tok_s}}},
                 {"source", {{"url", "https://example.invalid/synthetic"}, {"title", "synthetic"}, {"date", "2026-12-03"}, {"date_kind", "measured"}}},
                 {"derivation", "kbp's own cost with known figures"}};
}

// samples/<folder>/config.json beside the measurement file, as calibrate looks for them.
void link_samples(const kbp::test::TempDir& dir) {
    fs::create_directories(dir.file("m"));
    for (const auto& s : samples) fs::create_directory_symlink(kbp::test::source_dir() + "/samples/" + s.folder, dir.file(std::string("m/") + s.folder));
    for (const auto& s : split_samples)
        fs::create_directory_symlink(kbp::test::source_dir() + "/samples/" + s.folder, dir.file(std::string("m/") + s.folder));
}

OJson measurements(std::vector<OJson> rows) {
    return OJson{{"schema", "kbp-measurements/v1"},
                 {"kbp_recipes", {{"bf16", "bf16"}, {"fp8", "fp8-dynamic"}}},
                 {"rows", std::move(rows)}};
}

// The catalog with "synth" and the samples beside a measurement file under dir/m, loaded.
Planner synthetic_setup(const kbp::test::TempDir& dir) {
    add_synthetic_target(dir);
    link_samples(dir);
    auto planner = Planner::load(dir.file("catalog"));
    REQUIRE(planner);
    return std::move(*planner);
}

// Calibrates on `rows` (written beside the samples) and requires one fit: the synthetic target's.
kbp::planner::CalibrationReport calibrated_on(const kbp::test::TempDir& dir, const Planner& planner, std::vector<OJson> rows) {
    write(dir.file("m/measurements.json"), measurements(std::move(rows)).dump(2));
    auto report = kbp::planner::calibrate(planner, dir.file("m/measurements.json"));
    INFO((report ? std::string() : report.error().text()));
    REQUIRE(report);
    REQUIRE(report->fits.size() == 1);
    return std::move(*report);
}

// `fit` written as the catalog's calibration file, read back as kbp stats --cost does, and applied to `s`.
kbp::planner::CostReport cost_with_file_of(const kbp::test::TempDir& dir, const kbp::planner::TargetFit& fit, const Sample& s) {
    write(dir.file("catalog/calibrations/synth.json"), kbp::planner::calibration_file(fit));
    auto calibrated = Planner::load(dir.file("catalog"));
    REQUIRE(calibrated);
    return synthetic_cost(*calibrated, s, std::nullopt);
}

}  // namespace

TEST_CASE("re-pricing a bare cost under a calibration gives the full estimate's step to the last bit", "[calibrate]") {
    kbp::test::TempDir dir;
    Planner planner = synthetic_setup(dir);
    const Sample& s = samples[0];
    const kbp::planner::CostReport bare = synthetic_cost(planner, s, Calibration{});
    Calibration per_step{0.7, 12.5, "by hand", {}, std::nullopt};
    Calibration per_launch{0.6, 0.0, "by hand", {{"fp8_gemv", 0.45}}, 1.75};
    Calibration no_launch{0.9, 0.0, "by hand", {}, 0.0};
    for (const Calibration& c : {per_step, per_launch, no_launch}) {
        const kbp::planner::CostReport full = synthetic_cost(planner, s, c);
        CHECK(kbp::planner::step_time_us(bare, c) == full.total.time_us);
        CHECK(full.total.time_us != bare.total.time_us);
    }
}

TEST_CASE("calibrate recovers the efficiency and step overhead a synthetic target was measured with", "[calibrate]") {
    kbp::test::TempDir dir;
    auto planner = synthetic_setup(dir);
    const Calibration truth{0.62, 180.0, "", {}, std::nullopt};
    std::vector<OJson> rows;
    rows.push_back(row(samples[0], "fit", synthetic_tok_s(planner, samples[0], truth)));
    rows.push_back(row(samples[1], "fit", synthetic_tok_s(planner, samples[1], truth)));
    rows.push_back(row(samples[2], "fit", synthetic_tok_s(planner, samples[2], truth)));
    // Held out, and measured as if the device were twice as fast: it must not move the fit.
    rows.push_back(row(samples[3], "held_out", 2.0 * synthetic_tok_s(planner, samples[3], truth)));
    write(dir.file("m/measurements.json"), measurements(rows).dump(2));

    auto report = kbp::planner::calibrate(planner, dir.file("m/measurements.json"));
    INFO((report ? std::string() : report.error().text()));
    REQUIRE(report);
    REQUIRE(report->fits.size() == 1);
    const auto& fit = report->fits[0];
    CHECK(fit.target == "synth");
    CHECK(fit.calibration.bandwidth_efficiency == Approx(0.62).margin(0.0051));
    CHECK(fit.calibration.step_overhead_us == Approx(180.0).margin(6.0));
    CHECK(fit.fitted_on == std::vector<std::string>{"synth-llama-3.1-8b", "synth-qwen3-8b", "synth-qwen2.5-7b"});
    CHECK(fit.calibration.fitted_tp == std::vector<std::int64_t>{1});  // every row on one device
    CHECK(fit.max_error < 0.01);
    // No kernel family gets a figure of its own, though the two bf16 rows share one: on three
    // rows the efficiency and the overhead are two figures, and a third would fit any three rows
    // exactly. (The fp8 row's family, on one row, could not have one either.)
    CHECK(fit.calibration.family_efficiency.empty());
    // The file is dated by its newest fit row's source, not by the clock: the same measurements
    // give the same bytes any day. kbp reads it back as a calibration.
    CHECK(fit.date == "2026-12-03");
    const std::string file = kbp::planner::calibration_file(fit);
    CHECK(file.find("\"date\": \"" + fit.date + "\"") != std::string::npos);
    write(dir.file("catalog/calibrations/synth.json"), file);
    CHECK(Planner::load(dir.file("catalog")).ok());
    // The bare roofline is faster than the measurement by the lost bandwidth and overhead.
    for (const auto& r : report->rows) {
        REQUIRE(r.before_tok_s);
        REQUIRE(r.after_tok_s);
        CHECK(*r.before_tok_s > r.measured_tok_s * (r.split == "fit" ? 1.2 : 0.6));
    }
    // The held-out row is judged with the fit: half its (doubled) measurement.
    CHECK(*report->rows[3].after_tok_s / report->rows[3].measured_tok_s == Approx(0.5).margin(0.01));
    const std::string text = kbp::planner::calibration_text(*report);
    CHECK(text.find("fitted synth: bandwidth efficiency 0.620") != std::string::npos);
    CHECK(text.find("held out: 1 rows costed, median error 50.0%") != std::string::npos);
}

TEST_CASE("calibrate prices each fit row by a fit on the other fit rows (leave one out)", "[calibrate]") {
    kbp::test::TempDir dir;
    auto planner = synthetic_setup(dir);
    const Calibration truth{0.62, 180.0, "", {}, std::nullopt};
    std::vector<OJson> rows;
    for (std::size_t i = 0; i < 4; ++i) rows.push_back(row(samples[i], "fit", synthetic_tok_s(planner, samples[i], truth)));
    rows.push_back(row(samples[4], "held_out", synthetic_tok_s(planner, samples[4], truth)));
    const auto report = calibrated_on(dir, planner, rows);
    // Three rows made with the same figures fit them again: each left-out row is priced right.
    for (const auto& r : report.rows) {
        INFO(r.id);
        if (r.split == "held_out") {
            CHECK_FALSE(r.left_out_tok_s);
            continue;
        }
        REQUIRE(r.left_out_tok_s);
        CHECK(*r.left_out_tok_s / r.measured_tok_s == Approx(1.0).margin(0.01));
    }
    const std::string text = kbp::planner::calibration_text(report);
    CHECK(text.find("fit rows, each left out of its target's fit in turn: 4 rows costed") != std::string::npos);
    CHECK(text.find("every costed row on a fit that never saw it (held out, and fit rows left out): 5 rows costed") != std::string::npos);

    // One row measured at half the speed: its own left-out price, from the three true rows, is
    // twice its measurement, though the fit on all four rows pulls toward it.
    rows[0] = row(samples[0], "fit", 0.5 * synthetic_tok_s(planner, samples[0], truth));
    const auto skewed = calibrated_on(dir, planner, rows);
    CHECK(*skewed.rows[0].left_out_tok_s / skewed.rows[0].measured_tok_s == Approx(2.0).margin(0.02));
    CHECK(*skewed.rows[0].after_tok_s / skewed.rows[0].measured_tok_s < 1.9);
}

TEST_CASE("calibrate recovers a kernel family's own efficiency beside the pooled one", "[calibrate]") {
    kbp::test::TempDir dir;
    auto planner = synthetic_setup(dir);
    // FP8 GEMMs (vLLM's cutlass_scaled_mm) stream at half the bandwidth, everything else at 80%:
    // three fp8 rows (their family gets its own figure), two bf16 (left for the pooled one).
    const Calibration truth{0.8, 120.0, "", {{"scaled_mm", 0.5}}, std::nullopt};
    std::vector<OJson> rows;
    for (const auto& s : samples) rows.push_back(row(s, "fit", synthetic_tok_s(planner, s, truth)));
    const auto report = calibrated_on(dir, planner, std::move(rows));
    const auto& fit = report.fits[0].calibration;
    CHECK(fit.bandwidth_efficiency == Approx(0.8).margin(0.0101));
    REQUIRE(fit.family_efficiency.size() == 1);
    CHECK(fit.family_efficiency.at("scaled_mm") == Approx(0.5).margin(0.0101));
    CHECK(report.fits[0].max_error < 0.01);
    // The file carries the family's figure, and kbp stats --cost reads it back and applies it.
    CHECK(kbp::planner::calibration_file(report.fits[0]).find("\"scaled_mm\": 0.5") != std::string::npos);
    const auto cost = cost_with_file_of(dir, report.fits[0], samples[0]);
    CHECK(cost.tokens_per_s == Approx(synthetic_tok_s(planner, samples[0], fit)).epsilon(1e-9));
    CHECK(kbp::planner::cost_text(cost).find("kernel family scaled_mm: 50% of the datasheet bandwidth") != std::string::npos);
}

TEST_CASE("calibrate fits a cost per kernel launch where the rows' fixed cost grows with their kernels", "[calibrate]") {
    kbp::test::TempDir dir;
    auto planner = synthetic_setup(dir);
    // Every launch costs 9 us (the target says 4), and no step overhead: rows with more kernels
    // lose more. Three rows of 28, 32 and 36 layers tell the two forms apart.
    const Calibration truth{0.7, 0.0, "", {}, 9.0};
    std::vector<OJson> rows;
    for (std::size_t i = 1; i <= 3; ++i) rows.push_back(row(samples[i], "fit", synthetic_tok_s(planner, samples[i], truth)));
    const auto report = calibrated_on(dir, planner, std::move(rows));
    const auto& fit = report.fits[0].calibration;
    CHECK(fit.bandwidth_efficiency == Approx(0.7).margin(0.0051));
    REQUIRE(fit.launch_overhead_us);
    CHECK(*fit.launch_overhead_us == Approx(9.0).margin(0.3));
    CHECK(fit.step_overhead_us == 0.0);
    CHECK(report.fits[0].max_error < 0.01);
    // The file carries it, and kbp stats --cost applies it in place of the target's figure.
    CHECK(kbp::planner::calibration_file(report.fits[0]).find("\"launch_overhead_us\"") != std::string::npos);
    const auto cost = cost_with_file_of(dir, report.fits[0], samples[1]);
    CHECK(cost.tokens_per_s == Approx(synthetic_tok_s(planner, samples[1], fit)).epsilon(1e-9));
    CHECK(kbp::planner::cost_text(cost).find("us per kernel launch") != std::string::npos);
    CHECK(kbp::planner::calibration_text(report).find("us per kernel launch, on 3 fit rows") != std::string::npos);
}

TEST_CASE("calibrate fits a cost per all-reduce where the rows split models over several devices", "[calibrate]") {
    kbp::test::TempDir dir;
    auto planner = synthetic_setup(dir);
    // Each launch costs 6 us and each collective 15 us (the interconnect says 2): two rows on one
    // device and three split over 2 or 4 give the two costs apart.
    Calibration truth{0.7, 0.0, "", {}, 6.0};
    truth.all_reduce_us = 15.0;
    std::vector<OJson> rows;
    for (std::size_t i = 1; i <= 2; ++i) rows.push_back(row(samples[i], "fit", synthetic_tok_s(planner, samples[i], truth)));
    for (const auto& s : split_samples) rows.push_back(row(s, "fit", synthetic_tok_s(planner, s, truth)));
    const auto report = calibrated_on(dir, planner, std::move(rows));
    const auto& fit = report.fits[0].calibration;
    CHECK(fit.bandwidth_efficiency == Approx(0.7).margin(0.0051));
    REQUIRE(fit.launch_overhead_us);
    REQUIRE(fit.all_reduce_us);
    CHECK(*fit.launch_overhead_us == Approx(6.0).margin(0.3));
    CHECK(*fit.all_reduce_us == Approx(15.0).margin(1.0));
    CHECK(report.fits[0].max_error < 0.01);
    // Written, read back and applied by kbp stats --cost, which prices the collectives with it.
    CHECK(kbp::planner::calibration_file(report.fits[0]).find("\"all_reduce_us\"") != std::string::npos);
    const auto cost = cost_with_file_of(dir, report.fits[0], split_samples[0]);
    CHECK(cost.tokens_per_s == Approx(synthetic_tok_s(planner, split_samples[0], fit)).epsilon(1e-9));
    CHECK(kbp::planner::cost_text(cost).find("us per all-reduce") != std::string::npos);
    // On single-device rows alone the figure cannot be told apart, and none is fitted.
    std::vector<OJson> single;
    for (std::size_t i = 0; i < 5; ++i) single.push_back(row(samples[i], "fit", synthetic_tok_s(planner, samples[i], truth)));
    CHECK_FALSE(calibrated_on(dir, planner, std::move(single)).fits[0].calibration.all_reduce_us);
}

TEST_CASE("one configuration measured twice shows the measurements' own spread", "[calibrate]") {
    kbp::test::TempDir dir;
    auto planner = synthetic_setup(dir);
    const Calibration truth{0.8, 0.0, "", {}, 5.0};
    std::vector<OJson> rows;
    for (std::size_t i = 0; i < 4; ++i) rows.push_back(row(samples[i], "fit", synthetic_tok_s(planner, samples[i], truth)));
    // A second source measuring samples[0] 30% faster than the first, at the same context.
    OJson again = row(samples[0], "held_out", 1.3 * synthetic_tok_s(planner, samples[0], truth));
    again["id"] = "synth-again";
    rows.push_back(std::move(again));
    const auto text = kbp::planner::calibration_text(calibrated_on(dir, planner, std::move(rows)));
    CHECK(text.find("measured twice: llama-3.1-8b fp8-dynamic on 1 synth, vllm, batch 1: synth-llama-3.1-8b") != std::string::npos);
    CHECK(text.find("1.30x where the fit's estimates are 1.00x apart (30.0% unexplained)") != std::string::npos);
    CHECK(text.find("1 configurations measured more than once, median 30.0% unexplained") != std::string::npos);
}

TEST_CASE("a calibration file slows kbp stats --cost as its figures say", "[calibrate][cost]") {
    kbp::test::TempDir dir;
    add_synthetic_target(dir);
    auto bare_planner = Planner::load(dir.file("catalog"));
    REQUIRE(bare_planner);
    const double bare = synthetic_tok_s(*bare_planner, samples[0], Calibration{});
    const double expected = synthetic_tok_s(*bare_planner, samples[0], Calibration{0.5, 300.0, "", {}, std::nullopt});
    write(dir.file("catalog/calibrations/synth.json"),
          R"({"target": "synth", "bandwidth_efficiency": 0.5, "step_overhead_us": 300, "origin": "by hand", "fitted_on": ["x"]})");
    auto planner = Planner::load(dir.file("catalog"));
    REQUIRE(planner);
    const auto cost = synthetic_cost(*planner, samples[0], std::nullopt);
    REQUIRE(cost.calibration);
    CHECK(cost.calibration->origin == "by hand");
    CHECK(cost.tokens_per_s == Approx(expected).epsilon(1e-9));
    CHECK(cost.tokens_per_s < 0.6 * bare);
    const std::string text = kbp::planner::cost_text(cost);
    CHECK(text.find("calibrated step time") != std::string::npos);
    CHECK(text.find("calibration: 50% of the datasheet bandwidth, +300.0 us per step (by hand)") != std::string::npos);
    CHECK(text.find("caveat:") == std::string::npos);  // the file does not say how its rows were split
}

TEST_CASE("a cost on another split than its calibration's fit rows says so", "[calibrate][cost]") {
    kbp::test::TempDir dir;
    add_synthetic_target(dir);
    auto cost_when_fitted_on = [&](const std::string& tps) {
        write(dir.file("catalog/calibrations/synth.json"), R"({"target": "synth", "bandwidth_efficiency": 0.5, "step_overhead_us": 0, "origin": "by hand", "fitted_on": ["x"], "fitted_tp": )" + tps + "}");
        auto planner = Planner::load(dir.file("catalog"));
        INFO((planner ? std::string() : planner.error().text()));
        REQUIRE(planner);
        return synthetic_cost(*planner, samples[0], std::nullopt);  // planned on one device
    };
    // Fitted on eight-way splits alone: the sync and the smaller kernels of those rows are in the
    // efficiency, and a one-device plan is told so, in the text and in --json.
    const auto eight = cost_when_fitted_on("[8]");
    REQUIRE(eight.calibration);
    CHECK(eight.calibration->fitted_tp == std::vector<std::int64_t>{8});
    const std::string caveat = "    caveat: the fit rows ran on 8 devices each, this plan on 1: beyond the all-reduces priced here";
    CHECK(kbp::planner::cost_text(eight).find(caveat) != std::string::npos);
    auto json = OJson::parse(kbp::planner::cost_json(eight));
    CHECK(json["calibration"]["fitted_tp"] == OJson::array({8}));
    CHECK(json["calibration"]["caveat"].get<std::string>().rfind("the fit rows ran on 8 devices each, this plan on 1", 0) == 0);
    // Two splits are both named; the plan's own among them says nothing.
    CHECK(kbp::planner::cost_text(cost_when_fitted_on("[2, 4, 8]")).find("the fit rows ran on 2, 4 or 8 devices each, this plan on 1") != std::string::npos);
    const auto same = cost_when_fitted_on("[1, 8]");
    CHECK(kbp::planner::cost_text(same).find("caveat:") == std::string::npos);
    CHECK(OJson::parse(kbp::planner::cost_json(same))["calibration"]["caveat"].is_null());
    // A split of zero devices is no split: refused at its place.
    write(dir.file("catalog/calibrations/synth.json"), R"({"target": "synth", "bandwidth_efficiency": 0.5, "step_overhead_us": 0, "origin": "x", "fitted_on": ["x"], "fitted_tp": [0]})");
    auto refused = Planner::load(dir.file("catalog"));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().text().find("/fitted_tp/0") != std::string::npos);
}

TEST_CASE("calibrate refuses a broken measurement file with its place, and a calibration of an unknown target", "[calibrate][errors]") {
    kbp::test::TempDir dir;
    auto planner = synthetic_setup(dir);
    OJson bad = measurements({row(samples[0], "fit", 100.0)});
    bad["rows"][0].erase("decode_tok_s");
    write(dir.file("m/bad.json"), bad.dump(2));
    auto report = kbp::planner::calibrate(planner, dir.file("m/bad.json"));
    REQUIRE_FALSE(report);
    CHECK(report.error().text().find("bad.json: /rows/0") != std::string::npos);
    CHECK(report.error().text().find("decode_tok_s") != std::string::npos);

    write(dir.file("catalog/calibrations/nope.json"),
          R"({"target": "h10", "bandwidth_efficiency": 0.5, "step_overhead_us": 0, "origin": "x", "fitted_on": ["x"]})");
    auto broken = Planner::load(dir.file("catalog"));
    REQUIRE_FALSE(broken);
    CHECK(broken.error().text().find("calibrations/nope.json: /target") != std::string::npos);
}

TEST_CASE("calibrate plans a row with its own recipe, and leaves a row whose split is not stated uncosted", "[calibrate]") {
    kbp::test::TempDir dir;
    auto planner = synthetic_setup(dir);
    // samples[1] measured as fp8, but the row says its engine stored bf16: it is planned in bf16.
    OJson own = row(samples[1], "fit", 100.0);
    own["precision"] = "fp8";
    own["kbp_recipe"] = "bf16";
    OJson unstated = row(samples[0], "held_out", 100.0);
    unstated["id"] = "synth-unstated";
    unstated["device_count"] = nullptr;
    unstated["tp"] = nullptr;
    write(dir.file("m/measurements.json"), measurements({own, unstated}).dump(2));
    auto report = kbp::planner::calibrate(planner, dir.file("m/measurements.json"));
    INFO((report ? std::string() : report.error().text()));
    REQUIRE(report);
    REQUIRE(report->rows.size() == 2);
    REQUIRE(report->rows[0].before_tok_s);
    CHECK(*report->rows[0].before_tok_s == Approx(synthetic_tok_s(planner, samples[1], Calibration{})).epsilon(1e-9));
    CHECK(*report->rows[0].before_tok_s != Approx(synthetic_tok_s(planner, Sample{"qwen3-8b", "fp8", "fp8-dynamic", 1024, 512}, Calibration{})));
    CHECK_FALSE(report->rows[1].before_tok_s);
    CHECK(report->rows[1].not_costed == "the source does not say how many devices served it, or how it was split");

    // A recipe kbp does not have is refused with the row's place.
    own["kbp_recipe"] = "bf17";
    write(dir.file("m/bad-recipe.json"), measurements({own}).dump(2));
    auto bad = kbp::planner::calibrate(planner, dir.file("m/bad-recipe.json"));
    REQUIRE_FALSE(bad);
    CHECK(bad.error().text().find("/rows/0/kbp_recipe") != std::string::npos);
}

TEST_CASE("calibrate fits an engine with two or more of a target's fit rows on those rows alone", "[calibrate]") {
    CHECK(kbp::planner::engine_key("NIM (vLLM)") == "nim-vllm");
    CHECK(kbp::planner::engine_key("llama.cpp") == "llama-cpp");
    CHECK(kbp::planner::engine_key("TensorRT-LLM") == "tensorrt-llm");
    // A version is not the engine: one engine written with and without it is one key.
    CHECK(kbp::planner::engine_key("vLLM 0.16.0") == "vllm");
    CHECK(kbp::planner::engine_key("SGLang v0.5.12") == "sglang");

    kbp::test::TempDir dir;
    auto planner = synthetic_setup(dir);
    // SGLang (as its measurements name it, with a version) reaches 50% of the bandwidth, vLLM 80%;
    // neither adds an overhead. Each row is kbp's own cost of its engine's plan.
    const Calibration slow{0.5, 0.0, "", {}, std::nullopt}, fast{0.8, 0.0, "", {}, std::nullopt};
    auto engine_row = [&](const Sample& s, const char* split, const char* engine, const Calibration& c, const char* id) {
        const std::string file = std::string(engine).rfind("SGLang", 0) == 0 ? "sglang" : "vllm";
        OJson r = row(s, split, synthetic_tok_s(planner, s, c, file));
        r["engine"] = engine;
        r["id"] = id;
        return r;
    };
    std::vector<OJson> rows{engine_row(samples[0], "fit", "SGLang v0.5.12", slow, "s0"), engine_row(samples[1], "fit", "SGLang", slow, "s1"),
                            engine_row(samples[2], "fit", "vLLM", fast, "f2"), engine_row(samples[3], "fit", "vLLM 0.16.0", fast, "f3"),
                            engine_row(samples[1], "held_out", "vLLM", fast, "f1-held")};
    write(dir.file("m/measurements.json"), measurements(rows).dump(2));
    auto report = kbp::planner::calibrate(planner, dir.file("m/measurements.json"));
    INFO((report ? std::string() : report.error().text()));
    REQUIRE(report);
    REQUIRE(report->fits.size() == 3);
    CHECK(report->fits[0].engine.empty());  // the pooled fit first, on all four rows
    CHECK(report->fits[0].fitted_on.size() == 4);
    CHECK(report->fits[1].engine == "sglang");
    CHECK(report->fits[1].calibration.bandwidth_efficiency == Approx(0.5).margin(0.0051));
    CHECK(report->fits[1].fitted_on == std::vector<std::string>{"s0", "s1"});
    CHECK(report->fits[1].max_error < 0.01);
    CHECK(report->fits[2].engine == "vllm");
    CHECK(report->fits[2].calibration.bandwidth_efficiency == Approx(0.8).margin(0.0051));
    CHECK(report->fits[2].fitted_on == std::vector<std::string>{"f2", "f3"});
    CHECK(kbp::planner::calibration_file_name(report->fits[0]) == "synth.json");
    CHECK(kbp::planner::calibration_file_name(report->fits[1]) == "synth.sglang.json");
    CHECK(kbp::planner::calibration_file(report->fits[1]).find("\"engine\": \"sglang\"") != std::string::npos);
    // The held-out vLLM row is judged with the pooled fit, and with vLLM's, which finds it.
    const auto& held = report->rows[4];
    REQUIRE(held.engine_tok_s);
    CHECK(*held.engine_tok_s / held.measured_tok_s == Approx(1.0).margin(0.01));
    CHECK(std::abs(*held.after_tok_s / held.measured_tok_s - 1.0) > 0.02);
    const std::string text = kbp::planner::calibration_text(*report);
    CHECK(text.find("fitted synth (engine vllm): bandwidth efficiency 0.800") != std::string::npos);
    CHECK(text.find("held out, by engine where its engine has a fit") != std::string::npos);

    // One engine with every fit row gets no fit of its own: the pooled one is the same.
    rows.erase(rows.begin(), rows.begin() + 2);
    write(dir.file("m/one-engine.json"), measurements(rows).dump(2));
    auto one = kbp::planner::calibrate(planner, dir.file("m/one-engine.json"));
    REQUIRE(one);
    CHECK(one->fits.size() == 1);
    CHECK_FALSE(one->rows[2].engine_tok_s);
}

TEST_CASE("kbp stats --cost --engine applies that engine's calibration; the pooled one stands without it", "[calibrate][cost]") {
    kbp::test::TempDir dir;
    add_synthetic_target(dir);
    write(dir.file("catalog/calibrations/synth.json"),
          R"({"target": "synth", "bandwidth_efficiency": 0.5, "step_overhead_us": 300, "origin": "pooled by hand", "fitted_on": ["x"]})");
    write(dir.file("catalog/calibrations/synth.vllm.json"),
          R"({"target": "synth", "engine": "vllm", "bandwidth_efficiency": 0.8, "step_overhead_us": 0, "origin": "vllm by hand", "fitted_on": ["y"]})");
    auto planner = Planner::load(dir.file("catalog"));
    INFO((planner ? std::string() : planner.error().text()));
    REQUIRE(planner);
    kbp::planner::PlanRequest request;
    request.config_path = kbp::test::source_dir() + "/samples/" + samples[0].folder + "/config.json";
    request.recipe = samples[0].recipe;
    request.target = "synth";
    request.engine = "sglang";
    auto plan = planner->plan(request);
    REQUIRE(plan);
    kbp::planner::CostOptions options;
    options.target = "synth";
    auto pooled = kbp::planner::estimate_cost(planner->catalog(), plan->blueprint, options);
    REQUIRE(pooled);
    REQUIRE(pooled->calibration);
    CHECK(pooled->calibration->origin == "pooled by hand");
    options.engine = "vllm";
    auto vllm = kbp::planner::estimate_cost(planner->catalog(), plan->blueprint, options);
    REQUIRE(vllm);
    REQUIRE(vllm->calibration);
    CHECK(vllm->calibration->origin == "vllm by hand");
    CHECK(vllm->calibration->bandwidth_efficiency == 0.8);
    CHECK(vllm->tokens_per_s > pooled->tokens_per_s);
    options.engine = "sglang";
    auto none = kbp::planner::estimate_cost(planner->catalog(), plan->blueprint, options);
    REQUIRE_FALSE(none);
    CHECK(none.error().text().find("target 'synth' has no calibration fitted on engine 'sglang' (it has: vllm)") != std::string::npos);
    // A vLLM plan (the synthetic H100's default engine) keeps the pooled fit unless --engine asks.
    request.engine.reset();
    auto own = planner->plan(request);
    REQUIRE(own);
    options.engine.reset();
    auto by_plan = kbp::planner::estimate_cost(planner->catalog(), own->blueprint, options);
    REQUIRE(by_plan);
    REQUIRE(by_plan->calibration);
    CHECK(by_plan->calibration->origin == "pooled by hand");
}

TEST_CASE("the shipped measurements: llama.cpp's two Q8_0 rows are planned with gguf-q8_0 and costed", "[calibrate][q8_0]") {
    auto planner = Planner::load(std::nullopt);
    REQUIRE(planner);
    auto report = kbp::planner::calibrate(*planner, kbp::test::source_dir() + "/samples/measurements.json");
    INFO((report ? std::string() : report.error().text()));
    REQUIRE(report);
    int q8 = 0;
    for (const auto& r : report->rows) {
        if (r.precision != "q8_0") continue;
        ++q8;
        INFO(r.id);
        CHECK(r.not_costed.empty());
        REQUIRE(r.before_tok_s);
        REQUIRE(r.after_tok_s);
        // A bare roofline at GB10's 273 GB/s is faster than the measurement, but not wildly.
        CHECK(*r.before_tok_s > r.measured_tok_s);
        CHECK(*r.before_tok_s < 2.0 * r.measured_tok_s);
    }
    CHECK(q8 == 2);
}

TEST_CASE("the shipped calibrations are what kbp calibrate fits on the shipped measurements", "[calibrate][shipped]") {
    // planner/data/calibrations/ is kbp calibrate's output (kbp calibrate samples/measurements.json
    // -o planner/data): a change to the planner or the cost that moves a fit must re-fit them, or
    // kbp stats --cost prices plans with figures no fit gives.
    auto planner = Planner::load(std::nullopt);
    REQUIRE(planner);
    auto report = kbp::planner::calibrate(*planner, kbp::test::source_dir() + "/samples/measurements.json");
    INFO((report ? std::string() : report.error().text()));
    REQUIRE(report);
    const std::string shipped = kbp::test::source_dir() + "/planner/data/calibrations/";
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(shipped)) files += entry.path().extension() == ".json";
    CHECK(files == report->fits.size());
    for (const auto& fit : report->fits) {
        const std::string name = kbp::planner::calibration_file_name(fit);
        INFO(name << ": re-fit with kbp calibrate samples/measurements.json -o planner/data");
        REQUIRE(fs::exists(shipped + name));
        CHECK(kbp::test::slurp(shipped + name) == kbp::planner::calibration_file(fit));
    }
}
