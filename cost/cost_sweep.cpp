#include "cost/cost_sweep.hpp"

#include <charconv>
#include <cstdio>

#include "planner/catalog.hpp"

namespace kbp::planner {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::int64_t max_sweep_value = std::int64_t{1} << 24;  // 16M tokens, 16M rows
constexpr std::size_t max_points = 64;

Error sweep_error(const std::string& text, const std::string& why) {
    return make_error(ErrorCode::usage, "--sweep", "'" + text + "': " + why + " (e.g. context=1k..128k, rows=1..128, context=1024,8192)");
}

// "4096", "4k" (x 1024), "1m" (x 1024^2).
std::optional<std::int64_t> count(std::string_view s) {
    std::int64_t unit = 1;
    if (!s.empty() && (s.back() == 'k' || s.back() == 'K')) unit = 1024, s.remove_suffix(1);
    else if (!s.empty() && (s.back() == 'm' || s.back() == 'M')) unit = 1024 * 1024, s.remove_suffix(1);
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size() || v < 0 || v > max_sweep_value / unit) return std::nullopt;
    return v * unit;
}

}  // namespace

Result<SweepSpec> parse_sweep(const std::string& text) {
    auto eq = text.find('=');
    if (eq == std::string::npos) return sweep_error(text, "expected AXIS=VALUES");
    SweepSpec spec;
    const std::string axis = text.substr(0, eq);
    if (axis == "context") spec.axis = SweepAxis::context;
    else if (axis == "rows") spec.axis = SweepAxis::rows;
    else return sweep_error(text, "the axis is context or rows");
    std::string_view values = std::string_view(text).substr(eq + 1);
    if (auto dots = values.find(".."); dots != std::string_view::npos) {
        auto first = count(values.substr(0, dots)), last = count(values.substr(dots + 2));
        if (!first || !last || *first < 1 || *last < *first) return sweep_error(text, "expected FIRST..LAST, 1 <= FIRST <= LAST");
        for (std::int64_t v = *first; v < *last; v *= 2) spec.values.push_back(v);
        spec.values.push_back(*last);
    } else {
        while (!values.empty()) {
            auto comma = values.find(',');
            auto v = count(values.substr(0, comma));
            if (!v || (!spec.values.empty() && *v <= spec.values.back())) return sweep_error(text, "expected ascending counts");
            spec.values.push_back(*v);
            if (comma == std::string_view::npos) break;
            values.remove_prefix(comma + 1);
        }
    }
    if (spec.values.empty()) return sweep_error(text, "no values");
    if (spec.values.size() > max_points) return sweep_error(text, "more than " + std::to_string(max_points) + " points");
    if (spec.axis == SweepAxis::rows && spec.values.front() < 1) return sweep_error(text, "rows start at 1");
    return spec;
}

Result<Sweep> sweep_cost(const schema::Blueprint& plan, const CostOptions& options, const SweepSpec& spec) {
    auto catalog = Catalog::load(options.catalog_dir);
    if (!catalog) return catalog.error();
    return sweep_cost(*catalog, plan, options, spec);
}

Result<Sweep> sweep_cost(const Catalog& catalog, const schema::Blueprint& plan, const CostOptions& options, const SweepSpec& spec) {
    Sweep sweep;
    sweep.spec = spec;
    sweep.rows = plan.arm.rows;
    sweep.context = options.context;
    std::optional<schema::Blueprint> at_rows;  // the plan with another arm.rows, for the rows axis
    for (std::int64_t v : spec.values) {
        CostOptions o = options;
        const schema::Blueprint* b = &plan;
        if (spec.axis == SweepAxis::context) {
            o.context = v;
        } else {
            if (!at_rows) at_rows = plan;
            at_rows->arm.rows = v;
            b = &*at_rows;
        }
        auto cost = estimate_cost(catalog, *b, o);
        if (!cost) return cost.error();
        sweep.target = cost->target;
        sweep.mode = cost->mode;
        sweep.memory_bytes = cost->memory_bytes;
        sweep.what_if_reason = cost->what_if ? cost->what_if_reason : std::string();
        sweep.calibration_caveat = cost->calibration ? calibration_split_caveat(*cost->calibration, cost->communication.tp) : std::string();
        SweepPoint p;
        p.value = v;
        p.tokens_per_s = cost->tokens_per_s;
        p.step_us = cost->total.time_us;
        double compute_us = 0;
        for (const auto& g : cost->groups)
            if (g.bound == "compute") compute_us += g.time_us;
        p.compute_share = cost->total.time_us > 0 ? compute_us / cost->total.time_us : 0;
        // The cost's own fit (weights, caches at the context, activations held): one definition.
        p.memory_needed_bytes = cost->stored_weight_bytes + cost->resident_state_bytes + cost->activation_memory_bytes;
        p.fits = cost->memory_bytes <= 0 || cost->headroom_bytes >= 0;
        sweep.points.push_back(p);
    }
    return sweep;
}

namespace {
const char* axis_name(SweepAxis a) { return a == SweepAxis::context ? "context" : "rows"; }
}  // namespace

std::string sweep_text(const Sweep& s) {
    std::string out;
    char line[256];
    const bool by_context = s.spec.axis == SweepAxis::context;
    std::snprintf(line, sizeof line, "cost sweep on %s, arm %s, %s (%s %lld)\n", s.target.c_str(), s.mode.c_str(), axis_name(s.spec.axis),
                  by_context ? "rows" : "context", static_cast<long long>(by_context ? s.rows : s.context));
    out += line;
    out += what_if_line(s.what_if_reason);
    if (!s.calibration_caveat.empty()) out += "  calibration caveat: " + s.calibration_caveat + "\n";
    if (!by_context) out += "  the plan's kernels at each row count (kbp plan --rows N may choose others)\n";
    std::snprintf(line, sizeof line, "  %10s %12s %12s %9s %14s %s\n", axis_name(s.spec.axis), "tokens/s", "step us", "compute", "memory GB", "fits");
    out += line;
    for (const auto& p : s.points) {
        std::snprintf(line, sizeof line, "  %10lld %12.1f %12.1f %8.0f%% %14.2f %s\n", static_cast<long long>(p.value), p.tokens_per_s, p.step_us,
                      100.0 * p.compute_share, p.memory_needed_bytes / 1e9, p.fits ? "yes" : "NO");
        out += line;
    }
    for (const auto& p : s.points)
        if (p.compute_share > 0.5) {
            std::snprintf(line, sizeof line, "  compute-bound (over half the step) from %s %lld\n", axis_name(s.spec.axis), static_cast<long long>(p.value));
            out += line;
            break;
        }
    for (const auto& p : s.points)
        if (!p.fits) {
            std::snprintf(line, sizeof line, "  does not fit the %.1f GB of %s from %s %lld\n", s.memory_bytes / 1e9, s.target.c_str(),
                          axis_name(s.spec.axis), static_cast<long long>(p.value));
            out += line;
            break;
        }
    return out;
}

std::string sweep_json(const Sweep& s) {
    Json o = Json::object();
    o["schema"] = "kbp-sweep/v1";
    o["target"] = s.target;
    o["arm"] = {{"mode", s.mode}, {"rows", s.rows}};
    o["context"] = s.context;
    o["axis"] = axis_name(s.spec.axis);
    o["memory_bytes"] = s.memory_bytes;
    if (!s.what_if_reason.empty()) {
        o["what_if"] = true;
        o["what_if_reason"] = s.what_if_reason;
    }
    o["calibration_caveat"] = s.calibration_caveat.empty() ? Json(nullptr) : Json(s.calibration_caveat);
    Json points = Json::array();
    for (const auto& p : s.points)
        points.push_back({{axis_name(s.spec.axis), p.value},
                          {"tokens_per_s", p.tokens_per_s},
                          {"step_us", p.step_us},
                          {"compute_share", p.compute_share},
                          {"memory_needed_bytes", p.memory_needed_bytes},
                          {"fits", p.fits}});
    o["points"] = std::move(points);
    return o.dump(2) + "\n";
}

}  // namespace kbp::planner
