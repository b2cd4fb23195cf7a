// kbp export stage: a plan as a compile stage's input folder. Content-addressed: unchanged
// inputs rewrite nothing, another knob writes beside it under a new tag, a folder whose files
// were edited or lost is refused (exit 2) until --force rebuilds it; a GPU plan feeds a
// "launches" stage the same way; an unfinished GPNPU plan (no ranges) is refused (exit 4).
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli_runner.hpp"
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
    CHECK(r.err.find("custom_op/packed_hr2: built") != std::string::npos);
    const std::string folder = dir.file("stages/custom_op/packed_hr2");
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
    CHECK(test::slurp(dir.file("other/custom_op/packed_hr2/ops.json")) == bytes);
    CHECK(test::slurp(dir.file("other/custom_op/packed_hr2/build_knobs.json")) == test::slurp(folder + "/build_knobs.json"));
}

TEST_CASE("stage: another knob writes beside it under a new tag", "[stage]") {
    test::TempDir dir;
    REQUIRE(export_stage(dir, plan(dir, "hr2.json")).exit == 0);
    const std::string hr2 = dir.file("stages/custom_op/packed_hr2");
    auto before = times(hr2);
    auto r = export_stage(dir, plan(dir, "hr3.json", "--set imf_headroom=3"));
    INFO(test::show(r));
    REQUIRE(r.exit == 0);
    CHECK(fs::exists(dir.file("stages/custom_op/packed_hr3/STAGE.json")));
    CHECK(times(hr2) == before);
    REQUIRE(export_stage(dir, plan(dir, "sepv.json", "--set fuse_v=false")).exit == 0);
    CHECK(fs::exists(dir.file("stages/custom_op/packed_hr2+fuse_v=false/ops.json")));
    REQUIRE(export_stage(dir, plan(dir, "fused.json", "--set proj_mode=fused")).exit == 4);  // F_in of the shared smoothing unknown
    // A knob the custom-op stage does not read leaves its folder alone.
    auto kv = export_stage(dir, plan(dir, "kv.json", "--set kv_persist_mb=128"));
    CHECK(kv.exit == 0);
    CHECK(kv.err.find("custom_op/packed_hr2: rebuilt") != std::string::npos);  // the plan file differs, the knobs do not
    CHECK(test::slurp(hr2 + "/build_knobs.json").find("kv_persist_mb") == std::string::npos);
}

TEST_CASE("stage: an edited or incomplete stage folder is refused, --force rebuilds it", "[stage]") {
    test::TempDir dir;
    auto p = plan(dir, "hr2.json");
    REQUIRE(export_stage(dir, p).exit == 0);
    const std::string folder = dir.file("stages/custom_op/packed_hr2");
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
    const std::string folder = dir.file("stages/launches/fp8-dynamic_decode-r1");
    auto ops = test::OJson::parse(test::slurp(folder + "/ops.json"));
    CHECK(ops["stage"] == "launches");
    bool fused_launch = false;
    for (const auto& l : ops["launches"]) fused_launch = fused_launch || (l["rule"] == "qkv_quant" && l["ops"].size() == 4);
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
