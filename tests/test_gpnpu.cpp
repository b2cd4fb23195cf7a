// The GPNPU: Sarashina2.2-3B planned for Chimera QC-U from the sample config and the ranges made
// from the seed compiler's table. The custom ops and their template arguments are compared with
// the seed's (tests/gpnpu/seed_custom_ops.json), the KV sizing and the weight blob with its
// figures, and every knob (headroom, packed / fused, fuse_v, KV budget) with what it must change.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "cost/cost.hpp"
#include "planner/plan.hpp"
#include "schema/memory.hpp"
#include "schema/reader.hpp"
#include "schema/templates.hpp"
#include "schema/validator.hpp"
#include "support.hpp"

namespace {

using kbp::planner::PlanRequest;
using kbp::schema::Blueprint;
using kbp::test::OJson;

const std::string root = KBP_SOURCE_DIR;

PlanRequest sarashina(std::vector<std::pair<std::string, std::string>> settings = {}, bool ranges = true) {
    PlanRequest r;
    r.config_path = root + "/samples/sarashina2.2-3b/config.json";
    if (ranges) r.ranges = root + "/samples/sarashina2.2-3b/ranges.json";
    r.settings = std::move(settings);
    r.command = "kbp plan (test)";
    return r;
}

Blueprint plan_of(const PlanRequest& r) {
    auto p = kbp::planner::make_plan(r);
    INFO((p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    auto problems = kbp::schema::validate(p->blueprint);
    INFO(kbp::test::list_diagnostics(problems));
    REQUIRE(problems.empty());
    return std::move(p->blueprint);
}

const Blueprint& packed_hr2() {
    static const Blueprint b = plan_of(sarashina());
    return b;
}

const OJson& seed_ops() {
    static const OJson j = OJson::parse(kbp::test::slurp(root + "/tests/gpnpu/seed_custom_ops.json"));
    return j;
}

std::vector<std::int64_t> args_of(const kbp::schema::Node& n) {
    std::vector<std::int64_t> out;
    if (n.template_args)
        for (const auto& a : *n.template_args) out.push_back(a.value.value_or(-1));
    return out;
}

const kbp::schema::Node& node(const Blueprint& b, const std::string& id) {
    for (const auto& n : b.nodes)
        if (n.id == id) return n;
    FAIL("no node " << id);
    throw;
}

// The template arguments of each launch of `kernel`, in plan order.
std::vector<std::vector<std::int64_t>> launches_of(const Blueprint& b, const std::string& kernel) {
    std::vector<std::vector<std::int64_t>> out;
    for (const auto& g : b.groups)
        for (auto k : g.nodes)
            if (b.nodes[k].kernel == kernel && b.nodes[k].template_args) {
                out.push_back(args_of(b.nodes[k]));
                break;
            }
    return out;
}

std::int64_t count_op(const Blueprint& b, const std::string& op) {
    std::int64_t n = 0;
    for (const auto& x : b.nodes) n += x.op.name() == op;
    return n;
}

kbp::Error plan_error(const PlanRequest& r) {
    auto p = kbp::planner::make_plan(r);
    REQUIRE_FALSE(p.ok());
    return p.error();
}

}  // namespace

TEST_CASE("gpnpu: the o, down and lm_head matmuls get the seed's template arguments", "[gpnpu]") {
    const auto& b = packed_hr2();
    const auto& seed = seed_ops()["nbits_matmul"];
    const auto& known = seed_ops()["known_differences"];
    REQUIRE(seed.size() == 65);
    int same = 0;
    std::vector<std::string> differing;
    for (const auto& [id, args] : seed.items()) {
        const auto& n = node(b, id);
        REQUIRE(n.kernel == std::optional<std::string>("nn_custom::w4a16NBitsMatMul"));
        REQUIRE(n.template_args);
        CHECK((*n.template_args)[0].name == "F_out");
        CHECK((*n.template_args)[1].name == "F_in");
        if (args_of(n) == args.get<std::vector<std::int64_t>>()) ++same;
        else differing.push_back(id);
        // F_in follows the input range for all 65.
        CHECK(args_of(n)[1] == args[1].get<std::int64_t>());
    }
    CHECK(same == 63);
    // The two the seed's notebook took from a separate fp-range file it does not print.
    CHECK(differing == std::vector<std::string>{"l7.attn.o", "l31.mlp.down"});
    for (const auto& id : differing) CHECK(known.contains(id));
    CHECK(args_of(node(b, "l7.attn.o")) == std::vector<std::int64_t>{27, 31});
    CHECK(args_of(node(b, "l31.mlp.down")) == std::vector<std::int64_t>{19, 30});
    CHECK(launches_of(b, "nn_custom::w4a16NBitsMatMul").size() == 65);
    // An op's output format is its F_out.
    CHECK(node(b, "head.lm_head").precision.output->front().name() == "fx32/f23");
}

TEST_CASE("gpnpu: q|k|v and gate|up are 64 packed projection ops with the seed's arguments", "[gpnpu]") {
    const auto& b = packed_hr2();
    auto packed = launches_of(b, "nn_custom::w4a16PackedProj");
    REQUIRE(packed.size() == 64);
    std::vector<std::vector<std::int64_t>> qkv, gate_up;
    for (const auto& a : packed) (a[0] == 3 ? qkv : gate_up).push_back(a);
    CHECK(qkv == seed_ops()["packed_qkv"].get<std::vector<std::vector<std::int64_t>>>());
    CHECK(gate_up == seed_ops()["packed_gate_up"].get<std::vector<std::vector<std::int64_t>>>());
    // One op: the smoothing multiplies it absorbs carry its signature too.
    const auto& q = node(b, "l5.attn.q");
    const auto& smooth = node(b, "l5.attn.v_smooth");
    CHECK(q.group == smooth.group);
    CHECK(smooth.inserted);
    CHECK(smooth.template_args == q.template_args);
    CHECK(kbp::schema::kernel_signature(*q.kernel, *q.template_args) == "nn_custom::w4a16PackedProj<3, 21, 31, 31>");
    CHECK(b.groups[q.group].rule == "packed_proj_qkv");
}

TEST_CASE("gpnpu: attention, RoPE, int8 Q/K/V and the KV cache are one op; the KV cache fits its budget", "[gpnpu]") {
    const auto& b = packed_hr2();
    const auto& attend = node(b, "l3.attn.attend");
    const auto& g = b.groups[attend.group];
    CHECK(g.rule == "attention_fx32_rope");
    CHECK(g.kernels == std::vector<std::string>{"nn::qwenMultiheadAttentionFx32RoPE"});
    std::vector<std::string> ops;
    for (auto k : g.nodes) ops.push_back(b.nodes[k].op.name());
    CHECK(ops == std::vector<std::string>{"rope", "act_quant", "act_quant", "kv_write", "act_quant", "attention"});
    for (const char* q : {"l3.attn.qr_quant", "l3.attn.kr_quant", "l3.attn.v_quant"}) {
        CHECK(node(b, q).inserted);
        CHECK(node(b, q).precision.output->front().name() == "int8/static");
    }
    CHECK(attend.precision.activation->name() == "int8/static");
    CHECK(attend.point.find("kv_dim")->integer() == 1280);
    CHECK(attend.point.find("num_groups")->integer() == 2);
    CHECK(attend.point.find("reserved_ext")->integer() == 1310720);
    auto memory = kbp::schema::compute_memory(b);
    CHECK(memory.reserved_bytes == 41943040);
    REQUIRE(memory.reserved_by_layer.size() == 32);
    for (const auto& [layer, bytes] : memory.reserved_by_layer) CHECK(bytes == 1310720);
    // Codes + f32 scales + 4-bit zero points of every projection and the LM head, and the f32
    // embedding table and smoothing vectors: the seed's constant blob is 2,704.6-2,707.8 MB.
    CHECK(memory.weight_bytes == 2706769920);
    CHECK(memory.weights_by_format.front() == std::make_pair(std::string("int4/b128"), std::int64_t{1655398400}));
    // The logits are the largest activation, as the compiler's "Max Temp Ext Bytes 0.400MB".
    CHECK(memory.largest_tensor == "head.logits");
    CHECK(memory.largest_tensor_bytes == 409600);
    CHECK(memory.unknown_fixed_point.empty());
}

TEST_CASE("gpnpu: fractional bits follow the ranges by the compiler's rules", "[gpnpu]") {
    const auto& b = packed_hr2();
    // Range rule (31 - int_bits): the seed's table for these ops.
    CHECK(node(b, "embed.embed").precision.output->front().name() == "fx32/f27");
    CHECK(node(b, "l0.attn.input_norm").precision.output->front().name() == "fx32/f26");
    CHECK(node(b, "l3.attn.attend").precision.output->front().name() == "fx32/f28");
    // The compiler's adds sit 2 bits lower (l0 Add: [-10.9, 11.2] -> 25 in the seed).
    CHECK(node(b, "l0.attn.residual").precision.output->front().name() == "fx32/f25");
    // RoPE keeps its input's F; a reader reads its producer's F.
    CHECK(node(b, "l0.attn.rope").precision.output->front().name() == "fx32/f21");
    CHECK(node(b, "l0.attn.o").precision.activation->name() == node(b, "l0.attn.o_smooth").precision.output->front().name());
    // The collapsed form keeps one layer template: layers differ in numbers only.
    REQUIRE(b.collapsed);
    REQUIRE(b.collapsed->templates.size() == 3);
    const auto* t = b.collapsed->find("attn+mlp");
    REQUIRE(t);
    REQUIRE(t->instance_values);
    CHECK(t->instance_values->size() == 32);
    auto expanded = kbp::schema::expand_templates(b);
    REQUIRE(expanded.ok());
    REQUIRE(expanded->nodes.size() == b.nodes.size());
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        INFO(b.nodes[i].id);
        CHECK(expanded->nodes[i].precision == b.nodes[i].precision);
        CHECK(expanded->nodes[i].template_args == b.nodes[i].template_args);
    }
    for (std::size_t i = 0; i < b.edges.size(); ++i) CHECK(expanded->edges[i].format == b.edges[i].format);
}

TEST_CASE("gpnpu: headroom 3 lowers every custom-op output by one bit", "[gpnpu]") {
    auto hr3 = plan_of(sarashina({{"imf_headroom", "3"}}));
    const auto& hr2 = packed_hr2();
    int launches = 0;
    for (const char* kernel : {"nn_custom::w4a16NBitsMatMul", "nn_custom::w4a16PackedProj"}) {
        auto a = launches_of(hr2, kernel), c = launches_of(hr3, kernel);
        REQUIRE(a.size() == c.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            auto expected = a[i];
            expected[kernel == std::string("nn_custom::w4a16PackedProj") ? 1 : 0] -= 1;  // F_out; inputs and members stay
            CHECK(c[i] == expected);
            ++launches;
        }
    }
    CHECK(launches == 129);  // the seed's "true fp output ranges for 129 projections"
    CHECK(hr3.groups.size() == hr2.groups.size());
}

TEST_CASE("gpnpu: fused projections share one smoothing multiply; fuse_v off gives v its own matmul", "[gpnpu]") {
    const auto& packed = packed_hr2();
    auto fused = plan_of(sarashina({{"proj_mode", "fused"}}));
    CHECK(launches_of(fused, "nn_custom::w4a16PackedProj").empty());
    auto ops = launches_of(fused, "nn_custom::w4a16FusedProj");
    REQUIRE(ops.size() == 64);
    CHECK(ops[0].size() == 3);  // members, F_out, F_in
    // One shared smoothing node per fused op instead of one per member: 4 fewer per layer.
    CHECK(count_op(packed, "smooth_mul") == 32 * 6 + 1);
    CHECK(count_op(fused, "smooth_mul") == 32 * 4 + 1);
    const auto& shared = node(fused, "l2.attn.xn_smooth");
    CHECK(shared.inserted);
    CHECK(fused.groups[shared.group].rule == "epu_smooth_mul");
    // The shared vector's range is not in ranges made from a packed build: left undecided.
    CHECK(args_of(node(fused, "l2.attn.q"))[2] == -1);

    auto separate_v = plan_of(sarashina({{"fuse_v", "false"}}));
    auto qk = launches_of(separate_v, "nn_custom::w4a16PackedProj");
    REQUIRE(qk.size() == 64);
    int two_member_qk = 0;
    for (const auto& a : qk) two_member_qk += a[0] == 2;
    CHECK(two_member_qk == 64);  // q|k and gate|up
    CHECK(launches_of(separate_v, "nn_custom::w4a16NBitsMatMul").size() == 65 + 32);
    CHECK(node(separate_v, "l4.attn.v").kernel == std::optional<std::string>("nn_custom::w4a16NBitsMatMul"));
}

TEST_CASE("gpnpu: without ranges the plan forms with its fractional bits unknown", "[gpnpu]") {
    auto b = plan_of(sarashina({}, false));
    auto memory = kbp::schema::compute_memory(b);
    CHECK(memory.unknown_fixed_point.size() > 700);
    CHECK(node(b, "l0.attn.o").precision.output->front().name() == "fx32/f?");
    CHECK(args_of(node(b, "l0.attn.o")) == std::vector<std::int64_t>{-1, -1});
    // The same shape as with ranges.
    CHECK(b.nodes.size() == packed_hr2().nodes.size());
    CHECK(b.groups.size() == packed_hr2().groups.size());
}

TEST_CASE("gpnpu: QC-N and QC-P plan; the cost needs the figures the seed gives for QC-U only", "[gpnpu]") {
    for (const char* target : {"qc-n", "qc-p"}) {
        auto r = sarashina();
        r.target = target;
        auto b = plan_of(r);
        CHECK(b.nodes.size() == packed_hr2().nodes.size());
        auto cost = kbp::planner::estimate_cost(b, {});
        REQUIRE_FALSE(cost.ok());
        CHECK(cost.error().code == kbp::ErrorCode::unsupported);
        CHECK(cost.error().where.find("/memory_bandwidth_gbps") != std::string::npos);
    }
    kbp::planner::CostOptions seed_step;
    seed_step.context = 7;  // the seed measured one step of a 7-token prompt
    auto cost = kbp::planner::estimate_cost(packed_hr2(), seed_step);
    REQUIRE(cost.ok());
    // The roofline: every int4 weight with its scales and zero points, the smoothing vectors and
    // the whole f32 embedding table (the compiled gather streams it: kernels/chimera.json) over
    // 128 GB/s of DDR; activations stay in the OCM.
    CHECK(cost->total.weight_bytes == Approx(2706769920.0));
    CHECK(cost->compute_tops == Approx(24.576));
    CHECK(cost->activations_on_chip);
    CHECK(cost->total.time_us == Approx((cost->total.weight_bytes + cost->total.state_bytes) / 128e3).epsilon(0.001));
    // The seed measured 32,590,744 cycles at 1.5 GHz (46.0 tokens/s): within 3 %.
    double measured = 1.5e9 / 32590744.0;
    CHECK(cost->tokens_per_s / measured == Approx(1.028).epsilon(0.01));
}

TEST_CASE("gpnpu: bad knobs and budgets are refused naming the setting", "[gpnpu]") {
    auto e = plan_error(sarashina({{"imf_headroom", "two"}}));
    CHECK(e.code == kbp::ErrorCode::invalid_input);
    CHECK(e.where == "--set imf_headroom");
    e = plan_error(sarashina({{"proj_mode", "interleaved"}}));
    CHECK(e.where == "--set proj_mode");
    CHECK(e.message.find("it takes 'packed', 'fused'") != std::string::npos);
    e = plan_error(sarashina({{"imf_headroom", "40"}}));
    CHECK(e.where == "--set imf_headroom");
    e = plan_error(sarashina({{"kv_persist_mb", "32"}}));
    CHECK(e.where == "--set kv_persist_mb");
    CHECK(e.message.find("41,943,040 B") != std::string::npos);
    CHECK(e.message.find("8,388,608 B (8.0 MiB) short") != std::string::npos);
    auto r = sarashina();
    r.arm = "multi_seq";
    e = plan_error(r);
    CHECK(e.code == kbp::ErrorCode::unsupported);
    CHECK(e.where == "--arm");
}

TEST_CASE("gpnpu: a bad ranges file is refused naming the file and the entry", "[gpnpu]") {
    kbp::test::TempDir dir;
    auto try_ranges = [&](const std::string& text) {
        kbp::test::spit(dir.file("r.json"), text);
        auto r = sarashina();
        r.ranges = dir.file("r.json");
        return plan_error(r);
    };
    const std::string head = R"({"schema": "kbp-ranges/v1", "tensors": {)";
    struct Case {
        std::string text, where, says;
    } cases[] = {
        {R"({"schema": "kbp-ranges/v1", "tensors": {"embed.h": )", ":1:", "syntax"},
        {R"({"tensors": {}})", "/schema", "missing"},
        {R"({"schema": "kbp-ranges/v2", "tensors": {}})", "/schema", "kbp-ranges/v1"},
        {R"({"schema": "kbp-ranges/v1", "tensors": [], "x": 1})", "/x", "unknown member"},
        {head + R"("embed.h": {"min": 2, "max": 1}}})", "/tensors/embed.h", "above max"},
        {head + R"("embed.h": {"min": "a", "max": 1}}})", "/tensors/embed.h/min", "number"},
        {head + R"("embed.h": {"min": -1, "mx": 1}}})", "/tensors/embed.h/mx", "did you mean 'max'"},
        {head + R"("l0.mlp.gate_up_smooth": {"min": -1, "max": 1, "parts": [{"min": -1, "max": 3}]}}})", "/tensors/l0.mlp.gate_up_smooth/parts/0",
         "outside"},
        // 3e10 needs 35 integer bits: FixedPoint32 has 31.
        {head + R"("l0.mlp.f": {"min": -1, "max": 3e10}}})", "/tensors/l0.mlp.f", "no bits left"},
    };
    for (const auto& c : cases) {
        auto e = try_ranges(c.text);
        INFO(c.text << "\n-> " << e.text());
        CHECK(e.code == kbp::ErrorCode::invalid_input);
        CHECK(e.where.find(dir.file("r.json")) == 0);
        CHECK(e.text().find(c.where) != std::string::npos);
        CHECK(e.text().find(c.says) != std::string::npos);
    }
}

TEST_CASE("gpnpu: kbp why shows how each fractional bit followed from a range", "[gpnpu]") {
    auto text = kbp::planner::why_node(sarashina(), "l3.mlp.down");
    REQUIRE(text.ok());
    CHECK(text->find("nn_custom::w4a16NBitsMatMul<15, 28>") != std::string::npos);
    CHECK(text->find("F_out = min(31, 31 - int_bits(10572.1)=14 - headroom 2) = 15") != std::string::npos);
    CHECK(text->find("F_in = min(31, 35 - int_bits(102.729)=7) = 28") != std::string::npos);
    CHECK(text->find("/tensors/l3.mlp.down_smooth") != std::string::npos);
}

TEST_CASE("gpnpu: the sample QC-U plan is what kbp plan makes today", "[gpnpu]") {
    auto sample = kbp::schema::load_blueprint(root + "/samples/sarashina2.2-3b/decode.qc-u.plan.json");
    REQUIRE(sample.ok());
    const auto& fresh = packed_hr2();
    kbp::test::Diff d;
    kbp::test::compare_lists(d, "/nodes", sample->nodes, fresh.nodes);
    kbp::test::compare_lists(d, "/edges", sample->edges, fresh.edges);
    kbp::test::compare_lists(d, "/groups", sample->groups, fresh.groups);
    kbp::test::compare_lists(d, "/layers", sample->layers, fresh.layers);
    REQUIRE(sample->collapsed);
    kbp::test::compare(d, "/collapsed", *sample->collapsed, *fresh.collapsed);
    INFO(d.report() << "\n(re-make it: kbp plan samples/sarashina2.2-3b/config.json --ranges samples/sarashina2.2-3b/ranges.json"
                       " -o samples/sarashina2.2-3b/decode.qc-u.plan.json)");
    CHECK(d.items().empty());
}

TEST_CASE("gpnpu: --target qc-u alone takes the recipe made for it; another GPNPU names that recipe when the default cannot run", "[gpnpu][planner]") {
    // Sarashina's config without its kbp hints: llama's default recipe is fp8-dynamic, a GPU's.
    OJson config = OJson::parse(kbp::test::slurp(root + "/samples/sarashina2.2-3b/config.json"));
    config.erase("kbp");
    kbp::test::TempDir dir;
    kbp::test::spit(dir.file("config.json"), config.dump(2));
    PlanRequest r = sarashina();
    r.config_path = dir.file("config.json");

    r.target = "qc-u";
    auto made = kbp::planner::make_plan(r);
    INFO((made ? std::string() : made.error().text()));
    REQUIRE(made.ok());
    CHECK(made->defaults_chosen.find("recipe chimera-w4a16 (the one made for target qc-u)") != std::string::npos);
    CHECK(made->blueprint.nodes.size() == packed_hr2().nodes.size());

    // QC-N: no recipe names it, so the default stays and is refused, with the GPNPU recipe named.
    r.target = "qc-n";
    auto refused = kbp::planner::make_plan(r);
    REQUIRE_FALSE(refused.ok());
    // Its FP8 KV cache is the first thing QC-N lacks (the recipe's settings are checked first).
    CHECK(refused.error().code == kbp::ErrorCode::invalid_input);
    CHECK(refused.error().text().find("is not a format target 'qc-n' lists") != std::string::npos);
    CHECK(refused.error().text().find("; recipes for a gpnpu and llama: chimera-w4a16 (made for qc-u)") != std::string::npos);


    // A GPU target keeps the architecture's default recipe.
    r.target = "h100";
    auto gpu = kbp::planner::make_plan(r);
    REQUIRE(gpu.ok());
    CHECK(gpu->defaults_chosen.find("recipe fp8-dynamic (default of architecture") != std::string::npos);
}
