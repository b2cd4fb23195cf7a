// Refusals that do not mislead (issue 29): a model_type transformers knows (or one whose
// checkpoints ship their own modeling code) and kbp does not plan is named as such, never offered
// as the spelling of another family; a did-you-mean is only for a near miss of a planned
// model_type that no known model type is as near. A node id or module of a layer the plan lacks
// is answered with the plan's layers, not with another layer's name.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "planner/catalog.hpp"
#include "planner/model_types.hpp"
#include "planner/plan.hpp"
#include "support.hpp"

namespace {

namespace fs = std::filesystem;
using kbp::test::OJson;

const std::string root = KBP_SOURCE_DIR;

// "deepseek_v2, deepseek_v3, ...": the model_types kbp's architecture files plan, sorted.
std::string planned_list() {
    std::vector<std::string> types;
    for (const auto& f : fs::directory_iterator(root + "/planner/data/architectures")) {
        const OJson architecture = OJson::parse(kbp::test::slurp(f.path().string()));
        for (const auto& t : architecture["model_types"]) types.push_back(t.get<std::string>());
    }
    std::sort(types.begin(), types.end());
    std::string out;
    for (const auto& t : types) out += (out.empty() ? "" : ", ") + t;
    return out;
}

// The refusal of Llama-3.1-8B's config with model_type `type` (and `more` merged in): "where: message".
std::string refusal(const std::string& type, const OJson& more = OJson::object()) {
    kbp::test::TempDir dir;
    OJson cfg = OJson::parse(kbp::test::slurp(root + "/samples/llama-3.1-8b/config.json"));
    cfg["model_type"] = type;
    for (const auto& [k, v] : more.items()) cfg[k] = v;
    kbp::test::spit(dir.file("config.json"), cfg.dump());
    kbp::planner::PlanRequest r;
    r.config_path = dir.file("config.json");
    r.command = "kbp plan (test)";
    auto p = kbp::planner::make_plan(r);
    if (p.ok()) return "(planned)";
    CHECK(p.error().code == kbp::ErrorCode::unsupported);
    CHECK(p.error().where == dir.file("config.json") + ": /model_type");
    return p.error().message;
}

const OJson& model_types_json() {
    static const OJson j = OJson::parse(kbp::test::slurp(root + "/planner/data/vocabulary/model-types.json"));
    return j;
}

}  // namespace

TEST_CASE("model types: a model transformers knows is not offered as another's spelling", "[model_types][refuse]") {
    const std::string plans = planned_list();
    // The refusals of issue 29 that pointed at another family (gemma3 -> gemma2, qwen2_moe ->
    // qwen3_moe, qwen3_5_moe -> qwen3_moe, deepseek_v32 -> deepseek_v3, llava -> llama, gemma ->
    // gemma2, olmo -> olmo2, phi -> phi3) and the other families the issue found refused.
    // (deepseek_v32, glm4_moe_lite, glm_moe_dsa and deepseek_v4 are planned since.)
    for (const char* type : {"gemma3", "qwen3_5_moe", "llava", "gemma", "olmo", "phi", "qwen3_5"}) {
        INFO(type);
        CHECK(refusal(type) == "model_type '" + std::string(type) + "' is a model kbp does not plan yet (kbp plans: " + plans + ")");
    }
    // Checkpoints with their own modeling code (config.json auto_map) are known too.
    for (const char* type : {"baichuan", "chatglm"}) {  // (internlm3, kimi_linear and bailing_moe are planned since)
        INFO(type);
        CHECK(refusal(type) == "model_type '" + std::string(type) +
                                   "' is a model kbp does not plan yet (its checkpoints ship their own modeling code; kbp plans: " + plans + ")");
    }
}

TEST_CASE("model types: a near miss of a planned model_type gets a did-you-mean, unless a known one is as near", "[model_types][refuse]") {
    const std::string plans = planned_list();
    CHECK(refusal("llamma") == "unknown model_type 'llamma' (did you mean 'llama' of embedded:architectures/llama.json?)");
    CHECK(refusal("qwen3moe") == "unknown model_type 'qwen3moe' (did you mean 'qwen3_moe' of embedded:architectures/qwen3_moe.json?)");
    // 'qwen3_5_mo' is one edit from qwen3_5_moe (transformers', not planned) and three from qwen3_moe.
    CHECK(refusal("qwen3_5_mo") == "unknown model_type 'qwen3_5_mo' (kbp plans: " + plans + ")");
    CHECK(refusal("gpt99") == "unknown model_type 'gpt99' (kbp plans: " + plans + ")");
}

TEST_CASE("model types: a multimodal wrapper kbp does not know around a text model it plans says what is missing", "[model_types][refuse]") {
    const std::string plans = planned_list();
    // PaliGemma 2 wraps a Gemma 2 text model: kbp plans gemma2 but does not know where a
    // paligemma checkpoint keeps its modules.
    CHECK(refusal("paligemma", {{"text_config", {{"model_type", "gemma2"}, {"hidden_size", 2304}}}}) ==
          "model_type 'paligemma' is a model kbp does not plan yet (its text_config is a gemma2, which kbp plans, but where a paligemma "
          "checkpoint keeps that model's modules is not in model-types.json /wrappers; kbp plans: " + plans + ")");
    // A wrapper kbp knows whose text model it does not plan: the wrapper is named, not planned.
    CHECK(refusal("llava", {{"text_config", {{"model_type", "vicuna"}}}}) ==
          "model_type 'llava' is a model kbp does not plan yet (kbp plans: " + plans + ")");
}

TEST_CASE("model types: no model type transformers knows gets a did-you-mean", "[model_types][refuse]") {
    auto catalog = kbp::planner::Catalog::load(std::nullopt);
    REQUIRE(catalog.ok());
    const auto& types = model_types_json()["transformers"]["model_types"];
    REQUIRE(types.size() >= 600);
    const std::string plans = planned_list();
    std::size_t unplanned = 0;
    for (const auto& t : types) {
        const std::string type = t.get<std::string>();
        if (kbp::planner::architecture_for(*catalog, type)) continue;
        ++unplanned;
        INFO(type);
        CHECK(kbp::planner::unplanned_model_type(*catalog, OJson::object(), type) ==
              "model_type '" + type + "' is a model kbp does not plan yet (kbp plans: " + plans + ")");
    }
    CHECK(unplanned > 600);
}

TEST_CASE("model types: the list is transformers' CONFIG_MAPPING_NAMES keys, sorted, once each, with its source", "[model_types][data]") {
    const auto& tf = model_types_json()["transformers"];
    CHECK_THAT(tf["source"].get<std::string>(), Catch::Contains("src/transformers/models/auto/auto_mappings.py") &&
                                                    Catch::Contains("src/transformers/models/auto/configuration_auto.py"));
    std::vector<std::string> names;
    for (const auto& t : tf["model_types"]) names.push_back(t.get<std::string>());
    auto sorted = names;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    CHECK(names == sorted);
    // Every family the issue found refused is listed (those transformers has a config class for).
    for (const char* type : {"gemma3", "qwen2_moe", "qwen3_5", "qwen3_5_moe", "deepseek_v32", "deepseek_v4", "glm4_moe_lite", "glm_moe_dsa",
                             "cohere", "starcoder2", "llava", "gemma", "olmo", "phi", "exaone4", "smollm3", "granite"})
        CHECK(std::binary_search(names.begin(), names.end(), std::string(type)));
}

TEST_CASE("model types: a node id of a layer the plan lacks says the plan's layers", "[model_types][why]") {
    kbp::planner::PlanRequest r;
    r.config_path = root + "/samples/qwen3-8b/config.json";
    r.command = "kbp why (test)";
    auto beyond = kbp::planner::why_node(r, "l99.attn.q");
    REQUIRE_FALSE(beyond.ok());
    CHECK(beyond.error().text() == "l99.attn.q: no node of that id in the plan (the plan has 36 layers: l0..l35)");
    // A misspelt node of a layer the plan has is matched within that layer.
    auto typo = kbp::planner::why_node(r, "l9.attn.qq");
    REQUIRE_FALSE(typo.ok());
    CHECK(typo.error().text() == "l9.attn.qq: no node of that id in the plan (did you mean 'l9.attn.q'?)");
    // A tuned node format for a layer the model lacks (kbp tune's node_formats).
    r.node_formats.emplace("l40.mlp.down", kbp::planner::NodeFormats{"bf16", "bf16", "test"});
    auto p = kbp::planner::make_plan(r);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().text() == "node_formats/l40.mlp.down: this model has no node 'l40.mlp.down' (the model has 36 layers: l0..l35)");
}
