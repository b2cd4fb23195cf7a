// Bytes per row in each format, the expert row space, and symbolic dim expressions.
#include <catch2/catch.hpp>

#include "schema/bytes.hpp"
#include "schema/names.hpp"
#include "support.hpp"

using namespace kbp;
using namespace kbp::schema;

namespace {
std::int64_t bytes(const char* format, std::int64_t d) {
    auto r = row_bytes(Format::parse(format), d);
    REQUIRE(r.has_value());
    return *r;
}

const std::vector<Symbol> glm = {
    {"hidden", 4096}, {"hc", 4},          {"top_k", 8},         {"moe_inter", 2048}, {"lin_k_heads", 64},
    {"lin_k_dim", 128}, {"lin_v_heads", 64}, {"lin_v_dim", 128}, {"vocab", 154880},  {"zero", 0},
};
}  // namespace

TEST_CASE("bytes: row_bytes follows each format's rule", "[bytes]") {
    SECTION("bf16 and f16: 2 bytes a value") {
        CHECK(bytes("bf16", 4096) == 8192);
        CHECK(bytes("bf16", 1) == 2);
        CHECK(bytes("f16", 100) == 200);
    }
    SECTION("f32 and i32: 4 bytes a value") {
        CHECK(bytes("f32", 4096) == 16384);
        CHECK(bytes("i32", 8) == 32);
    }
    SECTION("fp8/token: a byte a value plus one f32 scale") {
        CHECK(bytes("fp8/token", 128) == 132);
        CHECK(bytes("fp8/token", 4096) == 4100);
    }
    SECTION("nvfp4/g16: packed codes, an E4M3 scale per 16, an f32 global scale") {
        CHECK(bytes("nvfp4/g16", 4096) == 2308);  // 2048 + 256 + 4
        CHECK(bytes("nvfp4/g16", 16) == 13);      // 8 + 1 + 4
        CHECK(bytes("nvfp4/g16", 2048) == 1156);  // 1024 + 128 + 4
    }
    SECTION("int8/b32 (llama.cpp's Q8_0): a byte a value plus an f16 scale per 32, 34 bytes a block") {
        CHECK(Format::parse("int8/b32").id == FormatId::int8_b32);
        CHECK(Format::parse("int8/b32").name() == "int8/b32");
        CHECK(bytes("int8/b32", 32) == 34);
        CHECK(bytes("int8/b32", 4096) == 4352);  // 4096 codes + 128 scales of 2 bytes: 8.5 bits a value
        CHECK(bytes("int8/b32", 33) == 37);      // a partial block still has its scale
    }
    SECTION("the formats quantized checkpoints declare (schema/bytes.cpp; explain/formats.json gives the same formulas)") {
        // fp8/b128: a byte a value; a row carries its share of the 128 x 128 block scales (4 bytes a block of 128 rows).
        CHECK(bytes("fp8/b128", 4096) == 4096 + 1);  // 32 blocks along K: 128 bytes of scales over 128 rows
        CHECK(bytes("fp8/b128", 128) == 129);       // one block: 4 bytes over 128 rows, rounded up
        CHECK(bytes("fp8/b128", 16384) == 16384 + 4);
        // fp8/g128: an f32 scale per 128 values of the row (per_token_group_quant_fp8).
        CHECK(bytes("fp8/g128", 4096) == 4096 + 4 * 32);
        CHECK(bytes("fp8/g128", 129) == 129 + 8);  // a partial group has its scale
        // int4 groups: two codes a byte, an f16 scale a group; 'z' adds a 4-bit zero point a group.
        CHECK(bytes("int4/g128", 4096) == 2048 + 2 * 32);
        CHECK(bytes("int4/g128z", 4096) == 2048 + 2 * 32 + 16);
        CHECK(bytes("int4/g32", 4096) == 2048 + 2 * 128);
        CHECK(bytes("int4/g32z", 4096) == 2048 + 2 * 128 + 64);
        CHECK(bytes("int4/g128z", 128 * 3) == 192 + 6 + 2);  // three zero points take two bytes
        CHECK(bytes("int4/g32", 33) == 17 + 4);               // an odd width still packs two a byte, rounded up
        // nf4: an f32 absmax per 64; double quantization: a byte per 64 and an f32 per 256 absmaxes.
        CHECK(bytes("nf4/b64", 4096) == 2048 + 4 * 64);
        CHECK(bytes("nf4/b64dq", 4096) == 2048 + 64 + 4);
        CHECK(bytes("nf4/b64dq", 64 * 257) == 32 * 257 + 257 + 8);  // 257 absmaxes: two f32 scales
        for (const char* f : {"fp8/b128", "fp8/g128", "int4/g128", "int4/g128z", "int4/g32", "int4/g32z", "nf4/b64", "nf4/b64dq"}) {
            INFO(f);
            CHECK(Format::parse(f).known());
            CHECK(Format::parse(f).name() == f);
        }
    }
    SECTION("zero width") {
        CHECK(bytes("bf16", 0) == 0);
        CHECK(bytes("f32", 0) == 0);
    }
    SECTION("an unknown format has no size") {
        CHECK_FALSE(row_bytes(Format::parse("mxfp6/g32"), 4096).has_value());
        CHECK_FALSE(row_bytes(Format{}, 4096).has_value());
    }
    SECTION("fixed point formats carry their fraction bits") {
        Format fx = Format::parse("fx32/f23");
        CHECK(fx.id == FormatId::fx32);
        CHECK(fx.name() == "fx32/f23");
        CHECK(fx32_fraction_bits(fx) == 23);
        CHECK(bytes("fx32/f23", 10) == 40);
        CHECK(Format::parse("fx32/f40").id == FormatId::unknown);
        CHECK(Format::parse("fx32").id == FormatId::unknown);
        CHECK(fx32_fraction_bits(Format::parse("bf16")) == -1);
    }
}

TEST_CASE("bytes: weight_bytes", "[bytes]") {
    CHECK(weight_bytes(Format::parse("bf16"), 4096, 4096) == std::int64_t{4096} * 4096 * 2);
    CHECK(weight_bytes(Format::parse("nvfp4/g16"), 4096, 4096) == std::int64_t{4096} * (2048 + 256) + 4);
    CHECK(weight_bytes(Format::parse("fp8/channel"), 10, 64) == 10 * 64 + 4 * 10);
    // Q8_0's scales are per block of a row, not per channel: Qwen2.5-7B's q_proj (3584 x 3584) in 34 bytes per 32.
    CHECK(weight_bytes(Format::parse("int8/b32"), 3584, 3584) == std::int64_t{3584} * 3584 / 32 * 34);
    CHECK(weight_bytes(Format::parse("int8/b32"), 10, 64) == 10 * (64 + 4));
    // fp8/b128's scales are per 128 x 128 block: Llama-3.1-8B's down_proj (4096 x 14336) has 32 x 112 of them.
    CHECK(weight_bytes(Format::parse("fp8/b128"), 4096, 14336) == std::int64_t{4096} * 14336 + 4 * 32 * 112);
    CHECK(weight_bytes(Format::parse("fp8/b128"), 129, 130) == 129 * 130 + 4 * 2 * 2);
    // The group formats are rows of their row bytes.
    CHECK(weight_bytes(Format::parse("int4/g128z"), 4096, 4096) == std::int64_t{4096} * (2048 + 64 + 16));
    CHECK(weight_bytes(Format::parse("nf4/b64dq"), 10, 4096) == 10 * (2048 + 64 + 4));
    CHECK_FALSE(weight_bytes(Format::parse("mxfp6/g32"), 4, 4).has_value());
}

TEST_CASE("bytes: every edge of the seed follows the rule, times top_k in the expert row space", "[bytes]") {
    const Blueprint& b = test::seed();
    auto expert = nodes_in_expert_rows(b);
    REQUIRE(expert.size() == b.nodes.size());
    std::size_t checked = 0, in_expert = 0, null_bytes = 0;
    for (std::size_t i = 0; i < b.edges.size(); ++i) {
        const Edge& e = b.edges[i];
        if (!e.bytes_per_token) {
            ++null_bytes;
            CHECK(e.fused);
            continue;
        }
        auto row = row_bytes(e.format, e.dim_value);
        INFO("edge " << i << " '" << e.id << "' " << e.format.name() << " x " << e.dim_value);
        REQUIRE(row.has_value());
        bool ex = edge_in_expert_rows(e, expert);
        if (ex) ++in_expert;
        CHECK(*e.bytes_per_token == *row * (ex ? 8 : 1));
        ++checked;
    }
    CHECK(null_bytes == 98);
    CHECK(checked == b.edges.size() - 98);
    CHECK(in_expert >= 168);  // every "n*top_k" edge, plus quantized expert activations (rows null)
}

TEST_CASE("bytes: expert row space follows the rows of the inputs", "[bytes]") {
    const Blueprint& b = test::seed();
    auto expert = nodes_in_expert_rows(b);
    // The embedding runs one row per token.
    CHECK_FALSE(expert[0]);
    std::size_t with_rows_null = 0;
    for (const Edge& e : b.edges) {
        if (e.rows && e.rows->id == RowSpaceId::n_top_k) CHECK(edge_in_expert_rows(e, expert));
        if (e.rows && e.rows->id == RowSpaceId::n) CHECK_FALSE(edge_in_expert_rows(e, expert));
        if (!e.rows && edge_in_expert_rows(e, expert)) ++with_rows_null;
    }
    CHECK(with_rows_null > 0);  // quantized expert activations inherit the expert row space
}

TEST_CASE("bytes: eval_dim evaluates symbolic dims", "[bytes]") {
    auto eval = [](const char* text) {
        std::string error;
        auto v = eval_dim(text, glm, &error);
        INFO("'" << text << "': " << error);
        REQUIRE(v.has_value());
        return *v;
    };
    CHECK(eval("lin_k_heads*lin_k_dim*2+lin_v_heads*lin_v_dim") == 24576);
    CHECK(eval("hidden") == 4096);
    CHECK(eval("hc*hidden") == 16384);
    CHECK(eval("hc*hc+hc*2") == 24);
    CHECK(eval("moe_inter*2") == 4096);
    CHECK(eval("2+3*4") == 14);
    CHECK(eval("(2+3)*4") == 20);
    CHECK(eval("10-2-3") == 5);  // left associative
    CHECK(eval("100/10/5") == 2);
    CHECK(eval("hidden/16") == 256);
    CHECK(eval(" hidden * 2 ") == 8192);
    CHECK(eval("((hidden))") == 4096);
    CHECK(eval("0") == 0);
}

TEST_CASE("bytes: eval_dim reports what is wrong", "[bytes]") {
    auto fails = [](const char* text, const char* needle) {
        std::string error;
        auto v = eval_dim(text, glm, &error);
        INFO("'" << text << "' gave " << (v ? std::to_string(*v) : "nothing") << ", error '" << error << "'");
        CHECK_FALSE(v.has_value());
        CHECK_FALSE(error.empty());
        if (needle) CHECK_THAT(error, Catch::Contains(needle));
    };
    SECTION("unknown symbol") {
        fails("hidden*heads", "heads");
        fails("nosuch", "nosuch");
    }
    SECTION("division by zero") {
        fails("hidden/0", "zero");
        fails("hidden/zero", "zero");
        fails("hidden/(hc-4)", "zero");
    }
    SECTION("garbage") {
        fails("", nullptr);
        fails("   ", nullptr);
        fails("hidden**2", nullptr);
        fails("2+", nullptr);
        fails("(2", nullptr);
        fails("2)", nullptr);
        fails("$", nullptr);
        fails("hidden hc", nullptr);
        fails("4096.5", nullptr);
        fails("hid-den-", nullptr);
    }
    SECTION("no error text asked for") {
        CHECK_FALSE(eval_dim("nosuch", glm).has_value());
        CHECK(eval_dim("hidden", glm) == 4096);
    }
}

// Regression (found by this suite, fixed): eval_dim does not detect 64-bit overflow. "9223372036854775807+1",
// "99999999999999999999" and hidden^6 (4096^6 = 2^72) evaluate with signed overflow (undefined
// behaviour: a wrapped value in release builds, an abort under UBSan) instead of failing with
// an error. Run in a child process so that a sanitizer abort fails only this test.
TEST_CASE("bytes: eval_dim rejects values that overflow 64 bits", "[bytes]") {
    for (const char* text : {"9223372036854775807+1", "99999999999999999999", "hidden*hidden*hidden*hidden*hidden*hidden"}) {
        DYNAMIC_SECTION(text) {
            auto run = test::run_isolated([text] {
                std::string error;
                auto v = eval_dim(text, glm, &error);
                return v ? "value " + std::to_string(*v) : "error " + error;
            });
            INFO(run.describe());
            REQUIRE(run.finished);
            CHECK(run.output.rfind("error ", 0) == 0);
        }
    }
}

// Regression (found by this suite, fixed): eval_dim recurses once per '(' with no depth limit: a dim of 100000 nested
// parentheses (a few hundred KB of JSON, accepted by the reader) overflows the stack and
// kills the process (validate() evaluates every dim when the blueprint has `symbols`).
TEST_CASE("bytes: eval_dim survives deeply nested parentheses", "[bytes]") {
    auto run = test::run_isolated([] {
        std::string text = std::string(100000, '(') + "hidden" + std::string(100000, ')');
        std::string error;
        auto v = eval_dim(text, glm, &error);
        return v ? "value " + std::to_string(*v) : "error " + error;
    });
    INFO(run.describe());
    CHECK(run.finished);  // a value (4096) or an error are both fine; a crash is not
}

TEST_CASE("names: unknown names are kept, known ones are recognised", "[bytes][names]") {
    CHECK(Format::parse("nvfp4/g16").id == FormatId::nvfp4_g16);
    CHECK(Format::parse("fp8/token").id == FormatId::fp8_token);
    Format f = Format::parse("mxfp6/g32");
    CHECK(f.id == FormatId::unknown);
    CHECK(f.name() == "mxfp6/g32");
    CHECK_FALSE(f == Format::parse("mxfp6/g16"));
    CHECK(f == Format::parse("mxfp6/g32"));
    Op op = Op::parse("linear:q_a");
    CHECK(op.kind.id == OpId::linear);
    CHECK(op.role == "q_a");
    CHECK(op.name() == "linear:q_a");
    CHECK(Op::parse("matmul_v9").name() == "matmul_v9");
    CHECK(Compute::parse("tensor_core:mma.sync.m16n8k32.e4m3").unit == "mma.sync.m16n8k32.e4m3");
    CHECK(Compute::parse("tensor_core:mma.sync.m16n8k32.e4m3").name() == "tensor_core:mma.sync.m16n8k32.e4m3");
    CHECK(state_roles_name(parse_state_roles("index:write,tail:update")) == "index:write,tail:update");
    CHECK(parse_state_roles("index:write,tail:update").size() == 2);
    CHECK(closest_name<OpId>("rms_nrom") == "rms_norm");
    CHECK(closest_name<OpId>("completely_different_thing").empty());
}
