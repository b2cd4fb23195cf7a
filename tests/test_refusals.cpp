// Refusing what kbp does not understand (issue 26): every --set and recipe setting is checked
// against the settings vocabulary and the target's formats; config fields that change the
// computation are planned or refused at the field; the fields kbp did not read are listed.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "planner/state_bytes.hpp"
#include "support.hpp"

using namespace kbp;
namespace fs = std::filesystem;
using test::kbp_run;
using test::llama_arg;
using test::quote;
using test::sample_path;
using test::show;

namespace {

using OJson = nlohmann::ordered_json;

// Exit 2, nothing on stdout, one "kbp plan: error: WHERE: ..." line containing `text`, no plan written.
void check_refused(const test::TempDir& dir, const test::Run& r, const std::string& where, const std::string& text) {
    INFO(show(r));
    CHECK(r.exit == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::StartsWith("kbp plan: error: " + where + ": "));
    CHECK_THAT(r.err, Catch::Contains(text));
    CHECK_FALSE(fs::exists(dir.file("p.json")));
}

test::Run plan(const test::TempDir& dir, const std::string& config, const std::string& options = "") {
    return kbp_run(dir, "plan " + quote(config) + " " + options + " -o " + quote(dir.file("p.json")));
}

// `sample`'s config with `changes` merged in, written into `dir`.
std::string config_with(const test::TempDir& dir, const std::string& sample, const OJson& changes) {
    OJson config = OJson::parse(test::slurp(sample_path(sample + "/config.json")));
    for (const auto& [k, v] : changes.items()) config[k] = v;
    std::string path = dir.file("config.json");
    test::spit(path, config.dump(2));
    return path;
}

}  // namespace

TEST_CASE("refuse: --set values are checked against the settings vocabulary and the target's formats", "[refuse]") {
    test::TempDir dir;
    const std::string llama = sample_path("llama-3.1-8b/config.json");
    check_refused(dir, plan(dir, llama, "--set kv_cache_dtype=banana"), "--set kv_cache_dtype",
                  "'banana' is not a kv_cache_dtype value (it takes 'bf16', 'f16', 'fp8', 'int8';");
    check_refused(dir, plan(dir, llama, "--set kv_cache_dtype=int4"), "--set kv_cache_dtype", "(did you mean 'int8'? it takes");
    // The B200 lists no int8/static (vLLM has no int8 kernels for sm100); the H100 does (TensorRT-LLM's INT8 KV cache).
    check_refused(dir, plan(dir, llama, "--target b200 --set kv_cache_dtype=int8"), "--set kv_cache_dtype",
                  "'int8' (int8/static) is not a format target 'b200' lists (embedded:targets/b200.json: /formats: bf16, f16,");
    check_refused(dir, plan(dir, llama, "--set imf_headrom=3"), "--set imf_headrom", "kbp has no setting 'imf_headrom' (did you mean 'imf_headroom'?)");
    check_refused(dir, plan(dir, llama, "--set lm_head_dtype=int8/b32"), "--set lm_head_dtype", "'int8/b32' is not a format target 'h100' lists");
    check_refused(dir, plan(dir, llama, "--set lm_head_dtype=fp8/tokn"), "--set lm_head_dtype",
                  "'fp8/tokn' is not a format kbp knows (did you mean 'fp8/token'?)");
    check_refused(dir, plan(dir, llama, "--set numerics=Fast"), "--set numerics", "'Fast' does not match ^[a-z][a-z0-9_]*$");
    check_refused(dir, plan(dir, llama, "--set w4a16_max_rows=0"), "--set w4a16_max_rows", "0 is outside 1-1048576");
    // The GPNPU caches int8 alone: bf16 and fp8 are formats it lacks.
    check_refused(dir, plan(dir, sample_path("sarashina2.2-3b/config.json"), "--set kv_cache_dtype=fp8"), "--set kv_cache_dtype",
                  "'fp8' (fp8/tensor) is not a format target 'qc-u' lists (embedded:targets/qc-u.json: /formats: fx32, int4/b128, int8/static, i32, f32)");
    // A known setting the recipe does not set is added, and said.
    auto r = plan(dir, llama, "--set numerics=reference");
    INFO(show(r));
    CHECK(r.exit == 0);
    CHECK_THAT(r.err, Catch::Contains("warning: --set numerics: recipe 'fp8-dynamic' does not set numerics (added"));
}

TEST_CASE("refuse: a recipe's settings are checked where the recipe says them", "[refuse]") {
    test::TempDir dir;
    OJson recipe = OJson::parse(test::slurp(test::source_dir() + "/planner/data/recipes/fp8-dynamic.json"));
    recipe["name"] = "mine";
    recipe["settings"]["kv_cache_dtype"] = "fp16";
    test::spit(dir.file("mine.json"), recipe.dump(2));
    check_refused(dir, plan(dir, sample_path("llama-3.1-8b/config.json"), "--recipe " + quote(dir.file("mine.json"))),
                  dir.file("mine.json") + ": /settings/kv_cache_dtype", "'fp16' is not a kv_cache_dtype value (did you mean 'f16'?");
    // --set replaces the recipe's value before it is checked.
    CHECK(plan(dir, sample_path("llama-3.1-8b/config.json"), "--recipe " + quote(dir.file("mine.json")) + " --set kv_cache_dtype=fp8").exit == 0);
    // A catalog recipe with an unknown setting does not load.
    fs::create_directories(dir.file("catalog/recipes"));
    recipe["settings"] = {{"kv_cache_dtyp", "fp8"}, {"lm_head_dtype", "bf16"}};
    test::spit(dir.file("catalog/recipes/mine.json"), recipe.dump(2));
    auto r = plan(dir, sample_path("llama-3.1-8b/config.json"), "--catalog " + quote(dir.file("catalog")));
    INFO(show(r));
    CHECK(r.exit == 2);
    CHECK_THAT(r.err, Catch::Contains("catalog/recipes/mine.json: /settings/kv_cache_dtyp: kbp has no setting 'kv_cache_dtyp' (did you mean 'kv_cache_dtype'?)"));
}

TEST_CASE("refuse: a KV cache costs its format's bytes", "[refuse]") {
    test::TempDir dir;
    auto cost_of = [&](const std::string& dtype) {
        auto r = plan(dir, sample_path("llama-3.1-8b/config.json"), "--set kv_cache_dtype=" + dtype);
        INFO(show(r));
        REQUIRE(r.exit == 0);
        OJson p = OJson::parse(test::slurp(dir.file("p.json")));
        auto text = p.at("node_costs").at("l0.attn.attend").at("state_bytes").get<std::string>();
        auto bytes = planner::eval_node_cost(text, 4096, 1, 1);
        REQUIRE(bytes);
        fs::remove(dir.file("p.json"));
        return *bytes;
    };
    auto bf16 = cost_of("bf16"), f16 = cost_of("f16"), fp8 = cost_of("fp8");
    CHECK(bf16 == f16);
    CHECK(bf16 == 2 * fp8);
    CHECK(fp8 == 4096 * 8 * 128 * 2);  // K and V: 8 KV heads of 128, one byte a value
}

TEST_CASE("refuse: config fields that change the computation are planned or refused at the field", "[refuse]") {
    test::TempDir dir;
    check_refused(dir, plan(dir, config_with(dir, "llama-3.1-8b", {{"hidden_act", "gelu"}})), dir.file("config.json") + ": /hidden_act",
                  "'gelu' is not one architecture 'llama' plans (it plans 'silu')");
    check_refused(dir, plan(dir, config_with(dir, "llama-3.1-8b", {{"mlp_bias", true}})), dir.file("config.json") + ": /mlp_bias",
                  "this architecture plans Llama's MLP without them");
    check_refused(dir, plan(dir, config_with(dir, "llama-3.1-8b", {{"attention_bias", true}})), dir.file("config.json") + ": /attention_bias",
                  "this architecture plans Llama's projections without them");
    check_refused(dir, plan(dir, config_with(dir, "llama-3.1-8b", {{"rope_scaling", {{"rope_type", "banana"}, {"factor", 8.0}}}})),
                  dir.file("config.json") + ": /rope_scaling/rope_type",
                  "'banana' is not one architecture 'llama' plans (it plans 'default', 'linear', 'dynamic', 'yarn', 'longrope', 'llama3')");
    check_refused(dir, plan(dir, config_with(dir, "gemma-2-9b", {{"hidden_activation", "gelu"}})), dir.file("config.json") + ": /hidden_activation",
                  "it plans 'gelu_pytorch_tanh'");
    check_refused(dir, plan(dir, config_with(dir, "glm-4.6", {{"attention_bias", false}})), dir.file("config.json") + ": /attention_bias",
                  "this architecture plans GLM-4.5/4.6's q/k/v biases");
    check_refused(dir, plan(dir, config_with(dir, "nemotron-h-8b-base-8k", {{"mlp_hidden_act", "silu"}})), dir.file("config.json") + ": /mlp_hidden_act",
                  "it plans 'relu2'");
    // The legacy "type" key and the engines' other rope types plan; so does gemma's hidden_act beside hidden_activation.
    CHECK(plan(dir, config_with(dir, "llama-3.1-8b", {{"rope_scaling", {{"type", "yarn"}, {"factor", 4.0}}}})).exit == 0);
    CHECK(plan(dir, config_with(dir, "phi-3-mini-4k", {{"rope_scaling", {{"type", "su"}}}})).exit == 0);
}

TEST_CASE("refuse: the config fields kbp did not read are listed in the plan and by -v", "[refuse]") {
    test::TempDir dir;
    auto config = config_with(dir, "llama-3.1-8b", {{"my_new_field", 3}, {"bos_token_id", 1}, {"hidden_dropout", 0.0}, {"quantization_config", OJson::object()}});
    auto r = plan(dir, config, "-v");
    INFO(show(r));
    REQUIRE(r.exit == 0);
    CHECK_THAT(r.err, Catch::Contains("kbp plan: config fields kbp did not read: my_new_field\n"));
    CHECK_THAT(r.err, Catch::Contains("kbp plan: config fields taken as metadata (planner/data/vocabulary/config-fields.json): architectures, bos_token_id, "
                                      "hidden_dropout, rms_norm_eps, torch_dtype\n"));
    OJson p = OJson::parse(test::slurp(dir.file("p.json")));
    CHECK(p.at("config_fields").at("unread") == OJson::array({"my_new_field"}));
    // Without -v nothing is said; a config whose every field is read lists none.
    fs::remove(dir.file("p.json"));
    r = plan(dir, sample_path("llama-3.1-8b/config.json"));
    CHECK(r.err.find("did not read") == std::string::npos);
    CHECK_FALSE(OJson::parse(test::slurp(dir.file("p.json"))).at("config_fields").contains("unread"));
}
