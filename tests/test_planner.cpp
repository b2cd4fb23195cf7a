// The planner: kbp plan reproduces the seed's GB10 decode plan, plans every arm of every
// sample model into a valid blueprint, changes kernels and groups where rows demand it, and
// refuses what it cannot serve with an error naming the field.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cost/cost.hpp"
#include "planner/expr.hpp"
#include "planner/plan.hpp"
#include "schema/reader.hpp"
#include "schema/stats.hpp"
#include "schema/validator.hpp"
#include "schema/writer.hpp"
#include "support.hpp"

namespace {

using kbp::planner::PlanRequest;
namespace fs = std::filesystem;

std::string sample(const std::string& model) { return std::string(KBP_SOURCE_DIR) + "/samples/" + model + "/config.json"; }

PlanRequest request(const std::string& model, const std::string& arm = "decode", std::optional<std::int64_t> rows = {}) {
    PlanRequest r;
    r.config_path = sample(model);
    r.arm = arm;
    r.rows = rows;
    r.command = "kbp plan (test)";
    return r;
}

kbp::schema::Blueprint plan_of(const PlanRequest& r) {
    auto p = kbp::planner::make_plan(r);
    INFO((p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    return std::move(p->blueprint);
}

const kbp::schema::Blueprint& seed() {
    static const kbp::schema::Blueprint b = [] {
        auto r = kbp::schema::load_blueprint(KBP_SEED_PATH);
        if (!r) FAIL(r.error().text());
        return std::move(*r);
    }();
    return b;
}

// The first field in which two nodes differ, or "".
std::string node_difference(const kbp::schema::Node& a, const kbp::schema::Node& b) {
    if (a.id != b.id) return "id " + a.id + " vs " + b.id;
    if (a.order != b.order) return "order";
    if (a.layer != b.layer) return "layer";
    if (a.block != b.block) return "block";
    if (!(a.block_type == b.block_type)) return "block_type";
    if (a.kind != b.kind) return "kind";
    if (!(a.op == b.op)) return "op " + a.op.name() + " vs " + b.op.name();
    if (a.roles != b.roles) return "roles";
    if (a.inserted != b.inserted) return "inserted";
    if (!(a.precision == b.precision)) return "precision";
    if (a.steps != b.steps) return "steps";
    if (a.group != b.group) return "group " + std::to_string(a.group) + " vs " + std::to_string(b.group);
    if (a.kernel != b.kernel) return "kernel " + a.kernel.value_or("null") + " vs " + b.kernel.value_or("null");
    if (a.family != b.family) return "family " + a.family + " vs " + b.family;
    if (!(a.point == b.point)) return "point";
    if (a.compute != b.compute) return "compute";
    if (a.numerics != b.numerics) return "numerics";
    if (!(a.where == b.where)) return "where";
    if (a.state != b.state) return "state";
    return "";
}

std::string edge_difference(const kbp::schema::Edge& a, const kbp::schema::Edge& b) {
    if (a.id != b.id) return "id " + a.id + " vs " + b.id;
    if (a.from != b.from || a.to != b.to) return "ends";
    if (!(a.format == b.format)) return "format";
    if (a.rows != b.rows) return "rows";
    if (a.dim != b.dim) return "dim";
    if (a.fused != b.fused) return "fused";
    if (a.dim_value != b.dim_value) return "dim_value";
    if (a.bytes_per_token != b.bytes_per_token) return "bytes_per_token";
    if (a.requant != b.requant) return "requant";
    return "";
}

std::string group_difference(const kbp::schema::Group& a, const kbp::schema::Group& b) {
    if (a.id != b.id) return "id";
    if (a.rule != b.rule) return "rule " + a.rule + " vs " + b.rule;
    if (a.kernels != b.kernels) return "kernels";
    if (!(a.where == b.where)) return "where";
    if (a.numerics != b.numerics) return "numerics";
    if (a.compute != b.compute) return "compute";
    if (a.nodes != b.nodes) return "nodes";
    return "";
}

std::set<std::string> rules_of(const kbp::schema::Blueprint& b) {
    std::set<std::string> rules;
    for (const auto& g : b.groups) rules.insert(g.rule);
    return rules;
}

}  // namespace

TEST_CASE("kbp plan reproduces the seed's GLM-5.3-Flash GB10 decode plan field by field", "[planner][seed]") {
    const auto plan = plan_of(request("glm-5.3-flash"));
    const auto& s = seed();
    REQUIRE(plan.layers == s.layers);
    REQUIRE(plan.nodes.size() == s.nodes.size());
    REQUIRE(plan.edges.size() == s.edges.size());
    REQUIRE(plan.groups.size() == s.groups.size());
    std::size_t nodes = 0, edges = 0, groups = 0;
    std::string first;
    for (std::size_t i = 0; i < s.nodes.size(); ++i) {
        auto d = node_difference(plan.nodes[i], s.nodes[i]);
        if (d.empty()) ++nodes;
        else if (first.empty()) first = "/nodes/" + std::to_string(i) + " (" + s.nodes[i].id + "): " + d;
    }
    for (std::size_t i = 0; i < s.edges.size(); ++i) {
        auto d = edge_difference(plan.edges[i], s.edges[i]);
        if (d.empty()) ++edges;
        else if (first.empty()) first = "/edges/" + std::to_string(i) + ": " + d;
    }
    for (std::size_t i = 0; i < s.groups.size(); ++i) {
        auto d = group_difference(plan.groups[i], s.groups[i]);
        if (d.empty()) ++groups;
        else if (first.empty()) first = "/groups/" + std::to_string(i) + ": " + d;
    }
    INFO("first difference: " << first);
    INFO("matching: " << nodes << "/" << s.nodes.size() << " nodes, " << edges << "/" << s.edges.size() << " edges, " << groups << "/"
                      << s.groups.size() << " groups");
    CHECK(first.empty());
    CHECK(nodes == 1740);
    CHECK(edges == 2504);
    CHECK(groups == 909);
    REQUIRE(plan.collapsed);
    CHECK(plan.collapsed->layout == s.collapsed->layout);
    CHECK(plan.collapsed->prologue == s.collapsed->prologue);
    CHECK(plan.collapsed->epilogue == s.collapsed->epilogue);
    REQUIRE(plan.collapsed->templates.size() == s.collapsed->templates.size());
    for (std::size_t t = 0; t < s.collapsed->templates.size(); ++t) {
        INFO("template " << s.collapsed->templates[t].name);
        CHECK(plan.collapsed->templates[t] == s.collapsed->templates[t]);
    }
    // explain holds exactly the families and formats used: the seed's sets.
    std::set<std::string> families, seed_families;
    for (const auto& f : plan.explain->families) families.insert(f.name);
    for (const auto& f : s.explain->families) seed_families.insert(f.name);
    CHECK(families == seed_families);
    CHECK(plan.explain->formats.size() == s.explain->formats.size());
}

// Integer ids (the i32 top-k expert ids an expert GEMM reads) are indices, not values: kbp's own
// plans give their edge no requant and `kbp stats` does not count one; the seed's plan writes
// them as requant i32 -> nvfp4/g16 at the reader, and kbp reproduces that field (the seed's
// engine, engines/met.json, says requant_ids_at_reader) but does not count it.
TEST_CASE("integer ids into a quantized expert GEMM are not re-quantized edges", "[planner][requant]") {
    auto is_ids = [](const kbp::schema::Edge& e) { return e.format.id == kbp::schema::FormatId::i32; };
    auto reads_ids_quantized = [&](const kbp::schema::Blueprint& b, const kbp::schema::Edge& e) {
        const auto& reader = b.nodes[static_cast<std::size_t>(e.to)];
        return is_ids(e) && reader.precision.activation && !(*reader.precision.activation == e.format);
    };
    auto count = [](const kbp::schema::Blueprint& b, auto&& pred) { return std::count_if(b.edges.begin(), b.edges.end(), pred); };
    // Qwen3-30B-A3B in FP8 on H100 (its default): the ids reach the fp8/token expert GEMMs.
    const auto qwen = plan_of(request("qwen3-30b-a3b"));
    CHECK(count(qwen, [&](const auto& e) { return reads_ids_quantized(qwen, e); }) == 96);
    CHECK(count(qwen, [&](const auto& e) { return is_ids(e) && e.requant.has_value(); }) == 0);
    CHECK(kbp::schema::validate(qwen).empty());
    const auto qwen_stats = kbp::schema::compute_stats(qwen);
    CHECK(qwen_stats.requant_edges == count(qwen, [](const auto& e) { return e.requant.has_value(); }));
    CHECK(qwen_stats.requant_edges == 288);
    // The seed: 84 ids edges labelled requant i32 -> nvfp4/g16, reproduced by kbp's plan, not counted.
    const auto glm = plan_of(request("glm-5.3-flash"));
    for (const auto* b : {&seed(), &glm}) {
        CHECK(count(*b, [](const auto& e) { return e.requant && e.requant->from.id == kbp::schema::FormatId::i32; }) == 84);
        CHECK(count(*b, [](const auto& e) { return e.requant.has_value(); }) == 297);
        CHECK(kbp::schema::compute_stats(*b).requant_edges == 213);
    }
    // The seed's engine without requant_ids_at_reader: the same plan but for those 84 fields.
    kbp::test::TempDir dir;
    fs::create_directories(dir.file("engines"));
    auto engine = kbp::test::OJson::parse(kbp::test::slurp(std::string(KBP_SOURCE_DIR) + "/planner/data/engines/met.json"));
    REQUIRE(engine.erase("requant_ids_at_reader") == 1);
    kbp::test::spit(dir.file("engines/met.json"), engine.dump());
    auto r = request("glm-5.3-flash");
    r.catalog_dir = dir.path();
    const auto plain = plan_of(r);
    REQUIRE(plain.edges.size() == glm.edges.size());
    CHECK(count(plain, [](const auto& e) { return e.requant.has_value(); }) == 213);
    CHECK(kbp::schema::validate(plain).empty());
    for (std::size_t i = 0; i < glm.edges.size(); ++i)
        if (!(glm.edges[i].requant && glm.edges[i].requant->from.id == kbp::schema::FormatId::i32)) CHECK(plain.edges[i] == glm.edges[i]);
}

TEST_CASE("every GLM arm plans, validates, and changes kernels and groups where rows demand it", "[planner][arms]") {
    const std::vector<std::pair<std::string, std::int64_t>> arms{{"decode", 1},     {"multi_seq", 2},  {"multi_seq", 4},  {"multi_seq", 8},
                                                                 {"multi_seq", 12}, {"multi_seq", 16}, {"multi_seq", 24}, {"multi_seq", 32},
                                                                 {"multi_seq", 48}, {"multi_seq", 64}, {"multi_seq", 96}, {"multi_seq", 128},
                                                                 {"verify", 2},     {"verify", 3},     {"verify", 4},     {"verify", 8},
                                                                 {"draft", 1}};
    std::map<std::int64_t, std::set<std::string>> rules_by_rows;
    for (const auto& [arm, rows] : arms) {
        INFO(arm << " rows " << rows);
        auto plan = plan_of(request("glm-5.3-flash", arm, rows));
        auto problems = kbp::schema::validate(plan);
        INFO((problems.empty() ? std::string() : problems.items().front().pointer + ": " + problems.items().front().message));
        CHECK(problems.empty());
        CHECK(plan.arm.rows == rows);
        if (arm == "multi_seq" || arm == "decode") rules_by_rows[rows] = rules_of(plan);
    }
    // One row runs W4A16 GEMVs and the slot-sweep MoE; 64 rows run W4A4 tensor-core GEMMs and
    // the grouped MoE.
    CHECK(rules_by_rows[1].count("glm_w4a16_pipe_kda_six_1row"));
    CHECK(rules_by_rows[1].count("glm_moe_w4a4_cs_gate_up_1_kda"));
    CHECK_FALSE(rules_by_rows[64].count("glm_w4a16_pipe_kda_six_1row"));
    CHECK(rules_by_rows[64].count("glm_moe_w4a4_grouped_gate_up_kda"));
    CHECK(rules_by_rows[64].count("w4a4_q_gemm"));
    CHECK(rules_by_rows[2].count("glm_w4a16_pipe_kda_six_2row"));
    CHECK(rules_by_rows[8].count("glm_moe_w4a4_union_gate_up_8_kda"));
    CHECK(rules_by_rows[1] != rules_by_rows[64]);
}

TEST_CASE("the public architectures plan for every arm and validate", "[planner][public]") {
    for (const std::string model : {"llama-3.1-8b", "qwen3-30b-a3b"}) {
        for (const auto& [arm, rows] : std::vector<std::pair<std::string, std::int64_t>>{
                 {"decode", 1}, {"multi_seq", 2}, {"multi_seq", 64}, {"multi_seq", 128}, {"verify", 4}, {"draft", 1}, {"prefill", 512}}) {
            INFO(model << " " << arm << " rows " << rows);
            auto plan = plan_of(request(model, arm, rows));
            auto problems = kbp::schema::validate(plan);
            INFO((problems.empty() ? std::string() : problems.items().front().pointer + ": " + problems.items().front().message));
            CHECK(problems.empty());
            bool has_kv_cache = false;
            for (const auto& n : plan.nodes)
                if (n.state)
                    for (const auto& role : *n.state) has_kv_cache = has_kv_cache || role.state.id == kbp::schema::StateNameId::kv;
            CHECK(has_kv_cache);
        }
    }
    // FP8 on H100 and NVFP4 on B200 both serve the MoE.
    auto fp8 = request("qwen3-30b-a3b");
    fp8.recipe = "fp8-dynamic";
    fp8.target = "h100";
    auto plan = plan_of(fp8);
    CHECK(kbp::schema::validate(plan).empty());
    bool fp8_experts = false;
    for (const auto& n : plan.nodes)
        if (n.op.kind.id == kbp::schema::OpId::expert_gate_up) fp8_experts = n.precision.weight->name() == "fp8/channel";
    CHECK(fp8_experts);
}

TEST_CASE("planning is deterministic", "[planner]") {
    auto a = plan_of(request("glm-5.3-flash", "multi_seq", 16));
    auto b = plan_of(request("glm-5.3-flash", "multi_seq", 16));
    CHECK(kbp::schema::write_blueprint(a) == kbp::schema::write_blueprint(b));
}

TEST_CASE("what the planner cannot serve is refused with the field named", "[planner][errors]") {
    auto dir = fs::temp_directory_path() / "kbp-planner-test";
    fs::create_directories(dir);
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir / name) << text;
        return (dir / name).string();
    };
    SECTION("unknown model_type") {
        auto r = request("llama-3.1-8b");
        r.config_path = write("unknown.json", R"({"model_type": "gpt99", "hidden_size": 4})");
        auto p = kbp::planner::make_plan(r);
        REQUIRE_FALSE(p.ok());
        CHECK(p.error().code == kbp::ErrorCode::unsupported);
        CHECK_THAT(p.error().where, Catch::Contains("/model_type"));
    }
    SECTION("a missing config field") {
        auto r = request("llama-3.1-8b");
        // (num_key_value_heads may be left out: it defaults to the query heads, as in transformers.)
        r.config_path = write("missing.json", R"({"model_type": "llama", "hidden_size": 4096, "vocab_size": 10, "num_hidden_layers": 2,
            "num_attention_heads": 32})");
        auto p = kbp::planner::make_plan(r);
        REQUIRE_FALSE(p.ok());
        CHECK_THAT(p.error().where, Catch::Contains("/intermediate_size"));
    }
    SECTION("a recipe naming a format the target lacks") {
        auto r = request("llama-3.1-8b");
        r.recipe = "nvfp4";
        r.target = "h100";
        auto p = kbp::planner::make_plan(r);
        REQUIRE_FALSE(p.ok());
        CHECK(p.error().code == kbp::ErrorCode::unsupported);
        CHECK_THAT(p.error().message, Catch::Contains("nvfp4/g16"));
    }
    SECTION("rows outside the arm's range") {
        auto p = kbp::planner::make_plan(request("glm-5.3-flash", "verify", 9));
        REQUIRE_FALSE(p.ok());
        CHECK(p.error().where == "--rows");
        auto q = kbp::planner::make_plan(request("glm-5.3-flash", "decode", 2));
        REQUIRE_FALSE(q.ok());
    }
    SECTION("a number too large for a double (a fuzz finding: it escaped as an exception)") {
        auto r = request("llama-3.1-8b");
        r.config_path = write("huge.json", "{\"model_type\": \"llama\",\n \"rms_norm_eps\": 1e4050}");
        auto p = kbp::planner::make_plan(r);
        REQUIRE_FALSE(p.ok());
        CHECK(p.error().code == kbp::ErrorCode::invalid_input);
        CHECK_THAT(p.error().where, Catch::EndsWith("huge.json:2:18"));
        CHECK_THAT(p.error().message, Catch::Contains("1e4050"));
    }
    SECTION("a malformed config") {
        auto r = request("llama-3.1-8b");
        r.config_path = write("broken.json", "{\"model_type\": ");
        auto p = kbp::planner::make_plan(r);
        REQUIRE_FALSE(p.ok());
        CHECK(p.error().code == kbp::ErrorCode::invalid_input);
    }
    fs::remove_all(dir);
}

TEST_CASE("recipe entries apply in order and an entry matching nothing is warned about", "[planner][recipe]") {
    auto dir = fs::temp_directory_path() / "kbp-recipe-test";
    fs::create_directories(dir);
    auto path = (dir / "mixed.json").string();
    std::ofstream(path) << R"json({"name": "mixed", "settings": {"kv_cache_dtype": "bf16", "lm_head_dtype": "bf16"},
      "entries": [{"op": "linear:*", "weight": "fp8/channel", "activation": "fp8/token"},
                  {"match": "attn.q", "weight": "bf16", "activation": "bf16"},
                  {"match": "re:attn\\.(k|v)", "weight": "bf16", "activation": "bf16"},
                  {"match": "moe.*", "weight": "bf16", "activation": "bf16"},
                  {"include": "bf16-exclusions"}]})json";
    auto r = request("llama-3.1-8b");
    r.recipe = path;
    auto p = kbp::planner::make_plan(r);
    REQUIRE(p.ok());
    std::map<std::string, std::string> weight;
    for (const auto& n : p->blueprint.nodes)
        if (n.layer == 0 && n.precision.weight) weight[n.id] = std::string(n.precision.weight->name());
    CHECK(weight["l0.attn.q"] == "bf16");
    CHECK(weight["l0.attn.k"] == "bf16");
    CHECK(weight["l0.attn.o"] == "fp8/channel");
    CHECK(weight["l0.mlp.down"] == "fp8/channel");
    bool warned = false;
    for (const auto& w : p->warnings) warned = warned || w.find("/entries/3") != std::string::npos;
    CHECK(warned);
    fs::remove_all(dir);
}

TEST_CASE("kbp why names the recipe entry, kernel row and fusion rule of a node", "[planner][why]") {
    auto text = kbp::planner::why_node(request("glm-5.3-flash"), "l3.moe.xn_quant");
    REQUIRE(text.ok());
    CHECK_THAT(*text, Catch::Contains("inserted"));
    CHECK_THAT(*text, Catch::Contains("/table/"));
    CHECK_THAT(*text, Catch::Contains("glm_moe_w4a4_cs_gate_up_1_dsa"));
    CHECK_THAT(*text, Catch::Contains("beat"));
    auto q = kbp::planner::why_node(request("glm-5.3-flash"), "l0.kda.q");
    REQUIRE(q.ok());
    CHECK_THAT(*q, Catch::Contains("recipes/glm-5.3-flash-nvfp4.json: /entries/0"));
    CHECK_FALSE(kbp::planner::why_node(request("glm-5.3-flash"), "no.such.node").ok());
}

TEST_CASE("the roofline cost counts routed experts only and grows with context", "[planner][cost]") {
    auto plan = plan_of(request("glm-5.3-flash"));
    kbp::planner::CostOptions short_ctx, long_ctx;
    short_ctx.context = 1024;
    long_ctx.context = 65536;
    auto a = kbp::planner::estimate_cost(plan, short_ctx);
    auto b = kbp::planner::estimate_cost(plan, long_ctx);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->target == "gb10");
    CHECK(a->total.weight_bytes == b->total.weight_bytes);
    CHECK(b->total.state_bytes > a->total.state_bytes);
    CHECK(a->tokens_per_s > b->tokens_per_s);
    // One row routes to top_k = 8 of 288 experts: the expert groups read 8 experts' weights.
    double expert_bytes = 0;
    for (const auto& g : a->groups)
        if (g.rule.rfind("glm_moe_w4a4_cs_gate_up", 0) == 0) expert_bytes = g.weight_bytes;
    // gate|up of one expert: 2*2048 x 4096 NVFP4 = 4096 * (2048 + 256) + 4 bytes.
    CHECK(expert_bytes == Approx(8.0 * (4096.0 * (2048 + 256) + 4)));
    // More rows route to more distinct experts.
    auto wide = plan_of(request("glm-5.3-flash", "multi_seq", 64));
    auto c = kbp::planner::estimate_cost(wide, short_ctx);
    REQUIRE(c.ok());
    CHECK(c->total.weight_bytes > a->total.weight_bytes);
    CHECK(c->tokens_per_s > a->tokens_per_s);
}

TEST_CASE("planner expressions", "[planner][expr]") {
    auto lookup = [](std::string_view name) -> std::optional<std::int64_t> {
        if (name == "i") return 7;
        if (name == "n") return 4;
        return std::nullopt;
    };
    CHECK(*kbp::planner::eval_expr("(i + 1) % n == 0", lookup) == 1);
    CHECK(*kbp::planner::eval_expr("i < 3 || n > 3", lookup) == 1);
    CHECK(*kbp::planner::eval_expr("-i * 2 + 20 / n", lookup) == -9);
    CHECK_FALSE(kbp::planner::eval_expr("i / (n - 4)", lookup).ok());
    CHECK_FALSE(kbp::planner::eval_expr("missing + 1", lookup).ok());
    CHECK_FALSE(kbp::planner::eval_expr("(i + 1", lookup).ok());
}

TEST_CASE("a catalog folder replaces a data file: a new fusion rule file changes the groups", "[planner][catalog]") {
    auto dir = fs::temp_directory_path() / "kbp-catalog-test";
    fs::create_directories(dir / "fusion");
    // No fusion rules at all, standing in for the generic ones too: every node becomes a group of its own.
    std::ofstream(dir / "fusion" / "glm5_next-gb10.json")
        << R"({"name": "glm5_next-gb10", "applies_to": {"architectures": ["glm5_next"]}, "replaces": ["cuda-generic"], "rules": []})";
    auto r = request("glm-5.3-flash");
    r.catalog_dir = dir.string();
    auto plan = plan_of(r);
    CHECK(plan.groups.size() == plan.nodes.size());
    CHECK(kbp::schema::validate(plan).empty());
    bool named_in_provenance = false;
    for (const auto& f : plan.provenance->files) named_in_provenance = named_in_provenance || f.path.find("kbp-catalog-test") != std::string::npos;
    CHECK(named_in_provenance);
    fs::remove_all(dir);
}

TEST_CASE("a small llama gets the kernels, groups and quantization points the data files give it at each rows", "[planner][arms]") {
    struct Expected {
        const char* arm;
        std::int64_t rows;
        const char* o_kernel;     // kernels/vllm.json: cutlass_scaled_mm at every rows
        const char* head_kernel;  // bf16 gemv for one row only
        const char* attend_rule;  // gqa_prefill for the prefill arm only
    };
    const char* scaled_mm = "cutlass_w8a8::cutlass_scaled_mm_fp8";
    for (const Expected& e : {Expected{"decode", 1, scaled_mm, "gemv::dense_gemv_bf16", "gqa_decode"},
                              Expected{"multi_seq", 8, scaled_mm, "bf16_gemm::bf16_gemm", "gqa_decode"},
                              Expected{"multi_seq", 9, scaled_mm, "bf16_gemm::bf16_gemm", "gqa_decode"},
                              Expected{"prefill", 512, scaled_mm, "bf16_gemm::bf16_gemm", "gqa_prefill"}}) {
        INFO(e.arm << " rows " << e.rows);
        auto r = request("llama-3.1-8b", e.arm, e.rows);
        r.config_path = KBP_SMALL_LLAMA_CONFIG;
        auto plan = plan_of(r);
        CHECK(kbp::schema::validate(plan).empty());
        std::map<std::string, const kbp::schema::Node*> by_id;
        for (const auto& n : plan.nodes) by_id[n.id] = &n;
        REQUIRE(by_id.count("l1.attn.o"));
        CHECK(by_id["l1.attn.o"]->kernel.value_or("none") == e.o_kernel);
        CHECK(by_id["head.lm_head"]->kernel.value_or("none") == e.head_kernel);
        CHECK(plan.groups[by_id["l0.attn.attend"]->group].rule == e.attend_rule);
        // fp8-dynamic quantizes the input of every fp8 projection: q|k|v share one, o, gate_up
        // and down have their own; the bf16 LM head reads bf16.
        std::vector<std::string> quant_points;
        for (const auto& n : plan.nodes)
            if (n.inserted) {
                quant_points.push_back(n.id);
                CHECK(n.precision.output->front().name() == "fp8/token");
            }
        CHECK(quant_points == std::vector<std::string>{"l0.attn.xn_quant", "l0.attn.a_quant", "l0.mlp.xn_quant", "l0.mlp.a_quant",
                                                       "l1.attn.xn_quant", "l1.attn.a_quant", "l1.mlp.xn_quant", "l1.mlp.a_quant"});
        // fusion/vllm.json (the h100's default engine): the norms and SiLU-and-mul carry the
        // quantizers, the attention output's stands alone; q|k|v one GEMM; RoPE and the cache
        // write two launches.
        std::set<std::string> rules = rules_of(plan);
        for (const char* rule : {"rms_norm_quant", "residual_rms_norm_quant", "silu_mul_quant", "fp8_act_quant", "qkv_proj", "rope", "kv_cache_write"}) {
            INFO(rule);
            CHECK(rules.count(rule));
        }
        for (const char* rule : {"qkv_quant", "o_quant", "gate_up_quant", "down_quant", "rope_cache_write"}) {
            INFO(rule);
            CHECK_FALSE(rules.count(rule));
        }
        CHECK(plan.groups[by_id["l0.attn.q"]->group].nodes.size() == 3);  // q, k, v
        CHECK(plan.groups[by_id["l0.attn.xn_quant"]->group].nodes.size() == 2);  // input_norm, xn_quant
    }
}

TEST_CASE("multi_seq changes a kernel across every rows crossover of the GLM tables", "[planner][arms]") {
    // The kernel tables' row ranges break at 1|2, 2|3, 8|9, 16|17, 32|33 and 64|65: on each side
    // the plan validates, and some node's kernel or group differs.
    auto signature = [](const kbp::schema::Blueprint& b) {
        std::string s;
        for (const auto& n : b.nodes) s += n.kernel.value_or("-") + ";";
        for (const auto& g : b.groups) s += g.rule + ";";
        return s;
    };
    for (std::int64_t rows : {2, 8, 16, 32, 64}) {
        INFO("multi_seq rows " << rows << " | " << rows + 1);
        auto below = plan_of(request("glm-5.3-flash", "multi_seq", rows));
        auto above = plan_of(request("glm-5.3-flash", "multi_seq", rows + 1));
        CHECK(kbp::schema::validate(below).empty());
        CHECK(kbp::schema::validate(above).empty());
        CHECK(signature(below) != signature(above));
    }
    CHECK(signature(plan_of(request("glm-5.3-flash"))) != signature(plan_of(request("glm-5.3-flash", "multi_seq", 2))));
}

TEST_CASE("a catalog that replaces another where it applies: the generic catalogs name no family", "[planner][catalog]") {
    // cuda-generic serves every architecture (a new family edits neither file); the seed's
    // GLM-5.3-Flash catalogs on GB10 stand in for it there, and the plan reads theirs alone.
    for (const char* kind : {"kernels", "fusion"}) {
        auto generic = kbp::test::OJson::parse(kbp::test::slurp(kbp::test::source_dir() + "/planner/data/" + std::string(kind) + "/cuda-generic.json"));
        CHECK_FALSE(generic.contains("applies_to"));
        auto seed = kbp::test::OJson::parse(kbp::test::slurp(kbp::test::source_dir() + "/planner/data/" + std::string(kind) + "/glm5_next-gb10.json"));
        CHECK(seed.at("replaces") == kbp::test::OJson::array({"cuda-generic"}));
    }
    auto plan = plan_of(request("glm-5.3-flash"));
    bool generic_read = false;
    for (const auto& f : plan.provenance->files) generic_read = generic_read || f.path.find("cuda-generic") != std::string::npos;
    CHECK_FALSE(generic_read);
    // Without the replacement the generic fusion rules would merge the seed's groups: the seed's
    // 909 groups stand only because the GLM file stands in for them.
    CHECK(plan.groups.size() == 909);
}
