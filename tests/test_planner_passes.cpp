// Planner passes one at a time: what each decides before the next runs. The expected values
// are read off the data files (architectures/llama.json, recipes/, kernels/, fusion/) and the
// calibrated ranges, not off a plan.
#include <catch2/catch.hpp>

#include <map>

#include "planner/catalog.hpp"
#include "planner/passes.hpp"

namespace {

using namespace kbp::planner;

Ir prepared(const std::string& model, const std::string& arm, std::int64_t rows, Catalog& catalog,
            std::vector<std::pair<std::string, std::string>> settings = {}, std::optional<std::string> ranges = {}) {
    Ir ir;
    ir.request.config_path = std::string(KBP_SOURCE_DIR) + "/samples/" + model + "/config.json";
    ir.request.arm = arm;
    ir.request.rows = rows;
    ir.request.settings = std::move(settings);
    if (ranges) ir.request.ranges = std::string(KBP_SOURCE_DIR) + "/samples/" + model + "/" + *ranges;
    auto s = resolve_inputs(ir, catalog);
    INFO((s ? std::string() : s.error().text()));
    REQUIRE(s.ok());
    return ir;
}

// Runs `passes` in order on `ir`, each required to succeed.
void run(Ir& ir, std::initializer_list<kbp::Status (*)(Ir&)> passes) {
    for (auto pass : passes) {
        auto s = pass(ir);
        INFO((s ? std::string() : s.error().text()));
        REQUIRE(s.ok());
    }
}

const IrNode& node(const Ir& ir, const std::string& id) {
    for (const auto& n : ir.nodes)
        if (n.node.id == id) return n;
    FAIL("no node " << id);
    throw;
}

std::string weight_of(const Ir& ir, const std::string& id) {
    const auto& w = node(ir, id).node.precision.weight;
    return w ? std::string(w->name()) : "none";
}

std::string activation_of(const Ir& ir, const std::string& id) {
    const auto& a = node(ir, id).node.precision.activation;
    return a ? std::string(a->name()) : "none";
}

std::string output_of(const Ir& ir, const std::string& id) {
    const auto& o = node(ir, id).node.precision.output;
    return o && !o->empty() ? std::string(o->front().name()) : "none";
}

std::string template_arg(const Ir& ir, const std::string& id, const std::string& name) {
    const auto& args = node(ir, id).node.template_args;
    if (!args) return "no template arguments";
    for (const auto& a : *args)
        if (a.name == name) return a.value ? std::to_string(*a.value) : "null";
    return "missing";
}

}  // namespace

TEST_CASE("expand_layers wires each block's tensors and hands the residual on", "[planner][passes]") {
    auto catalog = Catalog::load(std::nullopt);
    REQUIRE(catalog.ok());
    Ir ir = prepared("llama-3.1-8b", "decode", 1, *catalog);
    REQUIRE(expand_layers(ir).ok());
    // embed + 32 x (9 attn + 5 mlp) + 3 head ops, no quantization points yet.
    CHECK(ir.nodes.size() == 1 + 32 * 14 + 3);
    CHECK(ir.layers.size() == 32);
    CHECK(ir.layers[0].template_name == "attn+mlp");
    // l0.attn.input_norm reads the embedding; l1.attn.input_norm reads l0.mlp.residual.
    const IrNode& norm1 = ir.nodes[1 + 14];
    CHECK(norm1.node.id == "l1.attn.input_norm");
    CHECK(ir.nodes[norm1.inputs[0].node].node.id == "l0.mlp.residual");
}

TEST_CASE("insert_quant adds one shared act_quant per quantized reader group", "[planner][passes]") {
    auto catalog = Catalog::load(std::nullopt);
    REQUIRE(catalog.ok());
    Ir ir = prepared("llama-3.1-8b", "decode", 1, *catalog);
    REQUIRE(expand_layers(ir).ok());
    REQUIRE(assign_precision(ir).ok());
    auto before = ir.nodes.size();
    REQUIRE(insert_quant(ir).ok());
    // Per layer: xn (read by q, k, v), a (o), xn (gate_up), a (down): four points.
    CHECK(ir.nodes.size() == before + 32 * 4);
    int shared = 0;
    for (const auto& n : ir.nodes) {
        if (n.node.id == "l0.attn.xn_quant") {
            CHECK(n.node.inserted);
            CHECK(n.node.precision.output->front().name() == "fp8/token");
        }
        for (const auto& in : n.inputs)
            if (ir.nodes[in.node].node.id == "l0.attn.xn_quant") ++shared;
    }
    CHECK(shared == 3);  // q, k and v read the one quantized copy
}

TEST_CASE("choose_kernels follows the rows crossover in the table", "[planner][passes]") {
    auto catalog = Catalog::load(std::nullopt);
    REQUIRE(catalog.ok());
    auto kernel_of = [&](std::int64_t rows, const std::string& id) {
        Ir ir = prepared("llama-3.1-8b", rows == 1 ? "decode" : "multi_seq", rows, *catalog);
        REQUIRE(expand_layers(ir).ok());
        REQUIRE(assign_precision(ir).ok());
        REQUIRE(insert_quant(ir).ok());
        REQUIRE(choose_kernels(ir).ok());
        for (const auto& n : ir.nodes)
            if (n.node.id == id) return n.node.kernel.value_or("none").str();
        return std::string("missing");
    };
    // The h100's engine (vllm) runs cutlass_scaled_mm at every rows (kernels/vllm.json's row ahead
    // of cuda-generic's GEMV / GEMM crossover); the bf16 LM head follows cuda-generic's.
    CHECK(kernel_of(1, "l0.attn.o") == "cutlass_w8a8::cutlass_scaled_mm_fp8");
    CHECK(kernel_of(9, "l0.attn.o") == "cutlass_w8a8::cutlass_scaled_mm_fp8");
    CHECK(kernel_of(1, "head.lm_head") == "gemv::dense_gemv_bf16");
    CHECK(kernel_of(16, "head.lm_head") == "bf16_gemm::bf16_gemm");
}

TEST_CASE("assign_precision takes weighted ops' formats from the recipe and the rest from the architecture", "[planner][passes]") {
    auto catalog = Catalog::load(std::nullopt);
    REQUIRE(catalog.ok());
    // fp8-dynamic: linear:* W8A8 with per-channel weights; the LM head at lm_head_dtype (bf16).
    Ir ir = prepared("llama-3.1-8b", "decode", 1, *catalog);
    run(ir, {expand_layers, assign_precision});
    CHECK(weight_of(ir, "l0.attn.q") == "fp8/channel");
    CHECK(activation_of(ir, "l0.attn.q") == "fp8/token");
    CHECK(weight_of(ir, "l31.mlp.down") == "fp8/channel");
    CHECK(weight_of(ir, "head.lm_head") == "bf16");
    CHECK(activation_of(ir, "head.lm_head") == "bf16");
    // Not weighted: the architecture's own formats.
    CHECK(weight_of(ir, "l0.attn.input_norm") == "none");
    CHECK(output_of(ir, "l0.attn.input_norm") == "bf16");
    // --set lm_head_dtype reaches the LM head through the "{lm_head_dtype}" placeholder.
    Ir fp8_head = prepared("llama-3.1-8b", "decode", 1, *catalog, {{"lm_head_dtype", "fp8/channel"}});
    run(fp8_head, {expand_layers, assign_precision});
    CHECK(weight_of(fp8_head, "head.lm_head") == "fp8/channel");
    // chimera-w4a16: int4 weights, every float activation FixedPoint32 with F still open.
    Ir gpnpu = prepared("sarashina2.2-3b", "decode", 1, *catalog);
    run(gpnpu, {expand_layers, assign_precision});
    CHECK(weight_of(gpnpu, "l0.attn.q") == "int4/b128");
    CHECK(activation_of(gpnpu, "l0.attn.q") == "fx32/f?");
    CHECK(output_of(gpnpu, "l0.attn.input_norm") == "fx32/f?");
    CHECK(weight_of(gpnpu, "embed.embed") == "f32");  // op_formats: the embedding table
}

TEST_CASE("insert_smoothing puts a smooth_mul before each projection, shared when the settings fuse them", "[planner][passes]") {
    auto catalog = Catalog::load(std::nullopt);
    REQUIRE(catalog.ok());
    // The Ir after insert_smoothing, and how many nodes it inserted.
    auto smoothed = [&](const std::string& model, std::vector<std::pair<std::string, std::string>> settings) {
        Ir ir = prepared(model, "decode", 1, *catalog, std::move(settings));
        run(ir, {expand_layers, assign_precision});
        auto before = ir.nodes.size();
        run(ir, {insert_smoothing});
        auto added = ir.nodes.size() - before;
        return std::pair<Ir, std::size_t>(std::move(ir), added);
    };
    // packed: one vector per projection (q, k, v, o, gate_up, down) in each of 32 layers, and the LM head's.
    auto [packed, added] = smoothed("sarashina2.2-3b", {});
    CHECK(added == 32 * 6 + 1);
    const IrNode& q_smooth = node(packed, "l3.attn.q_smooth");
    CHECK(q_smooth.node.inserted);
    CHECK(q_smooth.node.op.name() == "smooth_mul");
    // It reads the projection's input (the norm's output) and the projection reads it.
    CHECK(packed.nodes[q_smooth.inputs[0].node].node.id == "l3.attn.input_norm");
    CHECK(packed.nodes[node(packed, "l3.attn.q").inputs[0].node].node.id == "l3.attn.q_smooth");
    CHECK(weight_of(packed, "l3.attn.q_smooth") == "f32");  // the recipe's smoothing vector
    // fused with v: q, k and v share one vector named after their input tensor.
    auto [fused, fused_added] = smoothed("sarashina2.2-3b", {{"proj_mode", "fused"}, {"fuse_v", "true"}});
    CHECK(fused_added == 32 * 4 + 1);
    for (const char* reader : {"l3.attn.q", "l3.attn.k", "l3.attn.v"}) {
        INFO(reader);
        CHECK(fused.nodes[node(fused, reader).inputs[0].node].node.id == "l3.attn.xn_smooth");
    }
    // A recipe without smoothing adds nothing.
    CHECK(smoothed("llama-3.1-8b", {}).second == 0);
}

TEST_CASE("form_groups fuses as vLLM does: the quantizers into the norms and SiLU-and-mul, q|k|v into one GEMM, a residual add with the next norm across layers", "[planner][passes]") {
    auto catalog = Catalog::load(std::nullopt);
    REQUIRE(catalog.ok());
    Ir ir = prepared("llama-3.1-8b", "decode", 1, *catalog);
    run(ir, {expand_layers, assign_precision, insert_smoothing, insert_quant, choose_kernels, form_groups});
    // fusion/vllm.json, then cuda-generic.json, tried in order at each node of layer 0.
    std::map<std::string, std::vector<std::string>> fused;  // rule -> member ids
    for (const auto& g : ir.groups) {
        if (g.nodes.size() < 2 || ir.nodes[g.nodes.front()].node.layer != 0) continue;
        for (auto k : g.nodes) fused[g.rule].push_back(ir.nodes[k].node.id);
    }
    CHECK(fused["rms_norm_quant"] == std::vector<std::string>{"l0.attn.input_norm", "l0.attn.xn_quant"});
    CHECK(fused["qkv_proj"] == std::vector<std::string>{"l0.attn.q", "l0.attn.k", "l0.attn.v"});
    CHECK(fused["residual_rms_norm_quant"] == std::vector<std::string>{"l0.attn.residual", "l0.mlp.post_norm", "l0.mlp.xn_quant"});
    CHECK(fused["silu_mul_quant"] == std::vector<std::string>{"l0.mlp.act", "l0.mlp.a_quant"});
    CHECK(fused.size() == 4);
    // The attention output's quantizer is a launch of its own; RoPE and the cache write two.
    for (const char* alone : {"l0.attn.a_quant", "l0.attn.rope", "l0.attn.kv_write"}) {
        INFO(alone);
        CHECK(ir.groups[node(ir, alone).node.group].nodes.size() == 1);
    }
    // The MLP's residual add runs in the next layer's input norm kernel, and belongs to that layer.
    const auto& next = ir.groups[node(ir, "l1.attn.input_norm").node.group];
    REQUIRE(next.nodes.size() == 3);
    CHECK(ir.nodes[next.nodes[0]].node.id == "l1.attn.residual_in");
    CHECK(ir.nodes[next.nodes[0]].node.layer == 1);
    CHECK(ir.nodes[next.nodes[0]].outputs.at(0).id == "l1.attn.h_in");
    CHECK(ir.nodes[next.nodes[0]].why.moved_from == "l0.mlp.residual");  // kbp why says where it came from
    CHECK(ir.nodes[next.nodes[1]].node.kernel == "inductor::add_rms_norm_quant_fp8");
    // Every node is in exactly one group, and its group index says which.
    std::vector<int> seen(ir.nodes.size(), 0);
    for (std::size_t g = 0; g < ir.groups.size(); ++g)
        for (auto k : ir.groups[g].nodes) {
            ++seen[k];
            CHECK(ir.nodes[k].node.group == static_cast<std::int64_t>(g));
        }
    CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(ir.nodes.size()));
    // A node no rule takes is a group of one named by its kernel table row.
    CHECK(ir.groups[node(ir, "l0.attn.attend").node.group].rule == "gqa_decode");
    CHECK(ir.groups[node(ir, "head.lm_head").node.group].rule == "lm_head_bf16_gemv");
}

TEST_CASE("assign_fraction_bits gives FixedPoint32 outputs and custom-op arguments their F from the ranges", "[planner][passes]") {
    auto catalog = Catalog::load(std::nullopt);
    REQUIRE(catalog.ok());
    Ir ir = prepared("sarashina2.2-3b", "decode", 1, *catalog, {}, "ranges.json");
    run(ir, {expand_layers, assign_precision, insert_smoothing, insert_quant, choose_kernels, form_groups, assign_fraction_bits});
    // int_bits(m) = ceil(log2 m): l3.mlp.xn reaches 95.751 (7 bits): rule "range", F = 31 - 7 = 24.
    CHECK(output_of(ir, "l3.mlp.post_norm") == "fx32/f24");
    // l3.mlp.h reaches 10805.1 (14 bits); a residual add keeps 2 more bits: 31 - 14 - 2 = 15.
    CHECK(output_of(ir, "l3.mlp.residual") == "fx32/f15");
    // w4a16NBitsMatMul<F_out, F_in>: l3.mlp.f reaches 10572.1 (14 bits), imf_headroom 2: 31 - 14 - 2 = 15;
    // its smoothed input l3.mlp.down_smooth reaches 102.729 (7 bits): min(31, 35 - 7) = 28.
    CHECK(template_arg(ir, "l3.mlp.down", "F_out") == "15");
    CHECK(template_arg(ir, "l3.mlp.down", "F_in") == "28");
    CHECK(output_of(ir, "l3.mlp.down") == "fx32/f15");
    // --set imf_headroom=3 takes one more bit from every custom op's output.
    Ir more = prepared("sarashina2.2-3b", "decode", 1, *catalog, {{"imf_headroom", "3"}}, "ranges.json");
    run(more, {expand_layers, assign_precision, insert_smoothing, insert_quant, choose_kernels, form_groups, assign_fraction_bits});
    CHECK(template_arg(more, "l3.mlp.down", "F_out") == "14");
    // Without ranges F stays open and the argument unknown.
    Ir open = prepared("sarashina2.2-3b", "decode", 1, *catalog);
    run(open, {expand_layers, assign_precision, insert_smoothing, insert_quant, choose_kernels, form_groups, assign_fraction_bits});
    CHECK(output_of(open, "l3.mlp.post_norm") == "fx32/f?");
    CHECK(template_arg(open, "l3.mlp.down", "F_out") == "null");
}

TEST_CASE("describe_steps spells each node's arithmetic from its formats, compute and the target's MMA", "[planner][passes]") {
    auto catalog = Catalog::load(std::nullopt);
    REQUIRE(catalog.ok());
    Ir ir = prepared("llama-3.1-8b", "decode", 1, *catalog);
    run(ir, {expand_layers, assign_precision, insert_smoothing, insert_quant, choose_kernels, form_groups, assign_fraction_bits,
             describe_steps});
    using Steps = std::vector<std::string>;
    // fp8_gemv runs on H100's wgmma e4m3 (targets/h100.json "mma"): the weight is read as e4m3.
    CHECK(node(ir, "l0.attn.q").node.steps ==
          Steps{"act fp8/token", "weight fp8/channel->e4m3", "mma e4m3*e4m3", "accumulate f32", "scale f32"});
    // The bf16 LM head's gemv runs on CUDA cores: its operand is the activation's format, no scale.
    CHECK(node(ir, "head.lm_head").node.steps == Steps{"act bf16", "weight bf16->bf16", "mma bf16*bf16", "accumulate f32", "scale none"});
    // The architecture's own steps, with the recipe's kv_cache_dtype (fp8) filled in.
    CHECK(node(ir, "l0.attn.attend").node.steps == Steps{"act bf16", "cache fp8", "scores f32", "softmax f32", "accumulate f32"});
    CHECK(node(ir, "l0.attn.kv_write").node.steps == Steps{"cache fp8"});
    CHECK(node(ir, "l0.attn.residual").node.steps == Steps{"compute f32"});
}
