// The cost read from the plan alone (its node_costs), and memory that must fit: the GLM sample
// and kbp's plan of its config cost the same, by hand (the fallback for a plan without
// node_costs: test_ops_data.cpp); a small llama's cache size worked out by
// hand from its config; the largest context that fits a target, solved and checked at its edges;
// a target other than the plan's labelled a what-if.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "exporters/sweep_chart.hpp"
#include "cost/cost.hpp"
#include "cost/cost_sweep.hpp"
#include "planner/plan.hpp"
#include "planner/state_bytes.hpp"
#include "schema/numbers.hpp"
#include "schema/reader.hpp"
#include "schema/writer.hpp"
#include "support.hpp"

using namespace kbp;

namespace {

planner::CostReport cost_of(const schema::Blueprint& b, std::int64_t context, std::optional<std::string> target = std::nullopt) {
    planner::CostOptions options;
    options.context = context;
    options.target = std::move(target);
    auto cost = planner::estimate_cost(b, options);
    INFO((cost ? std::string() : cost.error().text()));
    REQUIRE(cost.ok());
    return *cost;
}

// `b`'s cost swept as `spec` says ("context=1k..2k"), on `target` (default: the plan's own).
planner::Sweep sweep_of(const schema::Blueprint& b, const std::string& spec, std::optional<std::string> target = std::nullopt) {
    auto parsed = planner::parse_sweep(spec);
    REQUIRE(parsed);
    planner::CostOptions options;
    options.target = std::move(target);
    auto sweep = planner::sweep_cost(b, options, *parsed);
    INFO((sweep ? std::string() : sweep.error().text()));
    REQUIRE(sweep);
    return *sweep;
}

schema::Blueprint small_llama() {
    planner::PlanRequest request;
    request.config_path = KBP_SMALL_LLAMA_CONFIG;
    auto plan = planner::make_plan(request);
    INFO((plan ? std::string() : plan.error().text()));
    REQUIRE(plan.ok());
    return std::move(plan->blueprint);
}

bool has_note(const planner::CostReport& r, const std::string& part) {
    for (const auto& n : r.notes)
        if (n.find(part) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("cost: the GLM sample and kbp's plan of its config cost the same state, as worked by hand", "[planner][cost]") {
    const schema::Blueprint& sample = test::seed();  // samples/glm-5.3-flash/decode.plan.json: no symbols
    const schema::Blueprint& kbp_plan = test::glm_plan("decode", 1);
    REQUIRE(!sample.symbols);
    REQUIRE(kbp_plan.node_costs);
    auto a = cost_of(sample, 8192), b = cost_of(kbp_plan, 8192);

    // config.json: 45 layers, every 4th DeepSeek sparse attention (layers 3, 7, ..., 43: 11), the
    // other 34 KDA linear attention. Held at 8192 tokens, one sequence:
    //   KDA: conv state 24576 channels (q, k: 64 x 128 each; v: 64 x 128) x 4 taps x f32 = 393,216 B,
    //        recurrent state 64 heads x 128 x 128 x f32 = 4,194,304 B.
    //   DSA: latent cache 8192 x kv_lora 512 x fp8 1 B = 4,194,304 B, indexer keys
    //        8192 x 128 x bf16 2 B / kpool 4 = 524,288 B.
    const double held = 34 * (393216.0 + 4194304.0) + 11 * (4194304.0 + 524288.0);
    CHECK(held == 207880192.0);
    // Moved per decode step: KDA reads and writes both states (2 x) plus the conv snapshot;
    // DSA writes one latent row (512 B) and one pooled indexer key (128 x 2 B), scores every
    // pooled key, and reads only index_topk 2048 latent rows.
    const double moved = 34 * (2 * 393216.0 + 393216.0 + 2 * 4194304.0) + 11 * (512.0 + 256.0 + 524288.0 + 2048.0 * 512);
    CHECK(moved == 342630656.0);
    for (const auto* r : {&a, &b}) {
        CHECK(r->resident_state_bytes == held);
        CHECK(r->total.state_bytes == moved);
    }
    // The rest of the cost agrees too: every expert's weights (the sample's router edge says 288).
    CHECK(a.stored_weight_bytes == b.stored_weight_bytes);
    CHECK(a.total.weight_bytes == b.total.weight_bytes);
    CHECK(a.total.flops == Approx(b.total.flops));
    CHECK(a.tokens_per_s == Approx(b.tokens_per_s));
    CHECK(!has_note(a, "not costed"));
    CHECK(!has_note(b, "not costed"));
}

TEST_CASE("cost: kbp's plan records each state node's bytes over context, rows and sequences alone", "[planner][cost]") {
    const schema::Blueprint& plan = test::glm_plan("decode", 1);
    REQUIRE(plan.node_costs);
    const schema::JsonValue* attend = nullptr;
    for (const auto& [id, value] : *plan.node_costs)
        if (id == "l3.dsa.attend") attend = &value;
    REQUIRE(attend);
    REQUIRE(attend->find("state_held"));
    CHECK(attend->find("state_held")->string() == "sequences*context*512*1");
    CHECK(attend->find("state_bytes")->string() == "sequences*min(context, 2048)*512*1");
    for (const auto& [id, value] : *plan.node_costs)
        for (const auto& [measure, text] : value.object()) {
            auto v = planner::eval_node_cost(text.string(), 100, 3, 2);
            INFO(id << "/" << measure << ": " << text.string());
            CHECK(v.ok());
        }
    // The member survives writing and reading the plan.
    auto again = schema::read_blueprint(schema::write_blueprint(plan), "<plan>");
    REQUIRE(again.ok());
    CHECK(again->node_costs == plan.node_costs);
}

TEST_CASE("cost: a small llama's cache size worked out by hand from its config", "[planner][cost]") {
    // tests/configs/small-llama.json: 2 layers, 2 KV heads of 128; fp8-dynamic caches K and V in
    // fp8 (1 B). Per token and layer: (2 x 128 K + 2 x 128 V) x 1 B = 512 B.
    const schema::Blueprint plan = small_llama();
    for (std::int64_t context : {0, 1, 4096, 100000}) {
        auto r = cost_of(plan, context);
        CHECK(r.resident_state_bytes == 2.0 * static_cast<double>(context) * 512);
    }
}

TEST_CASE("cost: the largest context that fits is solved against the target's memory", "[planner][cost]") {
    // Memory alone limits it here: the plan's max_position_embeddings (8192) is taken out (the
    // next test caps by it).
    schema::Blueprint plan = small_llama();
    REQUIRE(plan.config_fields);
    std::erase_if(*plan.config_fields, [](const auto& f) { return f.first == "max_position_embeddings"; });
    auto on_h100 = cost_of(plan, 4096);
    // H100's 80 GiB less the weights and activations, over 1024 B a token (2 layers x 512 B).
    CHECK(on_h100.memory_bytes == 85899345920.0);
    const double fixed = on_h100.stored_weight_bytes + on_h100.activation_memory_bytes;
    REQUIRE(on_h100.max_context_tokens);
    CHECK(*on_h100.max_context_tokens == static_cast<std::int64_t>((85899345920.0 - fixed) / 1024));
    CHECK(on_h100.headroom_bytes == Approx(on_h100.memory_bytes - on_h100.stored_weight_bytes - 2.0 * 4096 * 512 -
                                           on_h100.activation_memory_bytes));
    CHECK(on_h100.activation_memory_bytes > 0);

    // A device with room for the weights, the activations and exactly 10,000 tokens of cache
    // and 1000 B to spare.
    test::TempDir dir;
    auto target = nlohmann::ordered_json::parse(test::slurp(test::source_dir() + "/planner/data/targets/h100.json"));
    target["memory_bytes"] = static_cast<std::int64_t>(fixed) + 10000 * 1024 + 1000;
    const std::string path = dir.path() + "/h100.json";
    test::spit(path, target.dump(2));
    auto small = cost_of(plan, 4096, path);
    REQUIRE(small.max_context_tokens);
    CHECK(*small.max_context_tokens == 10000);
    CHECK(small.headroom_bytes == Approx((10000 - 4096) * 1024.0 + 1000));
    // At that context the headroom is the 1000 B to spare; one token more does not fit.
    auto at_max = cost_of(plan, 10000, path);
    CHECK(at_max.headroom_bytes == Approx(1000));
    auto over = cost_of(plan, 10001, path);
    CHECK(over.headroom_bytes < 0);
    CHECK(planner::memory_fit_text(over).find("short by") != std::string::npos);
    CHECK_THAT(planner::memory_fit_text(small), Catch::EndsWith("; the largest context that fits is 10,000 tokens x 1 rows"));
    auto json = nlohmann::json::parse(planner::cost_json(small));
    CHECK(json["memory"]["max_context_tokens"] == 10000);
    CHECK(json["memory"]["memory_context_tokens"] == 10000);
    CHECK(json["memory"]["max_position_embeddings"].is_null());
    CHECK(json["memory"]["headroom_bytes"].get<double>() == Approx((10000 - 4096) * 1024.0 + 1000));
}

TEST_CASE("cost: the largest context is capped by the model's max_position_embeddings and says so", "[planner][cost]") {
    // The small llama's config says 8192; H100 would hold some 80 million tokens of its cache.
    const schema::Blueprint plan = small_llama();
    REQUIRE(plan.config_field("max_position_embeddings"));
    CHECK(plan.config_field("max_position_embeddings")->integer() == 8192);
    auto r = cost_of(plan, 4096);
    REQUIRE(r.max_context_tokens);
    REQUIRE(r.memory_context_tokens);
    CHECK(*r.max_context_tokens == 8192);
    CHECK(*r.memory_context_tokens == static_cast<std::int64_t>((r.memory_bytes - r.stored_weight_bytes - r.activation_memory_bytes) / 1024));
    CHECK_THAT(planner::memory_fit_text(r), Catch::EndsWith("; the largest context that fits is 8,192 tokens x 1 rows (the model's "
                                                            "max_position_embeddings; memory would hold " +
                                                            schema::with_commas(*r.memory_context_tokens) + ")"));
    auto json = nlohmann::json::parse(planner::cost_json(r));
    CHECK(json["memory"]["max_context_tokens"] == 8192);
    CHECK(json["memory"]["memory_context_tokens"] == *r.memory_context_tokens);
    CHECK(json["memory"]["max_position_embeddings"] == 8192);
    // Llama-3.1-8B in FP8 on H100: memory would hold 1,172,072 tokens, the model runs 131,072.
    planner::PlanRequest request;
    request.config_path = test::source_dir() + "/samples/llama-3.1-8b/config.json";
    request.recipe = "fp8-dynamic";
    request.target = "h100";
    auto llama = planner::make_plan(request);
    REQUIRE(llama.ok());
    CHECK_THAT(planner::memory_fit_text(cost_of(llama->blueprint, 4096)),
               Catch::EndsWith("; the largest context that fits is 131,072 tokens x 1 rows (the model's max_position_embeddings; memory would hold "
                               "1,172,072)"));
    // Caches that stop growing (every layer a sliding window or recurrent state) leave the cap alone.
    planner::CostReport unlimited = r;
    unlimited.memory_context_tokens.reset();
    CHECK_THAT(planner::memory_fit_text(unlimited),
               Catch::EndsWith("; the largest context that fits is 8,192 tokens x 1 rows (the model's max_position_embeddings; the caches do not limit it)"));
    // GLM-5.3-Flash records it too (its architecture's `describes`), though the seed's plan does not.
    const auto& glm = test::glm_plan("decode", 1);
    REQUIRE(glm.config_field("max_position_embeddings"));
    CHECK(glm.config_field("max_position_embeddings")->integer() == 524288);
    CHECK_FALSE(test::seed().config_field("max_position_embeddings"));
}

TEST_CASE("cost: GLM-5.3-Flash does not fit one GB10, and kbp plan says so with the figures", "[planner][cost]") {
    // 42 MoE layers of 288 experts in NVFP4 are about 183 GB; GB10 has 128 GiB (137.4 GB).
    auto r = cost_of(test::glm_plan("decode", 1), 4096);
    CHECK(r.stored_weight_bytes > 180e9);
    CHECK(r.memory_bytes == Approx(137438953472.0));
    CHECK(r.headroom_bytes < -40e9);
    REQUIRE(r.max_context_tokens);
    CHECK(*r.max_context_tokens == 0);
    CHECK(planner::memory_fit_text(r).find("it does not fit at any context") != std::string::npos);

    planner::PlanRequest request;
    request.config_path = test::source_dir() + "/samples/glm-5.3-flash/config.json";
    auto loaded = planner::Planner::load(std::nullopt);
    REQUIRE(loaded);
    auto plan = loaded->plan(request);
    REQUIRE(plan.ok());
    bool warned = false;
    for (const auto& w : std::vector<std::string>{planner::memory_fit_warning(loaded->catalog(), plan->blueprint, request.config_path).value_or("")})
        if (w.rfind("embedded:targets/gb10.json: /memory_bytes: glm-5.3-flash on gb10 needs ", 0) == 0 && w.find(") of 137.4 GB: short by") != std::string::npos &&
            w.find("its weights need 2 devices") != std::string::npos)
            warned = true;
    CHECK(warned);
}

TEST_CASE("cost: another target than the plan's is a what-if that ignores kernel availability", "[planner][cost]") {
    const schema::Blueprint& plan = test::glm_plan("decode", 1);
    auto own = cost_of(plan, 8192);
    CHECK(!own.what_if);
    auto other = cost_of(plan, 8192, "h100");
    CHECK(other.what_if);
    CHECK(other.what_if_reason.find("kernel availability is ignored") != std::string::npos);
    CHECK(planner::cost_text(other).find("WHAT-IF: costed on h100, not gb10") != std::string::npos);
    auto json = nlohmann::json::parse(planner::cost_json(other));
    CHECK(json["what_if"] == true);
    CHECK(json["what_if_reason"].get<std::string>().find("gb10") != std::string::npos);
    CHECK(nlohmann::json::parse(planner::cost_json(own)).count("what_if") == 0);

    // A sweep on the other target carries the same label in its text, its JSON and its chart.
    auto sweep = sweep_of(plan, "context=1k..2k", "h100");
    CHECK(planner::sweep_text(sweep).find("WHAT-IF: costed on h100, not gb10") != std::string::npos);
    const std::string sweep_json = planner::sweep_json(sweep);
    CHECK(nlohmann::json::parse(sweep_json)["what_if"] == true);
    auto svg = exporters::sweep_chart_svg(sweep_json, "sweep.json");
    REQUIRE(svg);
    CHECK(svg->find("what-if: kernel availability ignored") != std::string::npos);
    auto own_sweep = sweep_of(plan, "context=1k..2k");
    CHECK(planner::sweep_text(own_sweep).find("WHAT-IF") == std::string::npos);
    CHECK(nlohmann::json::parse(planner::sweep_json(own_sweep)).count("what_if") == 0);
}

TEST_CASE("cost: a calibration fitted on other splits than the plan's is flagged, in the cost and its sweep", "[planner][cost]") {
    // The shipped fits: B200's rows ran on 1, 2, 4 and 8 devices, H100's on 1, 2 and 8, H200's on 1.
    const schema::Blueprint& plan = test::glm_plan("decode", 1);  // one device
    auto b200 = cost_of(plan, 8192, "b200");
    REQUIRE(b200.calibration);
    CHECK(b200.calibration->fitted_tp == std::vector<std::int64_t>{1, 2, 4, 8});
    CHECK(planner::cost_text(b200).find("caveat:") == std::string::npos);
    // Four devices: no H100 or H200 fit row ran on four.
    planner::PlanRequest request;
    request.config_path = KBP_SMALL_LLAMA_CONFIG;
    request.target = "h100";
    request.tp = 4;
    auto split = planner::make_plan(request);
    INFO((split ? std::string() : split.error().text()));
    REQUIRE(split.ok());
    auto h100 = cost_of(split->blueprint, 8192);
    REQUIRE(h100.calibration);
    CHECK(h100.calibration->fitted_tp == std::vector<std::int64_t>{1, 2, 8});
    CHECK(planner::cost_text(h100).find("    caveat: the fit rows ran on 1, 2 or 8 devices each, this plan on 4") != std::string::npos);
    auto h200 = cost_of(split->blueprint, 8192, "h200");
    CHECK(planner::cost_text(h200).find("    caveat: the fit rows ran on 1 device each, this plan on 4") != std::string::npos);

    auto sweep = sweep_of(split->blueprint, "rows=1..2", "h200");
    CHECK(planner::sweep_text(sweep).find("  calibration caveat: the fit rows ran on 1 device each, this plan on 4") != std::string::npos);
    CHECK(nlohmann::json::parse(planner::sweep_json(sweep))["calibration_caveat"].is_string());
    auto own = sweep_of(plan, "rows=1..2");  // gb10's own, fitted on one-device rows
    CHECK(planner::sweep_text(own).find("caveat") == std::string::npos);
    CHECK(nlohmann::json::parse(planner::sweep_json(own))["calibration_caveat"].is_null());
}
