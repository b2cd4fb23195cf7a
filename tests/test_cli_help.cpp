// The first hour at the command line: every name a user types gets a "did you mean", every
// message starts "kbp CMD: error: ", `kbp why` replays only the files a plan was made from, and
// help says what the defaults are. Each case checks stdout, stderr and the exit code.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli_runner.hpp"
#include "planner/plan.hpp"
#include "support.hpp"

using namespace kbp;
namespace fs = std::filesystem;
using test::kbp_run;
using test::quote;
using test::show;
using test::llama_arg;
using test::sample_path;

namespace {

// A run that failed with `exit`, printed nothing on stdout and one line on stderr, starting
// "kbp CMD: error: " and containing `text`.
void check_refused(const test::Run& r, int exit, const std::string& command, const std::string& text) {
    INFO(show(r));
    CHECK(r.exit == exit);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::StartsWith("kbp " + command + ": error: "));
    CHECK_THAT(r.err, Catch::Contains(text));
}

}  // namespace

TEST_CASE("did you mean: subcommands, options, arms, views, colour modes, formats") {
    test::TempDir dir;
    auto r = kbp_run(dir, "pln");
    INFO(show(r));
    CHECK(r.exit == 1);
    CHECK(r.out.empty());
    CHECK(r.err == "kbp: error: unknown command 'pln' (did you mean 'plan'?) (see 'kbp --help')\n");
    CHECK(kbp_run(dir, "help pln").err == r.err);

    check_refused(kbp_run(dir, "plan " + llama_arg() + " --rwos 4"), 1, "plan", "unknown option '--rwos' (did you mean '--rows'?)");
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --arm decod"), 1, "plan", "--arm: unknown arm 'decod' (did you mean 'decode'?)");
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --arms decod -o " + quote(dir.file("arms"))), 1, "plan",
                  "unknown arm 'decod' (did you mean 'decode'?)");
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --target h10"), 2, "plan", "--target: no targets file 'h10' (did you mean 'h100'?)");
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --engine vlm"), 2, "plan", "--engine: engine 'vlm' does not run on target 'h100' (did you mean 'vllm'?)");
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --engine chimera"), 2, "plan", "--engine: engine 'chimera' does not run on target 'h100' (it runs: vllm, sglang, trtllm, llama.cpp)");
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --recipe fp8-dynamc"), 2, "plan", "(did you mean 'fp8-dynamic'?)");
    check_refused(kbp_run(dir, "export dot " + test::seed_arg() + " --view colapsed"), 1, "export",
                  "unknown view 'colapsed' (did you mean 'collapsed'?)");
    check_refused(kbp_run(dir, "export dot " + test::seed_arg() + " --color famly"), 1, "export",
                  "unknown colour mode 'famly' (did you mean 'family'?)");
    check_refused(kbp_run(dir, "export dto " + test::seed_arg()), 1, "export", "unknown export format 'dto' (did you mean 'dot'?)");
    check_refused(kbp_run(dir, "render " + test::seed_arg() + " -o x.svg --format pgn"), 1, "render",
                  "unknown image format 'pgn' (did you mean 'png'?)");
    auto set = kbp_run(dir, "plan " + llama_arg() + " --set kv_cach_dtype=bf16 -o " + quote(dir.file("s.json")));
    INFO(show(set));
    CHECK(set.exit == 2);
    CHECK_THAT(set.err, Catch::Contains("kbp plan: error: --set kv_cach_dtype: kbp has no setting 'kv_cach_dtype' (did you mean 'kv_cache_dtype'?)\n"));
    CHECK_FALSE(std::filesystem::exists(dir.file("s.json")));
    check_refused(kbp_run(dir, "export dot " + test::seed_arg() + " --block dsaa"), 1, "export",
                  "--block 'dsaa': no such block (did you mean 'dsa'? block types in this plan: embed, kda, mlp, dsa, moe, head)");
    // Far from every name: the names, when they are few.
    check_refused(kbp_run(dir, "export dot " + test::seed_arg() + " --view zzzzzz"), 1, "export", "(views: flat, groups, collapsed)");
}

TEST_CASE("did you mean: a recipe entry's format in a --catalog data file") {
    test::TempDir dir;
    fs::create_directories(dir.file("cat/recipes"));
    std::string recipe = test::slurp(test::source_dir() + "/planner/data/recipes/fp8-dynamic.json");
    auto at = recipe.find("\"activation\": \"fp8/token\"");
    REQUIRE(at != std::string::npos);
    recipe.replace(at, 25, "\"activation\": \"fp8/tokn\"");
    test::spit(dir.file("cat/recipes/fp8-dynamic.json"), recipe);
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --catalog " + quote(dir.file("cat"))), 2, "plan",
                  dir.file("cat/recipes/fp8-dynamic.json") + ": /entries/0/activation: unknown format 'fp8/tokn' (did you mean 'fp8/token'?)");
}

TEST_CASE("an arm of fixed rows says so and names the arms --rows is for") {
    test::TempDir dir;
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --arm decode --rows 4"), 1, "plan",
                  "--rows: the decode arm is 1 row, not 4; --rows is for multi_seq 2-128, verify 2-8, prefill 1-1048576\n");
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --arm multi_seq --rows 200"), 1, "plan",
                  "--rows: 200 is outside the multi_seq arm's range 2-128");
}

TEST_CASE("kbp why: node ids, a plan kbp did not make, a missing NODE_ID") {
    test::TempDir dir;
    fs::create_directories(dir.file("m"));
    fs::copy_file(sample_path("qwen3-8b/config.json"), dir.file("m/config.json"));
    auto plan = kbp_run(dir, "plan " + quote(dir.file("m/config.json")) + " -o " + quote(dir.file("m/plan.json")));
    REQUIRE(plan.exit == 0);
    const std::string p = quote(dir.file("m/plan.json"));

    auto ok = kbp_run(dir, "why " + p + " l3.mlp.down");
    INFO(show(ok));
    CHECK(ok.exit == 0);
    CHECK_THAT(ok.out, Catch::StartsWith("l3.mlp.down ("));
    CHECK(ok.err.empty());
    check_refused(kbp_run(dir, "why " + p + " l3.mlp.donw"), 2, "why",
                  "l3.mlp.donw: no node of that id in the plan (did you mean 'l3.mlp.down'?)");
    check_refused(kbp_run(dir, "why " + p), 1, "why", "missing NODE_ID: kbp why PLAN NODE_ID, e.g. kbp why ");
    // A plan made by a kbp whose built-in architecture file was another: re-plan it.
    auto old = test::OJson::parse(test::slurp(dir.file("m/plan.json")));
    REQUIRE(old["provenance"]["files"][1]["path"] == "embedded:architectures/qwen3.json");
    old["provenance"]["files"][1]["sha256"] = std::string(64, '0');
    test::spit(dir.file("m/old.json"), old.dump(2));
    check_refused(kbp_run(dir, "why " + quote(dir.file("m/old.json")) + " l3.mlp.down"), 2, "why",
                  "embedded:architectures/qwen3.json: kbp's built-in file has changed since the plan was made (sha256 000000000000...; now ");
    // The README's node, re-planned by kbp and misspelt.
    const std::string glm = quote(dir.file("glm.json"));
    REQUIRE(kbp_run(dir, "plan " + quote(sample_path("glm-5.3-flash/config.json")) + " -q -o " + glm).exit == 0);
    check_refused(kbp_run(dir, "why " + glm + " l3.moe.xn_quantt"), 2, "why",
                  "l3.moe.xn_quantt: no node of that id in the plan (did you mean 'l3.moe.xn_quant'?)\n");

    // The README's sample was made by another planner: say what to run instead.
    check_refused(kbp_run(dir, "why " + test::seed_arg() + " l3.moe.xn_quant"), 4, "why",
                  "not a plan kbp made (its provenance is 'preview'): it records no decisions to replay; re-plan it with 'kbp plan " +
                      sample_path("glm-5.3-flash/config.json") + " --arm decode -o plan.json', then run 'kbp why plan.json NODE_ID'");
}

TEST_CASE("kbp why: the config is found beside the plan and must be the one it was made from") {
    test::TempDir dir;
    fs::create_directories(dir.file("m"));
    fs::copy_file(sample_path("qwen3-8b/config.json"), dir.file("m/config.json"));
    // Planned from inside m/: the plan records "config.json", relative to m/, and kbp why runs
    // elsewhere.
    const auto cwd = fs::current_path();
    fs::current_path(dir.file("m"));
    auto planned = kbp_run(dir, "plan config.json -o plan.json");
    fs::current_path(cwd);
    REQUIRE(planned.exit == 0);
    const std::string p = quote(dir.file("m/plan.json"));
    REQUIRE(kbp_run(dir, "why " + p + " l3.mlp.down").exit == 0);

    // An edited config is refused, naming it: replaying it would explain another plan.
    std::string config = test::slurp(dir.file("m/config.json"));
    auto at = config.find("\"num_hidden_layers\": 36");
    REQUIRE(at != std::string::npos);
    test::spit(dir.file("m/config.json"), config.substr(0, at) + "\"num_hidden_layers\": 30" + config.substr(at + 23));
    check_refused(kbp_run(dir, "why " + p + " l3.mlp.down"), 2, "why",
                  dir.file("m/config.json") + ": changed since the plan was made (" + dir.file("m/plan.json") +
                      ": /provenance/files/0 records sha256 ");
    // --config names the file it was made from.
    fs::create_directories(dir.file("orig"));
    fs::copy_file(sample_path("qwen3-8b/config.json"), dir.file("orig/config.json"));
    auto given = kbp_run(dir, "why " + p + " l3.mlp.down --config " + quote(dir.file("orig/config.json")));
    INFO(show(given));
    CHECK(given.exit == 0);
    CHECK_THAT(given.out, Catch::StartsWith("l3.mlp.down ("));
    // A data file of a --catalog folder the plan was made with: without the folder, the replay
    // reads the built-in one, which is refused, naming both.
    fs::create_directories(dir.file("cat/kernels"));
    std::string kernels = test::slurp(test::source_dir() + "/planner/data/kernels/cuda-generic.json");
    test::spit(dir.file("cat/kernels/cuda-generic.json"), kernels + "\n");
    const std::string q = quote(dir.file("q.json")), orig = quote(dir.file("orig/config.json"));
    REQUIRE(kbp_run(dir, "plan " + orig + " --catalog " + quote(dir.file("cat")) + " -q -o " + q).exit == 0);
    CHECK(kbp_run(dir, "why " + q + " l3.mlp.down --catalog " + quote(dir.file("cat"))).exit == 0);
    check_refused(kbp_run(dir, "why " + q + " l3.mlp.down"), 2, "why",
                  "embedded:kernels/cuda-generic.json: not the file the plan was made with (" + dir.file("cat/kernels/cuda-generic.json") +
                      ", sha256 ");
    // Gone: say where it was looked for and what to pass.
    fs::remove(dir.file("m/config.json"));
    check_refused(kbp_run(dir, "why " + p + " l3.mlp.down"), 2, "why", "is not there (looked for ");
    check_refused(kbp_run(dir, "why " + p + " l3.mlp.down"), 2, "why", "pass it with --config FILE");
}

TEST_CASE("kbp help CMD and kbp CMD --help print the command's help with its defaults") {
    test::TempDir dir;
    auto help = kbp_run(dir, "help plan");
    INFO(show(help));
    CHECK(help.exit == 0);
    CHECK(help.err.empty());
    CHECK(help.out == kbp_run(dir, "plan --help").out);
    CHECK_THAT(help.out, Catch::StartsWith("usage: kbp plan CONFIG"));
    // Every arm's default rows is in the help, as the planner has it.
    for (const auto& a : planner::arm_specs())
        CHECK_THAT(help.out, Catch::Contains(std::string(a.name) + " (default " + std::to_string(a.default_rows) + ")"));
    CHECK_THAT(kbp_run(dir, "help why").out, Catch::StartsWith("usage: kbp why PLAN NODE_ID"));
    // A missing argument: the usage line names what is missing.
    check_refused(kbp_run(dir, "plan"), 1, "plan",
                  "missing arguments (usage: kbp plan CONFIG [--arm MODE] [--rows N] [--target NAME|FILE] [--recipe NAME|FILE] [--engine NAME]) "
                  "(see 'kbp plan --help')\n");
    check_refused(kbp_run(dir, "stats a b"), 1, "stats", "too many arguments (usage: kbp stats FILE [--json] [-o OUT])");
    auto overview = kbp_run(dir, "help");
    CHECK(overview.exit == 0);
    CHECK_THAT(overview.out, Catch::Contains("'kbp help <command>'"));
}

TEST_CASE("kbp plan says which target, recipe and rows it chose by default, and the samples plan without a warning") {
    test::TempDir dir;
    // The llama sample names its recipe and target; its recipe's expert entry is silent on a dense model.
    auto hinted = kbp_run(dir, "plan " + llama_arg() + " -o " + quote(dir.file("l.json")));
    INFO(show(hinted));
    CHECK(hinted.exit == 0);
    CHECK(hinted.out.empty());
    CHECK(hinted.err == "kbp plan: target h100 (the config's kbp.target), recipe fp8-dynamic (the config's kbp.recipe)\n");

    std::string config = test::slurp(sample_path("llama-3.1-8b/config.json"));
    auto hint = config.find("  \"kbp\": ");
    REQUIRE(hint != std::string::npos);
    test::spit(dir.file("config.json"), config.substr(0, hint) + config.substr(config.find('\n', hint) + 1));
    auto bare = kbp_run(dir, "plan " + quote(dir.file("config.json")) + " --arm multi_seq -o " + quote(dir.file("m.json")));
    INFO(show(bare));
    CHECK(bare.exit == 0);
    CHECK(bare.err == "kbp plan: target h100 (default of architecture 'llama'), recipe fp8-dynamic (default of architecture 'llama'), "
                      "rows 8 (multi_seq default)\n");
    // Several arms: said once, at the end.
    auto arms = kbp_run(dir, "plan " + llama_arg() + " --arms decode,verify:3 -o " + quote(dir.file("arms")));
    INFO(show(arms));
    CHECK(arms.exit == 0);
    CHECK(arms.err == "kbp plan: wrote 2 plans to " + dir.file("arms") +
                          "; target h100 (the config's kbp.target), recipe fp8-dynamic (the config's kbp.recipe)\n");
    // Nothing left to defaults, or --quiet: nothing said.
    auto given = kbp_run(dir, "plan " + quote(dir.file("config.json")) + " --target h100 --recipe bf16 --arm prefill --rows 16 -o " +
                                  quote(dir.file("p.json")));
    CHECK(given.exit == 0);
    CHECK(given.err.empty());
    CHECK(kbp_run(dir, "plan " + quote(dir.file("config.json")) + " -q -o " + quote(dir.file("q.json"))).err.empty());

    // No bundled sample gets a warning about its recipe.
    for (const auto& entry : fs::directory_iterator(test::source_dir() + "/samples")) {
        if (!fs::exists(entry.path() / "config.json")) continue;  // measurements.json and its table
        auto r = kbp_run(dir, "plan " + quote((entry.path() / "config.json").string()) + " -o " + quote(dir.file("s.json")));
        INFO(entry.path().string() + "\n" + show(r));
        CHECK(r.exit == 0);
        CHECK_THAT(r.err, !Catch::Contains("matches no op"));
    }
}

TEST_CASE("kbp catalog lists the targets, recipes and architectures, and what --catalog adds") {
    test::TempDir dir;
    auto r = kbp_run(dir, "catalog");
    INFO(show(r));
    CHECK(r.exit == 0);
    CHECK(r.err.empty());
    CHECK_THAT(r.out, Catch::StartsWith("targets (7):\n  b200  NVIDIA B200 (Blackwell datacenter, compute capability 10.0)\n"));
    CHECK_THAT(r.out, Catch::Contains("\n  h100  NVIDIA H100 SXM5 80 GB (Hopper, compute capability 9.0, 132 SMs)\n"));
    CHECK_THAT(r.out, Catch::Contains("\n  h200  NVIDIA H200 SXM 141 GB (Hopper, compute capability 9.0, 132 SMs)\n"));
    CHECK_THAT(r.out, Catch::Contains("\nrecipes (15):\n"));
    CHECK_THAT(r.out, Catch::Contains("\n  fp8-block            Block-scaled FP8 as DeepSeek-V3 / R1 and Qwen3's FP8 releases ship it"));
    CHECK_THAT(r.out, Catch::Contains("\n  gguf-mxfp4-moe       gpt-oss as llama.cpp's 'MXFP4 MoE' GGUF stores it"));
    CHECK_THAT(r.out, Catch::Contains("\n  chimera-w4a16        W4A16 for the Chimera GPNPU, as the Sarashina2.2-3B pipeline builds it [target qc-u]\n"));
    CHECK_THAT(r.out, Catch::Contains("\n  llama             Llama-style dense decoder (Llama 2/3, Mistral, Sarashina) [model_type llama mistral; "
                                      "default recipe fp8-dynamic, target h100]\n"));

    fs::create_directories(dir.file("cat/targets"));
    std::string h100 = test::slurp(test::source_dir() + "/planner/data/targets/h100.json");
    auto name = h100.find("\"name\": \"h100\"");
    REQUIRE(name != std::string::npos);
    test::spit(dir.file("cat/targets/mygpu.json"), h100.replace(name, 14, "\"name\": \"mygpu\""));
    auto added = kbp_run(dir, "catalog targets --catalog " + quote(dir.file("cat")));
    INFO(show(added));
    CHECK(added.exit == 0);
    CHECK_THAT(added.out, Catch::StartsWith("targets (8):\n"));
    CHECK_THAT(added.out, Catch::Contains("  mygpu  NVIDIA H100 SXM5 80 GB (Hopper, compute capability 9.0, 132 SMs) (" + dir.file("cat/targets/mygpu.json") + ")\n"));
    CHECK_THAT(added.out, !Catch::Contains("recipes"));
    check_refused(kbp_run(dir, "catalog target"), 1, "catalog", "unknown kind 'target' (did you mean 'targets'?)");
}

TEST_CASE("kbp stats: --context needs --cost; --cost prices the target the plan was made with") {
    test::TempDir dir;
    check_refused(kbp_run(dir, "stats " + test::seed_arg() + " --context 8192"), 1, "stats",
                  "--context goes with --cost (the roofline cost), which was not asked for");

    // A --catalog target named like a built-in one, with other figures.
    fs::create_directories(dir.file("cat/targets"));
    std::string h100 = test::slurp(test::source_dir() + "/planner/data/targets/h100.json");
    auto bw = h100.find("\"memory_bandwidth_gbps\": 3350");
    REQUIRE(bw != std::string::npos);
    test::spit(dir.file("cat/targets/h100.json"), h100.replace(bw, 29, "\"memory_bandwidth_gbps\": 1000"));
    const std::string cat = quote(dir.file("cat")), plan = quote(dir.file("p.json"));
    REQUIRE(kbp_run(dir, "plan " + llama_arg() + " --catalog " + cat + " -o " + plan).exit == 0);
    for (const std::string& extra : {std::string(), " --catalog " + cat}) {
        auto cost = kbp_run(dir, "stats " + plan + " --cost" + extra);
        INFO(show(cost));
        CHECK(cost.exit == 0);
        CHECK_THAT(cost.out, Catch::StartsWith(dir.file("p.json") + ": cost on h100 (1000 GB/s), arm decode rows 1"));
    }
    // The plan of the built-in h100 is not priced with the folder's figures, nor the other way round.
    REQUIRE(kbp_run(dir, "plan " + llama_arg() + " -o " + quote(dir.file("b.json"))).exit == 0);
    check_refused(kbp_run(dir, "stats " + quote(dir.file("b.json")) + " --cost --catalog " + cat), 2, "stats",
                  dir.file("cat/targets/h100.json") + ": not the target the plan was made with (its provenance records sha256 ");
    fs::rename(dir.file("cat"), dir.file("moved"));
    check_refused(kbp_run(dir, "stats " + plan + " --cost"), 2, "stats",
                  dir.file("p.json") + ": /provenance/files/4: '" + dir.file("cat/targets/h100.json") + "' is not there (looked for ");
}

TEST_CASE("a file of the wrong kind is named as what it is") {
    test::TempDir dir;
    check_refused(kbp_run(dir, "plan " + test::seed_arg()), 2, "plan",
                  test::seed_path() + ": /: this is a kbp plan (kbp-graph/v2), not a model config (config.json with model_type)");
    check_refused(kbp_run(dir, "check " + llama_arg()), 2, "check",
                  sample_path("llama-3.1-8b/config.json") + ": /: this is a model config (config.json with model_type), not a kbp plan (kbp-graph/v2)");
    check_refused(kbp_run(dir, "stats " + llama_arg()), 2, "stats", "this is a model config (config.json with model_type), not a kbp plan");
    test::spit(dir.file("config.yaml"), "# a model\nmodel_type: llama\nhidden_size: 4096\n");
    check_refused(kbp_run(dir, "plan " + quote(dir.file("config.yaml"))), 2, "plan",
                  dir.file("config.yaml") + ": /: this looks like YAML: kbp reads JSON (here, a model config");
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --recipe " + quote(sample_path("sarashina2.2-3b/ranges.json"))), 2, "plan",
                  "ranges.json: /: this is a ranges file (kbp-ranges/v1), not a recipe data file (recipes/)");
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --ranges " + llama_arg()), 2, "plan",
                  "this is a model config (config.json with model_type), not a ranges file (kbp-ranges/v1)");
    check_refused(kbp_run(dir, "expand " + llama_arg() + " -o " + quote(dir.file("x.json"))), 2, "expand",
                  "this is a model config (config.json with model_type), not a kbp plan (kbp-graph/v2): plan it first");
    fs::create_directories(dir.file("cat/targets"));
    test::spit(dir.file("cat/targets/h100.json"), "name: h100\nmemory_bandwidth_gbps: 3350\n");
    check_refused(kbp_run(dir, "plan " + llama_arg() + " --catalog " + quote(dir.file("cat"))), 2, "plan",
                  dir.file("cat/targets/h100.json") + ": /: this looks like YAML: kbp reads JSON (a planner data file)\n");
}
