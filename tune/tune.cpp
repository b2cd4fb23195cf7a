#include "tune/tune.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "cost/cost.hpp"
#include "planner/sensitivity.hpp"
#include "schema/memory.hpp"
#include "schema/numbers.hpp"
#include "tune/search.hpp"

namespace kbp::tune {
namespace {

using schema::Blueprint;

struct Priced {
    Blueprint plan;
    planner::CostReport cost;
};

// Tokens a second of a step of `rows` rows.
double tokens_per_s(std::int64_t rows, double time_us) { return time_us > 0 ? static_cast<double>(rows) * 1e6 / time_us : 0; }

// The figures a whole plan has on the step and the memory fit.
Figures figures_of(const planner::CostReport& c, std::int64_t rows) {
    Figures f;
    f.time_us = c.total.time_us;
    f.memory_bytes = c.stored_weight_bytes + c.resident_state_bytes + c.activation_memory_bytes;
    f.tokens_s = tokens_per_s(rows, f.time_us);
    return f;
}

double value_on(const UnitOption& o, Measure m) {
    switch (m) {
        case Measure::time:
        case Measure::tokens_s: return o.time_us;
        case Measure::memory: return o.stored_bytes;
        case Measure::effective_bits: return o.stored_bytes * 8.0;  // bit-parameters: over the units' parameters, bits per weight
        case Measure::sensitivity: return o.score;
    }
    return 0;
}

// The time of each group of a plan by its members' ids (sorted): what a quantizer's group is
// priced against when it fuses into a group the base plan has without it.
using GroupTimes = std::map<std::vector<std::string>, double>;
GroupTimes group_times(const Priced& p) {
    GroupTimes out;
    std::map<std::int64_t, double> time_of;
    for (const auto& g : p.cost.groups) time_of[g.group] = g.time_us;
    for (const auto& g : p.plan.groups) {
        std::vector<std::string> ids;
        for (auto i : g.nodes) ids.push_back(p.plan.nodes[static_cast<std::size_t>(i)].id);
        std::sort(ids.begin(), ids.end());
        out[ids] = time_of[g.id];
    }
    return out;
}

// Prices every unit in one plan: the groups it owns, its weights, its nodes' formats.
std::vector<UnitOption> price_units(const std::vector<Unit>& units, const Priced& p, const std::string& candidate, const GroupTimes* plain) {
    const Blueprint& b = p.plan;
    std::map<std::string, std::size_t> node_index;
    for (std::size_t i = 0; i < b.nodes.size(); ++i) node_index[b.nodes[i].id] = i;
    std::vector<int> unit_of(b.nodes.size(), -1);
    std::vector<UnitOption> options(units.size());
    for (std::size_t u = 0; u < units.size(); ++u) {
        options[u].candidate = candidate;
        for (const auto& id : units[u].nodes) {
            auto it = node_index.find(id);
            if (it == node_index.end()) {
                options[u].available = false;
                options[u].why_not = "the plan has no node '" + id + "'";
                continue;
            }
            unit_of[it->second] = static_cast<int>(u);
            const auto& n = b.nodes[it->second];
            // Served by its own kernel, or by its group's launches (a fused MoE group lists the
            // kernels its experts run in, the nodes none of their own).
            const bool group_launches = n.group >= 0 && n.group < static_cast<std::int64_t>(b.groups.size()) &&
                                        !b.groups[static_cast<std::size_t>(n.group)].kernels.empty();
            if ((!n.kernel || n.kernel->empty()) && !group_launches) {
                options[u].available = false;
                options[u].why_not = "no kernel for '" + id + "' at " + std::to_string(b.arm.rows) + " rows";
            }
            options[u].formats.push_back({id, {n.precision.weight ? std::string(n.precision.weight->name()) : "",
                                               n.precision.activation ? std::string(n.precision.activation->name()) : "", ""}});
        }
    }
    // Weights: each node's, as stored, as the memory fit counts them (a tied LM head reading the
    // embedding's own storage adds none).
    const auto edges = schema::first_edges(b);
    const auto figures = schema::plan_figures(b);
    const auto tied = schema::tied_embedding(b, edges, figures);
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        if (unit_of[i] < 0) continue;
        const auto& n = b.nodes[i];
        const auto w = schema::weight_use(b, n, edges.first_in[i], edges.first_out[i], &figures);
        UnitOption& o = options[static_cast<std::size_t>(unit_of[i])];
        o.parameters += static_cast<double>(w.k) * static_cast<double>(w.n) * static_cast<double>(w.matrices);
        if (!(tied.stored_once && &n == tied.head)) o.stored_bytes += static_cast<double>(w.stored_bytes);
    }
    std::vector<std::vector<std::int64_t>> readers(b.nodes.size());
    for (const auto& e : b.edges)
        if (e.from >= 0 && e.to >= 0) readers[static_cast<std::size_t>(e.from)].push_back(e.to);
    // Groups: a group holding a unit's node is that unit's (shared evenly when it holds several).
    // A group holding none is a unit's only through the quantizers the planner inserted for it
    // (an act_quant launched alone, or fused into the norm or SiLU·mul before the GEMM), and then
    // only for what they add: the group's time less that of the group the same other members
    // form in the base plan (`plain`), so a norm is priced once, in what no unit owns, whichever
    // unit's format makes it quantize its output.
    std::map<std::int64_t, const planner::GroupCost*> cost_of;
    for (const auto& g : p.cost.groups) cost_of[g.group] = &g;
    for (const auto& g : b.groups) {
        auto c = cost_of.find(g.id);
        if (c == cost_of.end()) continue;
        std::set<int> owners;
        for (auto i : g.nodes)
            if (unit_of[static_cast<std::size_t>(i)] >= 0) owners.insert(unit_of[static_cast<std::size_t>(i)]);
        double time = c->second->time_us;
        std::int64_t inserted = 0;
        if (owners.empty()) {
            std::set<std::int64_t> members(g.nodes.begin(), g.nodes.end());
            std::vector<std::string> others;
            bool only_units = true;
            for (auto i : g.nodes) {
                const auto& n = b.nodes[static_cast<std::size_t>(i)];
                if (!n.inserted) {
                    others.push_back(n.id);
                    continue;
                }
                ++inserted;
                for (auto r : readers[static_cast<std::size_t>(i)]) {
                    if (members.count(r)) continue;
                    if (unit_of[static_cast<std::size_t>(r)] < 0) only_units = false;
                    else owners.insert(unit_of[static_cast<std::size_t>(r)]);
                }
            }
            if (inserted == 0 || !only_units || owners.size() != 1) continue;
            std::sort(others.begin(), others.end());
            if (!others.empty() && plain) {
                auto same = plain->find(others);
                if (same == plain->end()) continue;  // no like group to price the quantizer against: what no unit owns
                time -= same->second;
            }
        } else {
            for (auto i : g.nodes) inserted += b.nodes[static_cast<std::size_t>(i)].inserted;
        }
        for (int u : owners) {
            options[static_cast<std::size_t>(u)].time_us += time / static_cast<double>(owners.size());
            options[static_cast<std::size_t>(u)].quant_points += inserted;
        }
    }
    return options;
}

// Bits-only: every unit at its option of most bits, then lowered one option at a time, always
// the move that costs the least score per bit saved, until the bits fit `bit_budget` (bits x
// parameters over the units). Never looks at time.
std::vector<int> bits_only_allocation(const std::vector<TunedUnit>& units, double bit_budget) {
    std::vector<std::vector<int>> order(units.size());  // available options, most bits first
    std::vector<std::size_t> at(units.size(), 0);
    double bits = 0;
    for (std::size_t u = 0; u < units.size(); ++u) {
        for (std::size_t o = 0; o < units[u].options.size(); ++o)
            if (units[u].options[o].available) order[u].push_back(static_cast<int>(o));
        std::stable_sort(order[u].begin(), order[u].end(), [&](int a, int b) {
            return units[u].options[static_cast<std::size_t>(a)].stored_bytes > units[u].options[static_cast<std::size_t>(b)].stored_bytes;
        });
        bits += units[u].options[static_cast<std::size_t>(order[u][0])].stored_bytes * 8;
    }
    while (bits > bit_budget * (1 + 1e-12)) {
        double best = INFINITY;
        std::size_t pick = units.size();
        for (std::size_t u = 0; u < units.size(); ++u) {
            if (at[u] + 1 >= order[u].size()) continue;
            const auto& from = units[u].options[static_cast<std::size_t>(order[u][at[u]])];
            const auto& to = units[u].options[static_cast<std::size_t>(order[u][at[u] + 1])];
            const double saved = (from.stored_bytes - to.stored_bytes) * 8;
            if (saved <= 0) continue;
            const double rate = (to.score - from.score) / saved;
            if (rate < best) best = rate, pick = u;
        }
        if (pick == units.size()) break;
        const auto& from = units[pick].options[static_cast<std::size_t>(order[pick][at[pick]])];
        const auto& to = units[pick].options[static_cast<std::size_t>(order[pick][at[pick] + 1])];
        bits -= (from.stored_bytes - to.stored_bytes) * 8;
        ++at[pick];
    }
    std::vector<int> pick(units.size());
    for (std::size_t u = 0; u < units.size(); ++u) pick[u] = order[u][at[u]];
    return pick;
}

std::string with_unit(double v, Measure m) {
    char s[64];
    switch (m) {
        case Measure::time: std::snprintf(s, sizeof s, "%.1f us", v); break;
        case Measure::tokens_s: std::snprintf(s, sizeof s, "%.1f tokens/s", v); break;
        case Measure::memory: std::snprintf(s, sizeof s, "%.2f GB", v / 1e9); break;
        case Measure::effective_bits: std::snprintf(s, sizeof s, "%.3f bits", v); break;
        case Measure::sensitivity: std::snprintf(s, sizeof s, "%.4g", v); break;
    }
    return s;
}

}  // namespace

std::string_view measure_name(Measure m) {
    switch (m) {
        case Measure::time: return "time";
        case Measure::memory: return "memory";
        case Measure::effective_bits: return "effective_bits";
        case Measure::sensitivity: return "sensitivity";
        case Measure::tokens_s: return "tokens_s";
    }
    return "";
}

Result<Budget> parse_budget(std::string_view text) {
    const std::string accepted = "--budget takes memory=SIZE (40GB, 38GiB, 512MB), effective_bits=N, sensitivity=X or tokens_s=N";
    auto eq = text.find('=');
    if (eq == std::string_view::npos) return make_error(ErrorCode::usage, "--budget", accepted + ", not '" + std::string(text) + "'");
    const std::string kind(text.substr(0, eq));
    Budget b;
    b.text = std::string(text);
    if (kind == "memory") b.kind = Measure::memory;
    else if (kind == "effective_bits") b.kind = Measure::effective_bits;
    else if (kind == "sensitivity") b.kind = Measure::sensitivity;
    else if (kind == "tokens_s") b.kind = Measure::tokens_s;
    else return make_error(ErrorCode::usage, "--budget", accepted + ": unknown kind '" + kind + "'");
    const std::string_view value = text.substr(eq + 1);
    auto v = b.kind == Measure::memory ? schema::parse_bytes(value) : schema::parse_number(value);
    // A sensitivity of 0 asks for the lossless options alone; every other budget is above 0.
    if (!v || *v < 0 || (*v == 0 && b.kind != Measure::sensitivity))
        return make_error(ErrorCode::usage, "--budget", accepted + ": '" + std::string(value) + "' is not a positive number");
    b.value = *v;
    return b;
}

std::optional<Measure> parse_objective(std::string_view text) {
    if (text == "time") return Measure::time;
    if (text == "memory") return Measure::memory;
    if (text == "sensitivity") return Measure::sensitivity;
    return std::nullopt;
}

Result<TuneResult> tune(const planner::Planner& planner, const TuneRequest& request) {
    TuneResult result;
    result.budget = request.budget;
    result.objective = request.objective;
    planner::PlanRequest base_request = request.base;
    if (!base_request.recipe) base_request.recipe = "bf16";
    planner::CostOptions cost_options;
    cost_options.context = request.context;

    auto price = [&](const planner::PlanRequest& r) -> Result<Priced> {
        auto p = planner.plan(r);
        if (!p) return p.error();
        ++result.plans_made;
        auto c = planner::estimate_cost(planner.catalog(), p->blueprint, cost_options);
        if (!c) return c.error();
        return Priced{std::move(p->blueprint), std::move(*c)};
    };
    auto base = price(base_request);
    if (!base) return base.error();
    const std::int64_t rows = base->plan.arm.rows;

    // Every candidate plan keeps the base's KV cache format: the cache is not a unit's choice,
    // and a candidate's own (fp8-dynamic's fp8 cache) would price attention as the units' saving.
    std::vector<std::pair<std::string, std::string>> settings = request.base.settings;
    if (std::none_of(settings.begin(), settings.end(), [](const auto& s) { return s.first == "kv_cache_dtype"; }))
        for (const auto& recorded : planner::recorded_settings(base->plan))
            if (recorded.first == "kv_cache_dtype") settings.push_back(recorded);

    result.options.push_back(*base_request.recipe);
    std::vector<Priced> candidate_plans;
    for (const auto& candidate : request.candidates) {
        if (candidate == *base_request.recipe) continue;
        planner::PlanRequest r = base_request;
        r.recipe = candidate;
        r.settings = settings;
        auto p = price(r);
        if (!p) {
            // A misspelt candidate is the user's mistake, not the target's lack: refused, with its hint.
            if (p.error().where == "--recipe") return make_error(p.error().code, "--candidates", p.error().message);
            result.notes.push_back("candidate '" + candidate + "' is not planned here, skipped: " + p.error().text());
            continue;
        }
        result.options.push_back(candidate);
        candidate_plans.push_back(std::move(*p));
    }
    // The units: the base plan's, merged where any option's plan launches several in one group
    // (a candidate's fusion may join projections the base runs apart).
    std::vector<const Blueprint*> option_plans{&base->plan};
    for (const auto& c : candidate_plans) option_plans.push_back(&c.plan);
    const std::vector<Unit> units = decision_units(base->plan, option_plans);
    if (units.empty())
        return make_error(ErrorCode::unsupported, request.base.config_path, "the plan names no Hugging Face modules to choose formats for");
    std::vector<std::vector<UnitOption>> by_option;  // [option][unit]
    const GroupTimes base_groups = group_times(*base);
    by_option.push_back(price_units(units, *base, *base_request.recipe, &base_groups));
    for (std::size_t c = 0; c < candidate_plans.size(); ++c)
        by_option.push_back(price_units(units, candidate_plans[c], result.options[c + 1], &base_groups));

    // Sensitivity: the file's scores, else llama.cpp's layer rule over the options' bits.
    std::vector<std::string> model_modules;
    for (const auto& u : units) model_modules.insert(model_modules.end(), u.modules.begin(), u.modules.end());
    if (base->plan.modules)
        for (const auto& [id, v] : *base->plan.modules)
            if (v.is_array())
                for (const auto& m : v.array())
                    if (m.is_string() && std::find(model_modules.begin(), model_modules.end(), m.string()) == model_modules.end())
                        model_modules.push_back(m.string());
    planner::Sensitivity sensitivity;
    if (request.sensitivity) {
        auto s = planner::read_sensitivity(*request.sensitivity);
        if (!s) return s.error();
        if (auto ok = planner::check_sensitivity_modules(*s, model_modules); !ok) return ok.error();
        sensitivity = std::move(*s);
    } else {
        std::map<std::string, double> bits_of;
        for (std::size_t o = 0; o < by_option.size(); ++o) {
            double bits = 0, params = 0;
            for (const auto& opt : by_option[o]) bits += opt.stored_bytes * 8, params += opt.parameters;
            bits_of[result.options[o]] = params > 0 ? bits / params : 16;
        }
        std::int64_t layers = static_cast<std::int64_t>(base->plan.layers.size());
        sensitivity = planner::use_more_bits_prior(model_modules, layers, bits_of);
        result.notes.push_back("no --sensitivity: scores from " + sensitivity.origin);
    }
    result.sensitivity_origin = sensitivity.origin;

    for (std::size_t u = 0; u < units.size(); ++u) {
        TunedUnit t{units[u], {}, 0, true};
        for (std::size_t o = 0; o < by_option.size(); ++o) {
            UnitOption opt = by_option[o][u];
            const std::string format = opt.formats.empty() ? "" : opt.formats.front().second.weight;
            auto score = planner::unit_score(sensitivity, units[u].modules, opt.candidate, format);
            if (score) opt.score = *score;
            else if (o == 0) opt.score = 0;  // the base is the reference
            else t.scored = false;
            t.options.push_back(std::move(opt));
        }
        if (!t.scored)  // modules the file does not name stay at the base
            for (std::size_t o = 1; o < t.options.size(); ++o) {
                t.options[o].available = false;
                t.options[o].why_not = "the sensitivity file does not score it";
            }
        result.units.push_back(std::move(t));
    }

    // The search: the objective's and the budget's figures per option, the rest fixed.
    Figures base_figures = figures_of(base->cost, rows);
    double unit_params = 0;
    for (const auto& t : result.units) unit_params += t.options[0].parameters;
    auto fixed_of = [&](Measure m) {
        double sum = 0;
        for (const auto& t : result.units) sum += value_on(t.options[0], m);
        switch (m) {
            case Measure::time:
            case Measure::tokens_s: return base_figures.time_us - sum;
            case Measure::memory: return base_figures.memory_bytes - sum;
            default: return 0.0;
        }
    };
    Problem problem;
    problem.fixed_objective = fixed_of(request.objective);
    problem.fixed_constraint = fixed_of(request.budget.kind);
    for (const auto& t : result.units) {
        std::vector<Option> options;
        for (const auto& o : t.options) options.push_back({value_on(o, request.objective), value_on(o, request.budget.kind), o.available});
        problem.units.push_back(std::move(options));
    }
    double limit = request.budget.value;
    if (request.budget.kind == Measure::effective_bits) limit *= unit_params;
    if (request.budget.kind == Measure::tokens_s) limit = static_cast<double>(rows) * 1e6 / request.budget.value;
    const Solution solution = solve(problem, limit);
    const double fixed_time_us = fixed_of(Measure::time), fixed_memory = fixed_of(Measure::memory);
    auto figures_of_pick = [&](const std::vector<int>& pick) {
        Figures f;
        f.time_us = fixed_time_us;
        f.memory_bytes = fixed_memory;
        double bits = 0;
        for (std::size_t u = 0; u < pick.size(); ++u) {
            const UnitOption& o = result.units[u].options[static_cast<std::size_t>(pick[u])];
            f.time_us += o.time_us;
            f.memory_bytes += o.stored_bytes;
            bits += o.stored_bytes * 8;
            f.sensitivity += o.score;
        }
        f.effective_bits = unit_params > 0 ? bits / unit_params : 0;
        f.tokens_s = tokens_per_s(rows, f.time_us);
        return f;
    };
    // A plan of the base with each unit at its pick's option (index 0, the base, adds nothing).
    auto request_for = [&](const std::vector<int>& pick) {
        planner::PlanRequest r = base_request;
        r.settings = settings;
        for (std::size_t u = 0; u < pick.size(); ++u)
            if (pick[u] != 0)
                for (const auto& [id, formats] : result.units[u].options[static_cast<std::size_t>(pick[u])].formats) r.node_formats[id] = formats;
        return r;
    };
    if (!solution.feasible) {
        double smallest = solution.smallest_constraint;
        if (request.budget.kind == Measure::effective_bits) smallest /= unit_params;
        if (request.budget.kind == Measure::tokens_s) smallest = tokens_per_s(rows, smallest);
        return make_error(ErrorCode::invalid_input, "--budget",
                          request.budget.text + " cannot be met with " + std::to_string(result.options.size()) + " options per unit: the " +
                              (request.budget.kind == Measure::tokens_s ? "most" : "least") + " any choice reaches is " +
                              with_unit(smallest, request.budget.kind));
    }
    for (const auto& p : solution.frontier) result.frontier.push_back(figures_of_pick(p.pick));
    result.estimated = figures_of_pick(solution.best.pick);
    result.gap = solution.best.objective - solution.lower_bound;
    result.thinned = solution.thinned;
    result.base = figures_of_pick(std::vector<int>(result.units.size(), 0));  // the fixed parts are the base's less its units: its own step

    // The tuned plan: each unit that moved from the base takes its candidate's node formats,
    // and says why.
    for (std::size_t u = 0; u < result.units.size(); ++u) result.units[u].chosen = solution.best.pick[u];
    planner::PlanRequest tuned = request_for(solution.best.pick);
    for (const TunedUnit& t : result.units) {
        if (t.chosen == 0) continue;
        const UnitOption& o = t.options[static_cast<std::size_t>(t.chosen)];
        char why[512];
        std::snprintf(why, sizeof why, "kbp tune: unit %s takes %s (sensitivity %.4g; %+.2f us a step against %s; %lld quantization point%s)",
                      t.unit.name.c_str(), o.candidate.c_str(), o.score, o.time_us - t.options[0].time_us, t.options[0].candidate.c_str(),
                      static_cast<long long>(o.quant_points), o.quant_points == 1 ? "" : "s");
        for (const auto& formats : o.formats) tuned.node_formats[formats.first].why = why;
    }
    auto plan = planner.plan(tuned);
    if (!plan) return plan.error();
    ++result.plans_made;

    // The bits-only allocation at the same effective bits, planned for the comparison.
    result.bits_only_pick = bits_only_allocation(result.units, result.estimated.effective_bits * unit_params);
    {
        auto other = price(request_for(result.bits_only_pick));
        if (!other) return other.error();
        Figures f = figures_of_pick(result.bits_only_pick);
        f.time_us = other->cost.total.time_us;
        f.tokens_s = tokens_per_s(rows, f.time_us);
        result.bits_only = f;
    }
    auto cost = planner::estimate_cost(planner.catalog(), plan->blueprint, cost_options);
    if (!cost) return cost.error();
    result.planned = figures_of(*cost, rows);
    result.planned.effective_bits = result.estimated.effective_bits;
    result.planned.sensitivity = result.estimated.sensitivity;

    // Provenance: what was tuned, against what, within what.
    schema::JsonObject record;
    record.emplace_back("base", *base_request.recipe);
    schema::JsonArray candidates;
    for (std::size_t o = 1; o < result.options.size(); ++o) candidates.emplace_back(result.options[o]);
    record.emplace_back("candidates", std::move(candidates));
    record.emplace_back("budget", request.budget.text);
    record.emplace_back("objective", std::string(measure_name(request.objective)));
    record.emplace_back("context", request.context);
    schema::JsonObject sens{{"origin", sensitivity.origin}};
    if (!sensitivity.sha256.empty()) sens.emplace_back("sha256", sensitivity.sha256);
    record.emplace_back("sensitivity", std::move(sens));
    auto point = [](const Figures& f) {
        return schema::JsonObject{{"time_us", std::round(f.time_us * 1000) / 1000},
                                  {"tokens_s", std::round(f.tokens_s * 1000) / 1000},
                                  {"memory_bytes", static_cast<std::int64_t>(std::llround(f.memory_bytes))},
                                  {"effective_bits", std::round(f.effective_bits * 10000) / 10000},
                                  {"sensitivity", f.sensitivity}};
    };
    record.emplace_back("estimated", point(result.estimated));
    record.emplace_back("planned", point(result.planned));
    record.emplace_back("gap_us", request.objective == Measure::time ? std::round(result.gap * 1000) / 1000 : result.gap);
    std::int64_t moved = 0;
    for (const auto& t : result.units) moved += t.chosen != 0;
    record.emplace_back("units", static_cast<std::int64_t>(result.units.size()));
    record.emplace_back("units_moved", moved);
    if (plan->blueprint.provenance && plan->blueprint.provenance->planner_header.is_object())
        plan->blueprint.provenance->planner_header.object().emplace_back("tune", std::move(record));
    result.plan = std::move(*plan);
    return result;
}

namespace {

// Units listed by a label (`label_of`; "" leaves a unit out), each name with its layer number
// as a set over the layers that share the name and label: "  fp8-dynamic: model.layers.{0-31}.mlp.gate_up_proj".
std::string layer_sets(const TuneResult& r, const std::function<std::string(std::size_t)>& label_of) {
    std::map<std::string, std::map<std::string, std::vector<std::int64_t>>> listed;
    for (std::size_t u = 0; u < r.units.size(); ++u) {
        const std::string label = label_of(u);
        if (label.empty()) continue;
        const auto& t = r.units[u];
        std::string key = t.unit.name;
        if (t.unit.layer >= 0) {  // every mention of the layer (a merged unit names it once per member)
            const std::string l = "." + std::to_string(t.unit.layer) + ".";
            for (std::size_t at = key.find(l); at != std::string::npos; at = key.find(l, at + 4)) key.replace(at, l.size(), ".{}.");
        }
        listed[label][key].push_back(t.unit.layer);
    }
    std::string out;
    for (const auto& [label, names] : listed)
        for (const auto& [name, layers] : names) {
            std::string set;
            for (std::size_t i = 0; i < layers.size();) {
                std::size_t j = i;
                while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
                set += (set.empty() ? "" : ",") + std::to_string(layers[i]) + (j > i ? "-" + std::to_string(layers[j]) : "");
                i = j + 1;
            }
            std::string shown = name;
            for (std::size_t at = shown.find("{}"); at != std::string::npos; at = shown.find("{}", at + set.size() + 2))
                shown.replace(at, 2, "{" + set + "}");
            out += "  " + label + ": " + shown + "\n";
        }
    return out;
}

}  // namespace

std::string tune_text(const TuneResult& r, std::size_t frontier_rows) {
    std::string out;
    char line[512];
    auto add = [&](const char* fmt, auto... args) {
        std::snprintf(line, sizeof line, fmt, args...);
        out += line;
    };
    add("kbp tune: %zu units, options %s", r.units.size(), r.options.front().c_str());
    for (std::size_t o = 1; o < r.options.size(); ++o) out += ", " + r.options[o];
    add("; budget %s, objective %s; %d plans made\n", r.budget.text.c_str(), std::string(measure_name(r.objective)).c_str(), r.plans_made);
    for (const auto& n : r.notes) out += "  note: " + n + "\n";
    auto row = [&](const char* name, const Figures& f) {
        add("  %-10s %10.1f us %9.1f tok/s %9.2f GB %7.3f bits %10.4g\n", name, f.time_us, f.tokens_s, f.memory_bytes / 1e9, f.effective_bits, f.sensitivity);
    };
    add("  %-10s %13s %15s %12s %12s %10s\n", "", "step", "", "memory", "eff. bits", "sensitivity");
    row(r.options.front().c_str(), r.base);
    row("estimated", r.estimated);
    row("planned", r.planned);
    add("  the planned step differs from the estimate by %+.2f%% (what no unit owns, priced once in the base plan)\n",
        r.estimated.time_us > 0 ? (r.planned.time_us / r.estimated.time_us - 1) * 100 : 0.0);
    if (r.bits_only) {
        row("bits-only", *r.bits_only);
        std::size_t differ = 0;
        for (std::size_t u = 0; u < r.units.size(); ++u) differ += r.units[u].chosen != r.bits_only_pick[u];
        add("  bits-only: the same effective bits allocated by score per bit alone (ModelOpt's ranking; with the prior, llama.cpp's layer rule), planned: "
            "kbp tune's choice runs %.2fx its tokens/s; %zu of %zu units differ\n",
            r.bits_only->tokens_s > 0 ? r.planned.tokens_s / r.bits_only->tokens_s : 0.0, differ, r.units.size());
    }
    if (r.thinned) add("  search: fronts thinned; the choice is within %.4g (%s) of optimal\n", r.gap, std::string(measure_name(r.objective)).c_str());
    else out += "  search: exact (every Pareto point kept)\n";
    add("frontier: %zu Pareto points of (%s, %s)\n", r.frontier.size(), std::string(measure_name(r.objective)).c_str(),
        std::string(measure_name(r.budget.kind)).c_str());
    const std::size_t n = r.frontier.size();
    const std::size_t shown = std::min(n, frontier_rows);
    for (std::size_t i = 0; i < shown; ++i) {
        const Figures& f = r.frontier[shown <= 1 ? 0 : i * (n - 1) / (shown - 1)];
        row("", f);
    }
    // The units that moved, by candidate and by name with the layer as a set; then those where
    // the bits-only allocation chose otherwise, by (kbp tune's option, bits-only's).
    out += layer_sets(r, [&](std::size_t u) -> std::string {
        const auto& t = r.units[u];
        return t.chosen == 0 ? "" : t.options[static_cast<std::size_t>(t.chosen)].candidate;
    });
    if (r.bits_only)
        out += layer_sets(r, [&](std::size_t u) -> std::string {
            const auto& t = r.units[u];
            const auto other = r.bits_only_pick[u];
            if (t.chosen == other) return "";
            return "tune " + t.options[static_cast<std::size_t>(t.chosen)].candidate + ", bits-only " + t.options[static_cast<std::size_t>(other)].candidate;
        });
    return out;
}

std::string frontier_json(const TuneResult& r) {
    std::string out = "{\n  \"schema\": \"kbp-frontier/v1\",\n";
    out += "  \"budget\": \"" + r.budget.text + "\",\n  \"objective\": \"" + std::string(measure_name(r.objective)) + "\",\n";
    auto point = [](const Figures& f) {
        char s[256];
        std::snprintf(s, sizeof s, "{\"time_us\": %.3f, \"tokens_s\": %.3f, \"memory_bytes\": %.0f, \"effective_bits\": %.4f, \"sensitivity\": %.6g}",
                      f.time_us, f.tokens_s, f.memory_bytes, f.effective_bits, f.sensitivity);
        return std::string(s);
    };
    out += "  \"base\": " + point(r.base) + ",\n  \"chosen\": " + point(r.estimated) + ",\n  \"planned\": " + point(r.planned) + ",\n";
    if (r.bits_only) out += "  \"bits_only\": " + point(*r.bits_only) + ",\n";
    out += "  \"points\": [\n";
    for (std::size_t i = 0; i < r.frontier.size(); ++i) out += "    " + point(r.frontier[i]) + (i + 1 < r.frontier.size() ? ",\n" : "\n");
    out += "  ]\n}\n";
    return out;
}

}  // namespace kbp::tune
