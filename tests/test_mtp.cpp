// Multi-token prediction: the draft arm of a model whose checkpoint carries MTP layers
// (num_nextn_predict_layers) plans one of them with the target's embedding and LM head, as
// vLLM's DeepSeekMTP and Glm4MoeMTP run it; every plan of such a model records the MTP layers'
// parameters beside the target's, and its verify arm defaults to the tokens they draft.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include "planner/plan.hpp"
#include "schema/memory.hpp"
#include "schema/validator.hpp"
#include "support.hpp"

namespace {

using kbp::test::OJson;

std::string sample(const std::string& name) { return kbp::test::source_dir() + "/samples/" + name + "/config.json"; }

kbp::schema::Blueprint plan(const std::string& config, const std::string& arm, std::optional<std::int64_t> rows = std::nullopt) {
    kbp::planner::PlanRequest r;
    r.config_path = config;
    r.arm = arm;
    r.rows = rows;
    r.command = "kbp plan (test)";
    auto p = kbp::planner::make_plan(r);
    INFO((p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    return std::move(p->blueprint);
}

const kbp::schema::Node* node(const kbp::schema::Blueprint& b, const std::string& id) {
    for (const auto& n : b.nodes)
        if (n.id == id) return &n;
    return nullptr;
}

std::vector<std::string> modules_of(const kbp::schema::Blueprint& b, const std::string& id) {
    std::vector<std::string> out;
    if (!b.modules) return out;
    for (const auto& [key, v] : *b.modules)
        if (key == id)
            for (const auto& m : v.array()) out.push_back(m.string());
    return out;
}

}  // namespace

TEST_CASE("mtp: DeepSeek-V3's draft arm is its MTP layer (model.layers.61) with the target's embedding and LM head", "[mtp]") {
    const auto draft = plan(sample("deepseek-v3"), "draft");
    CHECK(kbp::schema::validate(draft).empty());
    REQUIRE(draft.layers.size() == 1);
    CHECK(draft.layers[0].index == 0);  // the plan's layer 0, the checkpoint's model.layers.61
    CHECK(draft.layers[0].template_name == "mtp_in+mla+moe+mtp_norm");
    // vLLM's DeepSeekMultiTokenPredictorLayer: enorm and hnorm, eh_proj over both side by side,
    // a DeepseekV2DecoderLayer (MLA and the routed MoE), shared_head.norm, then the logits.
    for (const char* id : {"l0.mtp_in.enorm", "l0.mtp_in.hnorm", "l0.mtp_in.cat", "l0.mtp_in.eh_proj", "l0.mla.q_a", "l0.moe.gate",
                           "l0.mtp_norm.shared_norm", "embed.embed", "mtp_head.lm_head"}) {
        INFO(id);
        CHECK(node(draft, id) != nullptr);
    }
    CHECK(modules_of(draft, "l0.mtp_in.eh_proj") == std::vector<std::string>{"model.layers.61.eh_proj"});
    CHECK(modules_of(draft, "l0.mla.q_a") == std::vector<std::string>{"model.layers.61.self_attn.q_a_proj"});
    CHECK(modules_of(draft, "embed.embed") == std::vector<std::string>{"model.embed_tokens"});
    CHECK(modules_of(draft, "mtp_head.lm_head") == std::vector<std::string>{"lm_head"});
    // eh_proj reads 2 x 7,168 and writes 7,168; no layer of the target is planned.
    const auto m = kbp::schema::compute_memory(draft);
    CHECK(std::none_of(draft.nodes.begin(), draft.nodes.end(), [](const auto& n) { return n.layer && *n.layer != 0; }));
    REQUIRE(draft.mtp);
    CHECK(draft.mtp->draft);
    CHECK(draft.mtp->layers == 1);
    CHECK(draft.mtp->config_field == "num_nextn_predict_layers");
    CHECK(draft.mtp->parameters == m.layer_parameters);

    // The target's plan records the same figures: its own total and the MTP layer's.
    const auto decode = plan(sample("deepseek-v3"), "decode");
    const auto t = kbp::schema::compute_memory(decode);
    REQUIRE(decode.mtp);
    CHECK_FALSE(decode.mtp->draft);
    CHECK(decode.mtp->parameters == draft.mtp->parameters);
    CHECK(decode.mtp->target_parameters == t.parameters);
    CHECK(draft.mtp->target_parameters == t.parameters);
    // One MoE decoder layer plus eh_proj (2 x 7,168 x 7,168) and three norms: about 11.7B. The
    // Hub's 685B counts the target and the MTP module.
    CHECK(draft.mtp->parameters > 11'000'000'000);
    CHECK(draft.mtp->parameters < 12'500'000'000);
    CHECK(std::abs(double(t.parameters + decode.mtp->parameters) / 685e9 - 1) <= 0.005);
    CHECK(kbp::schema::memory_text(t).find("671.0B + 11.") != std::string::npos);
}

TEST_CASE("mtp: GLM-4.6's draft arm is its MTP layer (model.layers.92) and its verify arm checks the token it drafts", "[mtp]") {
    const auto draft = plan(sample("glm-4.6"), "draft");
    CHECK(kbp::schema::validate(draft).empty());
    REQUIRE(draft.layers.size() == 1);
    CHECK(draft.layers[0].index == 0);
    CHECK(modules_of(draft, "l0.mtp_norm.shared_norm") == std::vector<std::string>{"model.layers.92.shared_head.norm"});
    CHECK(node(draft, "l0.attn.attend") != nullptr);
    // The default verify arm: the last accepted token and the one the MTP layer drafted.
    CHECK(plan(sample("glm-4.6"), "verify").arm.rows == 2);
    CHECK(plan(sample("glm-4.6"), "verify", 4).arm.rows == 4);
}

TEST_CASE("mtp: a model without MTP layers records none and its draft arm plans the whole model", "[mtp]") {
    // Kimi K2 says num_nextn_predict_layers 0; Llama has no such field.
    for (const char* name : {"kimi-k2", "llama-3.1-8b"}) {
        INFO(name);
        const auto draft = plan(sample(name), "draft");
        CHECK_FALSE(draft.mtp);
        const auto decode = plan(sample(name), "decode");
        CHECK(draft.layers.size() == decode.layers.size());
        CHECK(plan(sample(name), "verify").arm.rows == 4);
    }
}

TEST_CASE("mtp: MiniMax-M2's MTP modules, which no engine lays out, make its draft arm say it plans the whole model", "[mtp]") {
    auto warnings_of = [](const std::string& config, const std::string& arm) {
        kbp::planner::PlanRequest r;
        r.config_path = config;
        r.arm = arm;
        auto p = kbp::planner::make_plan(r);
        REQUIRE(p.ok());
        std::string all;
        for (const auto& w : p->warnings) all += w + "\n";
        CHECK_FALSE(p->blueprint.mtp);
        return all;
    };
    const std::string draft = warnings_of(sample("minimax-m2"), "draft");
    CHECK(draft.find("/mtp_not_laid_out: the config declares 3 multi-token-prediction modules (use_mtp, num_mtp_modules)") != std::string::npos);
    CHECK(draft.find("the draft arm plans the whole model") != std::string::npos);
    // Only the draft arm is what a user could take for the MTP step.
    CHECK(warnings_of(sample("minimax-m2"), "decode").find("mtp_not_laid_out") == std::string::npos);
    // use_mtp false: the modules are not used, and nothing is said.
    kbp::test::TempDir dir;
    OJson cfg = OJson::parse(kbp::test::slurp(sample("minimax-m2")));
    cfg["use_mtp"] = false;
    const std::string path = dir.path() + "/config.json";
    kbp::test::spit(path, cfg.dump());
    CHECK(warnings_of(path, "draft").find("mtp_not_laid_out") == std::string::npos);
}

TEST_CASE("mtp: an MTP count that cannot be is refused at the config field", "[mtp]") {
    kbp::test::TempDir dir;
    OJson cfg = OJson::parse(kbp::test::slurp(sample("deepseek-v3")));
    cfg["num_nextn_predict_layers"] = -1;
    const std::string path = dir.path() + "/config.json";
    kbp::test::spit(path, cfg.dump());
    kbp::planner::PlanRequest r;
    r.config_path = path;
    r.arm = "draft";
    auto p = kbp::planner::make_plan(r);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().text().find("num_nextn_predict_layers") != std::string::npos);
}

TEST_CASE("mtp: Qwen3-Next's draft arm is its mtp.* layer, one by vLLM's default when the config names none", "[mtp]") {
    // vLLM's Qwen3NextMultiTokenPredictor: pre_fc_norm_embedding and pre_fc_norm_hidden, fc over
    // both side by side, one full-attention Qwen3NextDecoderLayer with the sparse MoE, norm; the
    // checkpoint keeps it under mtp.*, not after the model's layers, and its config has no
    // num_nextn_predict_layers (num_mtp_layers is then 1).
    const auto draft = plan(sample("qwen3-next-80b-a3b"), "draft");
    CHECK(kbp::schema::validate(draft).empty());
    REQUIRE(draft.layers.size() == 1);
    CHECK(draft.layers[0].template_name == "mtp_in+gattn+moe+mtp_norm");
    CHECK(modules_of(draft, "l0.mtp_in.pre_fc_norm_embedding") == std::vector<std::string>{"mtp.pre_fc_norm_embedding"});
    CHECK(modules_of(draft, "l0.mtp_in.fc") == std::vector<std::string>{"mtp.fc"});
    CHECK(modules_of(draft, "l0.gattn.k") == std::vector<std::string>{"mtp.layers.0.self_attn.k_proj"});
    CHECK(modules_of(draft, "l0.moe.experts_down") == std::vector<std::string>{"mtp.layers.0.mlp.experts.*.down_proj"});
    CHECK(modules_of(draft, "l0.mtp_norm.norm") == std::vector<std::string>{"mtp.norm"});
    CHECK(modules_of(draft, "mtp_head.lm_head") == std::vector<std::string>{"lm_head"});
    REQUIRE(draft.mtp);
    CHECK(draft.mtp->layers == 1);
    CHECK(draft.mtp->config_field == "num_nextn_predict_layers absent, the default");
    // By hand (hidden 2,048): fc 4,096 x 2,048; three norms; q_proj 2,048 x 8,192 (queries and
    // gate), k_proj and v_proj 2,048 x 512, o_proj 4,096 x 2,048, q/k norms of 256; the layer's
    // two norms; 512 experts of 3 x 2,048 x 512, the router 512 x 2,048, the shared expert
    // 3 x 2,048 x 512 and its gate of 2,048.
    const std::int64_t by_hand = 4096LL * 2048 + 3 * 2048 + 2048LL * 8192 + 2 * 2048LL * 512 + 4096LL * 2048 + 2 * 256 + 2 * 2048 +
                                 512LL * 3 * 2048 * 512 + 512LL * 2048 + 3LL * 2048 * 512 + 2048;
    CHECK(draft.mtp->parameters == by_hand);
    // The target's plan counts it beside its 48 layers.
    const auto decode = plan(sample("qwen3-next-80b-a3b"), "decode");
    REQUIRE(decode.mtp);
    CHECK(decode.mtp->parameters == by_hand);
    CHECK(decode.layers.size() == 48);
}

TEST_CASE("mtp: Qwen3.5's MTP layer has the model's FFN, the routed experts or the dense MLP", "[mtp]") {
    // vLLM's qwen3_5_mtp.py builds its MTP decoder layer as the model's: Qwen3.5-MoE's has the
    // sparse MoE, a dense Qwen3.5's the MLP (the architecture's mtp.layer entries with `when`).
    const auto moe = plan(sample("qwen3.5-35b-a3b"), "draft");
    CHECK(kbp::schema::validate(moe).empty());
    REQUIRE(moe.layers.size() == 1);
    CHECK(moe.layers[0].template_name == "mtp_in+gattn+moe+mtp_norm");
    CHECK(modules_of(moe, "l0.mtp_in.fc") == std::vector<std::string>{"mtp.fc"});
    CHECK(modules_of(moe, "l0.moe.gate") == std::vector<std::string>{"mtp.layers.0.mlp.gate"});
    REQUIRE(moe.mtp);
    CHECK(moe.mtp->config_field == "mtp_num_hidden_layers");

    kbp::test::TempDir dir;
    auto config = OJson::parse(kbp::test::slurp(sample("qwen3.5-35b-a3b")));
    config["text_config"].erase("num_experts");
    config["text_config"]["intermediate_size"] = 6144;
    const std::string dense = dir.file("config.json");
    std::ofstream(dense) << config.dump(2);
    const auto mlp = plan(dense, "draft");
    CHECK(kbp::schema::validate(mlp).empty());
    REQUIRE(mlp.layers.size() == 1);
    CHECK(mlp.layers[0].template_name == "mtp_in+gattn+mlp+mtp_norm");
    CHECK(modules_of(mlp, "l0.mlp.down") == std::vector<std::string>{"mtp.layers.0.mlp.down_proj"});
}
