// What a plan's weights store and what one step reads of them: a tied LM head that reads the
// embedding's own storage is stored once (gemma-3-1b in BF16: about 2.0 GB, not 2.6), while a step
// still reads the table twice (the gather's row, the head's whole table); a head in another
// format than the table is a second tensor; and on every sample the active parameters never
// exceed the parameters.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cost/cost.hpp"
#include "planner/plan.hpp"
#include "schema/memory.hpp"
#include "support.hpp"

using namespace kbp;
namespace fs = std::filesystem;

namespace {

const std::string root = KBP_SOURCE_DIR;

schema::Blueprint plan_of(const std::string& config, std::optional<std::string> target = {}, std::optional<std::string> recipe = {},
                          std::vector<std::pair<std::string, std::string>> settings = {}) {
    planner::PlanRequest r;
    r.config_path = config;
    r.target = std::move(target);
    r.recipe = std::move(recipe);
    r.settings = std::move(settings);
    r.command = "kbp plan (test)";
    auto p = planner::make_plan(r);
    INFO(config << ": " << (p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    return std::move(p->blueprint);
}

planner::CostReport cost_of(const schema::Blueprint& b) {
    auto cost = planner::estimate_cost(b, planner::CostOptions{});
    INFO((cost ? std::string() : cost.error().text()));
    REQUIRE(cost.ok());
    return *cost;
}

// The config.json of every folder directly under `dir`, sorted.
std::vector<std::string> configs_under(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& d : fs::directory_iterator(dir))
        if (fs::exists(d.path() / "config.json")) out.push_back((d.path() / "config.json").string());
    std::sort(out.begin(), out.end());
    return out;
}

const std::string gemma = root + "/samples/gemma-3-1b/config.json";
constexpr std::int64_t gemma_parameters = 999'885'952;
constexpr std::int64_t gemma_table = 262'144LL * 1152 * 2;  // vocab x hidden in bf16

}  // namespace

TEST_CASE("weights: active parameters never exceed the parameters on any sample", "[memory][samples]") {
    // The samples as their config's hints plan them; the published quantized checkpoints in their
    // own precision, on a B200 (the one target that serves NVFP4 activations as well as the rest).
    std::vector<std::pair<std::string, std::optional<std::string>>> plans;
    for (const auto& c : configs_under(root + "/samples")) plans.emplace_back(c, std::nullopt);
    for (const auto& c : configs_under(root + "/samples/quantized")) plans.emplace_back(c, "b200");
    REQUIRE(plans.size() >= 40);
    std::size_t moe = 0, tied = 0;
    for (const auto& [config, target] : plans) {
        INFO(config);
        const auto plan = plan_of(config, target);
        const auto m = schema::compute_memory(plan);
        CHECK(m.parameters > 0);
        CHECK(m.active_parameters > 0);
        CHECK(m.active_parameters <= m.parameters);
        if (m.active_parameters < m.parameters / 2) ++moe;
        if (m.tied_head_bytes > 0) ++tied;
    }
    CHECK(moe >= 10);  // the routed-expert models read a fraction of their weights
    CHECK(tied == 14);  // gemma-2-9b, gemma-3-1b, gemma-3-4b-it, granite-4.0-h-tiny, granite-3.3-2b-instruct, command-r-v01, starcoder2-3b,
                        // smollm3-3b-base, ernie-4.5-0.3b-pt, ernie-4.5-21b-a3b-pt, hunyuan-7b-instruct, command-r7b-12-2024,
                        // hunyuan-a13b-instruct and lfm2-1.2b tie their head to the table
}

TEST_CASE("weights: gemma-3-1b in BF16 stores its tied embedding table once and reads it twice a step", "[memory][tied]") {
    const auto plan = plan_of(gemma, "h100", "bf16");
    const auto m = schema::compute_memory(plan);
    CHECK(m.parameters == gemma_parameters);
    CHECK(m.active_parameters == gemma_parameters);  // the head streams the whole table: a token reads every weight
    // Every weight once: the table's 603,979,776 B stand for the head's too. The 268,544 B short
    // of 2 B a parameter are the norms' scales, which the plan gives no weight format.
    CHECK(m.tied_head_bytes == gemma_table);
    CHECK(m.weight_bytes == 1'999'503'360);
    CHECK(std::abs(static_cast<double>(m.weight_bytes) / (2.0 * gemma_parameters) - 1) < 0.01);
    const auto cost = cost_of(plan);
    CHECK(cost.stored_weight_bytes == 1'999'503'360.0);
    CHECK(cost.tied_head_bytes == static_cast<double>(gemma_table));
    // A step reads all but the table's rows, one row for the gather and the whole table for the head.
    CHECK(cost.total.weight_bytes == Approx(1'999'503'360.0 + 1152 * 2));
    const std::string text = planner::cost_text(cost);
    CHECK_THAT(text, Catch::Contains("per step: weights read 1999.51 MB"));
    CHECK_THAT(text, Catch::Contains("weights stored 1999.50 MB: the LM head reads the tied embedding table (603.98 MB)"));
    CHECK_THAT(planner::memory_fit_text(cost), Catch::StartsWith("needs 2.0 GB (weights stored 2.0 GB + "));
    CHECK_THAT(schema::memory_text(m), Catch::Contains("weights stored 1,999,503,360 B (1999.5 MB), the LM head reading the tied embedding table "
                                                         "(603,979,776 B stored once)"));
    auto json = nlohmann::json::parse(planner::cost_json(cost));
    CHECK(json["memory"]["stored_weight_bytes"] == 1'999'503'360.0);
    CHECK(json["memory"]["tied_head_bytes"] == static_cast<double>(gemma_table));
}

TEST_CASE("weights: an untied head, or a tied one in another format, is a second tensor", "[memory][tied]") {
    // Untied (a config saying tie_word_embeddings false): the head is its own parameters.
    test::TempDir dir;
    auto cfg = test::OJson::parse(test::slurp(gemma));
    cfg["tie_word_embeddings"] = false;
    test::spit(dir.file("config.json"), cfg.dump());
    const auto untied = schema::compute_memory(plan_of(dir.file("config.json"), "h100", "bf16"));
    CHECK(untied.parameters == gemma_parameters + gemma_table / 2);
    CHECK(untied.tied_head_bytes == 0);
    CHECK(untied.weight_bytes == 1'999'503'360 + gemma_table);
    CHECK(untied.active_parameters == untied.parameters - (262'144 - 1) * 1152);  // one row of the table
    // Tied, but the recipe quantizes the head (lm_head_dtype): the engine keeps an FP8 copy beside
    // the bf16 table, though the parameters are the table's.
    const auto fp8_head = schema::compute_memory(plan_of(gemma, "h100", "bf16", {{"lm_head_dtype", "fp8/channel"}}));
    CHECK(fp8_head.parameters == gemma_parameters);
    CHECK(fp8_head.active_parameters == gemma_parameters);
    CHECK(fp8_head.tied_head_bytes == 0);
    CHECK(fp8_head.weight_bytes == 1'999'503'360 + 262'144LL * 1152 + 262'144LL * 4);  // E4M3 codes + an f32 scale a row
}
