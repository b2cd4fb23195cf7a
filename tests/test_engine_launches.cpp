// What each engine launches for one decoder layer at decode, kernel by kernel, as its own source
// says (planner/data/engines/<engine>.json and the kernels/ and fusion/ files it reads cite them):
// Llama-3.1-8B's layer 1 at one token on an H100 with vLLM, SGLang and TensorRT-LLM in BF16 and
// FP8 (per-token activations, per-channel weights), and with llama.cpp on a GB10 in Q8_0; the
// routed-expert block of Qwen3-30B-A3B with vLLM, SGLang and TensorRT-LLM. Then every sample with
// every engine of its target, and every sample at every arm kind with its default engine: the plan
// validates and its launches are the sum of its groups' kernels; and the seed's 1,077 launches in
// 907 device groups.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cost/cost.hpp"
#include "planner/plan.hpp"
#include "schema/stats.hpp"
#include "schema/validator.hpp"
#include "support.hpp"

namespace {

using kbp::schema::Blueprint;

std::string sample(const std::string& name) { return std::string(KBP_SOURCE_DIR) + "/samples/" + name + "/config.json"; }

kbp::Result<kbp::planner::PlanOutput> try_plan(const std::string& config, const std::string& engine, const std::string& recipe,
                                               const std::string& target) {
    kbp::planner::PlanRequest r;
    r.config_path = config;
    r.engine = engine;
    r.recipe = recipe;
    r.target = target;
    r.arm = "decode";
    r.rows = 1;
    r.command = "kbp plan (test)";
    return kbp::planner::make_plan(r);
}

Blueprint plan_of(const std::string& model, const std::string& engine, const std::string& recipe, const std::string& target = "h100") {
    auto p = try_plan(sample(model), engine, recipe, target);
    INFO((p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    return std::move(p->blueprint);
}

// Every sample model (samples/<name>/config.json; samples/quantized holds checkpoints' configs), by name.
std::vector<std::string> sample_models() {
    std::vector<std::string> models;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(KBP_SOURCE_DIR) + "/samples"))
        if (entry.is_directory() && entry.path().filename() != "quantized" && std::filesystem::exists(entry.path() / "config.json"))
            models.push_back(entry.path().filename().string());
    std::sort(models.begin(), models.end());
    return models;
}

// The launches a plan's device groups make, counted from the groups themselves: each kernel a
// group lists is one launch, a host step none (kbp-graph/v2's `kernels`).
std::int64_t kernels_listed(const Blueprint& b) {
    std::int64_t sum = 0;
    for (const auto& g : b.groups)
        if (g.where.id != kbp::schema::WhereId::host) sum += static_cast<std::int64_t>(g.kernels.size());
    return sum;
}

// The kernels the groups holding layer `layer`'s nodes launch, in the plan's order; with a block
// (the node id's second part), only that block's groups.
std::vector<std::string> launches_in(const Blueprint& b, std::int64_t layer, const std::string& block = "") {
    std::vector<std::string> out;
    for (const auto& g : b.groups) {
        bool in = false;
        for (auto i : g.nodes) {
            const auto& n = b.nodes[static_cast<std::size_t>(i)];
            const std::string prefix = "l" + std::to_string(layer) + "." + block;
            if (n.layer && *n.layer == layer && (block.empty() || n.id.rfind(prefix + ".", 0) == 0)) in = true;
        }
        if (in)
            for (const auto& k : g.kernels) out.push_back(k.str());
    }
    return out;
}

}  // namespace

TEST_CASE("vLLM: Llama-3.1-8B's layer at decode launches 10 kernels in BF16, 11 in FP8", "[engines][launches]") {
    CHECK(launches_in(plan_of("llama-3.1-8b", "vllm", "bf16"), 1) == std::vector<std::string>{
              "inductor::add_rms_norm",             // the previous layer's residual add in input_layernorm (models/llama.py)
              "gemv::dense_gemv_bf16",              // qkv_proj, QKVParallelLinear: one GEMM
              "inductor::rope",                     // rotary_emb's forward_native, a Triton kernel in the compiled graph
              "kv_cache::reshape_and_cache_flash",  // attention custom op writes the cache (v1/attention/backends/flash_attn.py)
              "flash_decoding::gqa_decode_split_k", // flash_attn_varlen_func
              "gemv::dense_gemv_bf16",              // o_proj
              "inductor::add_rms_norm",             // residual add + post_attention_layernorm
              "gemv::dense_gemv_bf16",              // gate_up_proj, MergedColumnParallelLinear
              "inductor::silu_mul",                 // SiluAndMul's forward_native, a Triton kernel
              "gemv::dense_gemv_bf16",              // down_proj
          });
    CHECK(launches_in(plan_of("llama-3.1-8b", "vllm", "fp8-dynamic"), 1) == std::vector<std::string>{
              "inductor::add_rms_norm_quant_fp8",     // fused_add_rms_norm + per-token quant (compilation/fusion.py)
              "cutlass_w8a8::cutlass_scaled_mm_fp8",  // qkv_proj (w8a8_utils.py: cutlass_scaled_mm)
              "inductor::rope",                       //
              "kv_cache::reshape_and_cache_flash",    //
              "flash_decoding::gqa_decode_split_k",   //
              "quant::per_token_fp8_quant",           // the attention output's quantizer stands alone
              "cutlass_w8a8::cutlass_scaled_mm_fp8",  // o_proj
              "inductor::add_rms_norm_quant_fp8",     // residual + post norm + quant
              "cutlass_w8a8::cutlass_scaled_mm_fp8",  // gate_up_proj
              "inductor::silu_mul_quant_fp8",         // silu_and_mul + quant (activation_quant_fusion.py)
              "cutlass_w8a8::cutlass_scaled_mm_fp8",  // down_proj
          });
}

TEST_CASE("SGLang: Llama-3.1-8B's layer at decode launches 11 kernels in BF16, 15 in FP8", "[engines][launches]") {
    CHECK(launches_in(plan_of("llama-3.1-8b", "sglang", "bf16"), 1) == std::vector<std::string>{
              "norm::fused_add_rms_norm",                            // input_layernorm(hidden_states, residual): fused_add_rmsnorm (layers/layernorm.py)
              "gemv::dense_gemv_bf16",                               // qkv_proj, QKVParallelLinear
              "sgl_kernel::apply_rope_with_cos_sin_cache_inplace",  // rotary_emb (layers/rotary_embedding.py)
              "sglang_kv::k_buffer_index_put",                       // set_kv_buffer: k_buffer[loc] = k (mem_cache/memory_pool.py)
              "sglang_kv::v_buffer_index_put",                       // set_kv_buffer: v_buffer[loc] = v
              "sgl_kernel::flash_attn_with_kvcache",                 // FA3, Hopper's default (flashattention_backend.py forward_decode)
              "gemv::dense_gemv_bf16",                               // o_proj
              "norm::fused_add_rms_norm",                            // post_attention_layernorm(hidden_states, residual)
              "gemv::dense_gemv_bf16",                               // gate_up_proj, MergedColumnParallelLinear
              "activation::silu_and_mul",                            // SiluAndMul: sgl_kernel silu_and_mul
              "gemv::dense_gemv_bf16",                               // down_proj
          });
    CHECK(launches_in(plan_of("llama-3.1-8b", "sglang", "fp8-dynamic"), 1) == std::vector<std::string>{
              "norm::fused_add_rms_norm",                            // fused_add_rmsnorm: no quantizer in it
              "sgl_kernel::sgl_per_token_quant_fp8",                 // apply_fp8_linear: per-token quant (quantization/fp8_utils.py)
              "sgl_kernel::fp8_scaled_mm",                           // then fp8_scaled_mm (channelwise CUTLASS)
              "sgl_kernel::apply_rope_with_cos_sin_cache_inplace",  //
              "sglang_kv::k_buffer_index_put",                       //
              "sglang_kv::v_buffer_index_put",                       //
              "sgl_kernel::flash_attn_with_kvcache",                 //
              "sgl_kernel::sgl_per_token_quant_fp8",                 // o_proj's input
              "sgl_kernel::fp8_scaled_mm",                           // o_proj
              "norm::fused_add_rms_norm",                            //
              "sgl_kernel::sgl_per_token_quant_fp8",                 // gate_up_proj's input
              "sgl_kernel::fp8_scaled_mm",                           // gate_up_proj
              "activation::silu_and_mul",                            // silu_and_mul: no quantizer in it
              "sgl_kernel::sgl_per_token_quant_fp8",                 // down_proj's input
              "sgl_kernel::fp8_scaled_mm",                           // down_proj
          });
}

TEST_CASE("TensorRT-LLM (PyTorch backend): Llama-3.1-8B's layer at decode launches 9 kernels in BF16, 13 in FP8", "[engines][launches]") {
    CHECK(launches_in(plan_of("llama-3.1-8b", "trtllm", "bf16"), 1) == std::vector<std::string>{
              "norm::fused_add_rms_norm",   // previous layer's next_layer_layernorm(hidden_states, residual): flashinfer fused_add_rmsnorm (_torch/modules/rms_norm.py)
              "gemv::dense_gemv_bf16",      // packed qkv_proj
              "trtllm::qkv_preprocessing",  // invokeQKVPreprocessing: RoPE + KV cache append (decoderXQAImplJIT.cpp); buildDecoderInfo not needed at decode
              "trtllm::xqa_decode",         // the XQA kernel
              "gemv::dense_gemv_bf16",      // o_proj
              "norm::fused_add_rms_norm",   // post_attention_layernorm(hidden_states, residual)
              "gemv::dense_gemv_bf16",      // gate_up_proj (FUSED_GATE_UP_LINEAR, _torch/modules/gated_mlp.py)
              "activation::silu_and_mul",   // swiglu: flashinfer_silu_and_mul
              "gemv::dense_gemv_bf16",      // down_proj
          });
    CHECK(launches_in(plan_of("llama-3.1-8b", "trtllm", "fp8-dynamic"), 1) == std::vector<std::string>{
              "norm::fused_add_rms_norm",            //
              "trtllm::quantize_e4m3_activation",    // FP8RowwiseLinearMethod.apply (_torch/modules/linear.py)
              "trtllm::fp8_rowwise_gemm",            // qkv_proj
              "trtllm::qkv_preprocessing",           //
              "trtllm::xqa_decode",                  //
              "trtllm::quantize_e4m3_activation",    //
              "trtllm::fp8_rowwise_gemm",            // o_proj
              "norm::fused_add_rms_norm",            //
              "trtllm::quantize_e4m3_activation",    //
              "trtllm::fp8_rowwise_gemm",            // gate_up_proj
              "activation::silu_and_mul",            //
              "trtllm::quantize_e4m3_activation",    //
              "trtllm::fp8_rowwise_gemm",            // down_proj
          });
}

TEST_CASE("llama.cpp: Llama-3.1-8B's layer in Q8_0 at decode launches 20 kernels", "[engines][launches]") {
    CHECK(launches_in(plan_of("llama-3.1-8b", "llama.cpp", "gguf-q8_0", "gb10"), 1) == std::vector<std::string>{
              "ggml_cuda::rms_norm_f32_mul",      // RMS_NORM + MUL attn_norm, fused (ggml-cuda.cu ggml_cuda_try_fuse)
              "ggml_cuda::quantize_q8_1",         // wq: quantize_row_q8_1_cuda (mmvq.cu)
              "mmvq::mul_mat_vec_q8_0_q8_1",      //     mul_mat_vec_q
              "ggml_cuda::quantize_q8_1",         // wk
              "mmvq::mul_mat_vec_q8_0_q8_1",      //
              "ggml_cuda::quantize_q8_1",         // wv
              "mmvq::mul_mat_vec_q8_0_q8_1",      //
              "ggml_cuda::rope_neox",             // ROPE of Qcur (src/models/llama.cpp)
              "ggml_cuda::rope_neox_set_rows",    // ROPE of Kcur + VIEW + SET_ROWS into the K cache, fused
              "ggml_cuda::set_rows_v",            // SET_ROWS of Vcur (llama-graph.cpp build_attn, cpy_v)
              "ggml_cuda::flash_attn_ext_vec",    // FLASH_ATTN_EXT (fattn-vec)
              "ggml_cuda::quantize_q8_1",         // wo
              "mmvq::mul_mat_vec_q8_0_q8_1",      //
              "ggml_cuda::add",                   // ffn_inp = cur + inpSA: no ADD + RMS_NORM fusion
              "ggml_cuda::rms_norm_f32_mul",      // ffn_norm
              "ggml_cuda::quantize_q8_1",         // ffn_gate + ffn_up + swiglu: MUL_MAT + MUL_MAT + GLU, fused
              "ggml_cuda::mul_mat_vec_q_glu",     //
              "ggml_cuda::quantize_q8_1",         // ffn_down
              "mmvq::mul_mat_vec_q8_0_q8_1",      //
              "ggml_cuda::add",                   // cur + ffn_inp
          });
}

TEST_CASE("Qwen3-30B-A3B's MoE block: vLLM 8 / 10 launches, SGLang 7 / 9", "[engines][launches]") {
    const auto moe_only = [](std::vector<std::string> v) {
        v.erase(v.begin());  // the residual add + post_attention_layernorm that opens the block
        return v;
    };
    CHECK(moe_only(launches_in(plan_of("qwen3-30b-a3b", "vllm", "bf16"), 1, "moe")) == std::vector<std::string>{
              "gemv::dense_gemv_bf16_fp32out",    // gate (router)
              "vllm_moe::gating_output_float",    // fused_topk: gating_output.float() (fused_moe/fused_moe.py)
              "moe::topk_softmax",                // topk_softmax
              "vllm_moe::moe_align_block_size",   // moe_align_block_size
              "moe::fused_moe_bf16",              // w13
              "activation::silu_and_mul",         // silu_and_mul
              "moe::fused_moe_bf16",              // w2
              "vllm_moe::moe_sum",                // moe_sum
          });
    CHECK(moe_only(launches_in(plan_of("qwen3-30b-a3b", "vllm", "fp8-dynamic"), 1, "moe")).size() == 10);
    CHECK(moe_only(launches_in(plan_of("qwen3-30b-a3b", "sglang", "bf16"), 1, "moe")) == std::vector<std::string>{
              "gemv::dense_gemv_bf16_fp32out",     // gate (router)
              "moe::topk_softmax",                 // fused_topk: sgl_kernel topk_softmax, renormalize inside (layers/moe/topk.py)
              "sgl_kernel::moe_align_block_size",  // moe_align_block_size (fused_moe_triton/fused_moe.py)
              "moe::fused_moe_bf16",               // invoke_fused_moe_kernel, w13
              "activation::silu_and_mul",          // sgl_kernel silu_and_mul
              "moe::fused_moe_bf16",               // invoke_fused_moe_kernel, w2
              "sglang_moe::topk_sum",              // torch.sum over the top k
          });
    CHECK(moe_only(launches_in(plan_of("qwen3-30b-a3b", "sglang", "fp8-dynamic"), 1, "moe")) == std::vector<std::string>{
              "gemv::dense_gemv_bf16_fp32out",         //
              "moe::topk_softmax",                     //
              "sgl_kernel::moe_align_block_size",      //
              "sgl_kernel::sgl_per_token_quant_fp8",   // invoke_fused_moe_kernel: scaled_fp8_quant of A first
              "moe::fused_moe_fp8",                    // w13
              "activation::silu_and_mul",              //
              "sgl_kernel::sgl_per_token_quant_fp8",   //
              "moe::fused_moe_fp8",                    // w2
              "sglang_moe::topk_sum",                  //
          });
}

TEST_CASE("TensorRT-LLM (PyTorch backend): Qwen3-30B-A3B's MoE block launches 8 kernels in BF16 and 10 in per-tensor FP8", "[engines][launches]") {
    const auto moe_only = [](std::vector<std::string> v) {
        v.erase(v.begin());  // the residual add + post_attention_layernorm that opens the block
        return v;
    };
    // CutlassFusedMoE, the default MoE backend on Hopper (_torch/modules/fused_moe/create_moe.py).
    CHECK(moe_only(launches_in(plan_of("qwen3-30b-a3b", "trtllm", "bf16"), 1, "moe")) == std::vector<std::string>{
              "gemv::dense_gemv_bf16",                           // gate: Qwen3Gate.forward, cublas_mm with bf16 logits (_torch/models/modeling_qwen3_moe.py)
              "trtllm::renorm_moe_routing",                      // RenormalizeMoeRoutingMethod.apply: renorm_moe_routing_op (fused_moe/routing.py)
              "trtllm_moe::build_expert_maps_sort_first_token",  // torch.ops.trtllm.fused_moe -> CutlassMoeFCRunner::runMoe: fusedBuildExpertMapsSortFirstToken (moe_gemm/moe_kernels.cu)
              "trtllm_moe::expand_input_rows",                   // expandInputRowsKernel: each token's row to its top-k slots, in expert order
              "trtllm_moe::compute_strides_tma_ws",              // computeStridesTmaWarpSpecializedKernel: FC2's tactic is a Hopper TMA one
              "trtllm_moe::fused_moe_sm80_bf16",                 // FC1 over w3_w1 with the SwiGLU in its epilogue (gemm1: use_ampere_activation_fusion)
              "trtllm_moe::memset_final_output",                 // gemm2: cudaMemsetAsync of the output, which FC2 accumulates into
              "trtllm_moe::moe_gemm_tma_ws_finalize_bf16",       // FC2 over w2, the router-weighted finalize in its epilogue: no finalizeMoeRoutingKernel
          });
    // QuantAlgo.FP8: E4M3 experts and inputs, one scale each (FP8QDQFusedMoEMethod).
    CHECK(moe_only(launches_in(plan_of("qwen3-30b-a3b", "trtllm", "fp8-static"), 1, "moe")) == std::vector<std::string>{
              "gemv::dense_gemv_bf16",                           //
              "trtllm::renorm_moe_routing",                      //
              "trtllm::static_quantize_e4m3_per_tensor",         // CutlassFusedMoE.forward_chunk: has_fp8_qdq, before fused_moe (fused_moe_cutlass.py)
              "trtllm_moe::build_expert_maps_sort_first_token",  //
              "trtllm_moe::expand_input_rows",                   // copies the FP8 rows
              "trtllm_moe::compute_strides_tma_ws",              //
              "trtllm_moe::moe_gemm_tma_ws_fp8",                 // FC1: no fused SwiGLU with FP8 (isFusedGatedActivation needs !use_fp8, moe_gemm_template_dispatch.h)
              "trtllm_moe::do_activation",                       // doActivation: SwiGLU, then x fc2_quant to E4M3: FC2's input quantizer
              "trtllm_moe::memset_final_output",                 //
              "trtllm_moe::moe_gemm_tma_ws_finalize_fp8",        //
          });
    // FP8 with per-channel weights and per-token activations: CutlassFusedMoE has no method for
    // it (_get_quant_method raises), so kbp refuses it rather than plan kernels TensorRT-LLM lacks.
    auto refused = try_plan(sample("qwen3-30b-a3b"), "trtllm", "fp8-dynamic", "h100");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == kbp::ErrorCode::unsupported);
    CHECK_THAT(refused.error().where, Catch::StartsWith("embedded:kernels/trtllm.json: /table/") && Catch::EndsWith("/refuse"));
    CHECK_THAT(refused.error().message, Catch::Contains("does not run 'l0.moe.experts_gate_up' (expert_gate_up, weight fp8/channel") &&
                                            Catch::Contains("FP8_PER_CHANNEL_PER_TOKEN"));
    // A dense model in the same recipe is TensorRT-LLM's FP8 rowwise path, still planned.
    CHECK(try_plan(sample("llama-3.1-8b"), "trtllm", "fp8-dynamic", "h100").ok());
    // Past 256 tokens runMoe sorts the expert maps in three kernels (threeStepBuildExpertMapsSortFirstToken).
    kbp::planner::PlanRequest prefill;
    prefill.config_path = sample("qwen3-30b-a3b");
    prefill.engine = "trtllm";
    prefill.recipe = "bf16";
    prefill.target = "h100";
    prefill.arm = "prefill";
    prefill.rows = 512;
    prefill.command = "kbp plan (test)";
    auto long_prompt = kbp::planner::make_plan(prefill);
    REQUIRE(long_prompt.ok());
    const auto launches = moe_only(launches_in(long_prompt->blueprint, 1, "moe"));
    REQUIRE(launches.size() == 10);
    CHECK(std::vector<std::string>(launches.begin() + 2, launches.begin() + 5) ==
          std::vector<std::string>{"trtllm_moe::block_expert_prefix_sum", "trtllm_moe::global_expert_prefix_sum",
                                   "trtllm_moe::merge_expert_prefix_sum"});
}

TEST_CASE("Every sample with every engine of its target: a valid plan whose launches are its groups' kernels", "[engines][launches]") {
    const std::vector<std::string> models = sample_models();
    REQUIRE(models.size() >= 30);
    struct Arm {
        std::string engine, recipe, target;
    };
    const std::vector<Arm> arms{{"vllm", "bf16", "h100"}, {"sglang", "bf16", "h100"}, {"trtllm", "bf16", "h100"}, {"llama.cpp", "gguf-q8_0", "gb10"}};
    std::size_t planned = 0;
    for (const auto& model : models)
        for (const auto& arm : model == "glm-5.3-flash"
                                   // GLM-5 'next' is planned by the seed's own engine only (engines/met.json:
                                   // no other engine has a kernel for its hyper-connections), with its recipe.
                                   ? std::vector<Arm>{{"met", "glm-5.3-flash-nvfp4", "gb10"}}
                                   : arms) {
            INFO(model << " with " << arm.engine);
            auto p = try_plan(sample(model), arm.engine, arm.recipe, arm.target);
            if (!p) {
                // Only llama.cpp's GGUF recipe may refuse a sample (an architecture it does not serve).
                INFO(p.error().text());
                CHECK(arm.engine == "llama.cpp");
                continue;
            }
            ++planned;
            const Blueprint& b = p->blueprint;
            CHECK(kbp::schema::validate(b).empty());
            CHECK(kbp::schema::compute_stats(b).launches == kernels_listed(b));
        }
    CHECK(planned >= 3 * (models.size() - 1) + 1);  // vLLM, SGLang and TensorRT-LLM plan every other sample
}

TEST_CASE("Every sample at every arm kind with its default engine: a valid plan whose launches are its groups' kernels", "[engines][launches][arms]") {
    const std::vector<std::string> models = sample_models();
    REQUIRE(models.size() >= 30);
    // One row count per arm kind of `kbp plan --help` (multi_seq also at its largest, 128), and
    // prefill, which `--arms all` leaves out. `--arms all`'s 17 arms differ from these only in
    // multi_seq's and verify's row counts. Planning, validating and costing every sample at these
    // six takes 3.1 s in Release; at all 17 and prefill it took 9.9 s. The other row counts choose
    // other kernel rows only in the seed's GLM tables (glm5_next-gb10: batch tiers 2, 2-8, 9-16,
    // 17-32, 33-64), so GLM-5.3-Flash, with the seed's engine, is planned at all 17 arms too
    // (0.4 s more).
    struct Arm {
        std::string arm;
        std::int64_t rows;
    };
    const std::vector<Arm> kinds{{"decode", 1}, {"draft", 1}, {"verify", 4}, {"multi_seq", 8}, {"multi_seq", 128}, {"prefill", 512}};
    std::vector<Arm> every = kinds;
    for (const auto& a : kbp::planner::standard_arms())
        if (std::none_of(every.begin(), every.end(), [&](const Arm& k) { return k.arm == a.arm && k.rows == a.rows; }))
            every.push_back({a.arm, a.rows});
    REQUIRE(every.size() == kinds.size() + 12);  // --arms all's 17, 5 of them among the kinds
    auto planner = kbp::planner::Planner::load(std::nullopt);  // the catalog read once for all ~200 plans
    REQUIRE(planner.ok());
    std::size_t planned = 0, refused = 0;
    std::size_t tried = 0;
    for (const auto& model : models)
        for (const auto& arm : model == "glm-5.3-flash" ? every : kinds) {
            INFO(model << " at " << arm.arm << " " << arm.rows);
            ++tried;
            kbp::planner::PlanRequest r;  // no target, recipe or engine: the config's, else the defaults
            r.config_path = sample(model);
            r.arm = arm.arm;
            r.rows = arm.rows;
            r.command = "kbp plan (test)";
            auto p = planner->plan(r);
            if (!p) {
                // Only a target whose `arms` leave the arm out (Chimera's qc-u compiles one token
                // per pass) may refuse it, and never decode.
                INFO(p.error().text());
                CHECK(arm.arm != "decode");
                CHECK(p.error().where == "--arm");
                CHECK_THAT(p.error().message, Catch::EndsWith(": /arms)"));
                ++refused;
                continue;
            }
            ++planned;
            const Blueprint& b = p->blueprint;
            CHECK(kbp::schema::validate(b).empty());
            const std::int64_t listed = kernels_listed(b);
            CHECK(listed > 0);
            CHECK(kbp::schema::compute_stats(b).launches == listed);
            // The cost charges a launch per kernel: its step total is the same count.
            auto cost = kbp::planner::estimate_cost(planner->catalog(), b, kbp::planner::CostOptions{});
            INFO((cost ? std::string() : cost.error().text()));
            REQUIRE(cost.ok());
            CHECK(cost->total.launches == listed);
        }
    CHECK(planned + refused == tried);
    CHECK(tried == models.size() * kinds.size() + every.size() - kinds.size());
    CHECK(refused <= kinds.size() - 1);  // sarashina2.2-3b on qc-u plans its decode arm only
}

TEST_CASE("The seed plan launches 1,077 kernels in 907 device groups", "[engines][launches]") {
    const auto stats = kbp::schema::compute_stats(kbp::test::seed());
    CHECK(stats.launches == 1077);
    CHECK(stats.device_groups == 907);
}
