// What the planner knows about ops is data: which ops read a weight (ops/core.json) and the
// bytes of state each op reads and writes in a step (its `state_bytes`, in the ops file or the
// architecture), which the roofline cost evaluates; no C++ names a model's symbols.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cost/cost.hpp"
#include "planner/plan.hpp"
#include "support.hpp"

namespace {

using kbp::test::OJson;

const std::string root = KBP_SOURCE_DIR;

kbp::planner::PlanRequest request(const std::string& model, const std::string& arm = "decode", std::int64_t rows = 1) {
    kbp::planner::PlanRequest r;
    r.config_path = root + "/samples/" + model + "/config.json";
    r.arm = arm;
    r.rows = rows;
    r.command = "kbp plan (test)";
    return r;
}

kbp::schema::Blueprint plan_of(const kbp::planner::PlanRequest& r) {
    auto p = kbp::planner::make_plan(r);
    INFO((p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    return std::move(p->blueprint);
}

double state_bytes(const kbp::schema::Blueprint& plan, std::int64_t context, std::optional<std::string> catalog = {}) {
    kbp::planner::CostOptions o;
    o.context = context;
    o.catalog_dir = catalog;
    auto cost = kbp::planner::estimate_cost(plan, o);
    INFO((cost ? std::string() : cost.error().text()));
    REQUIRE(cost.ok());
    return cost->total.state_bytes;
}

}  // namespace

TEST_CASE("ops data: an op reads a weight exactly when the ops file says so", "[data][ops]") {
    const OJson ops = OJson::parse(kbp::test::slurp(root + "/planner/data/ops/core.json"))["ops"];
    for (const std::string model : {"llama-3.1-8b", "qwen3-30b-a3b", "glm-5.3-flash"}) {
        auto plan = plan_of(request(model));
        std::size_t weighted = 0;
        for (const auto& n : plan.nodes) {
            INFO(model << " " << n.id);
            bool says = ops.contains(std::string(n.op.kind.name())) && ops[std::string(n.op.kind.name())].value("weight", false);
            // An op without a recipe-given weight may still read a table its architecture gives a format (the embedding).
            bool table = n.op.kind.id == kbp::schema::OpId::embed;
            CHECK((n.precision.weight.has_value() == says || table));
            weighted += says;
        }
        CHECK(weighted > 0);
    }
}

TEST_CASE("ops data: state bytes are the data's expressions over the config's values", "[data][ops][cost]") {
    // Llama-3.1-8B, FP8 KV cache: every layer reads context x (k|v) and writes one row of it.
    const double kv_row = 2.0 * 8 * 128;  // 2 x kv_heads x head_dim, one byte each
    CHECK(state_bytes(plan_of(request("llama-3.1-8b")), 1024) == 32 * (1024 * kv_row + kv_row));
    CHECK(state_bytes(plan_of(request("llama-3.1-8b", "multi_seq", 16)), 4096) == 32 * 16 * (4096 * kv_row + kv_row));
    // GLM-5.3-Flash: 34 KDA layers (conv window update and snapshot, the h recurrence) and 11 DSA
    // layers (latent write, indexer key write and read, a sparse latent read of index_topk tokens).
    const double qkv = 64 * 128 * 2 + 64 * 128, conv = 4;
    const double kda = 2 * qkv * conv * 4 + qkv * conv * 4 + 2.0 * 64 * 128 * 128 * 4;
    auto dsa = [](double context) { return 512 + 128 * 2 + context * 128 * 2 / 4 + std::min(context, 2048.0) * 512; };
    auto glm = plan_of(request("glm-5.3-flash"));
    CHECK(state_bytes(glm, 1024) == 34 * kda + 11 * dsa(1024));
    CHECK(state_bytes(glm, 65536) == 34 * kda + 11 * dsa(65536));
}

TEST_CASE("ops data: an architecture's op states its own state bytes", "[data][ops][cost]") {
    // A sliding window of 4096 tokens, said in the architecture alone: the cost follows.
    kbp::test::TempDir dir;
    std::filesystem::create_directories(dir.file("architectures"));
    OJson llama = OJson::parse(kbp::test::slurp(root + "/planner/data/architectures/llama.json"));
    auto& attend = llama["blocks"]["attn"]["ops"][6];
    REQUIRE(attend["name"] == "attend");
    attend["state_bytes"] = "sequences*min(context, 4096)*cached_width*cache_bytes";
    kbp::test::spit(dir.file("architectures/llama.json"), llama.dump());
    auto r = request("llama-3.1-8b");
    r.catalog_dir = dir.path();
    auto plan = plan_of(r);
    const double kv_row = 2.0 * 8 * 128;
    CHECK(state_bytes(plan, 2048, dir.path()) == 32 * (2048 * kv_row + kv_row));
    CHECK(state_bytes(plan, 65536, dir.path()) == 32 * (4096 * kv_row + kv_row));
    // A name that is neither a symbol nor the cost's is refused when the file loads.
    attend["state_bytes"] = "sequences*min(context, span)*cached_width";
    kbp::test::spit(dir.file("architectures/llama.json"), llama.dump());
    auto p = kbp::planner::make_plan(r);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().where == dir.file("architectures/llama.json") + ": /blocks/attn/ops/6/state_bytes");
    CHECK_THAT(p.error().message, Catch::Contains("unknown name 'span'"));
}

TEST_CASE("ops data: a plan another planner wrote is costed with what its edges say, and notes the rest", "[data][ops][cost]") {
    // The seed without the node_costs kbp's planner records: the cost falls back to the catalog's data.
    kbp::schema::Blueprint bare = kbp::test::seed();
    bare.node_costs.reset();
    auto cost = kbp::planner::estimate_cost(bare, {});
    REQUIRE(cost.ok());
    auto noted = [&](const std::string& part) {
        for (const auto& n : cost->notes)
            if (n.find(part) != std::string::npos) return true;
        return false;
    };
    CHECK(noted("the plan records no node_costs"));
    CHECK(noted("architectures/glm5_next.json"));
    // The h state's symbols are edge widths of the plan; conv_width, index_kpool and index_topk
    // are not, so the conv state, the indexer's keys and the latent reads are noted, not costed:
    // what is costed is the recurrent state (read and written) and the latent and indexer writes.
    CHECK(noted("unknown name 'conv_width'"));
    CHECK(noted("unknown name 'index_topk'"));
    CHECK(cost->total.state_bytes == 34 * 2.0 * 64 * 128 * 128 * 4 + 11 * (512.0 + 256.0));
}
