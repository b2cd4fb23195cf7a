// kbp export quant (planner/export_quant.cpp): each form's content, the refusals, and the round
// trip of the issue's acceptance: plan -> export -> the file in a copy of the config (its
// quantization_config, or hf_quant_config.json beside it) -> kbp plan without a recipe gives
// every node the same formats and kernel; for every sample whose architecture names its modules
// and every catalog recipe that plans it on a GPU target.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <regex>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "planner/export_quant.hpp"
#include "planner/module_match.hpp"
#include "planner/plan.hpp"
#include "plan_compare.hpp"
#include "support.hpp"

using namespace kbp;
using Json = nlohmann::ordered_json;
using test::formats;
using test::node;
using test::same_layout;
namespace fs = std::filesystem;

namespace {

const planner::Planner& the_planner() {
    static const planner::Planner p = [] {
        auto loaded = planner::Planner::load(std::nullopt);
        REQUIRE(loaded.ok());
        return std::move(*loaded);
    }();
    return p;
}

Result<planner::PlanOutput> plan(const std::string& config, std::optional<std::string> recipe, std::optional<std::string> target,
                                 std::optional<std::string> engine = std::nullopt) {
    planner::PlanRequest r;
    r.config_path = config;
    r.recipe = std::move(recipe);
    r.target = std::move(target);
    r.engine = std::move(engine);
    return the_planner().plan(r);
}

// The engine a plan was made for (a recipe may name its own: the GLM recipe the seed's engine):
// the precision travels in the exported file, the engine is named again on the command line.
std::optional<std::string> engine_of(const schema::Blueprint& b) {
    const auto* e = b.provenance->planner_header.find("engine");
    return e && e->is_string() ? std::optional<std::string>(e->string()) : std::nullopt;
}

Json read_json(const std::string& path) { return Json::parse(test::slurp(path)); }

// The config without what would name a precision: its kbp.recipe and any quantization config.
Json bare(Json c) {
    c.erase("_about");
    c.erase("quantization_config");
    c.erase("compression_config");
    if (c.contains("text_config") && c["text_config"].is_object()) c["text_config"].erase("quantization_config");
    if (c.contains("kbp") && c["kbp"].is_object()) {
        c["kbp"].erase("recipe");
        if (c["kbp"].empty()) c.erase("kbp");
    }
    return c;
}

Result<std::string> export_of(const schema::Blueprint& b, planner::QuantForm form) {
    auto e = planner::export_quant(b, form, the_planner().catalog(), "plan.json");
    if (!e) return e.error();
    return e->text;
}

// The plan of `config` with `exported` put where `form` puts it, planned without a recipe.
Result<planner::PlanOutput> read_back(const test::TempDir& dir, const Json& config, planner::QuantForm form, const std::string& exported,
                                      const std::string& target, std::optional<std::string> engine = std::nullopt) {
    const std::string folder = dir.file(form == planner::QuantForm::modelopt ? "modelopt" : "compressed-tensors");
    fs::create_directories(folder);
    Json c = config;
    if (form == planner::QuantForm::modelopt) test::spit(folder + "/hf_quant_config.json", exported);
    else c["quantization_config"] = Json::parse(exported);
    test::spit(folder + "/config.json", c.dump(1));
    return plan(folder + "/config.json", std::nullopt, target, std::move(engine));
}

// What llama-quantize gives a tensor (src/llama-quant.cpp llama_tensor_get_type, with --pure):
// --token-embedding-type / --output-tensor-type for those tensors, else the first --tensor-type
// pattern std::regex_search finds in the name, else the file type's default.
std::string llama_quantize_type(const Json& q, const std::string& tensor) {
    if (tensor == "token_embd.weight" && !q["token_embedding_type"].is_null()) return q["token_embedding_type"];
    if (tensor == "output.weight") {
        if (!q["output_tensor_type"].is_null()) return q["output_tensor_type"];
        if (!q["token_embedding_type"].is_null()) return q["token_embedding_type"];  // tied: one tensor
    }
    for (const auto& t : q["tensor_types"])
        if (std::regex_search(tensor, std::regex(t["pattern"].get<std::string>()))) return t["type"];
    static const std::map<std::string, std::string> default_type{{"Q8_0", "q8_0"}, {"Q4_0", "q4_0"}, {"MXFP4_MOE", "mxfp4"}, {"BF16", "bf16"}, {"F16", "f16"}, {"F32", "f32"}};
    return default_type.at(q["ftype"]);
}

// Llama's modules as gguf-py names them (a second reading of tensor_mapping.py, for the test).
std::string llama_gguf_tensor(const std::string& module) {
    static const std::regex layer(R"(^model\.layers\.([0-9]+)\.(self_attn|mlp)\.(\w+)$)");
    static const std::map<std::string, std::string> kind{{"q_proj", "attn_q"},       {"k_proj", "attn_k"},   {"v_proj", "attn_v"},
                                                         {"o_proj", "attn_output"},  {"gate_proj", "ffn_gate"}, {"up_proj", "ffn_up"},
                                                         {"down_proj", "ffn_down"}};
    if (module == "model.embed_tokens") return "token_embd.weight";
    if (module == "lm_head") return "output.weight";
    std::smatch m;
    REQUIRE(std::regex_match(module, m, layer));
    return "blk." + m[1].str() + "." + kind.at(m[3].str()) + ".weight";
}

// Every module of a Llama plan gets, by the exported arguments, the ggml type of its format.
void check_llama_quantize(const schema::Blueprint& b, const Json& q) {
    static const std::map<std::string, std::string> ggml{{"bf16", "bf16"}, {"int8/b32", "q8_0"}, {"int4/g32", "q4_0"}, {"mxfp4/g32", "mxfp4"}};
    REQUIRE(b.modules);
    std::size_t checked = 0, weighted = 0;
    for (const auto& [id, names] : *b.modules)
        for (const auto& name : names.array()) {
            const auto& n = node(b, id);
            if (!n.precision.weight) continue;  // norms are named too
            ++weighted;
            INFO(id << " " << name.string());
            CHECK(llama_quantize_type(q, llama_gguf_tensor(name.string())) == ggml.at(std::string(n.precision.weight->name())));
            ++checked;
        }
    CHECK(checked == weighted);
    CHECK(checked == 2 + 7 * b.layers.size());  // the embedding and the head; q, k, v, o, gate, up, down a layer
    CHECK(q["arguments"].front() == "--pure");
    CHECK(q["arguments"].back() == q["ftype"]);
}

Json small_llama() {
    Json c = read_json(test::source_dir() + "/tests/configs/small-llama.json");
    c.erase("_about");
    return c;
}

}  // namespace

TEST_CASE("export quant: compressed-tensors and ModelOpt of one scheme", "[export_quant]") {
    test::TempDir dir;
    test::spit(dir.file("config.json"), small_llama().dump());
    auto p = plan(dir.file("config.json"), "fp8-dynamic", "h100");
    REQUIRE(p.ok());
    auto ct = export_of(p->blueprint, planner::QuantForm::compressed_tensors);
    REQUIRE(ct.ok());
    const Json q = Json::parse(*ct);
    CHECK(q["quant_method"] == "compressed-tensors");
    CHECK(q["format"] == "float-quantized");
    CHECK(q["quantization_status"] == "compressed");
    REQUIRE(q["config_groups"].size() == 1);
    const Json& g = q["config_groups"]["group_0"];
    CHECK(g["targets"] == Json::array({"Linear"}));
    CHECK(g["weights"] == Json::parse(R"({"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true, "dynamic": false})"));
    CHECK(g["input_activations"] == Json::parse(R"({"num_bits": 8, "type": "float", "strategy": "token", "dynamic": true, "symmetric": true})"));
    CHECK(g["format"] == "float-quantized");
    CHECK(q["ignore"] == Json::array({"lm_head"}));
    CHECK(q["kv_cache_scheme"] == Json::parse(R"({"num_bits": 8, "type": "float", "strategy": "tensor", "symmetric": true, "dynamic": false})"));

    auto mo = export_of(p->blueprint, planner::QuantForm::modelopt);
    REQUIRE(mo.ok());
    const Json m = Json::parse(*mo);
    CHECK(m["producer"]["name"] == "modelopt");
    CHECK(m["quantization"]["quant_algo"] == "FP8_PER_CHANNEL_PER_TOKEN");
    CHECK(m["quantization"]["kv_cache_quant_algo"] == "FP8");
    CHECK(m["quantization"]["exclude_modules"] == Json::array({"lm_head"}));
    CHECK_FALSE(m["quantization"].contains("quantized_layers"));
    // The same plan gives the same bytes.
    CHECK(*export_of(p->blueprint, planner::QuantForm::compressed_tensors) == *ct);
}

TEST_CASE("export quant: schemes that differ by module are groups with re: targets and MIXED_PRECISION, and read back the same", "[export_quant]") {
    // Attention NVFP4, the MLP FP8 per channel: imported from a MIXED_PRECISION sidecar,
    // planned on b200, exported both ways and read back.
    test::TempDir dir;
    Json layers = Json::object();
    for (const char* l : {"0", "1"})
        for (const char* m : {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"})
            layers[std::string("model.layers.") + l + "." + m] =
                std::string(m).rfind("mlp", 0) == 0 ? Json{{"quant_algo", "FP8_PER_CHANNEL_PER_TOKEN"}} : Json{{"quant_algo", "NVFP4"}, {"group_size", 16}};
    test::spit(dir.file("config.json"), small_llama().dump());
    test::spit(dir.file("hf_quant_config.json"),
               Json{{"producer", {{"name", "modelopt"}}}, {"quantization", {{"quant_algo", "MIXED_PRECISION"}, {"kv_cache_quant_algo", "FP8"}, {"quantized_layers", layers}}}}.dump());
    auto p = plan(dir.file("config.json"), std::nullopt, "b200");
    REQUIRE(p.ok());
    REQUIRE(formats(p->blueprint, "l1.attn.q") == "nvfp4/g16 x nvfp4/g16");
    REQUIRE(formats(p->blueprint, "l1.mlp.down") == "fp8/channel x fp8/token");

    auto ct = export_of(p->blueprint, planner::QuantForm::compressed_tensors);
    REQUIRE(ct.ok());
    const Json q = Json::parse(*ct);
    CHECK(q["format"] == "mixed-precision");
    REQUIRE(q["config_groups"].size() == 2);
    CHECK(q["config_groups"]["group_0"]["format"] == "nvfp4-pack-quantized");
    CHECK(q["config_groups"]["group_0"]["targets"] ==
          Json::array({"re:model\\.layers\\.[0-9]+\\.(self_attn\\.q_proj|self_attn\\.k_proj|self_attn\\.v_proj|self_attn\\.o_proj)$"}));
    CHECK(q["config_groups"]["group_0"]["input_activations"]["dynamic"] == "local");
    CHECK(q["config_groups"]["group_1"]["format"] == "float-quantized");
    CHECK(q["config_groups"]["group_1"]["targets"] == Json::array({"re:model\\.layers\\.[0-9]+\\.(mlp\\.gate_proj|mlp\\.up_proj|mlp\\.down_proj)$"}));
    CHECK(q["ignore"] == Json::array({"lm_head"}));

    auto mo = export_of(p->blueprint, planner::QuantForm::modelopt);
    REQUIRE(mo.ok());
    const Json m = Json::parse(*mo)["quantization"];
    CHECK(m["quant_algo"] == "MIXED_PRECISION");
    CHECK(m["quantized_layers"].size() == 14);
    CHECK(m["quantized_layers"]["model.layers.1.self_attn.o_proj"] == Json{{"quant_algo", "NVFP4"}, {"group_size", 16}});
    CHECK(m["quantized_layers"]["model.layers.0.mlp.down_proj"] == Json{{"quant_algo", "FP8_PER_CHANNEL_PER_TOKEN"}});
    CHECK(m["exclude_modules"] == Json::array({"lm_head"}));

    for (auto [form, text] : {std::pair{planner::QuantForm::compressed_tensors, *ct}, std::pair{planner::QuantForm::modelopt, *mo}}) {
        test::TempDir back;
        auto r = read_back(back, small_llama(), form, text, "b200");
        REQUIRE(r.ok());
        CHECK(r->warnings.empty());
        same_layout(p->blueprint, r->blueprint);
    }
}

TEST_CASE("export quant: a scheme on some layers only names those layers", "[export_quant]") {
    // The formats as a plan would give them by layer (set on the nodes: the exports read the
    // nodes' precision and the plan's module names, nothing else).
    test::TempDir dir;
    Json c = small_llama();
    c["num_hidden_layers"] = 4;
    test::spit(dir.file("config.json"), c.dump());
    auto p = plan(dir.file("config.json"), "fp8-dynamic", "h100");
    REQUIRE(p.ok());
    schema::Blueprint b = p->blueprint;
    auto set = [&](const std::string& id, const char* weight, const char* activation) {
        for (auto& n : b.nodes)
            if (n.id == id) {
                n.precision.weight = schema::Format::parse(weight);
                n.precision.activation = schema::Format::parse(activation);
            }
    };
    set("l1.mlp.down", "bf16", "bf16");
    set("l3.mlp.down", "bf16", "bf16");
    for (const char* l : {"l2", "l3"})
        for (const char* op : {".attn.q", ".attn.k", ".attn.v"}) set(std::string(l) + op, "nvfp4/g16", "nvfp4/g16");
    auto ct = export_of(b, planner::QuantForm::compressed_tensors);
    REQUIRE(ct.ok());
    const Json q = Json::parse(*ct);
    REQUIRE(q["config_groups"].size() == 2);
    CHECK(q["config_groups"]["group_0"]["targets"] ==
          Json::array({"re:model\\.layers\\.(0|1)\\.(self_attn\\.q_proj|self_attn\\.k_proj|self_attn\\.v_proj)$",
                       "re:model\\.layers\\.[0-9]+\\.(self_attn\\.o_proj|mlp\\.gate_proj|mlp\\.up_proj)$", "re:model\\.layers\\.(0|2)\\.mlp\\.down_proj$"}));
    CHECK(q["config_groups"]["group_1"]["targets"] == Json::array({"re:model\\.layers\\.(2|3)\\.(self_attn\\.q_proj|self_attn\\.k_proj|self_attn\\.v_proj)$"}));
    CHECK(q["ignore"] == Json::array({"lm_head", "re:model\\.layers\\.(1|3)\\.mlp\\.down_proj$"}));
    auto mo = export_of(b, planner::QuantForm::modelopt);
    REQUIRE(mo.ok());
    const Json m = Json::parse(*mo)["quantization"];
    CHECK(m["exclude_modules"] == Json::array({"model.layers.1.mlp.down_proj", "model.layers.3.mlp.down_proj", "lm_head"}));
    CHECK(m["quantized_layers"]["model.layers.2.self_attn.k_proj"] == Json{{"quant_algo", "NVFP4"}, {"group_size", 16}});
    CHECK(m["quantized_layers"]["model.layers.3.self_attn.o_proj"] == Json{{"quant_algo", "FP8_PER_CHANNEL_PER_TOKEN"}});
    CHECK_FALSE(m["quantized_layers"].contains("model.layers.3.mlp.down_proj"));
    // Read back by the engines' matching (planner/module_match.hpp: exact or re.match-ed, ignore
    // first), every module lands where its node's formats say. (Planning it back needs layers of
    // differing shapes, which kbp's collapse does not take yet.)
    const std::map<std::string, std::string> group_weight{{"group_0", "fp8/channel"}, {"group_1", "nvfp4/g16"}};
    std::size_t matched = 0;
    for (const auto& [id, names] : *b.modules)
        for (const auto& name : names.array()) {
            const auto& n = node(b, id);
            if (n.op.kind.id == schema::OpId::embed || !n.precision.weight) continue;  // norms are named too
            const std::string module = planner::representative_module(name.string());
            INFO(id << " " << module);
            std::string got = "bf16";
            bool ignored = false;
            for (const auto& e : q["ignore"]) ignored = ignored || planner::equal_or_regex(module, e.get<std::string>());
            if (!ignored)
                for (const auto& [group, g] : q["config_groups"].items())
                    for (const auto& t : g["targets"])
                        if (planner::equal_or_regex(module, t.get<std::string>()) && got == "bf16") got = group_weight.at(group);
            CHECK(got == std::string(n.precision.weight->name()));
            ++matched;
        }
    CHECK(matched == 4 * 7 + 1);
}

TEST_CASE("export quant: llama-quantize arguments give each tensor its format's ggml type", "[export_quant]") {
    // gguf-q8_0 with the MLP's down projections kept bf16: Q8_0 is the base, ffn_down an override.
    test::TempDir dir;
    Json recipe = read_json(test::source_dir() + "/planner/data/recipes/gguf-q8_0.json");
    recipe["name"] = "q8-down-bf16";
    recipe["entries"].insert(recipe["entries"].begin() + 2, Json{{"match", "mlp.down"}, {"weight", "bf16"}, {"activation", "bf16"}});
    test::spit(dir.file("q8-down-bf16.json"), recipe.dump());
    test::spit(dir.file("config.json"), small_llama().dump());
    auto p = plan(dir.file("config.json"), dir.file("q8-down-bf16.json"), "gb10");
    REQUIRE(p.ok());
    REQUIRE(formats(p->blueprint, "l0.mlp.down") == "bf16 x bf16");
    auto text = export_of(p->blueprint, planner::QuantForm::llama_quantize);
    REQUIRE(text.ok());
    const Json q = Json::parse(*text);
    CHECK(q["ftype"] == "Q8_0");
    CHECK(q["token_embedding_type"] == "bf16");
    CHECK(q["output_tensor_type"] == "q8_0");
    CHECK(q["tensor_types"] == Json::parse(R"([{"pattern": "^blk\\.[0-9]+\\.ffn_down\\.weight$", "type": "bf16"}])"));
    CHECK(q["command"] ==
          "llama-quantize --pure --token-embedding-type bf16 --output-tensor-type q8_0 --tensor-type '^blk\\.[0-9]+\\.ffn_down\\.weight$=bf16' model-bf16.gguf model-Q8_0.gguf Q8_0");
    check_llama_quantize(p->blueprint, q);
}

TEST_CASE("export quant: what a form cannot say is refused by node and module", "[export_quant][errors]") {
    test::TempDir dir;
    test::spit(dir.file("config.json"), small_llama().dump());
    SECTION("Q8_0 weights: no compressed-tensors args, no ModelOpt algorithm (exit 2)") {
        auto p = plan(dir.file("config.json"), "gguf-q8_0", "gb10");
        REQUIRE(p.ok());
        auto ct = export_of(p->blueprint, planner::QuantForm::compressed_tensors);
        REQUIRE_FALSE(ct.ok());
        CHECK(ct.error().code == ErrorCode::invalid_input);
        CHECK(ct.error().where == "plan.json: /nodes/2");
        CHECK_THAT(ct.error().message, Catch::StartsWith("l0.attn.q (model.layers.0.self_attn.q_proj): compressed-tensors has no QuantizationArgs for weights in int8/b32"));
        auto mo = export_of(p->blueprint, planner::QuantForm::modelopt);
        REQUIRE_FALSE(mo.ok());
        CHECK_THAT(mo.error().message, Catch::StartsWith("l0.attn.q (model.layers.0.self_attn.q_proj): ModelOpt has no quant_algo for int8/b32 weights with bf16 activations"));
    }
    SECTION("NVFP4 and FP8: no ggml type") {
        auto p = plan(dir.file("config.json"), "nvfp4", "b200");
        REQUIRE(p.ok());
        auto g = export_of(p->blueprint, planner::QuantForm::llama_quantize);
        REQUIRE_FALSE(g.ok());
        CHECK(g.error().code == ErrorCode::invalid_input);
        CHECK_THAT(g.error().message, Catch::Contains("(model.layers.0.self_attn.q_proj): GGUF has no ggml type for nvfp4/g16 weights"));
    }
    SECTION("an unquantized plan has no quantization config (exit 4)") {
        auto p = plan(dir.file("config.json"), "bf16", "h100");
        REQUIRE(p.ok());
        auto ct = export_of(p->blueprint, planner::QuantForm::compressed_tensors);
        REQUIRE_FALSE(ct.ok());
        CHECK(ct.error().code == ErrorCode::unsupported);
        CHECK_THAT(ct.error().message, Catch::Contains("quantizes no Linear module"));
        // llama-quantize writes a BF16 file of it.
        auto g = export_of(p->blueprint, planner::QuantForm::llama_quantize);
        REQUIRE(g.ok());
        CHECK(Json::parse(*g)["ftype"] == "BF16");
    }
    SECTION("a plan without module names (exit 4)") {
        auto p = plan(dir.file("config.json"), "fp8-dynamic", "h100");
        REQUIRE(p.ok());
        schema::Blueprint b = p->blueprint;
        b.modules.reset();
        auto ct = export_of(b, planner::QuantForm::modelopt);
        REQUIRE_FALSE(ct.ok());
        CHECK(ct.error().code == ErrorCode::unsupported);
        CHECK(ct.error().where == "plan.json: /modules");
    }
}

TEST_CASE("export quant: the command line", "[export_quant][cli]") {
    test::TempDir dir;
    test::spit(dir.file("config.json"), small_llama().dump());
    auto r = test::kbp_run(dir, "plan " + test::quote(dir.file("config.json")) + " -o " + test::quote(dir.file("p.json")));
    REQUIRE(r.exit == 0);
    const std::string plan_arg = test::quote(dir.file("p.json"));
    r = test::kbp_run(dir, "export quant " + plan_arg + " --to compressed-tensors -o " + test::quote(dir.file("q.json")));
    CHECK(r.exit == 0);
    CHECK_THAT(r.err, Catch::Contains("kbp export quant: compressed-tensors, 1 group (fp8/channel x fp8/token: 14 modules), 1 module ignored, KV cache fp8"));
    CHECK(read_json(dir.file("q.json"))["quant_method"] == "compressed-tensors");
    r = test::kbp_run(dir, "export quant " + plan_arg);
    CHECK(r.exit == 1);
    CHECK_THAT(r.err, Catch::Contains("export quant needs --to 'compressed-tensors', 'modelopt', 'llama-quantize'"));
    r = test::kbp_run(dir, "export quant " + plan_arg + " --to modelop");
    CHECK(r.exit == 1);
    CHECK_THAT(r.err, Catch::Contains("unknown quantization form 'modelop' (did you mean 'modelopt'?)"));
    r = test::kbp_run(dir, "export dot " + plan_arg + " --to modelopt");
    CHECK(r.exit == 1);
    // A refusal writes nothing.
    r = test::kbp_run(dir, "export quant " + plan_arg + " --to llama-quantize -o " + test::quote(dir.file("g.json")));
    CHECK(r.exit == 2);
    CHECK_FALSE(fs::exists(dir.file("g.json")));
}

namespace {

// The samples of one quarter (index % 4 == quarter), each case in its own process within the
// per-case timeout; a sanitizer build, several times slower, takes one sample of each model_type.
std::vector<std::string> samples_of_quarter(std::size_t quarter) {
    std::vector<std::string> all;
    for (const auto& e : fs::directory_iterator(test::source_dir() + "/samples"))
        if (fs::exists(e.path() / "config.json")) all.push_back(e.path().filename().string());
    std::sort(all.begin(), all.end());
    if (test::built_with_sanitizers()) {
        std::set<std::string> seen;
        std::erase_if(all, [&](const std::string& sample) {
            return !seen.insert(read_json(test::source_dir() + "/samples/" + sample + "/config.json").value("model_type", "")).second;
        });
    }
    std::vector<std::string> mine;
    for (std::size_t i = quarter; i < all.size(); i += 4) mine.push_back(all[i]);
    return mine;
}

void round_trip_quarter(std::size_t quarter) {
    const auto& catalog = the_planner().catalog();
    std::vector<std::string> gpus;
    for (const auto* t : catalog.all("targets"))
        if (t->json.value("kind", "") == "gpu") gpus.push_back(t->name);
    // h100 first: most recipes are written for it; then the others in name order.
    std::stable_partition(gpus.begin(), gpus.end(), [](const std::string& t) { return t == "h100"; });
    const std::vector<std::string> samples = samples_of_quarter(quarter);
    std::string report;
    std::size_t round_trips = 0, gguf_checked = 0;
    for (const auto& sample : samples) {
        const std::string config_path = test::source_dir() + "/samples/" + sample + "/config.json";
        auto probe = plan(config_path, "bf16", "h100");
        if (!probe.ok() || !probe->blueprint.modules || probe->blueprint.modules->empty()) {
            report += sample + ": skipped, its architecture names no modules\n";
            continue;
        }
        const Json config = bare(read_json(config_path));
        for (const auto* recipe : catalog.all("recipes")) {
            std::optional<planner::PlanOutput> base;
            std::string target;
            for (const auto& t : gpus) {
                auto p = plan(config_path, recipe->name, t);
                if (p.ok()) {
                    base = std::move(*p);
                    target = t;
                    break;
                }
            }
            const std::string arm = sample + " x " + recipe->name;
            if (!base) {
                report += arm + ": skipped, plans on no GPU target\n";
                continue;
            }
            for (auto form : {planner::QuantForm::compressed_tensors, planner::QuantForm::modelopt}) {
                const std::string form_name = form == planner::QuantForm::modelopt ? "modelopt" : "compressed-tensors";
                auto text = export_of(base->blueprint, form);
                if (!text) {
                    // Only what the form cannot say: a format without a row, or nothing quantized.
                    CHECK((text.error().code == ErrorCode::invalid_input || text.error().code == ErrorCode::unsupported));
                    report += arm + " (" + target + ") " + form_name + ": skipped, " + text.error().message + "\n";
                    continue;
                }
                INFO(arm << " on " << target << " through " << form_name << ":\n" << *text);
                test::TempDir dir;
                auto back = read_back(dir, config, form, *text, target, engine_of(base->blueprint));
                if (!back) FAIL_CHECK(back.error().where << ": " << back.error().message);
                REQUIRE(back.ok());
                // What the base plan was warned of (a model too large for one device, named by its
                // config's folder) and nothing more.
                for (const auto& w : back->warnings) {
                    auto tail = [](const std::string& text) { return text.substr(text.find(" on ") == std::string::npos ? 0 : text.find(" on ")); };
                    INFO(w);
                    CHECK(std::any_of(base->warnings.begin(), base->warnings.end(), [&](const std::string& b) { return tail(b) == tail(w); }));
                }
                same_layout(base->blueprint, back->blueprint);
                report += arm + " (" + target + ") " + form_name + ": same formats and kernels\n";
                ++round_trips;
            }
            const auto* arch = base->blueprint.provenance ? base->blueprint.provenance->planner_header.find("architecture") : nullptr;
            if (auto g = export_of(base->blueprint, planner::QuantForm::llama_quantize); g.ok() && arch && arch->is_string() && arch->string() == "llama") {
                INFO(arm << " llama-quantize:\n" << *g);
                check_llama_quantize(base->blueprint, Json::parse(*g));
                report += arm + " (" + target + ") llama-quantize: every tensor its format's ggml type\n";
                ++gguf_checked;
            }
        }
    }
    WARN(report);
    CHECK(round_trips > 0);
    // Llama-3.1-8B alone gives fp8-dynamic and nvfp4 through both forms, and the GGUF recipes.
    if (std::find(samples.begin(), samples.end(), "llama-3.1-8b") != samples.end()) {
        CHECK(round_trips >= 4);
        CHECK(gguf_checked >= 2);
    }
}

}  // namespace

TEST_CASE("export quant: round trip of every sample and every recipe on a GPU target (samples 1 of 4)", "[export_quant][roundtrip]") { round_trip_quarter(0); }
TEST_CASE("export quant: round trip of every sample and every recipe on a GPU target (samples 2 of 4)", "[export_quant][roundtrip]") { round_trip_quarter(1); }
TEST_CASE("export quant: round trip of every sample and every recipe on a GPU target (samples 3 of 4)", "[export_quant][roundtrip]") { round_trip_quarter(2); }
TEST_CASE("export quant: round trip of every sample and every recipe on a GPU target (samples 4 of 4)", "[export_quant][roundtrip]") { round_trip_quarter(3); }
