// kbp export stage: a plan as a compile stage's input folder. The tag names the model
// (<name>-<digest8>_<knobs>), so two models' stages sit side by side in one --out.
// Content-addressed: unchanged inputs rewrite nothing, another knob writes beside it under a
// new tag, a folder whose files were edited or lost is refused (exit 2) until --force rebuilds
// it; a GPU plan feeds a "launches" stage the same way; an unfinished GPNPU plan (no ranges) is
// refused (exit 4).
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "cli_runner.hpp"
#include "schema/model_identity.hpp"
#include "support.hpp"

using namespace kbp;
using test::kbp_run;
using test::quote;
using test::Run;
namespace fs = std::filesystem;

namespace {

const std::string root = KBP_SOURCE_DIR;
const std::string config = root + "/samples/sarashina2.2-3b/config.json";
const std::string ranges = root + "/samples/sarashina2.2-3b/ranges.json";

std::string plan(const test::TempDir& dir, const std::string& name, const std::string& extra = "") {
    std::string out = dir.file(name);
    auto r = kbp_run(dir, "plan " + quote(config) + " --ranges " + quote(ranges) + " " + extra + " -o " + quote(out));
    INFO(test::show(r));
    REQUIRE(r.exit == 0);
    return out;
}

Run export_stage(const test::TempDir& dir, const std::string& plan_file, const std::string& extra = "") {
    return kbp_run(dir, "export stage " + quote(plan_file) + " --out " + quote(dir.file("stages")) + " " + extra);
}

// The one folder DIR/<stage>/<model>-<8 hex digits>_<knobs>, checked against its files: the
// tag in build_knobs.json, ops.json and STAGE.json is the folder's name, made of the model's
// recorded name and the first 8 digits of its digest.
std::string stage_folder(const std::string& out, const std::string& stage, const std::string& model, const std::string& knobs) {
    static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
    const std::regex tag("^" + std::regex_replace(model, special, R"(\$&)") + "-([0-9a-f]{8})_" + std::regex_replace(knobs, special, R"(\$&)") + "$");
    std::vector<std::string> found;
    if (fs::is_directory(out + "/" + stage))
        for (const auto& e : fs::directory_iterator(out + "/" + stage))
            if (std::regex_match(e.path().filename().string(), tag)) found.push_back(e.path().string());
    INFO(out << "/" << stage << ": " << model << "-<digest>_" << knobs);
    REQUIRE(found.size() == 1);
    const std::string name = fs::path(found[0]).filename().string();
    for (const char* file : {"build_knobs.json", "ops.json", "STAGE.json"}) {
        auto j = test::OJson::parse(test::slurp(found[0] + "/" + file));
        INFO(file);
        CHECK(j["tag"] == name);
        CHECK(j["model"]["name"] == model);
        CHECK(j["model"]["digest"].get<std::string>().size() == 64);
        CHECK(name == model + "-" + j["model"]["digest"].get<std::string>().substr(0, 8) + "_" + knobs);
    }
    return found[0];
}

std::string sarashina_stage(const test::TempDir& dir, const std::string& knobs = "packed_hr2", const std::string& out = "stages") {
    return stage_folder(dir.file(out), "custom_op", "sarashina2.2-3b", knobs);
}

// The stage record a plan carries (provenance.planner_header.stage).
test::OJson stage_record(const std::string& plan_file) {
    return test::OJson::parse(test::slurp(plan_file))["provenance"]["planner_header"]["stage"];
}

std::map<std::string, fs::file_time_type> times(const std::string& folder) {
    std::map<std::string, fs::file_time_type> out;
    for (const auto& e : fs::directory_iterator(folder)) out[e.path().filename().string()] = fs::last_write_time(e.path());
    return out;
}

}  // namespace

TEST_CASE("stage: a GPNPU plan feeds custom_op/<knob tag>, and an unchanged plan rewrites nothing", "[stage]") {
    test::TempDir dir;
    auto p = plan(dir, "hr2.json");
    auto r = export_stage(dir, p);
    INFO(test::show(r));
    REQUIRE(r.exit == 0);
    const std::string folder = sarashina_stage(dir);
    CHECK(r.err.find(folder + ": built") != std::string::npos);
    for (const char* f : {"build_knobs.json", "ops.json", "STAGE.json"}) CHECK(fs::exists(folder + "/" + f));
    auto knobs = test::OJson::parse(test::slurp(folder + "/build_knobs.json"));
    CHECK(knobs["knobs"]["proj_mode"] == "packed");
    CHECK(knobs["knobs"]["imf_headroom"] == 2);
    CHECK(knobs["knobs"]["fuse_v_with_qk"] == true);
    CHECK(knobs["knobs"]["num_kv_heads"] == 8);
    CHECK(knobs["knobs"]["head_dim"] == 160);
    auto ops = test::OJson::parse(test::slurp(folder + "/ops.json"));
    int nbits = 0;
    for (const auto& op : ops["ops"])
        if (op["op"] == "linear:down" && op["id"] == "l3.mlp.down") {
            CHECK(op["signature"] == "nn_custom::w4a16NBitsMatMul<15, 28>");
            CHECK(op["fraction_bits"]["outputs"][0] == 15);
            CHECK(op["weights"]["format"] == "int4/b128");
            CHECK(op["weights"]["shape"] == test::OJson::array({2560, 8960}));
            CHECK(op["inputs"][0]["tensor"] == "l3.mlp.down_smooth");
            ++nbits;
        }
    CHECK(nbits == 1);
    auto record = test::OJson::parse(test::slurp(folder + "/STAGE.json"));
    CHECK(record["inputs"][0]["role"] == "plan");
    bool has_ranges = false;
    for (const auto& in : record["inputs"]) has_ranges = has_ranges || in["role"] == "ranges";
    CHECK(has_ranges);

    auto before = times(folder);
    auto bytes = test::slurp(folder + "/ops.json");
    auto again = export_stage(dir, p);
    CHECK(again.exit == 0);
    CHECK(again.err.find("unchanged") != std::string::npos);
    CHECK(times(folder) == before);
    CHECK(test::slurp(folder + "/ops.json") == bytes);

    // Re-planning the same inputs gives the same ops and knobs (the plan file differs only in
    // the command line its provenance records).
    auto same = plan(dir, "hr2-again.json");
    auto elsewhere = kbp_run(dir, "export stage " + quote(same) + " --out " + quote(dir.file("other")));
    REQUIRE(elsewhere.exit == 0);
    const std::string other = sarashina_stage(dir, "packed_hr2", "other");
    CHECK(fs::path(other).filename() == fs::path(folder).filename());
    CHECK(test::slurp(other + "/ops.json") == bytes);
    CHECK(test::slurp(other + "/build_knobs.json") == test::slurp(folder + "/build_knobs.json"));
}

TEST_CASE("stage: another knob writes beside it under a new tag", "[stage]") {
    test::TempDir dir;
    REQUIRE(export_stage(dir, plan(dir, "hr2.json")).exit == 0);
    const std::string hr2 = sarashina_stage(dir);
    auto before = times(hr2);
    auto r = export_stage(dir, plan(dir, "hr3.json", "--set imf_headroom=3"));
    INFO(test::show(r));
    REQUIRE(r.exit == 0);
    const std::string hr3 = sarashina_stage(dir, "packed_hr3");
    auto model_of = [](const std::string& folder) { return test::OJson::parse(test::slurp(folder + "/build_knobs.json"))["model"]; };
    CHECK(model_of(hr3) == model_of(hr2));  // one model, two knob tags
    CHECK(times(hr2) == before);
    REQUIRE(export_stage(dir, plan(dir, "sepv.json", "--set fuse_v=false")).exit == 0);
    CHECK(fs::exists(sarashina_stage(dir, "packed_hr2+fuse_v=false") + "/ops.json"));
    REQUIRE(export_stage(dir, plan(dir, "fused.json", "--set proj_mode=fused")).exit == 4);  // F_in of the shared smoothing unknown
    // A knob the custom-op stage does not read leaves its folder alone.
    auto kv = export_stage(dir, plan(dir, "kv.json", "--set kv_persist_mb=128"));
    CHECK(kv.exit == 0);
    CHECK(kv.err.find(hr2 + ": rebuilt") != std::string::npos);  // the plan file differs, the knobs do not
    CHECK(test::slurp(hr2 + "/build_knobs.json").find("kv_persist_mb") == std::string::npos);
}

TEST_CASE("stage: an edited or incomplete stage folder is refused, --force rebuilds it", "[stage]") {
    test::TempDir dir;
    auto p = plan(dir, "hr2.json");
    REQUIRE(export_stage(dir, p).exit == 0);
    const std::string folder = sarashina_stage(dir);
    const auto ops = test::slurp(folder + "/ops.json");
    const auto knobs = test::slurp(folder + "/build_knobs.json");
    const auto record = test::slurp(folder + "/STAGE.json");

    test::spit(folder + "/ops.json", ops + " ");
    auto r = export_stage(dir, p);
    CHECK(r.exit == 2);
    CHECK(r.err.find(folder + "/ops.json: edited since kbp wrote it") != std::string::npos);
    CHECK(test::slurp(folder + "/ops.json") == ops + " ");  // not silently replaced

    auto forced = export_stage(dir, p, "--force");
    CHECK(forced.exit == 0);
    CHECK(test::slurp(folder + "/ops.json") == ops);

    fs::remove(folder + "/build_knobs.json");
    r = export_stage(dir, p);
    CHECK(r.exit == 2);
    CHECK(r.err.find(folder + "/build_knobs.json: missing") != std::string::npos);
    test::spit(folder + "/build_knobs.json", knobs);

    test::spit(folder + "/STAGE.json", "{\"schema\": ");
    r = export_stage(dir, p);
    CHECK(r.exit == 2);
    CHECK(r.err.find(folder + "/STAGE.json") != std::string::npos);

    fs::remove(folder + "/STAGE.json");  // an interrupted export
    r = export_stage(dir, p);
    CHECK(r.exit == 2);
    CHECK(r.err.find("STAGE.json: missing") != std::string::npos);
    test::spit(folder + "/STAGE.json", record);
    CHECK(export_stage(dir, p).exit == 0);
}

TEST_CASE("stage: a GPU plan feeds a launches stage; unfinished plans and bad usage are refused", "[stage]") {
    test::TempDir dir;
    std::string llama = dir.file("llama.json");
    REQUIRE(kbp_run(dir, "plan " + quote(root + "/samples/llama-3.1-8b/config.json") + " -o " + quote(llama)).exit == 0);
    auto r = export_stage(dir, llama);
    INFO(test::show(r));
    REQUIRE(r.exit == 0);
    const std::string folder = stage_folder(dir.file("stages"), "launches", "llama-3.1-8b", "fp8-dynamic_decode-r1");
    auto ops = test::OJson::parse(test::slurp(folder + "/ops.json"));
    CHECK(ops["stage"] == "launches");
    bool fused_launch = false;
    // vLLM's: the residual add, the next norm and the FP8 quantizer in one launch.
    for (const auto& l : ops["launches"]) fused_launch = fused_launch || (l["rule"] == "residual_rms_norm_quant" && l["ops"].size() == 3);
    CHECK(fused_launch);
    CHECK(test::OJson::parse(test::slurp(folder + "/build_knobs.json"))["knobs"]["kv_cache_dtype"] == "fp8");

    std::string open = dir.file("open.json");
    REQUIRE(kbp_run(dir, "plan " + quote(config) + " -o " + quote(open)).exit == 0);
    r = export_stage(dir, open);
    CHECK(r.exit == 4);
    CHECK(r.err.find("--ranges") != std::string::npos);

    CHECK(kbp_run(dir, "export stage " + quote(llama)).exit == 1);
    CHECK(kbp_run(dir, "export stage " + quote(llama) + " --out " + quote(dir.path()) + " -o x").exit == 1);
    CHECK(kbp_run(dir, "export dot " + quote(llama) + " --out " + quote(dir.path())).exit == 1);
}

TEST_CASE("gpnpu cli: bad ranges files and bad knobs exit 2 naming the file and the field", "[stage][gpnpu]") {
    test::TempDir dir;
    auto plan_with = [&](const std::string& extra) {
        return kbp_run(dir, "plan " + quote(config) + " " + extra + " -o " + quote(dir.file("p.json")));
    };
    test::spit(dir.file("r.json"), R"({"schema": "kbp-ranges/v1", "tensors": {"l0.mlp.f": {"min": 3, "max": 1}}})");
    auto r = plan_with("--ranges " + quote(dir.file("r.json")));
    CHECK(r.exit == 2);
    CHECK(r.err.find("kbp plan: error: " + dir.file("r.json") + ": /tensors/l0.mlp.f: ") == 0);
    test::spit(dir.file("r.json"), "{\"schema\": \"kbp-ranges/v1\",\n \"tensors\": {");
    r = plan_with("--ranges " + quote(dir.file("r.json")));
    CHECK(r.exit == 2);
    CHECK(r.err.find(dir.file("r.json") + ":2:") != std::string::npos);
    r = plan_with("--ranges " + quote(dir.file("missing.json")));
    CHECK(r.exit == 2);
    CHECK(r.err.find(dir.file("missing.json")) != std::string::npos);
    r = plan_with("--set imf_headroom=-1");
    CHECK(r.exit == 2);
    CHECK(r.err.find("--set imf_headroom: -1 is outside 0-16") != std::string::npos);
    r = plan_with("--set fuse_v=yes");
    CHECK(r.exit == 2);
    CHECK(r.err.find("--set fuse_v: 'yes' is not a fuse_v value (it takes 'true', 'false'") != std::string::npos);
    r = plan_with("--ranges " + quote(ranges) + " --set kv_persist_mb=39");  // 40 MiB is exactly 41,943,040 B: it fits
    CHECK(r.exit == 2);
    CHECK(r.err.find("--set kv_persist_mb: the persistent int8 KV cache needs 41,943,040 B") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.file("p.json")));  // nothing half-written
    // No ranges: a valid plan, and check says what is undecided.
    REQUIRE(plan_with("").exit == 0);
    auto check = kbp_run(dir, "check " + quote(dir.file("p.json")));
    CHECK(check.exit == 0);
    CHECK(check.err.find("kbp check: note: " + dir.file("p.json") + ": 709 ops have FixedPoint32 fractional bits") != std::string::npos);
}

TEST_CASE("stage: two models' stages sit side by side in one folder, each re-exported unchanged", "[stage]") {
    test::TempDir dir;
    // Sarashina2.2-3B and Llama-3.1-8B both planned for QC-U (the same 32 layers' tensors: the
    // sample ranges decide both), then two GPU plans of two Llamas: four stages in one --out.
    const std::string sarashina = plan(dir, "sarashina.json");
    const std::string llama = dir.file("llama-qcu.json");
    auto planned = kbp_run(dir, "plan " + quote(root + "/samples/llama-3.1-8b/config.json") + " --target qc-u --recipe chimera-w4a16 --ranges " + quote(ranges) +
                                    " -o " + quote(llama));
    INFO(test::show(planned));
    REQUIRE(planned.exit == 0);
    REQUIRE(export_stage(dir, sarashina).exit == 0);
    const std::string first = sarashina_stage(dir);
    const auto first_times = times(first);
    const auto first_ops = test::slurp(first + "/ops.json");
    auto r = export_stage(dir, llama);
    INFO(test::show(r));
    REQUIRE(r.exit == 0);
    const std::string second = stage_folder(dir.file("stages"), "custom_op", "llama-3.1-8b", "packed_hr2");
    CHECK(r.err.find(second + ": built") != std::string::npos);
    CHECK(times(first) == first_times);  // the first model's stage is untouched
    CHECK(test::slurp(first + "/ops.json") == first_ops);
    CHECK(test::OJson::parse(test::slurp(second + "/build_knobs.json"))["knobs"]["num_kv_heads"] == 8);
    CHECK(test::OJson::parse(test::slurp(second + "/build_knobs.json"))["knobs"]["head_dim"] == 128);
    CHECK(test::OJson::parse(test::slurp(first + "/build_knobs.json"))["knobs"]["head_dim"] == 160);

    const std::string gpu_a = dir.file("a.json"), gpu_b = dir.file("b.json");
    REQUIRE(kbp_run(dir, "plan " + quote(root + "/samples/llama-3.1-8b/config.json") + " -o " + quote(gpu_a)).exit == 0);
    // The same target, recipe and arm: the knob part of both tags is the same.
    REQUIRE(kbp_run(dir, "plan " + quote(root + "/samples/llama-3.3-70b/config.json") + " --target h100 --recipe fp8-dynamic -o " + quote(gpu_b)).exit == 0);
    REQUIRE(export_stage(dir, gpu_a).exit == 0);
    REQUIRE(export_stage(dir, gpu_b).exit == 0);
    const std::string launches_a = stage_folder(dir.file("stages"), "launches", "llama-3.1-8b", "fp8-dynamic_decode-r1");
    const std::string launches_b = stage_folder(dir.file("stages"), "launches", "llama-3.3-70b", "fp8-dynamic_decode-r1");
    // One model, one identity, whatever the target and recipe: its digest is the config's.
    auto model_in = [](const std::string& folder) { return test::OJson::parse(test::slurp(folder + "/STAGE.json"))["model"]; };
    CHECK(model_in(launches_a) == model_in(second));
    CHECK(model_in(launches_b)["digest"] != model_in(launches_a)["digest"]);
    CHECK(std::distance(fs::directory_iterator(dir.file("stages/custom_op")), fs::directory_iterator{}) == 2);
    CHECK(std::distance(fs::directory_iterator(dir.file("stages/launches")), fs::directory_iterator{}) == 2);

    // Each exported again: nothing rewritten, in any of the four.
    std::map<std::string, std::map<std::string, fs::file_time_type>> before;
    for (const auto& f : {first, second, launches_a, launches_b}) before[f] = times(f);
    for (const auto& [p, folder] : {std::pair{sarashina, first}, {llama, second}, {gpu_a, launches_a}, {gpu_b, launches_b}}) {
        auto again = export_stage(dir, p);
        INFO(test::show(again));
        CHECK(again.exit == 0);
        CHECK(again.err.find(folder + ": unchanged") != std::string::npos);
    }
    for (const auto& f : {first, second, launches_a, launches_b}) CHECK(times(f) == before[f]);
}

TEST_CASE("stage: the model's digest follows what kbp reads from the config, its name the config's folder", "[stage]") {
    test::TempDir dir;
    const auto original = stage_record(plan(dir, "original.json"));
    auto config_json = test::OJson::parse(test::slurp(config));
    auto plan_from = [&](const std::string& folder, const test::OJson& cfg) {
        fs::create_directories(dir.file(folder));
        test::spit(dir.file(folder + "/config.json"), cfg.dump(2));
        const std::string out = dir.file(folder + "/plan.json");
        auto r = kbp_run(dir, "plan " + quote(dir.file(folder + "/config.json")) + " --ranges " + quote(ranges) + " -o " + quote(out));
        INFO(test::show(r));
        REQUIRE(r.exit == 0);
        return out;
    };
    CHECK(original["model"]["name"] == "sarashina2.2-3b");
    CHECK(original["tag"] == "sarashina2.2-3b-" + original["model"]["digest"].get<std::string>().substr(0, 8) + "_packed_hr2");

    // Fields kbp does not read: the same model, the same tag.
    auto cosmetic = config_json;
    cosmetic["transformers_version"] = "4.57.0";
    cosmetic["initializer_range"] = 0.01;
    cosmetic["_name_or_path"] = "/scratch/run-7/checkpoint-2000";
    cosmetic.erase("_source");
    auto same = stage_record(plan_from("copy/sarashina2.2-3b", cosmetic));
    CHECK(same["tag"] == original["tag"]);
    CHECK(same["model"] == original["model"]);

    // A width, a layer count or a described field: another digest, so another folder.
    for (const auto& [field, value] : {std::pair<std::string, test::OJson>{"intermediate_size", 8192},
                                       {"num_hidden_layers", 30},
                                       {"max_position_embeddings", 4096}}) {
        auto changed = config_json;
        changed[field] = value;
        auto other = stage_record(plan_from("changed-" + field + "/sarashina2.2-3b", changed));
        INFO(field);
        CHECK(other["model"]["name"] == "sarashina2.2-3b");
        CHECK(other["model"]["digest"] != original["model"]["digest"]);
        CHECK(other["tag"] != original["tag"]);
    }

    // The name: the folder of a config.json, the repository of a Hugging Face cache snapshot,
    // else the file's stem; made folder-safe; the architecture when nothing is left.
    using schema::model_name;
    CHECK(model_name("samples/sarashina2.2-3b/config.json", "llama") == "sarashina2.2-3b");
    CHECK(model_name("/hf/hub/models--sbintuitions--sarashina2.2-3b/snapshots/0123456789abcdef0123456789abcdef01234567/config.json", "llama") ==
          "sarashina2.2-3b");
    CHECK(model_name("tests/configs/small-llama.json", "llama") == "small-llama");
    CHECK(model_name("models/My Model (v2)/config.json", "llama") == "My-Model-v2");
    CHECK(model_name("models/.hidden/config.json", "llama") == "hidden");
    CHECK(model_name("/$$$.json", "llama") == "llama");
    CHECK(model_name("/$$$.json", "") == "model");
    CHECK(model_name("a/" + std::string(80, 'x') + "/config.json", "llama") == std::string(48, 'x'));
}

TEST_CASE("stage: a plan whose record does not name the model exports where a fresh plan does; a recipe puts {model} first or nowhere", "[stage]") {
    test::TempDir dir;
    const std::string fresh = plan(dir, "fresh.json");
    REQUIRE(export_stage(dir, fresh).exit == 0);
    const std::string folder = sarashina_stage(dir);

    // A plan made before kbp recorded the model: its tag is the knobs alone.
    auto old = test::OJson::parse(test::slurp(fresh));
    auto& stage = old["provenance"]["planner_header"]["stage"];
    stage.erase("model");
    stage["tag"] = "packed_hr2";
    test::spit(dir.file("old.json"), old.dump());
    auto r = export_stage(dir, dir.file("old.json"));
    INFO(test::show(r));
    REQUIRE(r.exit == 0);
    CHECK(r.err.find(folder + ": rebuilt: the plan or its inputs changed") != std::string::npos);
    CHECK(std::distance(fs::directory_iterator(dir.file("stages/custom_op")), fs::directory_iterator{}) == 1);

    // A recipe's tag without {model} gets it first; {model} anywhere else is refused at the field.
    auto recipe = test::OJson::parse(test::slurp(root + "/planner/data/recipes/chimera-w4a16.json"));
    fs::create_directories(dir.file("cat/recipes"));
    recipe["stage"]["tag"] = "{proj_mode}-h{imf_headroom}";
    test::spit(dir.file("cat/recipes/chimera-w4a16.json"), recipe.dump(2));
    auto without = plan(dir, "without.json", "--catalog " + quote(dir.file("cat")));
    CHECK(stage_record(without)["tag"] == "sarashina2.2-3b-" + stage_record(fresh)["model"]["digest"].get<std::string>().substr(0, 8) + "_packed-h2");
    recipe["stage"]["tag"] = "{proj_mode}_{model}";
    test::spit(dir.file("cat/recipes/chimera-w4a16.json"), recipe.dump(2));
    auto refused = kbp_run(dir, "plan " + quote(config) + " --ranges " + quote(ranges) + " --catalog " + quote(dir.file("cat")) + " -o " +
                                    quote(dir.file("refused.json")));
    CHECK(refused.exit == 2);
    CHECK(refused.err.find(dir.file("cat/recipes/chimera-w4a16.json") + ": /stage/tag: ") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.file("refused.json")));
}
