// A checkpoint's own precision (planner/import_quant.cpp): each form a quantized checkpoint
// declares, planned on the small two-layer Llama, against the recipe that says the same thing;
// and each refusal, with its place.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "planner/plan.hpp"
#include "schema/validator.hpp"
#include "plan_compare.hpp"
#include "support.hpp"

using namespace kbp;
using Json = nlohmann::ordered_json;
using test::formats;
using test::same_layout;

namespace {

Json small_llama() {
    Json c = Json::parse(test::slurp(test::source_dir() + "/tests/configs/small-llama.json"));
    c.erase("_about");
    return c;
}

// The config (and a sidecar) written to `dir`, planned.
Result<planner::PlanOutput> plan_with(const test::TempDir& dir, const Json& config, const std::optional<Json>& sidecar = std::nullopt,
                                      std::optional<std::string> recipe = std::nullopt, std::optional<std::string> target = std::nullopt) {
    test::spit(dir.file("config.json"), config.dump(1));
    if (sidecar) test::spit(dir.file("hf_quant_config.json"), sidecar->dump(1));
    planner::PlanRequest r;
    r.config_path = dir.file("config.json");
    r.recipe = std::move(recipe);
    r.target = std::move(target);
    return planner::make_plan(r);
}

Json quantized(Json quantization_config) {
    Json c = small_llama();
    c["quantization_config"] = std::move(quantization_config);
    return c;
}

Json fp8_channel_token() {
    return Json::parse(R"({"quant_method": "compressed-tensors", "format": "float-quantized",
      "config_groups": {"group_0": {"targets": ["Linear"],
        "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true, "dynamic": false},
        "input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "symmetric": true, "dynamic": true}}},
      "ignore": ["lm_head"],
      "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "symmetric": true, "dynamic": false}})");
}

Error error_of(const Result<planner::PlanOutput>& r) {
    REQUIRE_FALSE(r.ok());
    return r.error();
}

}  // namespace

TEST_CASE("import: compressed-tensors FP8 (channel weights, token activations, FP8 KV cache) plans as the fp8-dynamic recipe", "[import][planner]") {
    test::TempDir dir, base;
    auto imported = plan_with(dir, quantized(fp8_channel_token()));
    REQUIRE(imported.ok());
    auto recipe = plan_with(base, small_llama(), std::nullopt, "fp8-dynamic");
    REQUIRE(recipe.ok());
    same_layout(imported->blueprint, recipe->blueprint);
    CHECK(schema::validate(imported->blueprint).empty());
    CHECK_THAT(imported->defaults_chosen, Catch::StartsWith("precision from " + dir.file("config.json") +
                                                            "'s quantization_config (compressed-tensors, 1 group, 1 ignore entry): 14 modules quantized, 1 kept unquantized"));
    // The decision names the config entry that made it (kbp why prints it).
    const auto& recorded = imported->blueprint.provenance->files;
    CHECK(std::any_of(recorded.begin(), recorded.end(), [](const auto& f) { return f.path == "embedded:quantizers/compressed-tensors.json"; }));
    CHECK(formats(imported->blueprint, "head.lm_head") == "bf16 x bf16");
    // Module names ride along in the plan, as the checkpoint names them.
    REQUIRE(imported->blueprint.modules);
    CHECK(test::show(imported->blueprint.modules->front().second) == "[\"model.embed_tokens\"]");
}

TEST_CASE("import: where a config keeps its quantization config: text_config, compression_config, a ModelOpt sidecar", "[import][planner]") {
    test::TempDir base;
    auto recipe = plan_with(base, small_llama(), std::nullopt, "fp8-dynamic");
    REQUIRE(recipe.ok());
    SECTION("under text_config (wrapped multimodal checkpoints)") {
        test::TempDir dir;
        Json c = small_llama();
        c["text_config"] = Json::object({{"quantization_config", fp8_channel_token()}});
        auto p = plan_with(dir, c);
        REQUIRE(p.ok());
        same_layout(p->blueprint, recipe->blueprint);
        CHECK_THAT(p->defaults_chosen, Catch::Contains("'s quantization_config (compressed-tensors"));
    }
    SECTION("compression_config (older compressed-tensors checkpoints)") {
        test::TempDir dir;
        Json c = small_llama();
        c["compression_config"] = fp8_channel_token();
        auto p = plan_with(dir, c);
        REQUIRE(p.ok());
        same_layout(p->blueprint, recipe->blueprint);
        CHECK_THAT(p->defaults_chosen, Catch::Contains("'s compression_config (compressed-tensors"));
    }
    SECTION("hf_quant_config.json beside config.json (ModelOpt), per-channel FP8 with per-token activations") {
        test::TempDir dir;
        auto p = plan_with(dir, small_llama(),
                           Json::parse(R"({"producer": {"name": "modelopt", "version": "0.27.1"},
                             "quantization": {"quant_algo": "FP8_PER_CHANNEL_PER_TOKEN", "kv_cache_quant_algo": "FP8", "exclude_modules": ["lm_head"]}})"));
        REQUIRE(p.ok());
        same_layout(p->blueprint, recipe->blueprint);
        CHECK_THAT(p->defaults_chosen, Catch::StartsWith("precision from " + dir.file("hf_quant_config.json") + " (ModelOpt FP8_PER_CHANNEL_PER_TOKEN"));
        const auto& files = p->blueprint.provenance->files;
        CHECK(std::any_of(files.begin(), files.end(), [&](const auto& f) { return f.path == dir.file("hf_quant_config.json"); }));
    }
    SECTION("quant_method modelopt inside config.json, with ignore for its exclusions") {
        test::TempDir dir;
        auto p = plan_with(dir, quantized(Json::parse(R"({"quant_method": "modelopt", "quant_algo": "FP8_PER_CHANNEL_PER_TOKEN",
                                                          "kv_cache_quant_algo": "FP8", "ignore": ["lm_head"]})")));
        REQUIRE(p.ok());
        same_layout(p->blueprint, recipe->blueprint);
    }
}

TEST_CASE("import: module by module: ignore lists, regex and exact targets, MIXED_PRECISION, a named recipe overriding", "[import][planner]") {
    SECTION("a layer's down_proj ignored by an exact name stays bf16, its neighbours do not") {
        test::TempDir dir;
        Json q = fp8_channel_token();
        q["ignore"].push_back("model.layers.1.mlp.down_proj");
        auto p = plan_with(dir, quantized(q));
        REQUIRE(p.ok());
        CHECK(formats(p->blueprint, "l1.mlp.down") == "bf16 x bf16");
        CHECK(formats(p->blueprint, "l0.mlp.down") == "fp8/channel x fp8/token");
        CHECK(formats(p->blueprint, "l1.mlp.gate_up") == "fp8/channel x fp8/token");
    }
    SECTION("two groups by regex: attention int8 W8A8, the MLP FP8") {
        test::TempDir dir;
        Json q = fp8_channel_token();
        q["format"] = "mixed-precision";
        q["config_groups"]["group_0"]["targets"] = Json::array({"re:.*mlp\\..*_proj"});
        q["config_groups"]["group_1"] = Json::parse(R"({"targets": ["re:.*self_attn\\..*_proj$"], "format": "int-quantized",
            "weights": {"num_bits": 8, "type": "int", "strategy": "channel", "symmetric": true},
            "input_activations": {"num_bits": 8, "type": "int", "strategy": "token", "dynamic": true, "symmetric": true}})");
        auto p = plan_with(dir, quantized(q));
        if (p.ok()) {
            CHECK(formats(p->blueprint, "l0.attn.q") == "int8/channel x int8/token");
            CHECK(formats(p->blueprint, "l0.mlp.down") == "fp8/channel x fp8/token");
        } else {
            // A target without an int8 W8A8 kernel refuses it as having no kernel, not as a bad config.
            CHECK(p.error().code == ErrorCode::unsupported);
        }
    }
    SECTION("MIXED_PRECISION: the listed modules in their algorithms, the rest unquantized") {
        test::TempDir dir;
        Json layers = Json::object();
        for (const char* m : {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"})
            layers[std::string("model.layers.0.") + m] = Json::object({{"quant_algo", "FP8_PER_CHANNEL_PER_TOKEN"}});
        auto p = plan_with(dir, small_llama(),
                           Json::object({{"producer", Json::object({{"name", "modelopt"}})},
                                         {"quantization", Json::object({{"quant_algo", "MIXED_PRECISION"}, {"kv_cache_quant_algo", nullptr}, {"quantized_layers", layers}})}}));
        REQUIRE(p.ok());
        CHECK(formats(p->blueprint, "l0.attn.q") == "fp8/channel x fp8/token");
        CHECK(formats(p->blueprint, "l0.mlp.down") == "fp8/channel x fp8/token");
        CHECK(formats(p->blueprint, "l1.attn.q") == "bf16 x bf16");
        CHECK(formats(p->blueprint, "l1.mlp.gate_up") == "bf16 x bf16");
        CHECK_THAT(p->defaults_chosen, Catch::Contains("(ModelOpt MIXED_PRECISION (7 quantized_layers)): 7 modules quantized, 8 kept unquantized"));
    }
    SECTION("--recipe plans what it says, and says it overrides the checkpoint's own precision") {
        test::TempDir dir;
        auto p = plan_with(dir, quantized(fp8_channel_token()), std::nullopt, "bf16");
        REQUIRE(p.ok());
        CHECK(formats(p->blueprint, "l0.attn.q") == "bf16 x bf16");
        REQUIRE_FALSE(p->warnings.empty());
        CHECK_THAT(p->warnings.front(), Catch::Contains("--recipe bf16 overrides the checkpoint's own precision"));
    }
    SECTION("an ignore entry that matches nothing is a warning (engines load such checkpoints)") {
        test::TempDir dir;
        Json q = fp8_channel_token();
        q["ignore"].push_back("re:vision_tower.*");
        auto p = plan_with(dir, quantized(q));
        REQUIRE(p.ok());
        REQUIRE_FALSE(p->warnings.empty());
        CHECK_THAT(p->warnings.back(), Catch::Contains(": /quantization_config/ignore/1: 're:vision_tower.*' matches no module kbp plans"));
    }
}

TEST_CASE("import: the one-scheme methods: GPTQ's modules_in_block_to_quantize and dynamic, AWQ's substrings, bitsandbytes, fp8 blocks", "[import][planner]") {
    test::TempDir dir;
    SECTION("GPTQ: only the listed modules of a layer, '-:' rules leave theirs unquantized, sym picks the zero points") {
        auto p = plan_with(dir, quantized(Json::parse(R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": true, "desc_act": false,
            "modules_in_block_to_quantize": [["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"], ["self_attn.o_proj"], ["mlp.gate_proj", "mlp.up_proj"]],
            "dynamic": {"-:model\\.layers\\.1\\.self_attn\\.o_proj": {}}})")));
        REQUIRE(p.ok());
        CHECK(formats(p->blueprint, "l0.attn.q") == "int4/g128 x bf16");
        CHECK(formats(p->blueprint, "l0.attn.o") == "int4/g128 x bf16");
        CHECK(formats(p->blueprint, "l1.attn.o") == "bf16 x bf16");
        CHECK(formats(p->blueprint, "l0.mlp.gate_up") == "int4/g128 x bf16");
        CHECK(formats(p->blueprint, "l0.mlp.down") == "bf16 x bf16");
        CHECK(formats(p->blueprint, "head.lm_head") == "bf16 x bf16");
        test::TempDir asym;
        auto z = plan_with(asym, quantized(Json::parse(R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": false, "lm_head": true})")));
        REQUIRE(z.ok());
        CHECK(formats(z->blueprint, "l1.mlp.down") == "int4/g128z x bf16");
        CHECK(formats(z->blueprint, "head.lm_head") == "int4/g128z x bf16");
    }
    SECTION("AWQ: modules_to_not_convert entries are substrings of the names") {
        auto p = plan_with(dir, quantized(Json::parse(R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true, "version": "gemm",
            "modules_to_not_convert": ["mlp.down"]})")));
        REQUIRE(p.ok());
        CHECK(formats(p->blueprint, "l0.attn.v") == "int4/g128z x bf16");
        CHECK(formats(p->blueprint, "l0.mlp.down") == "bf16 x bf16");
        CHECK(formats(p->blueprint, "l1.mlp.down") == "bf16 x bf16");
    }
    SECTION("bitsandbytes NF4, with and without double quantization") {
        auto p = plan_with(dir, quantized(Json::parse(R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4",
            "bnb_4bit_use_double_quant": true, "bnb_4bit_compute_dtype": "bfloat16", "llm_int8_skip_modules": ["o_proj"]})")));
        REQUIRE(p.ok());
        CHECK(formats(p->blueprint, "l0.mlp.down") == "nf4/b64dq x bf16");
        CHECK(formats(p->blueprint, "l0.attn.o") == "bf16 x bf16");
    }
    SECTION("fp8 with 128 x 128 weight blocks: per-token-group activations") {
        auto p = plan_with(dir, quantized(Json::parse(R"({"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [128, 128]})")));
        REQUIRE(p.ok());
        CHECK(formats(p->blueprint, "l0.attn.q") == "fp8/b128 x fp8/g128");
        CHECK(formats(p->blueprint, "head.lm_head") == "bf16 x bf16");
    }
}

TEST_CASE("import: what kbp cannot honour is refused at the config field, exit 2", "[import][planner][errors]") {
    test::TempDir dir;
    const std::string at = dir.file("config.json") + ": /quantization_config";
    SECTION("an unknown quant_method") {
        auto e = error_of(plan_with(dir, quantized(Json::object({{"quant_method", "hqq"}}))));
        CHECK(e.code == ErrorCode::invalid_input);
        CHECK(e.where == at + "/quant_method");
        CHECK_THAT(e.message, Catch::Contains("kbp does not read quant_method 'hqq'") && Catch::Contains("'compressed-tensors'"));
    }
    SECTION("a compressed-tensors scheme with no kbp format") {
        Json q = fp8_channel_token();
        q["config_groups"]["group_0"]["weights"] = Json::parse(R"({"num_bits": 3, "type": "int", "strategy": "group", "group_size": 64})");
        auto e = error_of(plan_with(dir, quantized(q)));
        CHECK(e.where == at + "/config_groups/group_0/weights");
        CHECK_THAT(e.message, Catch::StartsWith("no kbp format for {\"num_bits\":3"));
    }
    SECTION("a target that names no module of the model") {
        Json q = fp8_channel_token();
        q["config_groups"]["group_0"]["targets"].push_back("model.layers.7.self_attn.q_proj");
        auto e = error_of(plan_with(dir, quantized(q)));
        CHECK(e.where == at + "/config_groups/group_0/targets/1");
        CHECK_THAT(e.message, Catch::Contains("names no module of the model kbp plans"));
    }
    SECTION("q ignored but not k and v: vLLM loads them as one qkv_proj") {
        Json q = fp8_channel_token();
        q["ignore"].push_back("model.layers.0.self_attn.q_proj");
        auto e = error_of(plan_with(dir, quantized(q)));
        CHECK(e.code == ErrorCode::invalid_input);
        CHECK_THAT(e.message, Catch::Contains("model.layers.0.self_attn.q_proj and model.layers.0.self_attn.k_proj are loaded as one qkv_proj"));
    }
    SECTION("gate ignored but not up: one op of kbp's") {
        Json q = fp8_channel_token();
        q["ignore"].push_back("model.layers.1.mlp.gate_proj");
        auto e = error_of(plan_with(dir, quantized(q)));
        CHECK(e.where == at + "/ignore/1");
        CHECK_THAT(e.message, Catch::Contains("(l1.mlp.gate_up)") && Catch::Contains("share a scheme"));
    }
    SECTION("an unknown compression format") {
        Json q = fp8_channel_token();
        q["format"] = "sparse-24-bitmask";
        auto e = error_of(plan_with(dir, quantized(q)));
        CHECK(e.where == at + "/format");
    }
    SECTION("a ModelOpt algorithm kbp has no formats for, and a KV cache format it does not plan") {
        auto e = error_of(plan_with(dir, small_llama(), Json::parse(R"({"quantization": {"quant_algo": "W4A8_AWQ"}})")));
        CHECK(e.where == dir.file("hf_quant_config.json") + ": /quantization/quant_algo");
        CHECK_THAT(e.message, Catch::Contains("'W4A8_AWQ' has no kbp formats"));
        auto kv = error_of(plan_with(dir, small_llama(), Json::parse(R"({"quantization": {"quant_algo": "FP8_PER_CHANNEL_PER_TOKEN", "kv_cache_quant_algo": "INT4"}})")));
        CHECK(kv.where == dir.file("hf_quant_config.json") + ": /quantization/kv_cache_quant_algo");
    }
    SECTION("MIXED_PRECISION naming a module the model lacks") {
        auto e = error_of(plan_with(dir, small_llama(), Json::parse(R"({"quantization": {"quant_algo": "MIXED_PRECISION",
            "quantized_layers": {"model.layers.9.mlp.down_proj": {"quant_algo": "FP8"}}}})")));
        CHECK(e.where == dir.file("hf_quant_config.json") + ": /quantization/quantized_layers/model.layers.9.mlp.down_proj");
    }
    SECTION("AWQ at a bit width kbp has no format for") {
        auto e = error_of(plan_with(dir, quantized(Json::parse(R"({"quant_method": "awq", "bits": 3, "group_size": 128, "zero_point": true})"))));
        CHECK(e.where == at);
        CHECK_THAT(e.message, Catch::StartsWith("awq {\"bits\":3"));
    }
    SECTION("bitsandbytes 8-bit") {
        auto e = error_of(plan_with(dir, quantized(Json::parse(R"({"quant_method": "bitsandbytes", "load_in_8bit": true})"))));
        CHECK(e.where == at);
        CHECK_THAT(e.message, Catch::Contains("has no kbp format"));
    }
}
