// A plan's `modules`: every node that reads a weight of the checkpoint is named by the checkpoint's
// Hugging Face modules, the names are those transformers' modeling files give (the tables below,
// one per family, written from huggingface/transformers src/transformers/models/<family>/
// modeling_<family>.py and, for the per-expert tensors its in-memory modules fuse, the
// checkpoint names src/transformers/conversion_mapping.py reads back), no module is claimed by two
// nodes unless kbp splits one fused HF projection into several ops, and `kbp why` shows them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>

#include "planner/plan.hpp"
#include "support.hpp"

namespace {

namespace fs = std::filesystem;
using Names = std::vector<std::string>;

const std::string root = KBP_SOURCE_DIR;

std::string sample(const std::string& name) { return root + "/samples/" + name + "/config.json"; }

kbp::planner::PlanRequest request(const std::string& name) {
    kbp::planner::PlanRequest r;
    r.config_path = sample(name);
    r.arm = "decode";
    r.rows = 1;
    r.command = "kbp plan (test)";
    return r;
}

kbp::schema::Blueprint plan_of(const std::string& name) {
    auto p = kbp::planner::make_plan(request(name));
    INFO(name << ": " << (p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    return std::move(p->blueprint);
}

// node id -> its module names, as the plan records them.
std::map<std::string, Names> modules_of(const kbp::schema::Blueprint& b) {
    std::map<std::string, Names> out;
    if (!b.modules) return out;
    for (const auto& [id, names] : *b.modules) {
        Names list;
        for (const auto& n : names.array()) list.push_back(n.string());
        out.emplace(id, std::move(list));
    }
    return out;
}

std::vector<std::string> samples() {
    std::vector<std::string> names;
    for (const auto& d : fs::directory_iterator(root + "/samples"))
        if (fs::exists(d.path() / "config.json")) names.push_back(d.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// One layer of a sample: every node of layer `layer` that has module names, and its names
// relative to `prefix` (the layer's "model.layers.{i}.").
struct LayerTable {
    std::string sample;
    int layer;
    std::string prefix;
    std::vector<std::pair<std::string, Names>> nodes;  // "attn.q" -> {"self_attn.q_proj"}
};

// Shared pieces of the tables (LlamaAttention / LlamaMLP and the families that copy them).
const std::vector<std::pair<std::string, Names>> llama_attn = {
    {"attn.input_norm", {"input_layernorm"}}, {"attn.q", {"self_attn.q_proj"}}, {"attn.k", {"self_attn.k_proj"}},
    {"attn.v", {"self_attn.v_proj"}},         {"attn.o", {"self_attn.o_proj"}}};
const std::vector<std::pair<std::string, Names>> llama_mlp = {
    {"mlp.post_norm", {"post_attention_layernorm"}}, {"mlp.gate_up", {"mlp.gate_proj", "mlp.up_proj"}}, {"mlp.down", {"mlp.down_proj"}}};

std::vector<std::pair<std::string, Names>> join(std::initializer_list<std::vector<std::pair<std::string, Names>>> parts) {
    std::vector<std::pair<std::string, Names>> out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

std::vector<std::pair<std::string, Names>> rename_block(const std::vector<std::pair<std::string, Names>>& nodes, const std::string& from,
                                                        const std::string& to) {
    auto out = nodes;
    for (auto& [id, names] : out)
        if (id.rfind(from + ".", 0) == 0) id = to + id.substr(from.size());
    return out;
}

// Per family: its layer 0 and, for a mixture of experts, one MoE layer (and the other layer
// kinds of a hybrid).
std::vector<LayerTable> layer_tables() {
    const std::string m0 = "model.layers.0.";
    const auto qk_norm = std::vector<std::pair<std::string, Names>>{{"attn.q_norm", {"self_attn.q_norm"}}, {"attn.k_norm", {"self_attn.k_norm"}}};
    // Qwen2MoeSparseMoeBlock's checkpoint layout (conversion_mapping.py "qwen2_moe": mlp.experts.*.gate_proj|up_proj|down_proj),
    // shared by qwen3_moe, deepseek_v2/v3, glm4_moe and qwen3_next.
    const std::vector<std::pair<std::string, Names>> routed = {
        {"moe.post_norm", {"post_attention_layernorm"}},
        {"moe.gate", {"mlp.gate"}},
        {"moe.experts_gate_up", {"mlp.experts.*.gate_proj", "mlp.experts.*.up_proj"}},
        {"moe.experts_down", {"mlp.experts.*.down_proj"}}};
    const std::vector<std::pair<std::string, Names>> shared_experts = {
        {"moe.shared_gate_up", {"mlp.shared_experts.gate_proj", "mlp.shared_experts.up_proj"}},
        {"moe.shared_down", {"mlp.shared_experts.down_proj"}}};
    // DeepseekV3Attention: q through q_a_proj / q_a_layernorm / q_b_proj (q_proj when q_lora_rank is null),
    // kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj (absorbed into kbp's attention op), o_proj.
    const std::vector<std::pair<std::string, Names>> mla_tail = {
        {"mla.kv_a", {"self_attn.kv_a_proj_with_mqa"}},
        {"mla.kv_norm", {"self_attn.kv_a_layernorm"}},
        {"mla.attend", {"self_attn.kv_b_proj"}},
        {"mla.o", {"self_attn.o_proj"}}};
    const std::vector<std::pair<std::string, Names>> mla_lora = {
        {"mla.input_norm", {"input_layernorm"}}, {"mla.q_a", {"self_attn.q_a_proj"}}, {"mla.q_a_norm", {"self_attn.q_a_layernorm"}},
        {"mla.q_b", {"self_attn.q_b_proj"}}};
    // Llama4TextDecoderLayer: feed_forward is Llama4TextMoe (router, experts' fused gate_up_proj / down_proj
    // parameters, shared_expert) or Llama4TextMLP; Llama4TextL2Norm (the q/k norm) has no weight.
    const std::vector<std::pair<std::string, Names>> llama4_moe = {
        {"moe.post_norm", {"post_attention_layernorm"}},
        {"moe.gate", {"feed_forward.router"}},
        {"moe.experts_gate_up", {"feed_forward.experts.gate_up_proj"}},
        {"moe.experts_down", {"feed_forward.experts.down_proj"}},
        {"moe.shared_gate_up", {"feed_forward.shared_expert.gate_proj", "feed_forward.shared_expert.up_proj"}},
        {"moe.shared_down", {"feed_forward.shared_expert.down_proj"}}};
    // NemotronHBlock: norm, then the mixer (NemotronHMamba2Mixer, NemotronHAttention, NemotronHMLP, NemotronHMoE),
    // under backbone.layers.{i} in the checkpoints; NemotronHMoE's experts one module each on disk.
    const std::string b = "backbone.layers.";
    const std::vector<std::pair<std::string, Names>> nemotron_mamba = {
        {"mamba.input_norm", {"norm"}},
        {"mamba.in_proj_xbc", {"mixer.in_proj"}},
        {"mamba.in_proj_z", {"mixer.in_proj"}},
        {"mamba.in_proj_dt", {"mixer.in_proj"}},
        {"mamba.conv", {"mixer.conv1d"}},
        {"mamba.ssm", {"mixer.A_log", "mixer.D", "mixer.dt_bias"}},
        {"mamba.out_norm", {"mixer.norm"}},
        {"mamba.out_proj", {"mixer.out_proj"}}};
    const std::vector<std::pair<std::string, Names>> nemotron_attn = {
        {"attn.input_norm", {"norm"}}, {"attn.q", {"mixer.q_proj"}}, {"attn.k", {"mixer.k_proj"}}, {"attn.v", {"mixer.v_proj"}},
        {"attn.o", {"mixer.o_proj"}}};
    // GraniteMoeHybridDecoderLayer: mamba (Bamba's mixer) or self_attn; block_sparse_moe (router.layer,
    // input_linear / output_linear: every expert in one parameter) and shared_mlp.
    const std::vector<std::pair<std::string, Names>> granite_moe = {
        {"moe.post_norm", {"post_attention_layernorm"}},
        {"moe.gate", {"block_sparse_moe.router.layer"}},
        {"moe.experts_gate_up", {"block_sparse_moe.input_linear"}},
        {"moe.experts_down", {"block_sparse_moe.output_linear"}},
        {"moe.shared_gate_up", {"shared_mlp.input_linear"}},
        {"moe.shared_down", {"shared_mlp.output_linear"}}};
    // Qwen3NextDecoderLayer: linear_attn (Qwen3NextGatedDeltaNet) or self_attn (q_proj gives q and its gate);
    // Qwen3NextSparseMoeBlock with one shared_expert and its shared_expert_gate.
    const std::vector<std::pair<std::string, Names>> qwen3_next_moe =
        join({routed,
              {{"moe.shared_gate_up", {"mlp.shared_expert.gate_proj", "mlp.shared_expert.up_proj"}},
               {"moe.shared_down", {"mlp.shared_expert.down_proj"}},
               {"moe.shared_gate", {"mlp.shared_expert_gate"}}}});
    // Gemma2DecoderLayer / Gemma3DecoderLayer: four norms around attention and MLP.
    const std::vector<std::pair<std::string, Names>> gemma_mlp = {
        {"mlp.pre_ff_norm", {"pre_feedforward_layernorm"}},
        {"mlp.gate_up", {"mlp.gate_proj", "mlp.up_proj"}},
        {"mlp.down", {"mlp.down_proj"}},
        {"mlp.post_ff_norm", {"post_feedforward_layernorm"}}};
    const std::vector<std::pair<std::string, Names>> gemma_post = {{"attn.post_attn_norm", {"post_attention_layernorm"}}};
    const std::vector<std::pair<std::string, Names>> mixtral_moe = {
        {"moe.post_norm", {"post_attention_layernorm"}},
        {"moe.gate", {"block_sparse_moe.gate"}},
        {"moe.experts_gate_up", {"block_sparse_moe.experts.*.w1", "block_sparse_moe.experts.*.w3"}},
        {"moe.experts_down", {"block_sparse_moe.experts.*.w2"}}};

    return {
        {"llama-3.1-8b", 0, m0, join({llama_attn, llama_mlp})},
        {"qwen2.5-7b", 0, m0, join({llama_attn, llama_mlp})},
        {"qwen3-8b", 0, m0, join({llama_attn, qk_norm, llama_mlp})},
        // Olmo2DecoderLayer: no pre-norms; q_norm / k_norm over the whole projection, norms after attention and MLP.
        {"olmo-2-1124-7b", 0, m0,
         join({{{"layerqk_attn.q", {"self_attn.q_proj"}},
                {"layerqk_attn.k", {"self_attn.k_proj"}},
                {"layerqk_attn.v", {"self_attn.v_proj"}},
                {"layerqk_attn.o", {"self_attn.o_proj"}}},
               rename_block(qk_norm, "attn", "layerqk_attn"),
               {{"layerqk_attn.post_attn_norm", {"post_attention_layernorm"}},
                {"mlp.gate_up", {"mlp.gate_proj", "mlp.up_proj"}},
                {"mlp.down", {"mlp.down_proj"}},
                {"mlp.post_ff_norm", {"post_feedforward_layernorm"}}}})},
        // Phi3Attention's one qkv_proj, Phi3MLP's one gate_up_proj.
        {"phi-3-mini-4k", 0, m0,
         {{"attn.input_norm", {"input_layernorm"}},
          {"attn.qkv", {"self_attn.qkv_proj"}},
          {"attn.o", {"self_attn.o_proj"}},
          {"mlp.post_norm", {"post_attention_layernorm"}},
          {"mlp.gate_up", {"mlp.gate_up_proj"}},
          {"mlp.down", {"mlp.down_proj"}}}},
        {"gemma-2-9b", 0, m0, join({llama_attn, gemma_post, gemma_mlp})},
        {"gemma-3-1b", 0, m0, join({llama_attn, qk_norm, gemma_post, gemma_mlp})},
        // Gemma3ForConditionalGeneration: its Gemma3Model's language_model holds the text layers.
        {"gemma-3-4b-it", 0, "model.language_model.layers.0.", join({llama_attn, qk_norm, gemma_post, gemma_mlp})},
        {"mixtral-8x7b", 0, m0, join({llama_attn, mixtral_moe})},
        // MiniMaxM2SparseMoeBlock: Mixtral's layout plus its e_score_correction_bias (read by the biased top-k).
        {"minimax-m2", 0, m0,
         join({rename_block(llama_attn, "attn", "layerqk_attn"), rename_block(qk_norm, "attn", "layerqk_attn"), mixtral_moe,
               {{"moe.top_k", {"block_sparse_moe.e_score_correction_bias"}}}})},
        {"qwen3-30b-a3b", 0, m0, join({llama_attn, qk_norm, routed})},
        // Qwen2MoeSparseMoeBlock: the routed experts, shared_expert and its shared_expert_gate (as Qwen3-Next's).
        {"qwen1.5-moe-a2.7b", 0, m0, join({llama_attn, qwen3_next_moe})},
        // Starcoder2DecoderLayer: LlamaAttention's projections, Starcoder2MLP's c_fc and c_proj.
        {"starcoder2-3b", 0, m0,
         join({llama_attn, {{"mlp.post_norm", {"post_attention_layernorm"}}, {"mlp.up", {"mlp.c_fc"}}, {"mlp.down", {"mlp.c_proj"}}}})},
        // SmolLM3's NoPE layers keep Llama's modules.
        {"smollm3-3b-base", 3, "model.layers.3.", join({rename_block(llama_attn, "attn", "nope_attn"), llama_mlp})},
        // CohereDecoderLayer: one input_layernorm; CohereAttention and CohereMLP side by side.
        {"command-r-v01", 0, m0,
         join({rename_block(llama_attn, "attn", "attn_mlp"), {{"attn_mlp.gate_up", {"mlp.gate_proj", "mlp.up_proj"}}, {"attn_mlp.down", {"mlp.down_proj"}}}})},
        // InternLM2DecoderLayer (the checkpoint's modeling_internlm2.py): attention_norm, attention.wqkv and wo,
        // ffn_norm, feed_forward.w1 (gate), w3 (up), w2 (down).
        {"internlm2.5-7b-chat", 0, m0,
         {{"attn.input_norm", {"attention_norm"}},
          {"attn.qkv", {"attention.wqkv"}},
          {"attn.o", {"attention.wo"}},
          {"mlp.post_norm", {"ffn_norm"}},
          {"mlp.gate_up", {"feed_forward.w1", "feed_forward.w3"}},
          {"mlp.down", {"feed_forward.w2"}}}},
        // GptOssAttention's sinks; GptOssMLP's router and GptOssExperts' fused gate_up_proj / down_proj.
        {"gpt-oss-20b", 0, m0,
         join({llama_attn,
               {{"attn.attend", {"self_attn.sinks"}},
                {"moe.post_norm", {"post_attention_layernorm"}},
                {"moe.gate", {"mlp.router"}},
                {"moe.experts_gate_up", {"mlp.experts.gate_up_proj"}},
                {"moe.experts_down", {"mlp.experts.down_proj"}}}})},
        {"deepseek-v3", 0, m0, join({mla_lora, mla_tail, llama_mlp})},
        {"deepseek-v3", 3, "model.layers.3.", join({mla_lora, mla_tail, routed, shared_experts})},
        {"deepseek-v2-lite", 1, "model.layers.1.",
         join({{{"mla.input_norm", {"input_layernorm"}}, {"mla.q", {"self_attn.q_proj"}}}, mla_tail, routed, shared_experts})},
        // Glm4MoeLiteDecoderLayer: DeepseekV3Attention and Glm4MoeMoE (experts one module each on disk).
        {"glm-4.7-flash", 1, "model.layers.1.", join({mla_lora, mla_tail, routed, shared_experts})},
        // DeepseekV32Attention: DeepSeek-V3's MLA and its DeepseekV32Indexer (wq_b, wk, k_norm, weights_proj).
        {"deepseek-v3.2", 3, "model.layers.3.",
         join({rename_block(join({mla_lora, mla_tail}), "mla", "dsa"),
               {{"dsa.idx_q", {"self_attn.indexer.wq_b"}},
                {"dsa.idx_k", {"self_attn.indexer.wk"}},
                {"dsa.idx_k_norm", {"self_attn.indexer.k_norm"}},
                {"dsa.idx_w", {"self_attn.indexer.weights_proj"}}},
               routed, shared_experts})},
        // Kimi Linear's checkpoint (vLLM kimi_linear.py, layers/kda.py): KimiDeltaAttention's projections,
        // three conv1d and o_norm; block_sparse_moe with experts w1/w3/w2.
        {"kimi-linear-48b-a3b", 0, m0,
         join({{{"kda.input_norm", {"input_layernorm"}},
                {"kda.q", {"self_attn.q_proj"}},
                {"kda.k", {"self_attn.k_proj"}},
                {"kda.v", {"self_attn.v_proj"}},
                {"kda.f_a", {"self_attn.f_a_proj"}},
                {"kda.f_b", {"self_attn.f_b_proj"}},
                {"kda.b", {"self_attn.b_proj"}},
                {"kda.g_a", {"self_attn.g_a_proj"}},
                {"kda.g_b", {"self_attn.g_b_proj"}},
                {"kda.q_conv", {"self_attn.q_conv1d"}},
                {"kda.k_conv", {"self_attn.k_conv1d"}},
                {"kda.v_conv", {"self_attn.v_conv1d"}},
                {"kda.gates", {"self_attn.A_log", "self_attn.dt_bias"}},
                {"kda.out_norm", {"self_attn.o_norm"}},
                {"kda.o", {"self_attn.o_proj"}}},
               llama_mlp})},
        {"kimi-linear-48b-a3b", 3, "model.layers.3.",
         join({{{"mla.input_norm", {"input_layernorm"}}, {"mla.q", {"self_attn.q_proj"}}},
               mla_tail,
               {{"moe.post_norm", {"post_attention_layernorm"}},
                {"moe.gate", {"block_sparse_moe.gate"}},
                {"moe.experts_gate_up", {"block_sparse_moe.experts.*.w1", "block_sparse_moe.experts.*.w3"}},
                {"moe.experts_down", {"block_sparse_moe.experts.*.w2"}},
                {"moe.shared_gate_up", {"block_sparse_moe.shared_experts.gate_proj", "block_sparse_moe.shared_experts.up_proj"}},
                {"moe.shared_down", {"block_sparse_moe.shared_experts.down_proj"}}}})},
        {"glm-4.6", 0, m0, join({llama_attn, qk_norm, llama_mlp})},
        {"glm-4.6", 3, "model.layers.3.", join({llama_attn, qk_norm, routed, shared_experts})},
        {"llama-4-maverick-17b-128e", 0, m0,
         join({rename_block(llama_attn, "attn", "chunked_attn"),
               {{"mlp.post_norm", {"post_attention_layernorm"}},
                {"mlp.gate_up", {"feed_forward.gate_proj", "feed_forward.up_proj"}},
                {"mlp.down", {"feed_forward.down_proj"}}}})},
        {"llama-4-maverick-17b-128e", 3, "model.layers.3.", join({rename_block(llama_attn, "attn", "nope_attn"), llama4_moe})},
        {"qwen3-next-80b-a3b", 0, m0,
         join({{{"gdn.input_norm", {"input_layernorm"}},
                {"gdn.in_proj_qkv", {"linear_attn.in_proj_qkvz"}},
                {"gdn.in_proj_z", {"linear_attn.in_proj_qkvz"}},
                {"gdn.in_proj_ba", {"linear_attn.in_proj_ba"}},
                {"gdn.short_conv", {"linear_attn.conv1d"}},
                {"gdn.gates", {"linear_attn.A_log", "linear_attn.dt_bias"}},
                {"gdn.out_norm", {"linear_attn.norm"}},
                {"gdn.o", {"linear_attn.out_proj"}}},
               qwen3_next_moe})},
        {"qwen3-next-80b-a3b", 3, "model.layers.3.",
         join({rename_block(join({llama_attn, qk_norm}), "attn", "gattn"), {{"gattn.q_gate", {"self_attn.q_proj"}}}, qwen3_next_moe})},
        // Qwen3_5MoeForConditionalGeneration: the text model under model.language_model; Qwen3_5GatedDeltaNet's
        // four input projections; the experts fused on disk (mlp.experts.gate_up_proj, down_proj).
        {"qwen3.5-35b-a3b", 0, "model.language_model.layers.0.",
         join({{{"gdn.input_norm", {"input_layernorm"}},
                {"gdn.in_proj_qkv", {"linear_attn.in_proj_qkv"}},
                {"gdn.in_proj_z", {"linear_attn.in_proj_z"}},
                {"gdn.in_proj_ba", {"linear_attn.in_proj_b", "linear_attn.in_proj_a"}},
                {"gdn.short_conv", {"linear_attn.conv1d"}},
                {"gdn.gates", {"linear_attn.A_log", "linear_attn.dt_bias"}},
                {"gdn.out_norm", {"linear_attn.norm"}},
                {"gdn.o", {"linear_attn.out_proj"}},
                {"moe.post_norm", {"post_attention_layernorm"}},
                {"moe.gate", {"mlp.gate"}},
                {"moe.experts_gate_up", {"mlp.experts.gate_up_proj"}},
                {"moe.experts_down", {"mlp.experts.down_proj"}},
                {"moe.shared_gate_up", {"mlp.shared_expert.gate_proj", "mlp.shared_expert.up_proj"}},
                {"moe.shared_down", {"mlp.shared_expert.down_proj"}},
                {"moe.shared_gate", {"mlp.shared_expert_gate"}}}})},
        {"nemotron-3-nano-30b-a3b", 0, b + "0.", nemotron_mamba},
        {"nemotron-3-nano-30b-a3b", 1, b + "1.",
         {{"moe.input_norm", {"norm"}},
          {"moe.gate", {"mixer.gate"}},
          {"moe.experts_up", {"mixer.experts.*.up_proj"}},
          {"moe.experts_down", {"mixer.experts.*.down_proj"}},
          {"moe.shared_up", {"mixer.shared_experts.up_proj"}},
          {"moe.shared_down", {"mixer.shared_experts.down_proj"}}}},
        {"nemotron-3-nano-30b-a3b", 5, b + "5.", nemotron_attn},
        {"nemotron-h-8b-base-8k", 1, b + "1.", {{"mlp.input_norm", {"norm"}}, {"mlp.up", {"mixer.up_proj"}}, {"mlp.down", {"mixer.down_proj"}}}},
        {"granite-3.3-2b-instruct", 0, m0, join({llama_attn, llama_mlp})},
        {"granite-4.0-h-tiny", 0, m0,
         join({{{"mamba.input_norm", {"input_layernorm"}},
                {"mamba.in_proj_xbc", {"mamba.in_proj"}},
                {"mamba.in_proj_z", {"mamba.in_proj"}},
                {"mamba.in_proj_dt", {"mamba.in_proj"}},
                {"mamba.conv", {"mamba.conv1d"}},
                {"mamba.ssm", {"mamba.A_log", "mamba.D", "mamba.dt_bias"}},
                {"mamba.out_norm", {"mamba.norm"}},
                {"mamba.out_proj", {"mamba.out_proj"}}},
               granite_moe})},
        {"granite-4.0-h-tiny", 5, "model.layers.5.", join({llama_attn, granite_moe})},
        // Exaone4DecoderLayer (Olmo2DecoderLayer): no pre-norms, per-head q_norm / k_norm, norms after attention
        // and MLP; layer 3 is a NoPE global layer with the same modules.
        {"exaone-4.0-32b", 0, m0,
         join({{{"attn.q", {"self_attn.q_proj"}}, {"attn.k", {"self_attn.k_proj"}}, {"attn.v", {"self_attn.v_proj"}}, {"attn.o", {"self_attn.o_proj"}}},
               qk_norm,
               {{"attn.post_attn_norm", {"post_attention_layernorm"}},
                {"mlp.gate_up", {"mlp.gate_proj", "mlp.up_proj"}},
                {"mlp.down", {"mlp.down_proj"}},
                {"mlp.post_ff_norm", {"post_feedforward_layernorm"}}}})},
        {"exaone-4.0-32b", 3, "model.layers.3.",
         join({{{"nope_attn.q", {"self_attn.q_proj"}},
                {"nope_attn.k", {"self_attn.k_proj"}},
                {"nope_attn.v", {"self_attn.v_proj"}},
                {"nope_attn.o", {"self_attn.o_proj"}}},
               rename_block(qk_norm, "attn", "nope_attn"),
               {{"nope_attn.post_attn_norm", {"post_attention_layernorm"}},
                {"mlp.gate_up", {"mlp.gate_proj", "mlp.up_proj"}},
                {"mlp.down", {"mlp.down_proj"}},
                {"mlp.post_ff_norm", {"post_feedforward_layernorm"}}}})},
        // SeedOssDecoderLayer, InternLM3 (served as LlamaForCausalLM) and Ernie4_5DecoderLayer keep Llama's modules.
        {"seed-oss-36b-instruct", 0, m0, join({llama_attn, llama_mlp})},
        {"internlm3-8b-instruct", 0, m0, join({llama_attn, llama_mlp})},
        {"ernie-4.5-0.3b-pt", 0, m0, join({llama_attn, llama_mlp})},
        // Ernie4_5_MoeSparseMoeBlock: the router, moe_statics' correction bias (read by the top-k), experts and shared_experts.
        {"ernie-4.5-21b-a3b-pt", 0, m0, join({llama_attn, llama_mlp})},
        // Cohere2DecoderLayer: Command R's parallel block; layer 3 its NoPE global layer.
        {"command-r7b-12-2024", 0, m0,
         join({rename_block(llama_attn, "attn", "attn_mlp"), {{"attn_mlp.gate_up", {"mlp.gate_proj", "mlp.up_proj"}}, {"attn_mlp.down", {"mlp.down_proj"}}}})},
        {"command-r7b-12-2024", 3, "model.layers.3.",
         join({rename_block(llama_attn, "attn", "nope_attn_mlp"),
               {{"nope_attn_mlp.gate_up", {"mlp.gate_proj", "mlp.up_proj"}}, {"nope_attn_mlp.down", {"mlp.down_proj"}}}})},
        // HunYuanDenseV1Attention's query_layernorm / key_layernorm (after the rotary embedding).
        {"hunyuan-7b-instruct", 0, m0,
         join({llama_attn, {{"attn.q_norm", {"self_attn.query_layernorm"}}, {"attn.k_norm", {"self_attn.key_layernorm"}}}, llama_mlp})},
        {"ernie-4.5-21b-a3b-pt", 1, "model.layers.1.",
         join({llama_attn, routed, shared_experts, {{"moe.top_k", {"mlp.moe_statics.e_score_correction_bias"}}}})},
        // HunYuanMoE: the router's wg, 64 routed experts and the shared_mlp; HunYuanMoEV1Attention as Hunyuan dense's.
        {"hunyuan-a13b-instruct", 0, m0,
         join({llama_attn,
               {{"attn.q_norm", {"self_attn.query_layernorm"}}, {"attn.k_norm", {"self_attn.key_layernorm"}}},
               {{"moe.post_norm", {"post_attention_layernorm"}},
                {"moe.gate", {"mlp.gate.wg"}},
                {"moe.experts_gate_up", {"mlp.experts.*.gate_proj", "mlp.experts.*.up_proj"}},
                {"moe.experts_down", {"mlp.experts.*.down_proj"}},
                {"moe.shared_gate_up", {"mlp.shared_mlp.gate_proj", "mlp.shared_mlp.up_proj"}},
                {"moe.shared_down", {"mlp.shared_mlp.down_proj"}}}})},
        // BailingMoeForCausalLM (Ling 1.x): attention.query_key_value and attention.dense, BailingMoE's gate, experts and shared_experts.
        {"ling-lite-1.5", 0, m0,
         join({{{"attn.input_norm", {"input_layernorm"}}, {"attn.qkv", {"attention.query_key_value"}}, {"attn.o", {"attention.dense"}}},
               routed, shared_experts})},
        // Lfm2DecoderLayer: a short-conv layer (operator_norm, conv.in_proj split into B|x and C, conv.conv, conv.out_proj)
        // and, on layer 2, Lfm2Attention (q_layernorm, k_layernorm, out_proj); feed_forward.w1 / w3 / w2 after ffn_norm.
        {"lfm2-1.2b", 0, m0,
         {{"conv.input_norm", {"operator_norm"}},
          {"conv.in_proj_bx", {"conv.in_proj"}},
          {"conv.in_proj_c", {"conv.in_proj"}},
          {"conv.conv", {"conv.conv"}},
          {"conv.out_proj", {"conv.out_proj"}},
          {"mlp.post_norm", {"ffn_norm"}},
          {"mlp.gate_up", {"feed_forward.w1", "feed_forward.w3"}},
          {"mlp.down", {"feed_forward.w2"}}}},
        {"lfm2-1.2b", 2, "model.layers.2.",
         {{"attn.input_norm", {"operator_norm"}},
          {"attn.q", {"self_attn.q_proj"}},
          {"attn.k", {"self_attn.k_proj"}},
          {"attn.v", {"self_attn.v_proj"}},
          {"attn.q_norm", {"self_attn.q_layernorm"}},
          {"attn.k_norm", {"self_attn.k_layernorm"}},
          {"attn.o", {"self_attn.out_proj"}},
          {"mlp.post_norm", {"ffn_norm"}},
          {"mlp.gate_up", {"feed_forward.w1", "feed_forward.w3"}},
          {"mlp.down", {"feed_forward.w2"}}}},
        // FalconH1DecoderLayer: input_layernorm read by self_attn and mamba in parallel, then pre_ff_layernorm and feed_forward.
        {"falcon-h1-7b-instruct", 0, m0,
         {{"attn_mamba.input_norm", {"input_layernorm"}},
          {"attn_mamba.q", {"self_attn.q_proj"}},
          {"attn_mamba.k", {"self_attn.k_proj"}},
          {"attn_mamba.v", {"self_attn.v_proj"}},
          {"attn_mamba.o", {"self_attn.o_proj"}},
          {"attn_mamba.in_proj_xbc", {"mamba.in_proj"}},
          {"attn_mamba.in_proj_z", {"mamba.in_proj"}},
          {"attn_mamba.in_proj_dt", {"mamba.in_proj"}},
          {"attn_mamba.conv", {"mamba.conv1d"}},
          {"attn_mamba.ssm", {"mamba.A_log", "mamba.D", "mamba.dt_bias"}},
          {"attn_mamba.out_norm", {"mamba.norm"}},
          {"attn_mamba.out_proj", {"mamba.out_proj"}},
          {"mlp.post_norm", {"pre_ff_layernorm"}},
          {"mlp.gate_up", {"feed_forward.gate_proj", "feed_forward.up_proj"}},
          {"mlp.down", {"feed_forward.down_proj"}}}},
    };
}

// The modules a hybrid's fused HF projection gives to each of the ops kbp splits it into: the one
// case where several nodes name one module (always nodes of one block).
const std::set<std::string> split_modules = {
    "linear_attn.in_proj_qkvz",  // Qwen3-Next: kbp's in_proj_qkv and in_proj_z
    "self_attn.q_proj",          // Qwen3-Next's gated attention: q and q_gate
    "mixer.in_proj",             // Nemotron-H's Mamba-2: in_proj_xbc, in_proj_z, in_proj_dt
    "mamba.in_proj",             // Granite 4.0's Mamba-2: likewise
    "conv.in_proj",              // LFM2's short convolution: in_proj_bx and in_proj_c
};

// "id: a, b" a line, for a readable failure.
std::string text_of(const std::map<std::string, Names>& table) {
    std::string out;
    for (const auto& [id, names] : table) {
        out += id + ":";
        for (const auto& n : names) out += " " + n;
        out += "\n";
    }
    return out;
}

bool is_split(const std::string& name) {
    for (const auto& s : split_modules)
        if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0 && name[name.size() - s.size() - 1] == '.')
            return true;
    return false;
}

}  // namespace

TEST_CASE("modules: every node that reads a checkpoint weight is named, no module claimed twice but a split projection") {
    std::vector<std::string> unnamed;
    for (const auto& name : samples()) {
        auto b = plan_of(name);
        auto modules = modules_of(b);
        if (modules.empty()) {
            unnamed.push_back(name);
            continue;
        }
        // (a) A node with a weight (its precision names the weight's format) is named, unless the
        // planner inserted it (an act_quant reads no weight of the checkpoint).
        std::size_t weighted = 0;
        for (const auto& n : b.nodes) {
            if (!n.precision.weight) continue;
            INFO(name << ": " << n.id);
            if (n.inserted) {
                CHECK(modules.count(n.id) == 0);
                continue;
            }
            ++weighted;
            CHECK(modules.count(n.id) == 1);
        }
        CHECK(weighted > 0);
        // Every named node is a node of the plan, and its names are whole ('*' for every routed expert only).
        std::set<std::string> ids;
        for (const auto& n : b.nodes) ids.insert(n.id);
        std::map<std::string, std::vector<std::string>> owners;
        for (const auto& [id, names] : modules) {
            INFO(name << ": " << id);
            CHECK(ids.count(id) == 1);
            CHECK(!names.empty());
            for (const auto& m : names) {
                CHECK(m.find('{') == std::string::npos);
                CHECK(m.find("..") == std::string::npos);
                CHECK((m.find('*') == std::string::npos || m.find(".experts.*.") != std::string::npos));
                owners[m].push_back(id);
            }
        }
        // (c) One module, one node: only a fused HF projection kbp splits is named by several ops, of one block.
        for (const auto& [m, nodes] : owners) {
            if (nodes.size() == 1) continue;
            INFO(name << ": " << m << " is claimed by " << nodes.size() << " nodes, the first " << nodes[0] << " and " << nodes[1]);
            CHECK(is_split(m));
            for (const auto& id : nodes) CHECK(id.substr(0, id.rfind('.')) == nodes[0].substr(0, nodes[0].rfind('.')));
        }
    }
    // Every sample names its weights; the seed's GLM-5.3-Flash, which is not on the Hub, by its
    // kin's names (architectures/glm5_next.json says whose), and the seed equality holds with them.
    CHECK(unnamed.empty());
}

TEST_CASE("modules: layer 0 and a MoE layer of every family carry transformers' module names") {
    std::map<std::string, std::map<std::string, Names>> plans;
    for (const auto& t : layer_tables()) {
        if (!plans.count(t.sample)) plans.emplace(t.sample, modules_of(plan_of(t.sample)));
        const auto& modules = plans.at(t.sample);
        const std::string layer = "l" + std::to_string(t.layer) + ".";
        std::map<std::string, Names> want, got;
        for (const auto& [node, names] : t.nodes) {
            Names whole;
            for (const auto& n : names) whole.push_back(t.prefix + n);
            want.emplace(layer + node, whole);
        }
        for (const auto& [id, names] : modules)
            if (id.rfind(layer, 0) == 0) got.emplace(id, names);
        INFO(t.sample << " layer " << t.layer);
        REQUIRE(want.size() == t.nodes.size());  // no node twice in the table
        CHECK(text_of(got) == text_of(want));
    }
}

TEST_CASE("modules: the embedding, final norm and LM head of every family") {
    struct Ends {
        std::string sample, embed, norm, head;
    };
    const std::vector<Ends> ends = {
        {"llama-3.1-8b", "model.embed_tokens", "model.norm", "lm_head"},
        {"qwen3-next-80b-a3b", "model.embed_tokens", "model.norm", "lm_head"},
        {"gemma-2-9b", "model.embed_tokens", "model.norm", "lm_head"},  // tied: lm_head is still the module the head reads
        {"gemma-3-4b-it", "model.language_model.embed_tokens", "model.language_model.norm", "lm_head"},
        {"qwen3.5-35b-a3b", "model.language_model.embed_tokens", "model.language_model.norm", "lm_head"},
        {"granite-4.0-h-tiny", "model.embed_tokens", "model.norm", "lm_head"},
        {"internlm2.5-7b-chat", "model.tok_embeddings", "model.norm", "output"},
        {"starcoder2-3b", "model.embed_tokens", "model.norm", "lm_head"},
        {"exaone-4.0-32b", "model.embed_tokens", "model.norm", "lm_head"},
        {"ling-lite-1.5", "model.word_embeddings", "model.norm", "lm_head"},
        {"lfm2-1.2b", "model.embed_tokens", "model.embedding_norm", "lm_head"},  // Lfm2Model's norm after the last layer
        {"falcon-h1-7b-instruct", "model.embed_tokens", "model.final_layernorm", "lm_head"},
        // NemotronHModel's embeddings and norm_f under the checkpoints' backbone.
        {"nemotron-h-8b-base-8k", "backbone.embeddings", "backbone.norm_f", "lm_head"},
    };
    for (const auto& e : ends) {
        auto modules = modules_of(plan_of(e.sample));
        INFO(e.sample);
        CHECK(modules["embed.embed"] == Names{e.embed});
        CHECK(modules["head.final_norm"] == Names{e.norm});
        CHECK(modules["head.lm_head"] == Names{e.head});
    }
}

TEST_CASE("modules: kbp why shows a node's module names") {
    auto r = request("qwen3-30b-a3b");
    auto text = kbp::planner::why_node(r, "l3.moe.experts_gate_up");
    INFO((text ? *text : text.error().text()));
    REQUIRE(text.ok());
    CHECK_THAT(*text, Catch::Contains("\n  module:      model.layers.3.mlp.experts.*.gate_proj\n"
                                      "  module:      model.layers.3.mlp.experts.*.up_proj\n"));
    auto q = kbp::planner::why_node(r, "l3.attn.q");
    REQUIRE(q.ok());
    CHECK_THAT(*q, Catch::Contains("\n  module:      model.layers.3.self_attn.q_proj\n"));
    // An act_quant kbp inserted reads no weight of the checkpoint: no module line.
    std::string inserted;
    for (const auto& n : plan_of("qwen3-30b-a3b").nodes)
        if (n.inserted) inserted = n.id;
    REQUIRE(!inserted.empty());
    auto none = kbp::planner::why_node(r, inserted);
    REQUIRE(none.ok());
    CHECK_THAT(*none, !Catch::Contains("module:"));
}
