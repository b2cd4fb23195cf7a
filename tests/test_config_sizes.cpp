// A model config whose values the planner cannot size is refused at the config field that made
// a size go wrong (division by zero, a negative or too large size, too many layers), never
// with a plan beyond the format's bounds; its "kbp" hints are checked like a data file.
#include <catch2/catch.hpp>

#include <functional>

#include "planner/plan.hpp"
#include "support.hpp"

namespace {

using kbp::test::OJson;

const std::string root = KBP_SOURCE_DIR;

// The error planning sample `model`'s config with `change` applied (where: "/<field>").
kbp::Error refused(const std::string& model, const std::function<void(OJson&)>& change) {
    kbp::test::TempDir dir;
    OJson cfg = OJson::parse(kbp::test::slurp(root + "/samples/" + model + "/config.json"));
    change(cfg);
    kbp::test::spit(dir.file("config.json"), cfg.dump());
    kbp::planner::PlanRequest r;
    r.config_path = dir.file("config.json");
    r.command = "kbp plan (test)";
    auto p = kbp::planner::make_plan(r);
    if (p.ok()) return kbp::Error{kbp::ErrorCode::invalid_input, "(planned)", ""};
    auto e = p.error();
    if (e.where.rfind(r.config_path, 0) == 0) e.where = e.where.substr(r.config_path.size() + 2);
    return e;
}

}  // namespace

TEST_CASE("config sizes: the field behind a size that cannot be planned is named", "[config][sizes]") {
    auto e = refused("llama-3.1-8b", [](OJson& c) { c["num_attention_heads"] = 0; });
    CHECK(e.where == "/num_attention_heads");
    CHECK_THAT(e.message, Catch::Contains("0 is less than 1") && Catch::Contains("architectures/llama.json: /symbols/q_heads"));
    e = refused("llama-3.1-8b", [](OJson& c) { c["hidden_size"] = -4096; });
    CHECK(e.where == "/hidden_size");
    CHECK_THAT(e.message, Catch::Contains("is negative"));
    e = refused("llama-3.1-8b", [](OJson& c) { c["vocab_size"] = std::int64_t{1} << 50; });
    CHECK(e.where == "/vocab_size");
    CHECK_THAT(e.message, Catch::Contains("more than kbp plans"));
    e = refused("llama-3.1-8b", [](OJson& c) { c["num_hidden_layers"] = 100000; });
    CHECK(e.where == "/num_hidden_layers");
    CHECK_THAT(e.message, Catch::Contains("100,000 is more than 1,024") && Catch::Contains("/symbols/layers"));
    e = refused("glm-5.3-flash", [](OJson& c) { c["full_attention_interval"] = 0; });
    CHECK(e.where == "/full_attention_interval");
    CHECK_THAT(e.message, Catch::Contains("0 is less than 1"));
    // Each width fits, their product overflows: the larger factor is named.
    e = refused("glm-5.3-flash", [](OJson& c) { c["qk_rope_head_dim"] = std::int64_t{1} << 39; });
    CHECK(e.where == "/qk_rope_head_dim");
    // Routed rows multiply an edge's bytes by top_k: beyond the format's 2^48 bytes per token.
    e = refused("qwen3-30b-a3b", [](OJson& c) { c["num_experts_per_tok"] = std::int64_t{1} << 39; });
    CHECK(e.where == "/num_experts_per_tok");
    CHECK_THAT(e.message, Catch::Contains("is more than"));
    e = refused("llama-3.1-8b", [](OJson& c) { c["intermediate_size"] = 14336.5; });
    CHECK(e.where == "/intermediate_size");
    CHECK_THAT(e.message, Catch::Contains("not an integer"));
}

TEST_CASE("config sizes: the kbp hints and the model_type are checked with a did-you-mean", "[config][sizes]") {
    auto e = refused("llama-3.1-8b", [](OJson& c) { c["kbp"] = {{"rocipe", "fp8-dynamic"}}; });
    CHECK(e.where == "/kbp/rocipe");
    CHECK(e.message == "unknown member 'rocipe' (did you mean 'recipe'?)");
    e = refused("llama-3.1-8b", [](OJson& c) { c["kbp"]["target"] = true; });
    CHECK(e.where == "/kbp/target");
    CHECK(e.message == "expected a string, not true or false");
    e = refused("llama-3.1-8b", [](OJson& c) { c["kbp"]["recipe"] = "fp8-dynamik"; });
    CHECK(e.where == "/kbp/recipe");
    CHECK_THAT(e.message, Catch::Contains("did you mean 'fp8-dynamic'?"));
    e = refused("llama-3.1-8b", [](OJson& c) { c["model_type"] = "llamma"; });
    CHECK(e.where == "/model_type");
    CHECK_THAT(e.message, Catch::Contains("did you mean 'llama' of embedded:architectures/llama.json?"));
}
