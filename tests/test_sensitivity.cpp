// The sensitivity input of `kbp tune` (planner/sensitivity.hpp): reading and refusing
// kbp-sensitivity/v1 files, matching their module names against a plan's, summing a unit's score,
// llama.cpp's use_more_bits rule as a prior, the bundled Llama-3.1-8B sample (the prior, written by
// the hidden case "[.write-sample]") and the ModelOpt converter (scripts/modelopt_autoquant_to_kbp.py).
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

#include "cli_runner.hpp"
#include "planner/plan.hpp"
#include "planner/sensitivity.hpp"
#include "schema/bytes.hpp"
#include "schema/names.hpp"
#include "support.hpp"

namespace {

using namespace kbp;
using planner::Sensitivity;

const std::string root = KBP_SOURCE_DIR;
const std::string data = root + "/tests/data/sensitivity/";

std::string read_error(const std::string& path) {
    auto s = planner::read_sensitivity(path);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::invalid_input);
    return s.error().text();
}

Sensitivity read_ok(const std::string& path) {
    auto s = planner::read_sensitivity(path);
    INFO(path << ": " << (s ? std::string() : s.error().text()));
    REQUIRE(s.ok());
    return std::move(*s);
}

schema::Blueprint plan_of(const std::string& sample) {
    planner::PlanRequest r;
    r.config_path = root + "/samples/" + sample + "/config.json";
    r.command = "kbp plan (test)";
    auto p = planner::make_plan(r);
    INFO(sample << ": " << (p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    return std::move(p->blueprint);
}

// Every module name of a plan (Blueprint::modules values), as `kbp tune` checks a file against.
std::vector<std::string> all_modules(const schema::Blueprint& b) {
    std::vector<std::string> out;
    REQUIRE(b.modules.has_value());
    for (const auto& [id, names] : *b.modules)
        for (const auto& n : names.array()) out.push_back(n.string());
    return out;
}

// A Llama-like model of `layers` layers, as its plan names the weighted modules.
std::vector<std::string> llama_modules(int layers) {
    std::vector<std::string> out;
    for (int i = 0; i < layers; ++i)
        for (const char* m : {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"})
            out.push_back("model.layers." + std::to_string(i) + "." + m);
    out.push_back("lm_head");
    return out;
}

std::string layer_module(int layer, const std::string& within) { return "model.layers." + std::to_string(layer) + "." + within; }

int run(const std::string& command) {
    int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// --- the sample ----------------------------------------------------------------------------------

const std::string sample_path = root + "/samples/llama-3.1-8b/sensitivity.json";

// The weight formats kbp's recipes give a projection (planner/data/recipes/*.json "weight", their
// settings' defaults for {int4_format} and {bnb_4bit}), each with its bits per weight parameter on a
// 4096 x 4096 weight (schema/bytes.cpp): the candidates the sample scores.
std::map<std::string, double> sample_bits() {
    std::map<std::string, double> out;
    for (const char* name : {"bf16", "fp8/b128", "fp8/channel", "fp8/tensor", "int4/b128", "int4/g128", "int4/g128z", "int8/b32", "int8/channel",
                             "mxfp4/g32", "nf4/b64dq", "nvfp4/g16"}) {
        const auto bytes = schema::weight_bytes(schema::Format::parse(name), 4096, 4096);
        REQUIRE(bytes.has_value());
        out[name] = 8.0 * static_cast<double>(*bytes) / (4096.0 * 4096.0);
    }
    return out;
}

Sensitivity sample_prior() {
    const auto plan = plan_of("llama-3.1-8b");
    return planner::use_more_bits_prior(planner::quantizable_modules(plan), 32, sample_bits());
}

// Six significant digits: the sample is read by people too.
std::string score_text(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", x);
    return buffer;
}

std::string sample_text(const Sensitivity& s) {
    std::string out = "{\n  \"schema\": \"kbp-sensitivity/v1\",\n  \"model\": \"meta-llama/Llama-3.1-8B (samples/llama-3.1-8b/config.json)\",\n";
    out += "  \"source\": " + nlohmann::json(s.source + "; written by tests/test_sensitivity.cpp [.write-sample] from kbp's plan of the sample, "
                                             "keyed by weight format, bits per weight of a 4096 x 4096 weight").dump() + ",\n";
    out += "  \"modules\": {\n";
    std::size_t i = 0;
    for (const auto& [module, scores] : s.modules) {
        out += "    " + nlohmann::json(module).dump() + ": {";
        std::size_t k = 0;
        for (const auto& [key, score] : scores) out += (k++ ? ", " : "") + nlohmann::json(key).dump() + ": " + score_text(score);
        out += ++i < s.modules.size() ? "},\n" : "}\n";
    }
    return out + "  }\n}\n";
}

}  // namespace

// --- reading ---------------------------------------------------------------------------------------

TEST_CASE("read_sensitivity reads every way a file names modules", "[sensitivity]") {
    const Sensitivity s = read_ok(data + "valid.json");
    CHECK(s.origin == data + "valid.json");
    CHECK_FALSE(s.prior);
    CHECK(s.source == "hand-written test input: every way a file may name a module");
    CHECK(s.sha256.size() == 64);
    CHECK(s.modules.size() == 9);
    CHECK(s.modules.at("model.layers.0.mlp.experts").at("fp8/channel") == 0.05);
    CHECK(s.modules.at("model.layers.0.self_attn.q_proj").at("bf16") == 0);
}

TEST_CASE("read_sensitivity refuses a bad file with a file, a pointer and what is wrong", "[sensitivity]") {
    const std::string b = data + "bad/";
    const std::string down = ": /modules/model.layers.0.mlp.down_proj";
    const std::vector<std::pair<std::string, std::string>> cases{
        {"schema_v2.json", ": /schema: expected \"kbp-sensitivity/v1\", found \"kbp-sensitivity/v2\""},
        {"schema_missing.json", ": /schema: missing (\"kbp-sensitivity/v1\")"},
        {"unknown_member.json", ": /modles: unknown member 'modles' (did you mean 'modules'?)"},
        {"source_not_string.json", ": /source: expected a string, found an array"},
        {"modules_missing.json", ": /modules: missing (an object: Hugging Face module name -> {candidate or format: score})"},
        {"modules_array.json", ": /modules: expected an object: Hugging Face module name -> {candidate or format: score}, found an array"},
        {"modules_empty.json", ": /modules: no modules (a sensitivity file scores at least one)"},
        {"module_not_object.json", down + ": expected an object: candidate recipe or weight format -> score, found 0.5"},
        {"module_empty.json", down + ": no scores (name at least one candidate recipe or weight format)"},
        {"module_name_empty.json", ": /modules/: empty module name"},
        {"key_empty.json", down + "/: empty candidate name"},
        {"score_negative.json", down + "/nvfp4: negative score -0.25 (0 = lossless, larger = worse)"},
        {"score_string.json", down + "/nvfp4: expected a number (the score: 0 = lossless, larger = worse), found \"0.019\""},
        {"score_null.json", down + "/nvfp4: expected a number (the score: 0 = lossless, larger = worse), found null"},
        {"format_unknown.json", down + "/fp8~1chanel: unknown format 'fp8/chanel' (did you mean 'fp8/channel'?)"},
        // JSON has no infinity: a number beyond a double's range is refused where it stands.
        {"score_overflow.json", ":1:88: number overflow parsing '1e999'"},
    };
    for (const auto& [file, expected] : cases) {
        INFO(file);
        CHECK(read_error(b + file) == b + file + expected);
    }
}

TEST_CASE("read_sensitivity refuses broken JSON at its line and column, and a file of another kind", "[sensitivity]") {
    test::TempDir dir;
    const std::string path = dir.file("s.json");
    test::spit(path, "{\"schema\": \"kbp-sensitivity/v1\",\n \"modules\": {\"lm_head\": {\"bf16\": 0,}}}\n");
    CHECK(read_error(path) == path + ":2:36: syntax error while parsing object key - unexpected '}'; expected string literal");

    CHECK(read_error(test::seed_path()) == test::seed_path() + ": /: this is a kbp plan (kbp-graph/v2), not a sensitivity file (kbp-sensitivity/v1)");
    CHECK(read_error(dir.file("none.json")) == dir.file("none.json") + ": No such file or directory");
    // ... and the other way round: a sensitivity file where a model config belongs is said to be one.
    planner::PlanRequest request;
    request.config_path = sample_path;
    auto plan = planner::make_plan(request);
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.error().text() == sample_path + ": /: this is a sensitivity file (kbp-sensitivity/v1), not a model config (config.json with model_type)");
    test::spit(path, "[1, 2]\n");
    CHECK(read_error(path) == path + ": /: a sensitivity file is a JSON object {\"schema\": \"kbp-sensitivity/v1\", \"modules\": {...}}");
}

TEST_CASE("the published JSON Schema lists exactly kbp's formats that have a '/'", "[sensitivity]") {
    const auto schema = nlohmann::json::parse(test::slurp(root + "/schema/kbp-sensitivity-v1.schema.json"));
    const auto& any_of = schema.at("$defs").at("scores").at("propertyNames").at("anyOf");
    std::set<std::string> listed, known;
    for (const auto& alternative : any_of)
        if (alternative.contains("enum"))
            for (const auto& f : alternative.at("enum")) listed.insert(f.get<std::string>());
    for (auto id : schema::known_formats) {
        const std::string name(schema::Format{id, {}}.name());
        if (name.find('/') != std::string::npos) known.insert(name);
    }
    CHECK(listed == known);
}

// --- the model's modules ---------------------------------------------------------------------------

TEST_CASE("check_sensitivity_modules accepts the model's names, its experts by '*', index or whole", "[sensitivity]") {
    std::vector<std::string> model;
    for (int i = 0; i < 4; ++i) {
        for (const char* m : {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.experts.*.gate_proj",
                              "mlp.experts.*.up_proj", "mlp.experts.*.down_proj", "mlp.gate", "input_layernorm"})
            model.push_back(layer_module(i, m));
    }
    model.push_back("lm_head");
    const Sensitivity s = read_ok(data + "valid.json");
    CHECK(planner::check_sensitivity_modules(s, model).ok());

    auto refusal = [&](const std::string& name) {
        Sensitivity one;
        one.origin = "s.json";
        one.modules[name] = {{"bf16", 0}};
        auto status = planner::check_sensitivity_modules(one, model);
        REQUIRE_FALSE(status.ok());
        CHECK(status.error().code == ErrorCode::invalid_input);
        return status.error().text();
    };
    // A near miss is named; a far one (another model's naming) gets no wrong suggestion.
    CHECK(refusal("model.layers.3.self_attn.v_prj") ==
          "s.json: /modules/model.layers.3.self_attn.v_prj: the model has no module 'model.layers.3.self_attn.v_prj' (did you mean "
          "'model.layers.3.self_attn.v_proj'?)");
    CHECK(refusal("model.layers.2.mlp.expert") ==
          "s.json: /modules/model.layers.2.mlp.expert: the model has no module 'model.layers.2.mlp.expert' (did you mean 'model.layers.2.mlp.experts'?)");
    CHECK(refusal("transformer.h.17.attn.c_attn") == "s.json: /modules/transformer.h.17.attn.c_attn: the model has no module 'transformer.h.17.attn.c_attn'");
    // A layer the model does not have, an expert index that is not a number, a '/' escaped in the pointer.
    // A layer beyond the model's is answered with its layers, not with another layer's module (issue 29).
    CHECK(refusal("model.layers.9.mlp.experts") ==
          "s.json: /modules/model.layers.9.mlp.experts: the model has no module 'model.layers.9.mlp.experts' (the model has 4 layers: "
          "model.layers.0..model.layers.3)");
    CHECK(refusal("model.layers.1.mlp.experts.x.down_proj").find("has no module 'model.layers.1.mlp.experts.x.down_proj'") != std::string::npos);
    CHECK(refusal("a/b~c").rfind("s.json: /modules/a~1b~0c: the model has no module 'a/b~c'", 0) == 0);
}

// --- a unit's score --------------------------------------------------------------------------------

TEST_CASE("unit_score sums the entries naming a unit's modules, the candidate before the format", "[sensitivity]") {
    const Sensitivity s = read_ok(data + "valid.json");
    const std::vector<std::string> qkv{layer_module(0, "self_attn.q_proj"), layer_module(0, "self_attn.k_proj"), layer_module(0, "self_attn.v_proj")};
    // q and v are named, k is not (adds nothing).
    CHECK(planner::unit_score(s, qkv, "fp8-dynamic", "fp8/channel") == Approx(0.003));
    CHECK(planner::unit_score(s, qkv, "nvfp4", "nvfp4/g16") == Approx(0.05));  // the format stands in for the recipe
    // v lists neither bf16 nor the format: the unit is not scored for that candidate.
    CHECK_FALSE(planner::unit_score(s, qkv, "bf16", "bf16").has_value());
    // No entry names the unit.
    const std::vector<std::string> o{layer_module(0, "self_attn.o_proj")};
    CHECK_FALSE(planner::unit_score(s, o, "nvfp4", "nvfp4/g16").has_value());

    auto experts = [](int layer) {
        return std::vector<std::string>{layer_module(layer, "mlp.experts.*.gate_proj"), layer_module(layer, "mlp.experts.*.up_proj"),
                                        layer_module(layer, "mlp.experts.*.down_proj")};
    };
    // The experts' module names all three of the unit's modules: counted once; the recipe name wins.
    CHECK(planner::unit_score(s, experts(0), "nvfp4", "nvfp4/g16") == Approx(0.5));
    CHECK(planner::unit_score(s, experts(0), "fp8-dynamic", "fp8/channel") == Approx(0.05));
    CHECK_FALSE(planner::unit_score(s, experts(0), "fp8-static", "fp8/tensor").has_value());
    // Named with '*' as the plan does; per expert, summed over the experts.
    CHECK(planner::unit_score(s, experts(1), "nvfp4", "nvfp4/g16") == Approx(0.25));
    CHECK(planner::unit_score(s, experts(2), "nvfp4", "nvfp4/g16") == Approx(0.1875));
    // Expert 1 of layer 3: gate by its format, down has neither key: not scored.
    CHECK_FALSE(planner::unit_score(s, experts(3), "nvfp4", "nvfp4/g16").has_value());
    CHECK(planner::unit_score(s, experts(3), "fp8-dynamic", "nvfp4/g16") == Approx(0.51));
    // A unit of the LM head.
    const std::vector<std::string> head{"lm_head"};
    CHECK(planner::unit_score(s, head, "fp8-dynamic", "fp8/channel") == Approx(0.004));
    CHECK(planner::unit_score(s, head, "bf16", "bf16") == 0.0);
}

// --- the prior -------------------------------------------------------------------------------------

TEST_CASE("use_more_bits marks llama.cpp's layers of a 32-layer model", "[sensitivity]") {
    // i < 32/8 = 4, i >= 7*32/8 = 28, or (i - 4) % 3 == 2: src/llama-quant.cpp.
    const std::set<int> marked{0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31};
    for (int i = 0; i < 32; ++i) {
        INFO("layer " << i);
        CHECK(planner::use_more_bits(i, 32) == (marked.count(i) == 1));
    }
}

TEST_CASE("the prior weights attn_v, ffn_down of those layers and the LM head, and is monotone in bits", "[sensitivity]") {
    const std::map<std::string, double> bits{{"bf16", 16}, {"fp8", 8.0078125}, {"nvfp4", 4.5}, {"int4", 4.125}, {"f32", 32}, {"broken", NAN}};
    const Sensitivity s = planner::use_more_bits_prior(llama_modules(32), 32, bits);
    CHECK(s.prior);
    CHECK(s.origin == "prior: llama.cpp use_more_bits (a heuristic)");
    CHECK(s.modules.size() == 32 * 7 + 1);

    const std::set<int> marked{0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31};
    const double plain = std::exp2(4 - 4.5) - std::exp2(-12.0), heavy = std::exp2(6.5625 - 4.5) * plain;
    for (const auto& [module, scores] : s.modules) {
        INFO(module);
        REQUIRE(scores.size() == 5);  // "broken" (not finite) is left unscored
        CHECK(scores.at("bf16") == 0);
        CHECK(scores.at("f32") == 0);
        // Fewer bits never score lower.
        CHECK(scores.at("int4") > scores.at("nvfp4"));
        CHECK(scores.at("nvfp4") > scores.at("fp8"));
        CHECK(scores.at("fp8") > scores.at("bf16"));
        const auto split = module.rfind('.');
        const std::string last = module.substr(split + 1);
        const int layer = module == "lm_head" ? -1 : std::stoi(module.substr(13, module.find('.', 13) - 13));
        const bool more_bits = module == "lm_head" || ((last == "v_proj" || last == "down_proj") && marked.count(layer));
        CHECK(scores.at("nvfp4") == Approx(more_bits ? heavy : plain));
    }
    // Monotone over a sweep of bits, for a plain and a weighted module.
    std::map<std::string, double> sweep;
    for (int tenth = 10; tenth <= 170; ++tenth) sweep["b" + std::to_string(tenth)] = tenth / 10.0;
    const Sensitivity swept = planner::use_more_bits_prior(llama_modules(32), 32, sweep);
    for (const char* module : {"model.layers.4.self_attn.v_proj", "model.layers.0.self_attn.v_proj"})
        for (int tenth = 11; tenth <= 170; ++tenth) {
            INFO(module << " at " << tenth / 10.0 << " bits");
            CHECK(swept.modules.at(module).at("b" + std::to_string(tenth)) <= swept.modules.at(module).at("b" + std::to_string(tenth - 1)));
        }
}

TEST_CASE("the prior counts attn_v and a dense model's ffn_down as llama.cpp does, a MoE's ffn_down by layer", "[sensitivity]") {
    const std::map<std::string, double> bits{{"nvfp4", 4.5}};
    const double plain = std::exp2(4 - 4.5) - std::exp2(-12.0);
    auto weighted = [&](const Sensitivity& s, const std::string& m) { return s.modules.at(m).at("nvfp4") > plain * 1.5; };

    // A hybrid of 32 layers: attention every 4th layer (3, 7, ..., 31), an MLP on odd layers. attn_v
    // counts 8 tensors: i < 1, i >= 7 or (i - 1) % 3 == 2 -> i 0, 3, 6, 7 -> layers 3, 15, 27, 31. ffn_down
    // counts 16 tensors over n_layer 32: i < 4 or (i - 4) % 3 == 2 -> i 0-3, 6, 9, 12, 15 -> layers 1, 3,
    // 5, 7, 13, 19, 25, 31.
    std::vector<std::string> hybrid;
    for (int i = 3; i < 32; i += 4) hybrid.push_back(layer_module(i, "self_attn.v_proj"));
    for (int i = 1; i < 32; i += 2) hybrid.push_back(layer_module(i, "mlp.down_proj"));
    const Sensitivity h = planner::use_more_bits_prior(hybrid, 32, bits);
    const std::set<int> v_marked{3, 15, 27, 31}, down_marked{1, 3, 5, 7, 13, 19, 25, 31};
    for (int i = 3; i < 32; i += 4) CHECK(weighted(h, layer_module(i, "self_attn.v_proj")) == (v_marked.count(i) == 1));
    for (int i = 1; i < 32; i += 2) CHECK(weighted(h, layer_module(i, "mlp.down_proj")) == (down_marked.count(i) == 1));

    // With routed experts the layer comes from the name (n_expert > 1): the same odd layers' experts
    // and shared experts follow use_more_bits(layer, 32).
    std::vector<std::string> moe;
    for (int i = 1; i < 32; i += 2) {
        moe.push_back(layer_module(i, "mlp.experts.*.down_proj"));
        moe.push_back(layer_module(i, "mlp.shared_experts.down_proj"));
    }
    const Sensitivity m = planner::use_more_bits_prior(moe, 32, bits);
    for (int i = 1; i < 32; i += 2) {
        CHECK(weighted(m, layer_module(i, "mlp.experts.*.down_proj")) == planner::use_more_bits(i, 32));
        CHECK(weighted(m, layer_module(i, "mlp.shared_experts.down_proj")) == planner::use_more_bits(i, 32));
    }
}

TEST_CASE("the prior's attn_v, ffn_down and output modules are those kbp's GGUF table maps there", "[sensitivity]") {
    // planner/data/quantizers/gguf.json (from gguf-py's tensor_mapping.py): every Hugging Face name of a
    // GGUF tensor llama.cpp gives more bits (category_is_attn_v, "ffn_down", output) is weighted by the
    // prior in a layer use_more_bits marks, and no other is.
    const auto table = nlohmann::json::parse(test::slurp(root + "/planner/data/quantizers/gguf.json"));
    const std::map<std::string, double> bits{{"nvfp4", 4.5}};
    const double plain = std::exp2(4 - 4.5) - std::exp2(-12.0);
    for (const auto& row : table.at("tensor_names")) {
        const std::string gguf = row.at("gguf").get<std::string>();
        const bool more = gguf.find("attn_v") != std::string::npos || gguf.find("attn_qkv") != std::string::npos ||
                          gguf.find("attn_kv_b") != std::string::npos || gguf.find("ffn_down") != std::string::npos || gguf == "output";
        for (const auto& hf : row.at("hf")) {
            std::string module = hf.get<std::string>();
            if (auto bid = module.find("{bid}"); bid != std::string::npos) module.replace(bid, 5, "0");
            if (auto experts = module.find(".experts."); experts != std::string::npos) module.insert(experts + 9, "*.");  // as a plan names them
            INFO(gguf << " <- " << module);
            const Sensitivity s = planner::use_more_bits_prior({module}, 8, bits);
            CHECK(s.modules.at(module).at("nvfp4") == Approx(more ? std::exp2(6.5625 - 4.5) * plain : plain));
        }
    }
}

TEST_CASE("quantizable_modules are the plan's projections, experts and LM head", "[sensitivity]") {
    const auto plan = plan_of("qwen3-30b-a3b");
    const auto modules = planner::quantizable_modules(plan);
    const std::set<std::string> set(modules.begin(), modules.end());
    CHECK(set.size() == modules.size());
    CHECK(modules.size() == 48 * 7 + 1);  // q, k, v, o, experts' gate, up, down; the LM head
    CHECK(set.count("model.layers.47.mlp.experts.*.down_proj") == 1);
    CHECK(set.count("lm_head") == 1);
    CHECK(set.count("model.layers.0.mlp.gate") == 0);
    CHECK(set.count("model.layers.0.input_layernorm") == 0);
    CHECK(set.count("model.embed_tokens") == 0);
}

// --- the bundled sample ----------------------------------------------------------------------------

TEST_CASE("samples/llama-3.1-8b/sensitivity.json is the prior of kbp's Llama-3.1-8B plan, labelled so", "[sensitivity]") {
    const Sensitivity sample = read_ok(sample_path);
    CHECK(sample.source.find("a heuristic, not a measurement") != std::string::npos);
    const Sensitivity prior = sample_prior();
    INFO("regenerate with: build/tests/kbp_tests \"[.write-sample]\"");
    REQUIRE(sample.modules.size() == prior.modules.size());
    for (const auto& [module, scores] : prior.modules) {
        INFO(module);
        REQUIRE(sample.modules.count(module) == 1);
        REQUIRE(sample.modules.at(module).size() == scores.size());
        for (const auto& [key, score] : scores) CHECK(sample.modules.at(module).at(key) == Approx(score).epsilon(1e-5));
    }
    CHECK(planner::check_sensitivity_modules(sample, all_modules(plan_of("llama-3.1-8b"))).ok());
}

TEST_CASE("write samples/llama-3.1-8b/sensitivity.json", "[.write-sample]") {
    test::spit(sample_path, sample_text(sample_prior()));
    SUCCEED("wrote " << sample_path);
}

// --- the ModelOpt converter ------------------------------------------------------------------------

TEST_CASE("scripts/modelopt_autoquant_to_kbp.py converts a search checkpoint and its JSON alike", "[sensitivity]") {
    test::TempDir dir;
    const std::string script = test::quote(root + "/scripts/modelopt_autoquant_to_kbp.py"), fixture = test::quote(data + "modelopt_candidate_stats.json");
    const std::string checkpoint = dir.file("autoquant.pth"), from_pth = dir.file("from_pth.json"), from_json = dir.file("from_json.json");
    REQUIRE(run("python3 " + test::quote(root + "/tests/sensitivity/make_modelopt_checkpoint.py") + " " + fixture + " " + test::quote(checkpoint)) == 0);
    REQUIRE(run("python3 " + script + " " + test::quote(checkpoint) + " -o " + test::quote(from_pth) + " --model Qwen3-30B-A3B") == 0);
    REQUIRE(run("python3 " + script + " " + fixture + " -o " + test::quote(from_json)) == 0);

    const Sensitivity a = read_ok(from_pth), b = read_ok(from_json);
    CHECK(a.modules == b.modules);
    CHECK(a.source.find("NVFP4_AWQ_LITE_CFG -> nvfp4") != std::string::npos);
    // ModelOpt's groups: q/k/v under q_proj, a layer's experts under the experts' module, the
    // disabled LM head and routers with NONE alone.
    const std::map<std::string, double> q47{{"bf16", 0}, {"fp8-static", 0.0025}, {"nvfp4", 0.04}};
    CHECK(a.modules.at("model.layers.47.self_attn.q_proj") == q47);
    CHECK(a.modules.at("model.layers.0.mlp.experts").at("nvfp4") == 0.5);
    CHECK(a.modules.at("lm_head") == std::map<std::string, double>{{"bf16", 0}});
    CHECK(a.modules.size() == 9);

    // Against the real plan: every name is the model's, and the search's units find their scores.
    const auto plan = plan_of("qwen3-30b-a3b");
    CHECK(planner::check_sensitivity_modules(a, all_modules(plan)).ok());
    const std::vector<std::string> experts{"model.layers.47.mlp.experts.*.gate_proj", "model.layers.47.mlp.experts.*.up_proj",
                                           "model.layers.47.mlp.experts.*.down_proj"};
    CHECK(planner::unit_score(a, experts, "nvfp4", "nvfp4/g16") == Approx(1.25));
    const std::vector<std::string> qkv{"model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.k_proj", "model.layers.0.self_attn.v_proj"};
    CHECK(planner::unit_score(a, qkv, "fp8-static", "fp8/tensor") == Approx(0.00075));
    // On another model the file is refused, not ignored.
    CHECK_FALSE(planner::check_sensitivity_modules(a, all_modules(plan_of("llama-3.1-8b"))).ok());
}

TEST_CASE("scripts/modelopt_autoquant_to_kbp.py refuses a format it has no key for, and takes --map", "[sensitivity]") {
    test::TempDir dir;
    const std::string script = test::quote(root + "/scripts/modelopt_autoquant_to_kbp.py");
    const std::string input = dir.file("stats.json"), out = dir.file("out.json"), err = dir.file("err.txt");
    test::spit(input, R"json({"candidate_stats": {"model.layers.0.mlp.down_proj.quant_recipe":
        {"formats": ["W4A8_AWQ_BETA_CFG(effective-bits: 4.5)", "NONE(effective-bits: 16.0)"], "scores": [0.25, 0.0], "costs": [1, 4]}}})json");
    CHECK(run("python3 " + script + " " + test::quote(input) + " -o " + test::quote(out) + " 2>" + test::quote(err)) == 2);
    CHECK(test::slurp(err) == input + ": no kbp key for ModelOpt format 'W4A8_AWQ_BETA_CFG': give one with --map W4A8_AWQ_BETA_CFG=KEY "
                                      "(a kbp recipe name or weight format)\n");
    CHECK_FALSE(std::ifstream(out).good());  // nothing half-written
    REQUIRE(run("python3 " + script + " " + test::quote(input) + " -o " + test::quote(out) + " --map W4A8_AWQ_BETA_CFG=w4a8") == 0);
    CHECK(read_ok(out).modules.at("model.layers.0.mlp.down_proj") == std::map<std::string, double>{{"bf16", 0}, {"w4a8", 0.25}});
}
