#include "cost/calibrate.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>

#include "planner/check_data.hpp"
#include "schema/numbers.hpp"

namespace kbp::planner {
namespace {

using Json = nlohmann::ordered_json;

// A measurement row as the fit reads it, with the plan that prices it (when kbp can make one).
struct Costed {
    CalibrationRow* row;  // its device is the target it is costed on
    CostReport bare;      // its plan's bare roofline cost, which step_time_us re-prices per candidate
    double measured_step_us = 0;  // one decode step of `batch` rows, as measured
    std::string main_family;      // the kernel family most of its bare roofline step is spent in
    double main_family_share = 0;
    double launches = 0;          // kernels launched in one step (its groups not run by the host)
    double collectives = 0;       // all-reduces and gathers in one step (0 on one device)
};

// The recipe a published precision is planned with; absent: kbp has none for it (yet).
std::optional<std::string> recipe_for(const Json& recipes, const std::string& precision) {
    if (auto it = recipes.find(precision); it != recipes.end() && it->is_string()) return it->get<std::string>();
    return std::nullopt;
}

double relative_error(double estimate, double measured) { return std::abs(estimate / measured - 1.0); }

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double step_us(const Costed& c, const Calibration& calibration) { return step_time_us(c.bare, calibration); }

// The fixed cost that least-squares the relative error of `steps` against the measured steps,
// where row i pays it `units[i]` times (1: once a step; its launches: once a kernel):
// d/dS sum((T_i + S u_i) / M_i - 1)^2 = 0, and at least 0.
double best_fixed_cost(const std::vector<double>& steps, const std::vector<double>& units, const std::vector<const Costed*>& rows) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        double m = rows[i]->measured_step_us;
        num += units[i] * (m - steps[i]) / (m * m);
        den += units[i] * units[i] / (m * m);
    }
    return den > 0 ? std::max(0.0, num / den) : 0.0;
}

// The squared relative error of `steps` with `launch` added per kernel launch and `sync` per
// collective.
double loss_with(const std::vector<double>& steps, const std::vector<double>& launches, double launch, const std::vector<double>& collectives,
                 double sync, const std::vector<const Costed*>& rows) {
    double sum = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const double e = (steps[i] + launch * launches[i] + sync * collectives[i]) / rows[i]->measured_step_us - 1.0;
        sum += e * e;
    }
    return sum;
}

// The two fixed costs, a cost per kernel launch and one per collective, that least-square the
// relative error together (the 2 x 2 normal equations of the weighted residuals), each at least
// 0: where the pair would take one below 0, the better of the two alone.
std::pair<double, double> best_launch_and_sync(const std::vector<double>& steps, const std::vector<double>& launches,
                                               const std::vector<double>& collectives, const std::vector<const Costed*>& rows) {
    double ll = 0, lc = 0, cc = 0, lr = 0, cr = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const double m2 = rows[i]->measured_step_us * rows[i]->measured_step_us, r = rows[i]->measured_step_us - steps[i];
        ll += launches[i] * launches[i] / m2;
        lc += launches[i] * collectives[i] / m2;
        cc += collectives[i] * collectives[i] / m2;
        lr += launches[i] * r / m2;
        cr += collectives[i] * r / m2;
    }
    const double det = ll * cc - lc * lc;
    if (det > 1e-12 * ll * cc) {
        const double launch = (lr * cc - cr * lc) / det, sync = (cr * ll - lr * lc) / det;
        if (launch >= 0 && sync >= 0) return {launch, sync};
    }
    const double launch_alone = best_fixed_cost(steps, launches, rows), sync_alone = best_fixed_cost(steps, collectives, rows);
    return loss_with(steps, launches, launch_alone, collectives, 0, rows) <= loss_with(steps, launches, 0, collectives, sync_alone, rows)
               ? std::pair{launch_alone, 0.0}
               : std::pair{0.0, sync_alone};
}

// Whether a third figure, a cost per collective, can be told apart on `rows`: at least two rows
// on one device, which pin the launch cost, and at least two split over several, which then pin
// the collectives' (more than three rows: the efficiency, the launch cost and it are three
// figures). Split rows alone cannot: their collectives grow with their layers as their launches
// do, so either cost explains both, and a fit that put it all in the collectives would price a
// one-device plan with no fixed cost at all.
bool sync_is_identifiable(const std::vector<const Costed*>& rows) {
    const auto split = std::count_if(rows.begin(), rows.end(), [](const Costed* c) { return c->collectives > 0; });
    const auto single = static_cast<std::ptrdiff_t>(rows.size()) - split;
    return split >= 2 && single >= 2;
}

double loss_of(const std::vector<double>& steps, const std::vector<double>& units, double fixed, const std::vector<const Costed*>& rows) {
    double loss = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        double e = (steps[i] + fixed * units[i]) / rows[i]->measured_step_us - 1.0;
        loss += e * e;
    }
    return loss;
}

// Sets the one efficiency a search moves: the pooled one, or one kernel family's.
using EfficiencyKnob = std::function<void(Calibration&, double)>;

// The efficiency that, set by `knob` into `base`, least-squares the relative error of `rows`:
// by search over 0.20..1.00 in steps of 0.005, each candidate re-pricing the rows (the step time
// is a sum of per-kernel maxima, not linear in it). With more than two rows one fixed cost is
// fitted with each candidate, in whichever of these forms fits the rows better: a step overhead
// (sampling, scheduling, the host's turn: the same for every model), with the target's own
// launch figure kept, or a cost per kernel launch in place of the target's (a CUDA graph's
// replay, a host loop's launches: more kernels, more time). Either is one figure; with two rows
// or fewer none is fitted: two parameters on two rows fit both exactly whatever they are, and
// say nothing of the rows not seen. Where the rows split models over several devices
// (sync_is_identifiable), the launch form also fits a cost per collective in place of the
// interconnect's latency (Calibration::all_reduce_us).
Calibration search_efficiency(const std::vector<const Costed*>& rows, const Calibration& base, const EfficiencyKnob& knob) {
    Calibration best = base;
    double best_loss = INFINITY;
    const std::vector<double> once(rows.size(), 1.0);
    std::vector<double> launches, collectives;
    for (const Costed* c : rows) {
        launches.push_back(c->launches);
        collectives.push_back(c->collectives);
    }
    const bool fit_sync = sync_is_identifiable(rows);
    for (int k = 200; k <= 1000; k += 5) {
        Calibration candidate = base;
        knob(candidate, k / 1000.0);
        candidate.step_overhead_us = 0.0;
        candidate.launch_overhead_us.reset();
        candidate.all_reduce_us.reset();
        Calibration unlaunched = candidate;
        unlaunched.launch_overhead_us = 0.0;
        Calibration unsynced = unlaunched;
        unsynced.all_reduce_us = 0.0;
        std::vector<double> steps, bare_steps, unsynced_steps;
        for (const Costed* c : rows) {
            steps.push_back(step_us(*c, candidate));
            if (rows.size() > 2) bare_steps.push_back(step_us(*c, unlaunched));
            if (fit_sync) unsynced_steps.push_back(step_us(*c, unsynced));
        }
        double overhead = 0, loss = 0;
        if (rows.size() > 2) {
            overhead = std::round(best_fixed_cost(steps, once, rows) * 10.0) / 10.0;
            loss = loss_of(steps, once, overhead, rows);
            const double launch = std::round(best_fixed_cost(bare_steps, launches, rows) * 100.0) / 100.0;
            if (const double launch_loss = loss_of(bare_steps, launches, launch, rows); launch_loss < loss - 1e-12) {
                candidate.launch_overhead_us = launch;
                overhead = 0;
                loss = launch_loss;
            }
            if (fit_sync) {
                auto [with_sync, sync] = best_launch_and_sync(unsynced_steps, launches, collectives, rows);
                with_sync = std::round(with_sync * 100.0) / 100.0;
                sync = std::round(sync * 100.0) / 100.0;
                if (const double sync_loss = loss_with(unsynced_steps, launches, with_sync, collectives, sync, rows); sync_loss < loss - 1e-12) {
                    candidate.launch_overhead_us = with_sync;
                    candidate.all_reduce_us = sync;
                    overhead = 0;
                    loss = sync_loss;
                }
            }
        } else {
            loss = loss_of(steps, once, 0.0, rows);
        }
        if (loss < best_loss - 1e-12) {
            best_loss = loss;
            best = candidate;
            best.step_overhead_us = overhead;
        }
    }
    return best;
}

// The kernel families that get an efficiency of their own on `rows`: each the main family (at
// least half the bare roofline step) of two rows or more (one row would fit its family exactly,
// whatever it is), taken largest first (then by name) while at least one row is left whose main
// family has none (the pooled efficiency, which prices every other family, is fitted on it), and
// while the figures fitted stay fewer than the rows: the pooled efficiency, the overhead where
// there are more than two rows, the cost per collective where it can be told apart, and one per
// family. As many figures as rows fit any rows
// exactly, and say nothing of the rows not seen.
std::vector<std::string> families_with_own_efficiency(const std::vector<const Costed*>& rows) {
    const std::size_t figures = 1 + (rows.size() > 2 ? 1 : 0) + (sync_is_identifiable(rows) ? 1 : 0);
    if (rows.size() <= figures + 1) return {};
    const std::size_t family_budget = rows.size() - figures - 1;
    std::map<std::string, std::size_t> rows_of_family;
    for (const Costed* c : rows)
        if (c->main_family_share >= 0.5) ++rows_of_family[c->main_family];
    std::vector<std::pair<std::string, std::size_t>> candidates(rows_of_family.begin(), rows_of_family.end());
    std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<std::string> families;
    std::size_t left = rows.size();
    for (const auto& [family, n] : candidates)
        if (n >= 2 && left - n >= 1 && families.size() < family_budget) {
            families.push_back(family);
            left -= n;
        }
    return families;
}

// A target's (or one engine's) figures on its fit rows: the pooled efficiency and overhead; then,
// where families_with_own_efficiency finds families, each family's efficiency in turn and the
// pooled one again (no longer pulled toward those families' own), by rounds until a round
// changes nothing (coordinate descent on the grid: it stops, each round lowers the loss or ends).
TargetFit fit_target(const std::string& target, const std::vector<const Costed*>& rows) {
    const EfficiencyKnob pooled = [](Calibration& c, double e) { c.bandwidth_efficiency = e; };
    Calibration fit = search_efficiency(rows, Calibration{}, pooled);
    const std::vector<std::string> families = families_with_own_efficiency(rows);
    for (int round = 0; round < 8 && !families.empty(); ++round) {
        const Calibration before = fit;
        for (const std::string& family : families)
            fit = search_efficiency(rows, fit, [&family](Calibration& c, double e) { c.family_efficiency[family] = e; });
        fit = search_efficiency(rows, fit, pooled);
        if (fit.bandwidth_efficiency == before.bandwidth_efficiency && fit.family_efficiency == before.family_efficiency &&
            fit.step_overhead_us == before.step_overhead_us && fit.launch_overhead_us == before.launch_overhead_us &&
            fit.all_reduce_us == before.all_reduce_us)
            break;
    }
    TargetFit result;
    result.target = target;
    result.calibration = std::move(fit);
    for (const Costed* c : rows) {
        result.fitted_on.push_back(c->row->id);
        result.date = std::max(result.date, c->row->source_date);
        result.calibration.fitted_tp.push_back(c->bare.communication.tp);
    }
    auto& tps = result.calibration.fitted_tp;
    std::sort(tps.begin(), tps.end());
    tps.erase(std::unique(tps.begin(), tps.end()), tps.end());
    return result;
}

// "kbp calibrate measurements.json (sha256 0123456789ab): 3 fit rows[ of engine E]"
std::string fit_origin(const CalibrationReport& report, std::size_t rows, const std::string& engine) {
    return "kbp calibrate " + std::filesystem::path(report.measurements).filename().string() + " (sha256 " + report.sha256.substr(0, 12) +
           "): " + std::to_string(rows) + " fit rows" + (engine.empty() ? "" : " of engine " + engine);
}

// The engine file whose measured_as names `engine` as published measurements do (compared
// without versions: "vLLM 0.16.0" is vLLM); "" when none does.
std::string engine_measured_as(const Catalog& catalog, const std::string& engine) {
    for (const DataFile* f : catalog.all("engines"))
        for (const auto& name : f->json.value("measured_as", Json::array()))
            if (engine_key(name.get<std::string>()) == engine_key(engine)) return f->name;
    return "";
}

bool report_has_engine_fits(const CalibrationReport& r) {
    return std::any_of(r.fits.begin(), r.fits.end(), [](const TargetFit& f) { return !f.engine.empty(); });
}

}  // namespace

Result<CalibrationReport> calibrate(const Planner& planner, const std::string& measurements_path) {
    Catalog catalog = planner.catalog().share();
    auto file = catalog.file("measurements", measurements_path);
    if (!file) return file.error();
    if (auto s = check_data_file(**file, catalog); !s) return s.error();
    const Json& doc = (*file)->json;
    const Json recipes = doc.value("kbp_recipes", Json::object());
    const std::filesystem::path folder = std::filesystem::path(measurements_path).parent_path();

    CalibrationReport report;
    report.measurements = measurements_path;
    report.sha256 = (*file)->sha256;
    const Json& rows = doc.at("rows");
    report.rows.reserve(rows.size());  // Costed keeps pointers into it: it must never reallocate
    std::vector<Costed> costed;
    costed.reserve(rows.size());
    const std::vector<const DataFile*> targets = catalog.all("targets");
    for (const Json& m : rows) {
        CalibrationRow& row = report.rows.emplace_back();
        row.id = m.at("id").get<std::string>();
        row.split = m.at("split").get<std::string>();
        row.model = m.at("model").get<std::string>();
        row.device = m.at("device").get<std::string>();
        row.precision = m.at("precision").get<std::string>();
        row.engine = m.at("engine").get<std::string>();
        row.engine_key = engine_measured_as(catalog, row.engine);
        row.measured_tok_s = m.at("decode_tok_s").get<double>();
        row.source_date = m.at("source").at("date").get<std::string>();
        row.batch = m.at("batch").get<std::int64_t>();
        // The cache grows from the prompt to the prompt plus the output: its mean length.
        const std::int64_t input = m.at("input_tokens").is_null() ? 0 : m.at("input_tokens").get<std::int64_t>();
        const std::int64_t output = m.at("output_tokens").is_null() ? 0 : m.at("output_tokens").get<std::int64_t>();
        row.context = input + output / 2;
        // A row may name its own recipe: what its engine stores, when kbp_recipes' is not that.
        auto recipe = m.contains("kbp_recipe") ? std::optional<std::string>(m.at("kbp_recipe").get<std::string>()) : recipe_for(recipes, row.precision);
        if (m.at("kbp_sample").is_null()) row.not_costed = "no kbp config for this model";
        else if (row.engine_key.empty()) row.not_costed = "no kbp engine is measured as '" + row.engine + "' (engines/*.json measured_as)";
        else if (m.at("tp").is_null() || m.at("device_count").is_null())
            row.not_costed = "the source does not say how many devices served it, or how it was split";
        else if (m.at("device_count").get<std::int64_t>() != m.at("tp").get<std::int64_t>())
            row.not_costed = "devices not all tensor-parallel (data or expert parallel)";
        else if (!recipe) row.not_costed = "no kbp recipe for " + row.precision;
        else if (std::none_of(targets.begin(), targets.end(), [&](const DataFile* t) { return t->name == row.device; }))
            row.not_costed = "no kbp target " + row.device;
        if (!row.not_costed.empty()) continue;
        row.configuration = m.at("kbp_sample").get<std::string>() + " " + *recipe + " on " + std::to_string(m.at("tp").get<std::int64_t>()) + " " +
                            row.device + ", " + row.engine_key + ", batch " + std::to_string(row.batch);
        PlanRequest request;
        request.config_path = (folder / m.at("kbp_sample").get<std::string>() / "config.json").string();
        request.arm = "decode";
        request.rows = row.batch;
        request.tp = m.at("tp").get<std::int64_t>();
        request.recipe = *recipe;
        request.target = row.device;
        request.engine = row.engine_key;  // each row planned with the launches of the engine it was measured on
        request.command = "kbp calibrate " + measurements_path;
        auto plan = planner.plan(request);
        if (!plan) {
            row.not_costed = "kbp plan: " + plan.error().text();
            continue;
        }
        CostOptions options;
        options.context = row.context;
        options.target = row.device;
        options.calibration = Calibration{};
        auto bare = estimate_cost(planner.catalog(), plan->blueprint, options);
        if (!bare) return bare.error();
        Costed c{&row, *bare, 1e6 * static_cast<double>(row.batch) / row.measured_tok_s, "", 0.0};
        row.before_tok_s = 1e6 * static_cast<double>(row.batch) / bare->total.time_us;
        c.launches = static_cast<double>(bare->total.launches);
        c.collectives = static_cast<double>(bare->communication.collectives());
        if (!bare->time_by_family.empty()) {  // largest first
            c.main_family = bare->time_by_family.front().first;
            c.main_family_share = bare->time_by_family.front().second / bare->total.time_us;
        }
        costed.push_back(std::move(c));
    }

    // One fit per target that has fit rows; its held-out rows are only costed with the result.
    std::map<std::string, std::vector<const Costed*>> fit_rows;
    for (const Costed& c : costed)
        if (c.row->split == "fit") fit_rows[c.row->device].push_back(&c);
    for (const auto& [target, rows_of_target] : fit_rows) {
        TargetFit fit = fit_target(target, rows_of_target);
        fit.calibration.origin = fit_origin(report, rows_of_target.size(), "");
        report.fits.push_back(std::move(fit));
    }
    // An engine with at least two of its target's fit rows, but not all of them, gets its own fit.
    std::map<std::pair<std::string, std::string>, std::vector<const Costed*>> engine_rows;
    for (const Costed& c : costed)
        if (c.row->split == "fit") engine_rows[{c.row->device, c.row->engine_key}].push_back(&c);
    const std::size_t pooled_fits = report.fits.size();
    for (const auto& [key, rows_of_engine] : engine_rows) {
        if (rows_of_engine.size() < 2 || rows_of_engine.size() == fit_rows[key.first].size()) continue;
        TargetFit fit = fit_target(key.first, rows_of_engine);
        fit.engine = key.second;
        fit.calibration.origin = fit_origin(report, rows_of_engine.size(), key.second);
        report.fits.push_back(std::move(fit));
    }
    for (Costed& c : costed) {
        auto engine_fit = std::find_if(report.fits.begin() + static_cast<std::ptrdiff_t>(pooled_fits), report.fits.end(),
                                       [&](const TargetFit& f) { return f.target == c.row->device && f.engine == c.row->engine_key; });
        if (engine_fit != report.fits.end()) {
            c.row->engine_tok_s = 1e6 * static_cast<double>(c.row->batch) / step_us(c, engine_fit->calibration);
        }
        auto fit = std::find_if(report.fits.begin(), report.fits.end(), [&](const TargetFit& f) { return f.target == c.row->device && f.engine.empty(); });
        if (fit == report.fits.end()) {
            c.row->after_tok_s = c.row->before_tok_s;  // nothing to fit on: the bare roofline stands
            continue;
        }
        c.row->after_tok_s = 1e6 * static_cast<double>(c.row->batch) / step_us(c, fit->calibration);
    }
    // Leave one out: each fit row priced by a fit of its target on the others (fit_target's own
    // rules: with two rows left, no fixed cost; with one, its efficiency matches that row).
    for (const auto& [target, rows_of_target] : fit_rows) {
        if (rows_of_target.size() < 2) continue;
        for (const Costed* left_out : rows_of_target) {
            std::vector<const Costed*> others;
            for (const Costed* c : rows_of_target)
                if (c != left_out) others.push_back(c);
            const TargetFit fit = fit_target(target, others);
            left_out->row->left_out_tok_s = 1e6 * static_cast<double>(left_out->row->batch) / step_us(*left_out, fit.calibration);
        }
    }
    for (TargetFit& f : report.fits) {
        std::vector<double> errors;
        for (const Costed& c : costed) {
            if (c.row->device != f.target || c.row->split != "fit") continue;
            if (f.engine.empty()) errors.push_back(relative_error(*c.row->after_tok_s, c.row->measured_tok_s));
            else if (c.row->engine_key == f.engine) errors.push_back(relative_error(*c.row->engine_tok_s, c.row->measured_tok_s));
        }
        f.median_error = median(errors);
        f.max_error = errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end());
    }
    return report;
}

std::string calibration_text(const CalibrationReport& r, bool markdown) {
    std::string out;
    auto cell = [&](const std::vector<std::string>& cells) {
        if (markdown) {
            out += "|";
            for (const auto& c : cells) out += " " + c + " |";
            out += "\n";
            return;
        }
        char line[512];
        std::snprintf(line, sizeof line, "%-46.46s %-8s %-6s %-6s %9s %9s %9s %7s %7s %9s %7s %9s %7s  %s\n", cells[0].c_str(), cells[1].c_str(),
                      cells[2].c_str(), cells[3].c_str(), cells[4].c_str(), cells[5].c_str(), cells[6].c_str(), cells[7].c_str(),
                      cells[8].c_str(), cells[9].c_str(), cells[10].c_str(), cells[11].c_str(), cells[12].c_str(), cells[13].c_str());
        out += line;
    };
    out += markdown ? "" : "calibration on " + r.measurements + " (sha256 " + r.sha256.substr(0, 12) + ")\n\n";
    cell({"row", "split", "device", "format", "measured", "roofline", "fitted", "ratio", "error", "by engine", "error", "left out", "error", "note"});
    if (markdown) out += "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
    std::vector<double> held_out, held_out_engine, left_out;
    for (const auto& row : r.rows) {
        if (row.left_out_tok_s) left_out.push_back(relative_error(*row.left_out_tok_s, row.measured_tok_s));
        std::string before = row.before_tok_s ? schema::fixed(*row.before_tok_s, 1) : "-";
        std::string after = row.after_tok_s ? schema::fixed(*row.after_tok_s, 1) : "-";
        std::string ratio = row.after_tok_s ? schema::fixed(*row.after_tok_s / row.measured_tok_s, 2) : "-";
        std::string error = row.after_tok_s ? schema::fixed(100.0 * relative_error(*row.after_tok_s, row.measured_tok_s), 1) + "%" : "-";
        std::string by_engine = row.engine_tok_s ? schema::fixed(*row.engine_tok_s, 1) : "-";
        std::string engine_error = row.engine_tok_s ? schema::fixed(100.0 * relative_error(*row.engine_tok_s, row.measured_tok_s), 1) + "%" : "-";
        std::string left_out_tok_s = row.left_out_tok_s ? schema::fixed(*row.left_out_tok_s, 1) : "-";
        std::string left_out_error = row.left_out_tok_s ? schema::fixed(100.0 * relative_error(*row.left_out_tok_s, row.measured_tok_s), 1) + "%" : "-";
        if (row.after_tok_s && row.split == "held_out") {
            held_out.push_back(relative_error(*row.after_tok_s, row.measured_tok_s));
            held_out_engine.push_back(relative_error(row.engine_tok_s.value_or(*row.after_tok_s), row.measured_tok_s));
        }
        cell({row.id, row.split, row.device, row.precision, schema::fixed(row.measured_tok_s, 1), before, after, ratio, error, by_engine,
              engine_error, left_out_tok_s, left_out_error, row.not_costed});
    }
    out += "\n";
    for (const auto& f : r.fits) {
        char line[512];
        const std::string who = f.engine.empty() ? f.target : f.target + " (engine " + f.engine + ")";
        const std::string fixed = calibration_fixed_costs(f.calibration);
        std::snprintf(line, sizeof line, "%s%s: bandwidth efficiency %.3f, %s, on %zu fit rows (median error %.1f%%, largest %.1f%%)\n",
                      markdown ? "- " : "fitted ", who.c_str(), f.calibration.bandwidth_efficiency, fixed.c_str(), f.fitted_on.size(),
                      100.0 * f.median_error, 100.0 * f.max_error);
        out += line;
        for (const auto& [family, efficiency] : f.calibration.family_efficiency) {
            std::snprintf(line, sizeof line, "%s  kernel family %s: bandwidth efficiency %.3f\n", markdown ? "  " : "       ", family.c_str(), efficiency);
            out += line;
        }
    }
    auto summary = [&](const char* what, const std::vector<double>& errors) {
        if (errors.empty()) return;
        char line[256];
        std::snprintf(line, sizeof line, "%s%s: %zu rows costed, median error %.1f%%, largest %.1f%%, %zu within 15%%\n", markdown ? "- " : "", what,
                      errors.size(), 100.0 * median(errors), 100.0 * *std::max_element(errors.begin(), errors.end()),
                      static_cast<std::size_t>(std::count_if(errors.begin(), errors.end(), [](double e) { return e <= 0.15; })));
        out += line;
    };
    // The measurements' own spread: one configuration measured by two sources (or at two
    // contexts). The fit prices such rows alike, up to what their contexts change, so the part of
    // their measured ratio the estimates' ratio does not explain is a floor under its errors.
    std::map<std::string, std::vector<const CalibrationRow*>> by_configuration;
    for (const auto& row : r.rows)
        if (row.after_tok_s && !row.configuration.empty()) by_configuration[row.configuration].push_back(&row);
    std::vector<double> spreads;
    for (const auto& [configuration, rows] : by_configuration) {
        if (rows.size() < 2) continue;
        auto [lo, hi] = std::minmax_element(rows.begin(), rows.end(), [](const auto* a, const auto* b) { return a->measured_tok_s < b->measured_tok_s; });
        const double measured = (*hi)->measured_tok_s / (*lo)->measured_tok_s, estimated = *(*hi)->after_tok_s / *(*lo)->after_tok_s;
        spreads.push_back(std::abs(measured / estimated - 1.0));
        std::string ids;
        for (const auto* row : rows) ids += (ids.empty() ? "" : ", ") + row->id + " " + schema::fixed(row->measured_tok_s, 1);
        out += (markdown ? "- " : "") + std::string("measured twice: ") + configuration + ": " + ids + " tok/s, " + schema::fixed(measured, 2) +
               "x where the fit's estimates are " + schema::fixed(estimated, 2) + "x apart (" + schema::fixed(100.0 * spreads.back(), 1) +
               "% unexplained)\n";
    }
    if (!spreads.empty()) {
        char line[320];
        std::snprintf(line, sizeof line,
                      "%sthe measurements' own spread: %zu configurations measured more than once, median %.1f%% unexplained, largest %.1f%% "
                      "(no fit of one configuration comes closer to both rows of such a pair than about half that each)\n",
                      markdown ? "- " : "", spreads.size(), 100.0 * median(spreads), 100.0 * *std::max_element(spreads.begin(), spreads.end()));
        out += line;
    }
    summary("held out", held_out);
    summary("fit rows, each left out of its target's fit in turn", left_out);
    std::vector<double> unseen = held_out;
    unseen.insert(unseen.end(), left_out.begin(), left_out.end());
    if (!left_out.empty()) summary("every costed row on a fit that never saw it (held out, and fit rows left out)", unseen);
    if (report_has_engine_fits(r)) summary("held out, by engine where its engine has a fit (kbp stats --cost --engine)", held_out_engine);
    return out;
}

std::string engine_key(const std::string& engine) {
    // A version is not part of the engine's name: "vLLM 0.16.0" and "vLLM" are one engine.
    std::string name;
    for (std::size_t at = 0; at < engine.size();) {
        std::size_t end = engine.find(' ', at);
        if (end == std::string::npos) end = engine.size();
        const std::string word = engine.substr(at, end - at);
        const bool version = !word.empty() && (std::isdigit(static_cast<unsigned char>(word[0])) ||
                                               (word.size() > 1 && (word[0] == 'v' || word[0] == 'V') && std::isdigit(static_cast<unsigned char>(word[1]))));
        if (!version) name += word + " ";
        at = end + 1;
    }
    std::string key;
    for (char ch : name) {
        if (std::isalnum(static_cast<unsigned char>(ch))) key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        else if (!key.empty() && key.back() != '-') key += '-';
    }
    while (!key.empty() && key.back() == '-') key.pop_back();
    return key;
}

std::string calibration_file_name(const TargetFit& f) { return f.engine.empty() ? f.target + ".json" : f.target + "." + f.engine + ".json"; }

std::string calibration_file(const TargetFit& f) {
    Json o = Json::object();
    o["target"] = f.target;
    if (!f.engine.empty()) o["engine"] = f.engine;
    o["bandwidth_efficiency"] = f.calibration.bandwidth_efficiency;
    o["step_overhead_us"] = f.calibration.step_overhead_us;
    if (f.calibration.launch_overhead_us) o["launch_overhead_us"] = *f.calibration.launch_overhead_us;
    if (f.calibration.all_reduce_us) o["all_reduce_us"] = *f.calibration.all_reduce_us;
    if (!f.calibration.family_efficiency.empty()) {
        Json families = Json::object();
        for (const auto& [family, efficiency] : f.calibration.family_efficiency) families[family] = efficiency;
        o["family_efficiency"] = std::move(families);
    }
    o["origin"] = f.calibration.origin;
    o["fitted_on"] = f.fitted_on;
    o["fitted_tp"] = f.calibration.fitted_tp;
    if (!f.date.empty()) o["date"] = f.date;
    o["fit_error"] = {{"median", std::round(f.median_error * 1e4) / 1e4}, {"max", std::round(f.max_error * 1e4) / 1e4}};
    return o.dump(2) + "\n";
}

}  // namespace kbp::planner
