// Tensor parallelism (kbp plan --tp N, planner/tensor_parallel.hpp and planner/tp_cost.hpp):
// a split the config's heads do not divide is refused naming the field, except kv heads that
// divide tp, which are replicated (one per device) and recorded; --tp 2 halves every
// split weight and the KV cache per device and records two all-reduces per layer whose bytes are
// worked out by hand; the H200 target plans and costs Llama-3.3-70B in bf16.
#include <catch2/catch.hpp>

#include <algorithm>

#include "cli_runner.hpp"
#include "cost/cost.hpp"
#include "planner/plan.hpp"
#include "schema/reader.hpp"
#include "schema/writer.hpp"
#include "support.hpp"

using namespace kbp;

namespace {

std::string llama70b() { return test::source_dir() + "/samples/llama-3.3-70b/config.json"; }

planner::PlanRequest small_llama(std::int64_t tp, const std::string& arm = "decode", std::int64_t rows = 1) {
    planner::PlanRequest r;
    r.config_path = KBP_SMALL_LLAMA_CONFIG;
    r.recipe = "bf16";
    r.target = "h100";
    r.arm = arm;
    r.rows = rows;
    r.tp = tp;
    return r;
}

std::int64_t symbol(const schema::Blueprint& b, const char* name) { return b.symbol(name).value_or(-1); }

}  // namespace

TEST_CASE("tp: a split the heads do not divide is refused, naming the config field", "[planner][tp]") {
    planner::PlanRequest r;
    r.config_path = llama70b();
    r.recipe = "bf16";
    r.target = "h100";
    r.tp = 3;
    auto p = planner::make_plan(r);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().where == llama70b() + ": /num_key_value_heads");
    CHECK(p.error().message == "8 kv heads do not split over 3 devices (--tp 3)");

    // 8 kv heads over 12 devices: 12 neither divides 8 nor is a multiple of it.
    r.tp = 12;
    p = planner::make_plan(r);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().where == llama70b() + ": /num_key_value_heads");
    CHECK(p.error().message == "8 kv heads do not split over 12 devices (--tp 12)");
    // 24 devices replicate the 8 kv heads (3 copies each), but do not divide the 64 query heads.
    r.tp = 24;
    p = planner::make_plan(r);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().where == llama70b() + ": /num_attention_heads");
    CHECK(p.error().message == "64 heads do not split over 24 devices (--tp 24)");
    // The MLP: 28672 does not divide by 5 (nor do the heads).
    r.tp = 5;
    p = planner::make_plan(r);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().where == llama70b() + ": /num_key_value_heads");

    // The command line: one line on stderr, exit 2 (invalid input).
    test::TempDir dir;
    auto run = test::kbp_run(dir, "plan " + test::quote(llama70b()) + " --recipe bf16 --target h100 --tp 3");
    INFO(test::show(run));
    CHECK(run.exit == 2);
    CHECK(run.out.empty());
    CHECK(run.err == "kbp plan: error: " + llama70b() + ": /num_key_value_heads: 8 kv heads do not split over 3 devices (--tp 3)\n");
    auto bad = test::kbp_run(dir, "plan " + test::quote(llama70b()) + " --tp 0");
    CHECK(bad.exit == 1);
    CHECK_THAT(bad.err, Catch::Contains("--tp takes a whole number"));
}

TEST_CASE("tp: a target without an interconnect refuses a split", "[planner][tp]") {
    auto r = small_llama(2);
    r.target = "gb10";
    auto p = planner::make_plan(r);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().where == "embedded:targets/gb10.json: /interconnect");
    CHECK_THAT(p.error().message, Catch::StartsWith("target 'gb10' has no interconnect between devices (none: GB10 is one GPU"));
}

TEST_CASE("tp: --tp 2 halves the split weights and the vocabulary and the KV cache and adds two all-reduces per layer", "[planner][tp][cost]") {
    // tests/configs/small-llama.json in bf16: hidden 1024, 8 query and 2 KV heads of 128, MLP 4096, 2 layers.
    auto one = planner::make_plan(small_llama(1));
    auto two = planner::make_plan(small_llama(2));
    INFO((one ? std::string() : one.error().text()) << (two ? std::string() : two.error().text()));
    REQUIRE(one.ok());
    REQUIRE(two.ok());
    const auto& b1 = one->blueprint;
    const auto& b2 = two->blueprint;
    CHECK_FALSE(b1.arm.parallel.has_value());  // one device: nothing recorded, the plan as before
    REQUIRE(b2.arm.parallel.has_value());
    CHECK(symbol(b2, "q_heads") == 4);
    CHECK(symbol(b2, "kv_heads") == 1);
    CHECK(symbol(b2, "inter") == 2048);
    CHECK(symbol(b2, "hidden") == 1024);
    CHECK(symbol(b2, "head_dim") == 128);  // hidden_size / num_attention_heads of the config, not split
    CHECK(symbol(b2, "vocab") == 16000);   // 32,000 (a multiple of vLLM's padding, 64) over 2 devices

    // The same nodes; each projection's weight is half: q 1024x512, k and v 1024x128, o 512x1024,
    // gate_up 1024x4096, down 2048x1024.
    REQUIRE(b1.nodes.size() == b2.nodes.size());
    const auto& p = *b2.arm.parallel;
    CHECK(p.tp == 2);
    CHECK(p.interconnect == "NVLink 4");
    CHECK(p.bandwidth_mbps == 450000);
    CHECK(p.latency_ns == 2000);
    // One all-reduce before each residual add (after o_proj, after down_proj): 2 layers x 2; and
    // one after the embedding gather, each device having filled the rows of its vocabulary slice.
    CHECK(p.all_reduces_per_step == 5);
    // Each reduces the hidden width in bf16 per row: 1024 x 2 B.
    CHECK(p.all_reduce_bytes_per_token == 2048);
    CHECK(p.all_reduce_bytes_per_step == 5 * 2048);
    // The logits are gathered whole: 32,000 x 2 B (bf16) a row.
    CHECK(p.gathers_per_step == 1);
    CHECK(p.gather_bytes_per_step == 32000 * 2);

    planner::CostOptions options;  // context 4096
    options.calibration = planner::Calibration{};  // the bare roofline: the sum below leaves out a step overhead
    auto c1 = planner::estimate_cost(b1, options);
    auto c2 = planner::estimate_cost(b2, options);
    REQUIRE(c1.ok());
    REQUIRE(c2.ok());
    // bf16 weights of one layer's projections on one device: 2 B x (1024x1024 + 2x1024x256 +
    // 1024x1024 + 1024x8192 + 4096x1024); --tp 2 halves them, and the LM head and the embedding
    // table (1024 x 32,000 each), of which a step reads the LM head whole.
    const double layer = 2.0 * (1024.0 * 1024 + 2 * 1024.0 * 256 + 1024.0 * 1024 + 1024.0 * 8192 + 4096.0 * 1024);
    const double vocab_matrix = 2.0 * 1024 * 32000;
    CHECK(c1->total.weight_bytes - c2->total.weight_bytes == Approx(2 * layer / 2 + vocab_matrix / 2));
    CHECK(c1->stored_weight_bytes - c2->stored_weight_bytes == Approx(2 * layer / 2 + 2 * vocab_matrix / 2));
    // The bf16 KV cache holds 1 of 2 KV heads per device: half the state read and held.
    CHECK(c2->total.state_bytes == Approx(c1->total.state_bytes / 2));
    CHECK(c2->resident_state_bytes == Approx(c1->resident_state_bytes / 2));

    // Communication: 5 x 2048 B, of which a ring all-reduce sends 2(tp-1)/tp = 1 times (all of
    // it) from each device, and the gather's half of the logits, at 450 GB/s, plus 2 us per
    // collective.
    const double comm_us = (5 * 2048.0 + 32000.0) / 450e9 * 1e6 + 6 * 2.0;
    CHECK(c1->communication.time_us == 0);
    CHECK(c2->communication.all_reduces == 5);
    CHECK(c2->communication.gathers == 1);
    CHECK(c2->communication.time_us == Approx(comm_us));
    double groups = 0;
    for (const auto& g : c2->groups) groups += g.time_us;
    CHECK(c2->total.time_us == Approx(groups + comm_us));
    CHECK_THAT(planner::cost_text(*c2), Catch::Contains("tensor parallel over 2 devices: 5 all-reduces a step (2.0 KB each, 0.01 MB in all) and the logits' gather"));
    CHECK_THAT(planner::cost_text(*c1), !Catch::Contains("tensor parallel"));

    // 16 rows of multi_seq: every all-reduce carries 16 rows.
    auto rows = planner::make_plan(small_llama(2, "multi_seq", 16));
    REQUIRE(rows.ok());
    CHECK(rows->blueprint.arm.parallel->all_reduce_bytes_per_step == 5 * 16 * 2048);
    CHECK(rows->blueprint.arm.parallel->gather_bytes_per_step == 16 * 32000 * 2);

    // The record survives the writer and the reader.
    auto text = schema::write_blueprint(b2, {.pretty = true});
    auto back = schema::read_blueprint(text, "tp2.json");
    REQUIRE(back.ok());
    REQUIRE(back->arm.parallel.has_value());
    CHECK(*back->arm.parallel == p);
}

TEST_CASE("tp: Llama-3.3-70B in bf16 needs two H100s, fits one H200", "[planner][tp][cost]") {
    auto plan = [](const std::string& target, std::int64_t tp) {
        planner::PlanRequest r;
        r.config_path = llama70b();
        r.recipe = "bf16";
        r.target = target;
        r.tp = tp;
        auto p = planner::make_plan(r);
        INFO((p ? std::string() : p.error().text()));
        REQUIRE(p.ok());
        return std::move(*p);
    };
    auto fits = [](const planner::PlanOutput& p) {
        static const auto loaded = planner::Planner::load(std::nullopt);
        return !planner::memory_fit_warning(loaded->catalog(), p.blueprint, llama70b()).has_value();
    };
    auto h100 = plan("h100", 1);
    CHECK_FALSE(fits(h100));
    auto h100x2 = plan("h100", 2);
    CHECK(fits(h100x2));
    REQUIRE(h100x2.blueprint.arm.parallel.has_value());
    CHECK(h100x2.blueprint.arm.parallel->all_reduces_per_step == 2 * 80 + 1);  // two a layer, one after the embedding
    CHECK(h100x2.blueprint.arm.parallel->all_reduce_bytes_per_token == 8192 * 2);

    auto h200 = plan("h200", 1);
    CHECK(fits(h200));
    planner::CostOptions options;
    auto cost = planner::estimate_cost(h200.blueprint, options);
    REQUIRE(cost.ok());
    CHECK(cost->target == "h200");
    CHECK(cost->bandwidth_gbps == 4800);
    // About 70.6 billion parameters in bf16.
    CHECK(cost->stored_weight_bytes > 140e9);
    CHECK(cost->stored_weight_bytes < 142e9);
    CHECK(cost->tokens_per_s > 25);
    CHECK(cost->tokens_per_s < 4800e9 / 140e9);
}

TEST_CASE("tp: kv heads fewer than the devices are replicated when tp is a multiple of them", "[planner][tp]") {
    // small-llama: 8 query heads, 2 kv heads. --tp 4: 2 query heads and 1 kv head per device,
    // each kv head held by 2 devices; --tp 8: 1 and 1, 4 copies.
    auto two = planner::make_plan(small_llama(2));
    auto four = planner::make_plan(small_llama(4));
    auto eight = planner::make_plan(small_llama(8));
    INFO((four ? std::string() : four.error().text()) << (eight ? std::string() : eight.error().text()));
    REQUIRE(two.ok());
    REQUIRE(four.ok());
    REQUIRE(eight.ok());
    const auto& b2 = two->blueprint;
    const auto& b4 = four->blueprint;
    const auto& b8 = eight->blueprint;
    CHECK(symbol(b4, "q_heads") == 2);
    CHECK(symbol(b4, "kv_heads") == 1);
    CHECK(symbol(b8, "q_heads") == 1);
    CHECK(symbol(b8, "kv_heads") == 1);
    CHECK(symbol(b8, "inter") == 512);

    // The plan records the copies; a split that divides the kv heads records none.
    auto replicas = [](const schema::Blueprint& b) { return b.arm.parallel->kv_head_replicas.value_or(1); };
    REQUIRE(b2.arm.parallel.has_value());
    REQUIRE(b4.arm.parallel.has_value());
    REQUIRE(b8.arm.parallel.has_value());
    CHECK(b2.arm.parallel->extras.empty());
    CHECK_FALSE(b2.arm.parallel->kv_head_replicas.has_value());
    CHECK(replicas(b4) == 2);
    CHECK(replicas(b8) == 4);
    auto text = schema::write_blueprint(b8, {.pretty = true});
    CHECK_THAT(text, Catch::Contains("\"kv_head_replicas\": 4"));
    auto back = schema::read_blueprint(text, "tp8.json");
    REQUIRE(back.ok());
    CHECK(*back->arm.parallel == *b8.arm.parallel);

    // Each device holds one whole kv head: the KV cache per device stops shrinking past tp 2,
    // while the query side keeps halving.
    planner::CostOptions options;
    options.calibration = planner::Calibration{};
    auto c2 = planner::estimate_cost(b2, options);
    auto c4 = planner::estimate_cost(b4, options);
    auto c8 = planner::estimate_cost(b8, options);
    REQUIRE(c2.ok());
    REQUIRE(c4.ok());
    REQUIRE(c8.ok());
    CHECK(c4->resident_state_bytes == Approx(c2->resident_state_bytes));
    CHECK(c8->resident_state_bytes == Approx(c2->resident_state_bytes));
    // k and v projections, per layer, per device: 1024 x 128 each in bf16 at every tp >= 2; the
    // q and o projections halve from tp 4 to tp 8: 2 x (1024 x 256 - 1024 x 128) x 2 B per layer,
    // and the MLP: 3 x 1024 x (1024 - 512) x 2 B per layer, over 2 layers; the embedding and the
    // LM head 1024 x (8,000 - 4,000) x 2 B each.
    const double qo = 2.0 * (1024.0 * 256 - 1024.0 * 128) * 2;
    const double mlp = 3.0 * 1024 * (1024 - 512) * 2;
    const double vocab = 2.0 * 1024 * (8000 - 4000) * 2;
    CHECK(c4->stored_weight_bytes - c8->stored_weight_bytes == Approx(2 * (qo + mlp) + vocab));

    // A kv-head count that tp neither divides nor is a multiple of: still refused, naming it.
    auto three = planner::make_plan(small_llama(3));
    REQUIRE_FALSE(three.ok());
    CHECK(three.error().where == std::string(KBP_SMALL_LLAMA_CONFIG) + ": /num_key_value_heads");
}

TEST_CASE("tp: an op that reduces over a split dimension adds its own all-reduce", "[planner][tp]") {
    // MiniMax-M2's q and k norms span the whole projection, which the devices split: vLLM
    // all-reduces their two f32 variances once a layer (the q_norm op's tp_all_reduce: 8 bytes a
    // row). Over 8 devices: o_proj's and the MoE's all-reduces, that one, and the embedding's.
    planner::PlanRequest r;
    r.config_path = test::source_dir() + "/samples/minimax-m2/config.json";
    r.recipe = "bf16";
    r.target = "b200";
    r.tp = 8;
    r.arm = "multi_seq";
    r.rows = 4;
    auto split = planner::make_plan(r);
    INFO((split ? std::string() : split.error().text()));
    REQUIRE(split.ok());
    const auto& b = split->blueprint;
    const std::int64_t layers = symbol(b, "layers");
    REQUIRE(layers == 62);
    REQUIRE(b.arm.parallel.has_value());
    CHECK(b.arm.parallel->all_reduces_per_step == 3 * layers + 1);
    // Their bytes: each block output's hidden row (bf16) and the norms' 8 bytes, for every row.
    const std::int64_t hidden = symbol(b, "hidden");
    CHECK(b.arm.parallel->all_reduce_bytes_per_step == (2 * layers + 1) * hidden * 2 * 4 + layers * 8 * 4);
    // On one device there is nothing to all-reduce.
    r.tp = 1;
    auto whole = planner::make_plan(r);
    REQUIRE(whole.ok());
    CHECK_FALSE(whole->blueprint.arm.parallel.has_value());
}

TEST_CASE("tp: a width an expression derives is split when the architecture says so, and LFM2's convolution channels are split", "[planner][tp]") {
    // LFM2's feed-forward width comes out of an auto-adjustment over three fields (vLLM computes it
    // whole, then MergedColumnParallelLinear shards it): the symbol's own "split". Its short
    // convolution's conv_dim channels are a config field --tp splits (Lfm2ShortConv).
    planner::PlanRequest r;
    r.config_path = test::source_dir() + "/samples/lfm2-1.2b/config.json";
    r.recipe = "bf16";
    r.target = "h100";
    auto whole = planner::make_plan(r);
    r.tp = 2;
    auto split = planner::make_plan(r);
    INFO((split ? std::string() : split.error().text()));
    REQUIRE(whole.ok());
    REQUIRE(split.ok());
    CHECK(symbol(split->blueprint, "inter") * 2 == symbol(whole->blueprint, "inter"));
    CHECK(symbol(split->blueprint, "conv_dim") * 2 == symbol(whole->blueprint, "conv_dim"));
    CHECK(symbol(split->blueprint, "hidden") == symbol(whole->blueprint, "hidden"));
    // A split the devices do not divide is refused, naming the architecture's symbol.
    r.tp = 3;
    auto three = planner::make_plan(r);
    REQUIRE_FALSE(three.ok());
    CHECK_THAT(three.error().text(), Catch::Contains("do not split over 3 devices"));
}
