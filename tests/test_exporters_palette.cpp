// The palette (exporters/palette.hpp): each --color mode's key and fill for known ops of the
// seed's layer 3, the legend's order, the format colour table and edge widths. The expected
// colours are written down from the palette's tables (formats by width; categorical colours in
// order of first appearance; device/host fixed), not read back from the code under test.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "exporters/palette.hpp"
#include "support.hpp"

using namespace kbp;
namespace ex = kbp::exporters;

namespace {

// The seed's layer-3 ops in plan order.
std::vector<const schema::Node*> layer3() {
    std::vector<const schema::Node*> ops;
    for (const auto& n : test::seed().nodes)
        if (n.layer == 3) ops.push_back(&n);
    return ops;
}

const schema::Node& op(const std::string& id) {
    for (const auto& n : test::seed().nodes)
        if (n.id == id) return n;
    FAIL("no node " << id << " in the seed");
    throw;
}

std::vector<std::string> legend_keys(const ex::Palette& p) {
    std::vector<std::string> keys;
    for (const auto& s : p.legend()) keys.push_back(s.key);
    return keys;
}

}  // namespace

TEST_CASE("palette: formats have fixed colours by width", "[exporters][palette]") {
    auto color = [](const char* f) { return ex::format_color(schema::Format::parse(f)); };
    CHECK(color("nvfp4/g16").fill == "#f4aaa6");
    CHECK(color("nvfp4/g16").stroke == "#c0392b");
    CHECK(color("fp8/channel").fill == "#fff1a8");
    CHECK(color("fp8/token").fill == "#fde3a0");
    CHECK(color("bf16").fill == "#cdebc9");
    CHECK(color("f32").fill == "#d3e2f6");
    CHECK(ex::format_bits(schema::Format::parse("nvfp4/g16")) == 4);
    CHECK(ex::format_bits(schema::Format::parse("fp8/token")) == 8);
    CHECK(ex::format_bits(schema::Format::parse("bf16")) == 16);
    CHECK(ex::format_bits(schema::Format::parse("i32")) == 32);
}

TEST_CASE("palette: precision mode fills an op by its narrowest format", "[exporters][palette]") {
    ex::Palette p(ex::ColorBy::precision, layer3());
    // Weight fp8/channel and activation fp8/token tie at 8 bits: the weight's wins.
    CHECK(p.key(op("l3.dsa.q_a")) == "fp8/channel");
    CHECK(p.fill(op("l3.dsa.q_a")) == "#fff1a8");
    CHECK(p.key(op("l3.moe.experts_gate_up")) == "nvfp4/g16");
    CHECK(p.fill(op("l3.moe.experts_gate_up")) == "#f4aaa6");
    // A bf16 weight read with f32 activations: bf16 is narrower.
    CHECK(p.fill(op("l3.dsa.mix")) == "#cdebc9");
    // f32 in, i32 out: both 32 bits, the activation's comes first.
    CHECK(p.key(op("l3.dsa.select")) == "f32");
    CHECK(p.fill(op("l3.dsa.select")) == "#d3e2f6");
    // The legend lists formats narrowest first, in the table's order within a width.
    CHECK(legend_keys(p) == std::vector<std::string>{"nvfp4/g16", "fp8/token", "fp8/channel", "bf16", "f32"});
    std::int64_t ops = 0;
    for (const auto& s : p.legend()) ops += s.ops;
    CHECK(ops == static_cast<std::int64_t>(layer3().size()));
}

TEST_CASE("palette: open-ended keys take the categorical colours in order of first appearance", "[exporters][palette]") {
    ex::Palette family(ex::ColorBy::family, layer3());
    // Layer 3 opens with glm_mhc (l3.dsa.mix), then w8a8_act_quant (xn_quant), wxay (q_a), rms_norm.
    CHECK(family.fill(op("l3.dsa.mix")) == "#77aadd");
    CHECK(family.fill(op("l3.dsa.xn_quant")) == "#ee8866");
    CHECK(family.fill(op("l3.dsa.q_a")) == "#eedd88");
    CHECK(family.fill(op("l3.dsa.q_a_norm")) == "#ffaabb");
    CHECK(legend_keys(family).front() == "glm_mhc");

    ex::Palette compute(ex::ColorBy::compute, layer3());
    CHECK(compute.key(op("l3.dsa.q_a")) == "tensor_core:mma.sync.m16n8k32.e4m3");
    CHECK(compute.fill(op("l3.dsa.mix")) == "#77aadd");        // cuda_core, first
    CHECK(compute.fill(op("l3.dsa.xn_quant")) == "#ee8866");   // memory, second
    CHECK(compute.fill(op("l3.dsa.q_a")) == "#eedd88");        // the fp8 mma, third

    ex::Palette where(ex::ColorBy::where, layer3());
    CHECK(where.fill(op("l3.dsa.q_a")) == "#d3e2f6");  // device: a fixed colour, not a categorical one
    CHECK(legend_keys(where) == std::vector<std::string>{"device"});
}

TEST_CASE("palette: state mode leaves ops without state white and lists 'none' last", "[exporters][palette]") {
    ex::Palette p(ex::ColorBy::state, layer3());
    CHECK(p.key(op("l3.dsa.q_a")) == "none");
    CHECK(p.fill(op("l3.dsa.q_a")) == "#ffffff");
    CHECK(p.key(op("l3.dsa.kv_write")) == "latent:write");
    CHECK(p.fill(op("l3.dsa.kv_write")) == "#77aadd");
    CHECK(p.fill(op("l3.dsa.pool")) == "#ee8866");
    CHECK(legend_keys(p).back() == "none");
    CHECK(ex::owns_state(op("l3.dsa.kv_write")));
    CHECK_FALSE(ex::owns_state(op("l3.dsa.q_a")));
    CHECK(ex::is_quant_point(op("l3.dsa.xn_quant")));
    CHECK_FALSE(ex::is_quant_point(op("l3.dsa.q_a")));
}

TEST_CASE("palette: colour modes by name, edge widths by bytes", "[exporters][palette]") {
    for (auto by : {ex::ColorBy::precision, ex::ColorBy::family, ex::ColorBy::compute, ex::ColorBy::where, ex::ColorBy::state})
        CHECK(ex::parse_color_by(ex::color_by_name(by)) == by);
    CHECK_FALSE(ex::parse_color_by("colour").has_value());
    CHECK(ex::edge_pen_width(std::nullopt) == 1.0);
    CHECK(ex::edge_pen_width(0) == 1.0);
    CHECK(ex::edge_pen_width(256) == Approx(0.8));
    CHECK(ex::edge_pen_width(1024) == Approx(0.8 + 0.45 * 2));
    CHECK(ex::edge_pen_width(std::int64_t{1} << 30) == 6.0);  // capped
}
