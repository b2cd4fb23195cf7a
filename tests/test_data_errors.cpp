// The planner's data files as an input language: a corrupt file in a catalog folder (or named by
// path) is refused when the catalog loads, with "<file>: /json/pointer: message" and a "did you
// mean" for a near miss; the shipped catalog loads.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>

#include "planner/catalog.hpp"
#include "planner/plan.hpp"
#include "support.hpp"

namespace {

using kbp::test::OJson;
namespace fs = std::filesystem;

const std::string root = KBP_SOURCE_DIR;

OJson shipped(const std::string& relative) { return OJson::parse(kbp::test::slurp(root + "/planner/data/" + relative)); }

kbp::planner::PlanRequest request(const std::string& model) {
    kbp::planner::PlanRequest r;
    r.config_path = root + "/samples/" + model + "/config.json";
    r.command = "kbp plan (test)";
    return r;
}

// The error planning `model` with `relative` (a shipped data file) changed by `change` in a
// catalog folder; `where` is where the error must be, relative to the folder.
struct Refusal {
    std::string where, message;
};
Refusal refusal(const std::string& relative, const std::function<void(OJson&)>& change, const std::string& model = "llama-3.1-8b") {
    kbp::test::TempDir dir;
    OJson doc = shipped(relative);
    change(doc);
    fs::create_directories(fs::path(dir.file(relative)).parent_path());
    kbp::test::spit(dir.file(relative), doc.dump(1));
    auto r = request(model);
    r.catalog_dir = dir.path();
    auto p = kbp::planner::make_plan(r);
    if (p.ok()) return {"(planned)", ""};
    std::string where = p.error().where;
    if (where.rfind(dir.path(), 0) == 0) where = where.substr(dir.path().size() + 1);
    return {where, p.error().message};
}

}  // namespace

TEST_CASE("data files: the shipped catalog loads", "[data][files]") {
    auto catalog = kbp::planner::Catalog::load(std::nullopt);
    INFO((catalog ? std::string() : catalog.error().text()));
    REQUIRE(catalog.ok());
    for (const char* kind : {"architectures", "recipes", "recipes/parts", "targets", "kernels", "fusion", "explain", "ops"})
        CHECK_FALSE(catalog->all(kind).empty());
    CHECK(catalog->all("schemas").empty());  // the schemas are kbp's, not data
}

TEST_CASE("data files: a corrupt kernel table is refused where it is wrong", "[data][files]") {
    const std::string k = "kernels/cuda-generic.json";
    // The row of the SIGSEGV of issue 10: an empty rows range.
    auto r = refusal(k, [](OJson& d) { d["table"][12]["rows"] = OJson::array(); });
    CHECK(r.where == k + ": /table/12/rows");
    CHECK(r.message == "empty (at least 2 items expected)");
    r = refusal(k, [](OJson& d) { d["table"][12]["rows"] = {8, 1}; });
    CHECK(r.where == k + ": /table/12/rows");
    CHECK_THAT(r.message, Catch::Contains("low end is above its high end"));
    r = refusal(k, [](OJson& d) { d["table"][2]["kernel"] = "norm::rms_nrom"; });
    CHECK(r.where == k + ": /table/2/kernel");
    CHECK(r.message == "'norm::rms_nrom' is not an instance of a kernel file (did you mean 'norm::rms_norm'?)");
    r = refusal(k, [](OJson& d) { d["instances"]["norm::rms_norm"]["family"] = "rms_nrom"; });
    CHECK(r.where == k + ": /instances/norm::rms_norm/family");
    CHECK_THAT(r.message, Catch::Contains("did you mean 'rms_norm'?"));
    r = refusal(k, [](OJson& d) { d["table"][2].erase("rule"); });
    CHECK(r.where == k + ": /table/2/rule");
    CHECK(r.message == "missing");
    r = refusal(k, [](OJson& d) { d["table"][2]["op"] = "rms_nrom"; });
    CHECK(r.where == k + ": /table/2/op");
    CHECK_THAT(r.message, Catch::Contains("unknown op 'rms_nrom'") && Catch::Contains("did you mean 'rms_norm'?"));
    r = refusal(k, [](OJson& d) { d["table"][12]["weight"] = "fp8/chanel"; });
    CHECK(r.where == k + ": /table/12/weight");
    CHECK(r.message == "unknown format 'fp8/chanel' (did you mean 'fp8/channel'?)");
}

TEST_CASE("data files: a kernel row that refuses its nodes launches nothing and stops the plan there", "[data][files]") {
    const std::string t = "kernels/trtllm.json";
    const auto refusing = [](const OJson& d) {
        for (std::size_t i = 0; i < d["table"].size(); ++i)
            if (d["table"][i].contains("refuse")) return i;
        return d["table"].size();
    };
    const std::size_t row = refusing(shipped(t));
    REQUIRE(row < shipped(t)["table"].size());
    const std::string at = t + ": /table/" + std::to_string(row);
    auto r = refusal(t, [&](OJson& d) { d["table"][row]["kernel"] = "trtllm::renorm_moe_routing"; });
    CHECK(r.where == at + "/kernel");
    CHECK(r.message == "a row that refuses its nodes has no kernel (null)");
    r = refusal(t, [&](OJson& d) { d["table"][row]["launches"] = {"trtllm::renorm_moe_routing"}; });
    CHECK(r.where == at + "/launches");
    CHECK(r.message == "a row that refuses its nodes has no launches");
    r = refusal(t, [&](OJson& d) { d["table"][row]["refuse"] = ""; });
    CHECK(r.where == at + "/refuse");
    // The first row a node matches decides: a refusing one stops the plan at that node (exit 4).
    const std::string k = "kernels/cuda-generic.json";
    r = refusal(k, [](OJson& d) {
        d["table"].insert(d["table"].begin(), OJson{{"op", "rms_norm"}, {"kernel", nullptr}, {"rule", "no_norm"}, {"refuse", "no norm kernel here"}});
    });
    CHECK(r.where == k + ": /table/0/refuse");
    CHECK_THAT(r.message, Catch::StartsWith("engine 'vllm' does not run 'l0.attn.input_norm' (rms_norm, weight none, activation bf16)") &&
                              Catch::EndsWith(": no norm kernel here"));
}

TEST_CASE("data files: a corrupt recipe is refused where it is wrong", "[data][files]") {
    const std::string f = "recipes/fp8-dynamic.json";
    auto r = refusal(f, [](OJson& d) {
        d["entries"][0]["wieght"] = d["entries"][0]["weight"];
        d["entries"][0].erase("weight");
    });
    CHECK(r.where == f + ": /entries/0/wieght");
    CHECK(r.message == "unknown member 'wieght' (did you mean 'weight'?)");
    // std::regex throws on "re:(": the loader compiles every pattern first.
    r = refusal(f, [](OJson& d) { d["entries"][0]["match"] = "re:("; });
    CHECK(r.where == f + ": /entries/0/match");
    CHECK_THAT(r.message, Catch::StartsWith("'re:(' is not a regular expression"));
    r = refusal(f, [](OJson& d) { d["entries"][2]["include"] = "bf16-exclusion"; });
    CHECK(r.where == f + ": /entries/2/include");
    CHECK_THAT(r.message, Catch::Contains("did you mean 'bf16-exclusions'?"));
    r = refusal(f, [](OJson& d) { d["settings"].erase("lm_head_dtype"); });
    CHECK(r.where == f + ": /entries/2/include");
    CHECK_THAT(r.message, Catch::Contains("reads the setting 'lm_head_dtype', which the recipe does not set"));
    r = refusal(f, [](OJson& d) { d["entries"][0]["activation"] = OJson::array({{{"max_rows", "x"}, {"format", "bf16"}}}); });
    CHECK(r.where == f + ": /entries/0/activation/0/max_rows");
    CHECK(r.message == "'x' is not a whole number of at least 1");
    r = refusal(f, [](OJson& d) { d["name"] = "fp8-static"; });
    CHECK(r.where == f + ": /name");
    CHECK(r.message == "'fp8-static' is not the file's name 'fp8-dynamic'");
}

TEST_CASE("data files: a corrupt architecture is refused where it is wrong", "[data][files]") {
    const std::string a = "architectures/llama.json";
    auto r = refusal(a, [](OJson& d) { d["blocks"]["attn"]["ops"][0]["op"] = "rms_nrom"; });
    CHECK(r.where == a + ": /blocks/attn/ops/0/op");
    CHECK_THAT(r.message, Catch::StartsWith("unknown op 'rms_nrom' (did you mean 'rms_norm'? ops are defined in embedded:ops/core.json)"));
    r = refusal(a, [](OJson& d) { d["symbols"]["head_dim"] = "hidden_size/(num_attention_heads"; });
    CHECK(r.where == a + ": /symbols/head_dim");
    CHECK_THAT(r.message, Catch::Contains("missing ')'"));
    r = refusal(a, [](OJson& d) { d["blocks"]["mlp"]["ops"][1]["out"][0]["dim"] = "inter*2+hiddn"; });
    CHECK(r.where == a + ": /blocks/mlp/ops/1/out/0/dim");
    CHECK(r.message == "'inter*2+hiddn': unknown name 'hiddn' (did you mean 'hidden'?)");
    r = refusal(a, [](OJson& d) { d["blocks"]["mlp"]["ops"][2]["in"][0] = "gx"; });
    CHECK(r.where == a + ": /blocks/mlp/ops/2/in/0");
    CHECK(r.message == "tensor 'gx' is not made earlier in the block (did you mean 'gu'?)");
    r = refusal(a, [](OJson& d) { d["layers"]["slots"][0]["choices"][0]["kind"] = "ful_attention"; });
    CHECK(r.where == a + ": /layers/slots/0/choices/0/kind");
    CHECK_THAT(r.message, Catch::Contains("did you mean 'full_attention'?"));
    r = refusal(a, [](OJson& d) { d["blocks"]["attn"]["ops"][5]["state"] = "kv:wirte"; });
    CHECK(r.where == a + ": /blocks/attn/ops/5/state");
    CHECK_THAT(r.message, Catch::Contains("did you mean 'write'?"));
    // An architecture's formats are written out: a {placeholder} no setting fills is refused where it is.
    r = refusal(a, [](OJson& d) { d["blocks"]["attn"]["ops"][0]["precision"]["output"][0] = "{=1/0}"; });
    CHECK(r.where == a + ": /blocks/attn/ops/0/precision/output/0");
    CHECK(r.message == "'{=1/0}': an architecture names its formats as they are, without {placeholders} (a recipe's settings choose formats)");
    r = refusal(a, [](OJson& d) { d["model_types"] = {"glm5_next"}; });
    CHECK(r.where == a + ": /model_types/0");
    CHECK(r.message == "model_type 'glm5_next' is planned by embedded:architectures/glm5_next.json too");
    // A per-layer character condition names one character of its field, and nothing else.
    const std::string h = "architectures/nemotron_h.json";
    r = refusal(h, [](OJson& d) { d["layers"]["slots"][0]["choices"][0]["layer_char"]["char"] = "MM"; }, "nemotron-nano-9b-v2");
    CHECK(r.where == h + ": /layers/slots/0/choices/0/layer_char/char");
    CHECK_THAT(r.message, Catch::Contains("does not match"));
    r = refusal(h, [](OJson& d) { d["layers"]["slots"][0]["choices"][1]["layer_char"].erase("char"); }, "nemotron-nano-9b-v2");
    CHECK(r.where == h + ": /layers/slots/0/choices/1/layer_char/char");
    CHECK(r.message == "missing");
    r = refusal(h, [](OJson& d) { d["layers"]["slots"][0]["choices"][2]["layer_char"]["feild"] = "x"; }, "nemotron-nano-9b-v2");
    CHECK(r.where == h + ": /layers/slots/0/choices/2/layer_char/feild");
    CHECK_THAT(r.message, Catch::Contains("did you mean 'field'?"));
    // The characters the slot's choices name are the layer kinds the family plans: without the
    // '-' choice, the pattern's MLP layers are refused at the config's field.
    r = refusal(h, [](OJson& d) { d["layers"]["slots"][0]["choices"].erase(2); }, "nemotron-nano-9b-v2");
    CHECK_THAT(r.where, Catch::EndsWith("samples/nemotron-nano-9b-v2/config.json: /hybrid_override_pattern"));
    CHECK(r.message == "layer 1 is '-', a kind of layer architecture 'nemotron_h' does not plan (it plans 'M', '*', 'E')");
    // A per-layer list condition's entry is 0 or 1, a layer kind name, or a non-empty list of names.
    for (const OJson& entry : {OJson(2), OJson(""), OJson::array(), OJson::array({"moe", 1})}) {
        INFO(entry.dump());
        r = refusal(h, [&](OJson& d) { d["layers"]["slots"][0]["choices"][3]["layer_list"]["entry"] = entry; }, "nemotron-3-nano-30b-a3b");
        CHECK_THAT(r.where, Catch::StartsWith(h + ": /layers/slots/0/choices/3/layer_list/entry"));
    }
}

TEST_CASE("data files: fusion rules, targets and the ops files are checked too", "[data][files]") {
    const std::string f = "fusion/glm5_next-gb10.json";
    auto r = refusal(f, [](OJson& d) { d["rules"][13]["members"].erase(0); }, "glm-5.3-flash");
    CHECK(r.where == f + ": /rules/13/members");
    CHECK(r.message == "has 3 member specs for a pattern of 4 ops (one each)");
    r = refusal(f, [](OJson& d) { d["rules"][0]["members"].erase("kernel"); }, "glm-5.3-flash");
    CHECK(r.where == f + ": /rules/0/members/kernel");
    r = refusal("targets/h100.json", [](OJson& d) { d["interconnect"]["bandwidth_gbps"] = "fast"; });
    CHECK(r.where == "targets/h100.json: /interconnect/bandwidth_gbps");
    CHECK(r.message == "expected a number, not a string");
    r = refusal("targets/h100.json", [](OJson& d) { d["interconnect"]["latency"] = 2; });
    CHECK(r.where == "targets/h100.json: /interconnect/latency");
    CHECK_THAT(r.message, Catch::StartsWith("unknown member 'latency'") && Catch::Contains("latency_us"));
    r = refusal("targets/h100.json", [](OJson& d) { d["interconnect"].erase("name"); });
    CHECK(r.where == "targets/h100.json: /interconnect/name");
    r = refusal("targets/h100.json", [](OJson& d) { d["engines"][0] = "vllmm"; });
    CHECK(r.where == "targets/h100.json: /engines/0");
    CHECK_THAT(r.message, Catch::Contains("did you mean 'vllm'?"));
    r = refusal("engines/vllm.json", [](OJson& d) { d["catalogs"][1] = "cuda-hoper"; });
    CHECK(r.where == "engines/vllm.json: /catalogs/1");
    CHECK_THAT(r.message, Catch::Contains("did you mean 'cuda-hopper'?"));
    r = refusal("fusion/vllm.json", [](OJson& d) { d["rules"][8]["pattern"] = OJson::array({"act_quant"}); });
    CHECK(r.where == "fusion/vllm.json: /rules/8/pattern");
    CHECK_THAT(r.message, Catch::Contains("a rule that is off has no pattern"));
    // Which ops read a weight is the ops file's say: without it the LM head has no recipe formats.
    r = refusal("ops/core.json", [](OJson& d) { d["ops"]["lm_head"].erase("weight"); });
    CHECK_THAT(r.where, Catch::StartsWith("embedded:architectures/") && Catch::Contains(": /blocks/head/ops/") && Catch::EndsWith("/precision"));
    CHECK_THAT(r.message, Catch::Contains("op 'lm_head' has no weight in") && Catch::Contains("ops/core.json"));
}

TEST_CASE("data files: what is not a data file of a known kind is refused", "[data][files]") {
    kbp::test::TempDir dir;
    auto plan_with = [&](const std::string& relative, const std::string& text) {
        fs::create_directories(fs::path(dir.file(relative)).parent_path());
        kbp::test::spit(dir.file(relative), text);
        auto r = request("llama-3.1-8b");
        r.catalog_dir = dir.path();
        auto p = kbp::planner::make_plan(r);
        fs::remove(dir.file(relative));
        REQUIRE_FALSE(p.ok());
        return p.error();
    };
    auto e = plan_with("architecture/x.json", "{}");
    CHECK_THAT(e.message, Catch::Contains("did you mean 'architectures/'?"));
    e = plan_with("explain/notes.json", "{}");
    CHECK(e.where == dir.file("explain/notes.json") + ": /");
    e = plan_with("recipes/broken.json", "{\"name\": \"broken\",\n \"entries\": [}");
    CHECK(e.where == dir.file("recipes/broken.json") + ":2:14");
    // A recipe named by path is checked as the catalog's are.
    kbp::test::spit(dir.file("mine.json"), R"({"name": "mine", "entries": [{"op": "linear:*", "weight": "fp8/chanel", "activation": "fp8/token"}]})");
    auto r = request("llama-3.1-8b");
    r.recipe = dir.file("mine.json");
    auto p = kbp::planner::make_plan(r);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().where == dir.file("mine.json") + ": /entries/0/weight");
    CHECK_THAT(p.error().message, Catch::Contains("did you mean 'fp8/channel'?"));
}

TEST_CASE("data files: a deeply nested value is refused where it stands, not recursed into", "[data][files]") {
    kbp::test::TempDir dir;
    std::filesystem::create_directories(dir.file("recipes"));
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    kbp::test::spit(dir.file("recipes/fp8-dynamic.json"), R"({"name": "fp8-dynamic", "description": )" + deep + R"(, "entries": []})");
    auto r = request("llama-3.1-8b");
    r.catalog_dir = dir.path();
    auto p = kbp::planner::make_plan(r);
    REQUIRE_FALSE(p.ok());
    // Refused at the bracket that goes too deep, before anything walks the value.
    // The file opens with "{" and 39 characters before the first "[": the 256th "[" is level 257.
    CHECK(p.error().where == dir.file("recipes/fp8-dynamic.json") + ":1:" + std::to_string(39 + 256));
    CHECK_THAT(p.error().message, Catch::Contains("nested deeper than 256 levels"));
}
