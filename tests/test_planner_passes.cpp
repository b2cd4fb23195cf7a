// Planner passes one at a time: what each decides before the next runs.
#include <catch2/catch.hpp>

#include "planner/catalog.hpp"
#include "planner/passes.hpp"

namespace {

using namespace kbp::planner;

Ir prepared(const std::string& model, const std::string& arm, std::int64_t rows, Catalog& catalog) {
    Ir ir;
    ir.request.config_path = std::string(KBP_SOURCE_DIR) + "/samples/" + model + "/config.json";
    ir.request.arm = arm;
    ir.request.rows = rows;
    auto s = resolve_inputs(ir, catalog);
    INFO((s ? std::string() : s.error().text()));
    REQUIRE(s.ok());
    return ir;
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
    CHECK(kernel_of(1, "l0.attn.o") == "fp8_gemv::fp8_gemv_rowscale");
    CHECK(kernel_of(8, "l0.attn.o") == "fp8_gemv::fp8_gemv_rowscale");
    CHECK(kernel_of(9, "l0.attn.o") == "fp8_gemm::fp8_gemm_rowwise");
    CHECK(kernel_of(1, "head.lm_head") == "gemv::dense_gemv_bf16");
    CHECK(kernel_of(16, "head.lm_head") == "bf16_gemm::bf16_gemm");
}
