// kbp tune (tune/): on a model small enough to plan every assignment, the tuned plan costs
// exactly the brute-force optimum of kbp's own cost for every budget kind and value tried, and
// no frontier point dominates another; the search alone against enumeration; the refusals.
#include <catch2/catch.hpp>

#include <algorithm>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "cli_runner.hpp"
#include "cost/cost.hpp"
#include "support.hpp"
#include "tune/search.hpp"
#include "tune/tune.hpp"

namespace {

using namespace kbp;

std::string four_layers() { return test::source_dir() + "/tests/configs/four-layer-llama.json"; }

// Scores for the four down projections only: the other units stay at the base (bf16).
void write_down_scores(const std::string& path) {
    std::ofstream f(path);
    f << R"({"schema": "kbp-sensitivity/v1", "source": "test: made-up scores, the down projections only", "modules": {)";
    for (int l = 0; l < 4; ++l)
        f << (l ? "," : "") << "\"model.layers." << l << ".mlp.down_proj\": {\"bf16\": 0, \"fp8-dynamic\": " << 0.01 * (l + 1)
          << ", \"w4a16-int4\": " << 0.05 * (4 - l) << "}";
    f << "}}";
}

struct Measured {
    double time_us = 0, memory = 0, bits = 0, sensitivity = 0, tokens_s = 0;
};

double measure(const Measured& m, tune::Measure k) {
    switch (k) {
        case tune::Measure::time: return m.time_us;
        case tune::Measure::memory: return m.memory;
        case tune::Measure::effective_bits: return m.bits;
        case tune::Measure::sensitivity: return m.sensitivity;
        case tune::Measure::tokens_s: return m.tokens_s;
    }
    return 0;
}

}  // namespace

TEST_CASE("tune: the choice costs the brute-force optimum of every assignment for every budget kind", "[tune]") {
    auto planner = planner::Planner::load(std::nullopt);
    REQUIRE(planner);
    test::TempDir dir;
    const std::string scores = dir.file("down.json");
    write_down_scores(scores);

    tune::TuneRequest request;
    request.base.config_path = four_layers();
    request.base.target = "h100";
    request.candidates = {"fp8-dynamic", "w4a16-int4"};
    request.sensitivity = scores;
    request.context = 2048;
    request.budget = *tune::parse_budget("effective_bits=16");
    auto loose = tune::tune(*planner, request);
    INFO((loose ? std::string() : loose.error().text()));
    REQUIRE(loose);
    REQUIRE(loose->options.size() == 3);
    // Every unit of the model, four of them free (the down projections), the rest at bf16.
    std::size_t free = 0;
    double unit_params = 0;
    for (const auto& t : loose->units) {
        free += t.scored;
        unit_params += t.options[0].parameters;
        if (t.scored) CHECK(t.unit.name.find("down_proj") != std::string::npos);
    }
    REQUIRE(free == 4);

    // Every one of the 3^4 assignments, planned and costed whole.
    std::vector<std::size_t> down;
    for (std::size_t u = 0; u < loose->units.size(); ++u)
        if (loose->units[u].scored) down.push_back(u);
    std::vector<Measured> all;
    std::vector<std::vector<int>> picks;
    planner::CostOptions cost_options;
    cost_options.context = request.context;
    for (int code = 0; code < 81; ++code) {
        planner::PlanRequest r = request.base;
        r.recipe = "bf16";
        std::vector<int> pick;
        double bits = 0, sensitivity = 0;
        for (std::size_t u = 0; u < loose->units.size(); ++u) bits += loose->units[u].options[0].stored_bytes * 8;
        for (std::size_t d = 0, c = static_cast<std::size_t>(code); d < down.size(); ++d, c /= 3) {
            const auto& opt = loose->units[down[d]].options[c % 3];
            pick.push_back(static_cast<int>(c % 3));
            for (const auto& [id, f] : opt.formats) r.node_formats[id] = f;
            bits += (opt.stored_bytes - loose->units[down[d]].options[0].stored_bytes) * 8;
            sensitivity += opt.score;
        }
        auto p = planner->plan(r);
        REQUIRE(p);
        auto c = planner::estimate_cost(planner->catalog(), p->blueprint, cost_options);
        REQUIRE(c);
        Measured m;
        m.time_us = c->total.time_us;
        m.memory = c->stored_weight_bytes + c->resident_state_bytes + c->activation_memory_bytes;
        m.bits = bits / unit_params;
        m.sensitivity = sensitivity;
        m.tokens_s = 1e6 / m.time_us;
        all.push_back(m);
        picks.push_back(pick);
    }

    const std::vector<std::pair<tune::Measure, std::string>> kinds{
        {tune::Measure::memory, "memory"}, {tune::Measure::effective_bits, "effective_bits"},
        {tune::Measure::sensitivity, "sensitivity"}, {tune::Measure::tokens_s, "tokens_s"}};
    int tried = 0;
    for (const auto& [kind, name] : kinds) {
        // Budgets at each assignment's own figure: every step of the frontier is a boundary.
        std::vector<double> values;
        for (const auto& m : all) values.push_back(measure(m, kind));
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end(), [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(a); }), values.end());
        for (std::size_t i = 0; i < values.size(); i += std::max<std::size_t>(1, values.size() / 9)) {
            const double value = values[i];
            const bool at_most = kind != tune::Measure::tokens_s;
            double best = INFINITY;
            for (const auto& m : all) {
                const double v = measure(m, kind);
                const bool within = at_most ? v <= value * (1 + 1e-9) : v >= value * (1 - 1e-9);
                if (within) best = std::min(best, m.time_us);
            }
            char text[128];
            std::snprintf(text, sizeof text, "%s=%.17g%s", name.c_str(), kind == tune::Measure::memory ? value : value, kind == tune::Measure::memory ? "B" : "");
            INFO(text);
            auto b = tune::parse_budget(text);
            REQUIRE(b);
            request.budget = *b;
            auto r = tune::tune(*planner, request);
            INFO((r ? std::string() : r.error().text()));
            REQUIRE(r);
            ++tried;
            CHECK(r->planned.time_us == Approx(best).epsilon(1e-9));
            CHECK(r->estimated.time_us == Approx(r->planned.time_us).epsilon(1e-9));
            // The bits-only allocation spends no more bits than the choice; within a bits budget the
            // choice, optimal for time, is never slower than it.
            REQUIRE(r->bits_only);
            CHECK(r->bits_only->effective_bits <= r->estimated.effective_bits + 1e-9);
            if (kind == tune::Measure::effective_bits) CHECK(r->planned.time_us <= r->bits_only->time_us * (1 + 1e-9));
            // No frontier point is dominated by another.
            for (const auto& a : r->frontier)
                for (const auto& c : r->frontier) {
                    const bool better_or_equal = c.time_us <= a.time_us && (at_most ? measure({c.time_us, c.memory_bytes, c.effective_bits, c.sensitivity, c.tokens_s}, kind) <=
                                                                                          measure({a.time_us, a.memory_bytes, a.effective_bits, a.sensitivity, a.tokens_s}, kind)
                                                                                    : c.tokens_s >= a.tokens_s);
                    const bool strictly = c.time_us < a.time_us || measure({c.time_us, c.memory_bytes, c.effective_bits, c.sensitivity, c.tokens_s}, kind) !=
                                                                       measure({a.time_us, a.memory_bytes, a.effective_bits, a.sensitivity, a.tokens_s}, kind);
                    CHECK_FALSE((better_or_equal && strictly && &a != &c && kind != tune::Measure::tokens_s));
                }
        }
    }
    CHECK(tried >= 16);
}

TEST_CASE("tune search: the Pareto dynamic programme matches enumeration on random problems", "[tune]") {
    std::uint64_t seed = 12345;
    auto next = [&] {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(seed >> 11) / 9007199254740992.0;
    };
    for (int trial = 0; trial < 40; ++trial) {
        tune::Problem p;
        p.fixed_objective = 10;
        p.fixed_constraint = 1;
        const int units = 5, options = 3;
        for (int u = 0; u < units; ++u) {
            std::vector<tune::Option> o;
            for (int k = 0; k < options; ++k) o.push_back({next() * 10, next() * 10, !(k > 0 && next() < 0.15)});
            p.units.push_back(o);
        }
        const double limit = 1 + next() * 40;
        double best = INFINITY;
        for (int code = 0; code < 243; ++code) {
            double obj = p.fixed_objective, con = p.fixed_constraint;
            bool ok = true;
            for (int u = 0, c = code; u < units; ++u, c /= 3) {
                const auto& o = p.units[static_cast<std::size_t>(u)][static_cast<std::size_t>(c % 3)];
                ok = ok && o.available;
                obj += o.objective, con += o.constraint;
            }
            if (ok && con <= limit) best = std::min(best, obj);
        }
        auto s = tune::solve(p, limit);
        INFO("trial " << trial);
        CHECK(s.feasible == std::isfinite(best));
        if (s.feasible) {
            CHECK(s.best.objective == Approx(best));
            CHECK(s.best.constraint <= limit + 1e-9);
            CHECK(s.lower_bound == Approx(s.best.objective));
        }
        // Thinned to 3 points a front, the answer stays feasible and the bound below it.
        auto thin = tune::solve(p, limit, 3);
        if (thin.feasible) {
            CHECK(thin.best.constraint <= limit + 1e-9);
            CHECK(thin.lower_bound <= thin.best.objective + 1e-9);
            CHECK(thin.lower_bound <= best + 1e-9);
        }
    }
}

TEST_CASE("tune: refusals and skips", "[tune][cli]") {
    test::TempDir dir;
    const std::string config = test::quote(test::source_dir() + "/samples/llama-3.1-8b/config.json");
    // A budget no choice meets: exit 2, naming the least any choice reaches.
    auto tight = test::kbp_run(dir, "tune " + config + " --target h100 --candidates fp8-dynamic --budget memory=4GB -o " + test::quote(dir.file("t.json")));
    INFO(test::show(tight));
    CHECK(tight.exit == 2);
    CHECK_THAT(tight.err, Catch::Contains("kbp tune: error: --budget: memory=4GB cannot be met") && Catch::Contains("the least any choice reaches is 9.62 GB"));
    CHECK_FALSE(std::ifstream(dir.file("t.json")).good());

    // A candidate the target cannot plan (NVFP4 activations on an H100) is said and skipped.
    auto skipped = test::kbp_run(dir, "tune " + config + " --target h100 --candidates fp8-dynamic,nvfp4 --budget effective_bits=12 -o " + test::quote(dir.file("s.json")));
    INFO(test::show(skipped));
    CHECK(skipped.exit == 0);
    CHECK_THAT(skipped.out, Catch::Contains("note: candidate 'nvfp4' is not planned here, skipped") && Catch::Contains("is not available on target 'h100'"));
    CHECK_THAT(skipped.out, Catch::Contains("no --sensitivity: scores from prior"));

    // A misspelt candidate is refused with its hint.
    auto misspelt = test::kbp_run(dir, "tune " + config + " --target h100 --candidates fp8-dynamc --budget effective_bits=12 -o " + test::quote(dir.file("m.json")));
    CHECK(misspelt.exit == 2);
    CHECK_THAT(misspelt.err, Catch::Contains("--candidates: no recipes file 'fp8-dynamc' (did you mean 'fp8-dynamic'?)"));

    // A sensitivity file naming a module the model lacks: exit 2, with a near miss suggested.
    std::ofstream(dir.file("bad.json")) << R"({"schema": "kbp-sensitivity/v1", "modules": {"model.layers.3.mlp.down_prj": {"fp8-dynamic": 0.1}}})";
    auto bad = test::kbp_run(dir, "tune " + config + " --target h100 --candidates fp8-dynamic --budget effective_bits=12 --sensitivity " +
                                      test::quote(dir.file("bad.json")) + " -o " + test::quote(dir.file("b.json")));
    INFO(test::show(bad));
    CHECK(bad.exit == 2);
    CHECK_THAT(bad.err, Catch::Contains("model.layers.3.mlp.down_prj") && Catch::Contains("did you mean 'model.layers.3.mlp.down_proj'"));

    // A bad budget is a usage error.
    auto usage = test::kbp_run(dir, "tune " + config + " --candidates fp8-dynamic --budget bits=4 -o " + test::quote(dir.file("u.json")));
    CHECK(usage.exit == 1);
    CHECK_THAT(usage.err, Catch::Contains("unknown kind 'bits'"));
}

TEST_CASE("tune: the tuned plan is an ordinary plan that kbp why explains", "[tune][cli]") {
    test::TempDir dir;
    const std::string plan = dir.file("tuned.json");
    auto run = test::kbp_run(dir, "tune " + test::quote(test::source_dir() + "/samples/llama-3.1-8b/config.json") +
                                      " --target h100 --candidates fp8-dynamic,w4a16-int4 --budget sensitivity=40 -o " + test::quote(plan) +
                                      " --frontier " + test::quote(dir.file("frontier.json")));
    INFO(test::show(run));
    REQUIRE(run.exit == 0);
    CHECK_THAT(run.out, Catch::Contains("search: exact"));
    auto check = test::kbp_run(dir, "check " + test::quote(plan));
    CHECK(check.exit == 0);
    const std::string text = test::slurp(plan);
    CHECK_THAT(text, Catch::Contains("\"tune\": {") && Catch::Contains("\"budget\": \"sensitivity=40\"") && Catch::Contains("\"node_formats\""));
    CHECK_THAT(test::slurp(dir.file("frontier.json")), Catch::Contains("\"schema\": \"kbp-frontier/v1\""));
    auto why = test::kbp_run(dir, "why " + test::quote(plan) + " l0.mlp.down");
    INFO(test::show(why));
    CHECK(why.exit == 0);
    CHECK_THAT(why.out, Catch::Contains("recipe:      kbp tune: unit model.layers.0.mlp.down_proj takes"));
    // The same inputs give the same bytes.
    std::rename(plan.c_str(), dir.file("first.json").c_str());
    auto again = test::kbp_run(dir, "tune " + test::quote(test::source_dir() + "/samples/llama-3.1-8b/config.json") +
                                        " --target h100 --candidates fp8-dynamic,w4a16-int4 --budget sensitivity=40 -o " + test::quote(plan) +
                                        " --frontier " + test::quote(dir.file("frontier.json")));
    REQUIRE(again.exit == 0);
    CHECK(test::slurp(plan) == text);
}

TEST_CASE("tune: units an option's plan launches in one group are one unit, so the estimate is the plan", "[tune]") {
    // The seed's GB10 engine runs a KDA layer's q, k, v, f_a, b and g_a projections as one NVFP4
    // GEMV (and the MoE's experts and shared expert in fused groups): a format for one alone
    // would change a group the others share. Base bf16 (no such groups), candidate the seed's
    // NVFP4 recipe (which fuses them): the units follow the candidate's groups too.
    auto planner = planner::Planner::load(std::nullopt);
    REQUIRE(planner);
    tune::TuneRequest request;
    request.base.config_path = test::source_dir() + "/samples/glm-5.3-flash/config.json";
    request.base.target = "gb10";
    request.base.engine = "met";
    request.base.recipe = "bf16";
    request.candidates = {"glm-5.3-flash-nvfp4"};
    request.budget = *tune::parse_budget("sensitivity=100");
    auto tuned = tune::tune(*planner, request);
    INFO((tuned ? std::string() : tuned.error().text()));
    REQUIRE(tuned);
    const auto kda = std::find_if(tuned->units.begin(), tuned->units.end(),
                                  [](const tune::TunedUnit& t) { return t.unit.name.rfind("model.layers.0.self_attn.qkv_proj", 0) == 0; });
    REQUIRE(kda != tuned->units.end());
    for (const char* merged : {"self_attn.f_a_proj", "self_attn.b_proj", "self_attn.g_a_proj"}) {
        INFO(kda->unit.name << " lacks " << merged);
        CHECK(kda->unit.name.find(std::string("model.layers.0.") + merged) != std::string::npos);
    }
    // Units sum to the plan: the estimate is the tuned plan's own cost (before merging, +14%).
    CHECK(tuned->estimated.time_us == Approx(tuned->planned.time_us).epsilon(0.001));
    CHECK(tuned->planned.sensitivity <= 100.0);
    // The text names the units where a bits-only allocation at the same bits chose otherwise.
    REQUIRE(tuned->bits_only);
    std::size_t differ = 0;
    for (std::size_t u = 0; u < tuned->units.size(); ++u) differ += tuned->units[u].chosen != tuned->bits_only_pick[u];
    CHECK(differ > 0);
    const std::string text = tune::tune_text(*tuned, 3);
    CHECK(text.find(std::to_string(differ) + " of " + std::to_string(tuned->units.size()) + " units differ") != std::string::npos);
    CHECK(text.find("  tune glm-5.3-flash-nvfp4, bits-only bf16: model.layers.{") != std::string::npos);
}
