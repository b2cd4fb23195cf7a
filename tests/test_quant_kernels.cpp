// The formats quantized checkpoints declare, planned with the kernels vLLM runs for them: each
// catalog recipe that exercises them (recipes/fp8-block.json, w4a16-int4, w4a16-awq, w8a8-int8,
// nvfp4-w4a16, fp8-static, nf4) on llama-3.1-8b and qwen3-30b-a3b, on an H100 and a B200, at
// decode and at multi_seq 64: the kernel of q, gate_up, down and the routed experts, the
// activation quantizers, a valid plan, and a cost that prices the new families.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "cost/cost.hpp"
#include "planner/plan.hpp"
#include "schema/validator.hpp"
#include "support.hpp"

namespace {

using kbp::schema::Blueprint;
using kbp::schema::Node;

std::string sample(const std::string& name) { return std::string(KBP_SOURCE_DIR) + "/samples/" + name + "/config.json"; }

kbp::planner::PlanRequest request(const std::string& model, const std::string& recipe, const std::string& target, const std::string& arm,
                                  std::int64_t rows) {
    kbp::planner::PlanRequest r;
    r.config_path = sample(model);
    r.recipe = recipe;
    r.target = target;
    r.arm = arm;
    r.rows = rows;
    // The shared CUDA tables' kernels as an engine that quantizes each activation in a kernel of
    // its own reads them (SGLang); vLLM's norms carry the quantizers (test_planner.cpp).
    r.engine = "sglang";
    r.command = "kbp plan (test)";
    return r;
}

Blueprint plan_of(const kbp::planner::PlanRequest& r) {
    auto p = kbp::planner::make_plan(r);
    INFO((p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    return std::move(p->blueprint);
}

const Node& node(const Blueprint& b, const std::string& id) {
    for (const auto& n : b.nodes)
        if (n.id == id) return n;
    FAIL("no node " << id);
    return b.nodes.front();
}

// What serves a node: its kernel, or when its row launches several, the group's kernels joined by '+'.
std::string served_by(const Blueprint& b, const std::string& id) {
    const Node& n = node(b, id);
    if (n.kernel) return n.kernel->str();
    std::string out;
    for (const auto& k : b.groups[n.group].kernels) out += (out.empty() ? "" : "+") + k.str();
    return out;
}

// The inserted activation quantizers: kernel -> output format, each once.
std::map<std::string, std::string> quantizers(const Blueprint& b) {
    std::map<std::string, std::string> out;
    for (const auto& n : b.nodes)
        if (n.inserted && n.op.kind.id == kbp::schema::OpId::act_quant)
            out[n.kernel.value_or("none")] = std::string(n.precision.output->front().name());
    return out;
}

// The plan validates and its cost prices every group: a time above zero for each, none costed as free.
void check_valid_and_costed(const Blueprint& b) {
    auto problems = kbp::schema::validate(b);
    INFO((problems.empty() ? std::string() : problems.items().front().pointer + ": " + problems.items().front().message));
    CHECK(problems.empty());
    kbp::planner::CostOptions options;
    options.calibration = kbp::planner::Calibration{};
    auto cost = kbp::planner::estimate_cost(b, options);
    INFO((cost ? std::string() : cost.error().text()));
    REQUIRE(cost.ok());
    CHECK(cost->total.time_us > 0);
    for (const auto& g : cost->groups) {
        INFO(g.rule);
        CHECK(g.time_us > 0);
    }
}

struct Expected {
    const char* recipe;
    const char* target;
    const char* q;        // linear:q (and k, v), gate_up, down: one row for all projections
    const char* q_rows64; // the same at multi_seq 64 ("" = as at decode)
    const char* experts;  // qwen3-30b-a3b's routed experts
    std::map<std::string, std::string> quant;  // the act_quant kernels and their output formats
};

}  // namespace

TEST_CASE("quantized checkpoints: each recipe's projections and experts get the kernel vLLM runs", "[planner][quant]") {
    const std::vector<Expected> cases = {
        {"fp8-block", "h100", "fp8_block_gemm::fp8_block_scaled_mm", "", "moe::fused_moe_fp8_block",
         {{"quant::per_token_group_quant_fp8", "fp8/g128"}}},
        {"fp8-block", "b200", "fp8_block_gemm::fp8_block_scaled_mm", "", "moe::fused_moe_fp8_block",
         {{"quant::per_token_group_quant_fp8", "fp8/g128"}}},
        // Machete takes the 128-groups on Hopper only (kernels/cuda-hopper.json); Marlin everywhere else.
        {"w4a16-int4", "h100", "machete::machete_mm", "", "moe::fused_marlin_moe", {}},
        {"w4a16-int4", "b200", "marlin::gptq_marlin_gemm", "", "moe::fused_marlin_moe", {}},
        {"w4a16-awq", "h100", "machete::machete_mm", "", "moe::fused_marlin_moe", {}},
        {"w4a16-awq", "b200", "marlin::gptq_marlin_gemm", "", "moe::fused_marlin_moe", {}},
        {"w8a8-int8", "h100", "cutlass_w8a8::cutlass_scaled_mm_int8", "", "moe::fused_moe_int8",
         {{"quant::dynamic_scaled_int8_quant", "int8/token"}}},
        // NVFP4 weights with bf16 activations: FP4 Marlin on Hopper (a weight format there) and Blackwell alike.
        {"nvfp4-w4a16", "h100", "marlin::gptq_marlin_gemm_fp4", "", "moe::fused_marlin_moe", {}},
        {"nvfp4-w4a16", "b200", "marlin::gptq_marlin_gemm_fp4", "", "moe::fused_marlin_moe", {}},
        {"fp8-static", "h100", "cutlass_w8a8::cutlass_scaled_mm_fp8", "", "moe::fused_moe_fp8",
         {{"quant::static_scaled_fp8_quant", "fp8/tensor"}}},
        {"fp8-static", "b200", "cutlass_w8a8::cutlass_scaled_mm_fp8", "", "moe::fused_moe_fp8",
         {{"quant::static_scaled_fp8_quant", "fp8/tensor"}}},
        // bitsandbytes: the absmaxes decoded, then gemv_4bit at one row; dequantize_4bit and a bf16 GEMM above.
        {"nf4", "h100", "bitsandbytes::kDequantizeBlockwise_absmax+bitsandbytes::kgemm_4bit_inference_naive",
         "bitsandbytes::kDequantizeBlockwise_absmax+bitsandbytes::kDequantizeBlockwise_nf4+bf16_gemm::bf16_gemm",
         "bitsandbytes::kDequantizeBlockwise_absmax+bitsandbytes::kDequantizeBlockwise_nf4+moe::fused_moe_bf16", {}},
        {"nf4", "b200", "bitsandbytes::kDequantizeBlockwise_absmax+bitsandbytes::kgemm_4bit_inference_naive",
         "bitsandbytes::kDequantizeBlockwise_absmax+bitsandbytes::kDequantizeBlockwise_nf4+bf16_gemm::bf16_gemm",
         "bitsandbytes::kDequantizeBlockwise_absmax+bitsandbytes::kDequantizeBlockwise_nf4+moe::fused_moe_bf16", {}},
    };
    for (const Expected& e : cases) {
        for (std::int64_t rows : {1, 64}) {
            const std::string arm = rows == 1 ? "decode" : "multi_seq";
            INFO(e.recipe << " on " << e.target << ", " << arm << " rows " << rows);
            const std::string dense_kernel = rows == 64 && *e.q_rows64 ? e.q_rows64 : e.q;
            auto dense = plan_of(request("llama-3.1-8b", e.recipe, e.target, arm, rows));
            for (const char* id : {"l0.attn.q", "l0.attn.k", "l0.attn.o", "l0.mlp.gate_up", "l31.mlp.down"}) {
                INFO(id);
                CHECK(served_by(dense, id) == dense_kernel);
            }
            CHECK(served_by(dense, "head.lm_head") == (rows == 1 ? "gemv::dense_gemv_bf16" : "bf16_gemm::bf16_gemm"));
            CHECK(quantizers(dense) == e.quant);
            check_valid_and_costed(dense);

            auto moe = plan_of(request("qwen3-30b-a3b", e.recipe, e.target, arm, rows));
            CHECK(served_by(moe, "l0.attn.q") == dense_kernel);
            for (const char* id : {"l0.moe.experts_gate_up", "l47.moe.experts_down"}) {
                INFO(id);
                CHECK(served_by(moe, id) == e.experts);
            }
            CHECK(node(moe, "l0.moe.gate").precision.weight->name() == "bf16");
            CHECK(quantizers(moe) == e.quant);
            check_valid_and_costed(moe);
        }
    }
}

TEST_CASE("quantized checkpoints: the other group sizes and double quantization by --set", "[planner][quant]") {
    auto with = [](const std::string& recipe, const std::string& target, const std::string& key, const std::string& value) {
        auto r = request("llama-3.1-8b", recipe, target, "multi_seq", 64);
        r.settings = {{key, value}};
        return plan_of(r);
    };
    // Machete serves groups of 128 only: a 32-group checkpoint stays on Marlin on Hopper too.
    for (const char* recipe : {"w4a16-int4", "w4a16-awq"}) {
        INFO(recipe);
        auto g32 = with(recipe, "h100", "int4_format", std::string(recipe) == "w4a16-awq" ? "int4/g32z" : "int4/g32");
        CHECK(served_by(g32, "l0.attn.q") == "marlin::gptq_marlin_gemm");
        CHECK(node(g32, "l0.attn.q").precision.weight->name() == (std::string(recipe) == "w4a16-awq" ? "int4/g32z" : "int4/g32"));
        check_valid_and_costed(g32);
    }
    // A GPTQ checkpoint with lm_head_quantized: the LM head through Machete on Hopper, Marlin on Blackwell.
    CHECK(served_by(with("w4a16-int4", "h100", "lm_head_dtype", "int4/g128"), "head.lm_head") == "machete::machete_mm");
    CHECK(served_by(with("w4a16-int4", "b200", "lm_head_dtype", "int4/g128"), "head.lm_head") == "marlin::gptq_marlin_gemm");
    // Without double quantization there is no absmax decoding: gemv_4bit alone at one row.
    auto r = request("llama-3.1-8b", "nf4", "h100", "decode", 1);
    r.settings = {{"bnb_4bit", "nf4/b64"}};
    auto plain = plan_of(r);
    CHECK(served_by(plain, "l0.attn.q") == "bitsandbytes::kgemm_4bit_inference_naive");
    CHECK(node(plain, "l0.attn.q").family.str() == "bnb_4bit");
    CHECK(served_by(with("nf4", "h100", "bnb_4bit", "nf4/b64"), "l0.mlp.down") ==
          "bitsandbytes::kDequantizeBlockwise_nf4+bf16_gemm::bf16_gemm");
}

TEST_CASE("quantized checkpoints: what an engine does not run on a target is refused", "[planner][quant]") {
    // vLLM's cutlass_scaled_mm has no int8 kernel on sm100 (csrc/quantization/w8a8/cutlass/scaled_mm_c3x_sm100.cu).
    auto p = kbp::planner::make_plan(request("llama-3.1-8b", "w8a8-int8", "b200", "decode", 1));
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().code == kbp::ErrorCode::unsupported);
    CHECK_THAT(p.error().message, Catch::Contains("int8/token") && Catch::Contains("not available on target 'b200'"));
    // Hopper stores NVFP4 weights (FP4 Marlin) but has no FP4 MMA: an NVFP4 activation is refused as such.
    auto w4a4 = kbp::planner::make_plan(request("llama-3.1-8b", "nvfp4", "h100", "decode", 1));
    REQUIRE_FALSE(w4a4.ok());
    CHECK(w4a4.error().code == kbp::ErrorCode::unsupported);
    CHECK_THAT(w4a4.error().where, Catch::Contains("/activation"));
    CHECK_THAT(w4a4.error().message, Catch::Contains("'nvfp4/g16'") && Catch::Contains("as an activation") && Catch::Contains("/weight_formats"));
}

TEST_CASE("quantized checkpoints: W4A16 GEMMs run at the bf16 tensor-core peak, W8A8 at their format's", "[planner][quant][cost]") {
    // cost.cpp: a weight-only format is widened to the bf16 activation before the MMA, so the
    // group's compute time is its FLOPs over the target's bf16 peak (989 TFLOPS on an H100),
    // not over the CUDA cores' 67; an int8 W8A8 GEMM runs at the INT8 peak (1979 TOPS).
    auto peak_of = [](const std::string& recipe, const std::string& id) {
        auto plan = plan_of(request("llama-3.1-8b", recipe, "h100", "multi_seq", 64));
        kbp::planner::CostOptions options;
        options.calibration = kbp::planner::Calibration{};
        auto cost = kbp::planner::estimate_cost(plan, options);
        REQUIRE(cost.ok());
        const auto& g = cost->groups[node(plan, id).group];
        REQUIRE(g.compute_us > 0);
        return g.flops / (g.compute_us * 1e-6) / 1e12;
    };
    CHECK(peak_of("w4a16-int4", "l0.mlp.down") == Approx(989));
    CHECK(peak_of("nvfp4-w4a16", "l0.mlp.down") == Approx(989));
    CHECK(peak_of("nf4", "l0.mlp.down") == Approx(989));
    CHECK(peak_of("w8a8-int8", "l0.mlp.down") == Approx(1979));
    CHECK(peak_of("fp8-block", "l0.mlp.down") == Approx(1979));
}

TEST_CASE("quantized checkpoints: MXFP4 weights on a projection run Marlin's FP4 form", "[planner][quant]") {
    // No catalog recipe puts MXFP4 on a dense projection; a recipe file by path does.
    kbp::test::TempDir dir;
    kbp::test::spit(dir.file("mxfp4-dense.json"), R"({"name": "mxfp4-dense", "settings": {"kv_cache_dtype": "bf16", "lm_head_dtype": "bf16"},
        "entries": [{"op": "linear:*", "weight": "mxfp4/g32", "activation": "bf16"}, {"include": "bf16-exclusions"}]})");
    for (const char* target : {"h100", "b200"}) {
        INFO(target);
        auto plan = plan_of(request("llama-3.1-8b", dir.file("mxfp4-dense.json"), target, "multi_seq", 64));
        CHECK(served_by(plan, "l0.mlp.gate_up") == "marlin::gptq_marlin_gemm_fp4");
        CHECK(node(plan, "l0.mlp.gate_up").family.str() == "marlin_gemm");
        check_valid_and_costed(plan);
    }
}
