// kbp stats --cost --sweep (planner/cost_sweep.hpp) and its chart (exporters/sweep_chart.hpp):
// the sweep's points are the cost at each value; a longer context costs more and needs more
// memory, and where it stops fitting the target is said; more rows raise tokens/s; the chart
// draws one point per value, coloured by what bounds it, and refuses a malformed sweep with its place.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "exporters/chart_svg.hpp"
#include "exporters/sweep_chart.hpp"
#include "cost/cost_sweep.hpp"
#include "planner/plan.hpp"
#include "support.hpp"

namespace {

using kbp::planner::SweepAxis;

const kbp::planner::Planner& planner() {
    static const kbp::planner::Planner p = [] {
        auto loaded = kbp::planner::Planner::load(std::nullopt);
        REQUIRE(loaded);
        return std::move(*loaded);
    }();
    return p;
}

kbp::schema::Blueprint llama_plan() {
    kbp::planner::PlanRequest request;
    request.config_path = kbp::test::source_dir() + "/samples/llama-3.1-8b/config.json";
    request.recipe = "fp8-dynamic";
    request.target = "h100";
    auto plan = planner().plan(request);
    REQUIRE(plan);
    return std::move(plan->blueprint);
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("a sweep spec doubles from its first value to its last, or lists its values", "[sweep]") {
    auto range = kbp::planner::parse_sweep("context=1k..128k");
    REQUIRE(range);
    CHECK(range->axis == SweepAxis::context);
    CHECK(range->values == std::vector<std::int64_t>{1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072});
    auto rows = kbp::planner::parse_sweep("rows=1..100");
    REQUIRE(rows);
    CHECK(rows->values == std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 100});
    auto list = kbp::planner::parse_sweep("context=1024,8192,1m");
    REQUIRE(list);
    CHECK(list->values == std::vector<std::int64_t>{1024, 8192, 1048576});
    for (const char* bad : {"context", "ctx=1..2", "context=8..2", "rows=0..4", "context=4,2", "context=1..x", "context=", "rows=1,,2"}) {
        auto r = kbp::planner::parse_sweep(bad);
        INFO(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == kbp::ErrorCode::usage);
        CHECK(r.error().text().find(std::string("'") + bad + "'") != std::string::npos);
    }
}

TEST_CASE("a context sweep is the cost at each context, and says where the caches stop fitting", "[sweep][cost]") {
    const auto plan = llama_plan();
    kbp::planner::CostOptions options;
    options.target = "h100";
    auto spec = kbp::planner::parse_sweep("context=1k..4m");
    REQUIRE(spec);
    auto sweep = kbp::planner::sweep_cost(planner().catalog(), plan, options, *spec);
    REQUIRE(sweep);
    REQUIRE(sweep->points.size() == spec->values.size());
    for (std::size_t i = 0; i < sweep->points.size(); ++i) {
        const auto& p = sweep->points[i];
        options.context = p.value;
        auto one = kbp::planner::estimate_cost(planner().catalog(), plan, options);
        REQUIRE(one);
        CHECK(p.tokens_per_s == Approx(one->tokens_per_s).epsilon(1e-12));
        CHECK(p.memory_needed_bytes == Approx(one->memory_bytes - one->headroom_bytes));
        CHECK(p.fits == (one->headroom_bytes >= 0));
        if (i > 0) {
            CHECK(p.tokens_per_s < sweep->points[i - 1].tokens_per_s);
            CHECK(p.memory_needed_bytes > sweep->points[i - 1].memory_needed_bytes);
        }
    }
    // Llama-3.1-8B's KV cache is 64 KiB a token in fp8 (32 layers x 8 heads x 128 x 2 x 1 B):
    // 4M tokens are 275 GB, far past the H100's 85.9 GB; 1k tokens fit.
    CHECK(sweep->points.front().fits);
    CHECK_FALSE(sweep->points.back().fits);
    const std::string text = kbp::planner::sweep_text(*sweep);
    CHECK(text.find("does not fit the 85.9 GB of h100 from context") != std::string::npos);

    // The chart: one point per value, the curve, the shaded range, the legend.
    auto svg = kbp::exporters::sweep_chart_svg(kbp::planner::sweep_json(*sweep), "sweep.json");
    REQUIRE(svg);
    CHECK(count(*svg, "<circle") == sweep->points.size() + 2);  // + the legend's two
    CHECK(count(*svg, "<polyline") == 1);
    CHECK(svg->find("shaded: does not fit 85.9 GB") != std::string::npos);
    CHECK(svg->find(">4M</text>") != std::string::npos);
    using kbp::exporters::ChartKind;
    CHECK(kbp::exporters::chart_kind(kbp::planner::sweep_json(*sweep)) == ChartKind::sweep);
    CHECK(kbp::exporters::chart_kind(kbp::test::slurp(kbp::test::seed_path())) == ChartKind::none);
}

TEST_CASE("a rows sweep raises tokens/s with the rows, and marks where the step turns compute-bound", "[sweep][cost]") {
    const auto plan = llama_plan();
    kbp::planner::CostOptions options;
    options.target = "h100";
    options.context = 16;  // caches small: the weights' reads and the GEMMs decide
    auto spec = kbp::planner::parse_sweep("rows=1..4096");
    REQUIRE(spec);
    auto sweep = kbp::planner::sweep_cost(planner().catalog(), plan, options, *spec);
    REQUIRE(sweep);
    for (std::size_t i = 1; i < sweep->points.size(); ++i) CHECK(sweep->points[i].tokens_per_s > sweep->points[i - 1].tokens_per_s);
    CHECK(sweep->points.front().compute_share == 0.0);
    CHECK(sweep->points.back().compute_share > 0.5);
    const std::string text = kbp::planner::sweep_text(*sweep);
    CHECK(text.find("compute-bound (over half the step) from rows") != std::string::npos);
    auto svg = kbp::exporters::sweep_chart_svg(kbp::planner::sweep_json(*sweep), "sweep.json");
    REQUIRE(svg);
    CHECK(count(*svg, "fill=\"#e07b00\"") >= 2);  // compute-bound points, and the legend
}

TEST_CASE("the chart refuses a malformed sweep with its place", "[sweep][errors]") {
    using J = nlohmann::json;
    J good = {{"schema", "kbp-sweep/v1"},
              {"axis", "context"},
              {"points", J::array({J{{"context", 1024}, {"tokens_per_s", 10.0}, {"compute_share", 0.0}, {"fits", true}},
                                   J{{"context", 2048}, {"tokens_per_s", 9.0}, {"compute_share", 0.0}, {"fits", true}}})}};
    REQUIRE(kbp::exporters::sweep_chart_svg(good.dump(), "s.json"));
    auto refused = [&](J doc, const std::string& where) {
        auto r = kbp::exporters::sweep_chart_svg(doc.dump(), "s.json");
        INFO(doc.dump());
        REQUIRE_FALSE(r);
        CHECK(r.error().text().rfind("s.json: " + where + ": ", 0) == 0);
    };
    J d = good;
    d["points"][1]["tokens_per_s"] = "fast";
    refused(d, "/points/1/tokens_per_s");
    d = good;
    d["points"][1]["context"] = 512;
    refused(d, "/points/1/context");
    d = good;
    d["axis"] = "batch";
    refused(d, "/axis");
    d = good;
    d["points"] = J::array();
    refused(d, "/points");
    d = good;
    d["points"][0].erase("fits");
    refused(d, "/points/0/fits");
}
