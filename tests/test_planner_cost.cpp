// The roofline cost on a plan other than GLM's: a two-layer llama on an H100 with fp8-dynamic,
// its weight and KV-cache bytes per step and its tokens/s worked out by hand from the config,
// the recipe (recipes/fp8-dynamic.json), the ops' state formulas (ops/core.json) and the
// target's bandwidth and launch overhead (targets/h100.json).
#include <catch2/catch.hpp>

#include "cost/cost.hpp"
#include "planner/plan.hpp"
#include "support.hpp"

using namespace kbp;

TEST_CASE("cost: a small llama's bytes per step and tokens/s follow from H100's bandwidth", "[planner][cost]") {
    // tests/configs/small-llama.json: hidden 1024, 8 query heads and 2 KV heads of 128, MLP 4096,
    // 2 layers, vocabulary 32,000.
    planner::PlanRequest request;
    request.config_path = KBP_SMALL_LLAMA_CONFIG;
    auto plan = planner::make_plan(request);
    INFO((plan ? std::string() : plan.error().text()));
    REQUIRE(plan.ok());
    planner::CostOptions options;  // context 4096
    options.calibration = planner::Calibration{};  // the bare roofline: the H100's calibration file is tested on its own
    auto cost = planner::estimate_cost(plan->blueprint, options);
    REQUIRE(cost.ok());
    CHECK(cost->target == "h100");

    // Weights read per decode step. fp8/channel: one byte a value plus an f32 scale per output
    // channel. Per layer: q 1024x1024, k and v 1024x256, o 1024x1024, gate_up 1024x8192,
    // down 4096x1024. The LM head stays bf16 (1024 x 32000 x 2 B); the embedding reads one bf16 row.
    auto fp8 = [](double in, double out) { return in * out + 4 * out; };
    const double layer = fp8(1024, 1024) + 2 * fp8(1024, 256) + fp8(1024, 1024) + fp8(1024, 8192) + fp8(4096, 1024);
    const double weights = 2 * layer + 1024.0 * 32000 * 2 + 1024 * 2;
    CHECK(cost->total.weight_bytes == Approx(weights));
    // The fp8 KV cache: attention reads context x (k + v widths, 256 + 256) x 1 B, kv_write writes one row.
    const double state = 2 * (4096.0 * 512 + 512);
    CHECK(cost->total.state_bytes == Approx(state));
    // Decode of a model this size is memory bound in every kernel: each group takes its bytes over
    // 3350 GB/s plus H100's 2.5 us launch.
    for (const auto& g : cost->groups) CHECK(g.bound != "compute");
    const double bytes = weights + state + cost->total.activation_bytes;
    const double seconds = bytes / 3350e9 + static_cast<double>(plan->blueprint.groups.size()) * 2.5e-6;
    CHECK(cost->total.time_us == Approx(seconds * 1e6));
    CHECK(cost->tokens_per_s == Approx(1.0 / seconds));
    // The activations crossing kernels are a small share next to the weights.
    CHECK(cost->total.activation_bytes > 0);
    CHECK(cost->total.activation_bytes < 0.01 * weights);
}
