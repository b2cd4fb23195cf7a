// kbp plan, kbp why and kbp stats --cost through the real binary, and a --catalog folder with a
// broken file: stdout, stderr and exit codes, as a user sees them.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli_runner.hpp"
#include "schema/reader.hpp"
#include "schema/validator.hpp"
#include "support.hpp"

using namespace kbp;
namespace fs = std::filesystem;

using test::kbp_run;
using test::quote;
using test::show;
using test::llama_arg;


TEST_CASE("cli: plan writes a valid plan of the config, why explains a node of it, stats --cost costs it", "[cli][planner]") {
    test::TempDir dir;
    const std::string plan = dir.file("llama.json");
    auto planned = kbp_run(dir, "plan " + llama_arg() + " -o " + quote(plan));
    INFO(show(planned));
    REQUIRE(planned.exit == 0);
    auto b = schema::load_blueprint(plan);
    REQUIRE(b.ok());
    CHECK(schema::validate(*b).empty());
    // architectures/llama.json: embed, 32 layers of 9 attn + 5 mlp ops, 3 head ops; fp8-dynamic
    // quantizes four activations per layer (xn for q|k|v, a for o, xn for gate_up, a for down).
    CHECK(b->nodes.size() == 1 + 32 * 14 + 3 + 32 * 4);
    CHECK(b->arm.rows == 1);

    auto why = kbp_run(dir, "why " + quote(plan) + " l0.attn.q");
    INFO(show(why));
    REQUIRE(why.exit == 0);
    CHECK_THAT(why.out, Catch::StartsWith("l0.attn.q (linear:q, group "));
    CHECK_THAT(why.out, Catch::Contains("recipes/fp8-dynamic.json: /entries/0"));
    CHECK_THAT(why.out, Catch::Contains("kernels/vllm.json: /table/"));
    CHECK_THAT(why.out, Catch::Contains("cutlass_w8a8::cutlass_scaled_mm_fp8"));
    CHECK_THAT(why.out, Catch::Contains("qkv_proj"));
    auto no_node = kbp_run(dir, "why " + quote(plan) + " l0.attn.nope");
    CHECK(no_node.exit == 2);
    CHECK_THAT(no_node.err, Catch::Contains("l0.attn.nope"));

    auto cost = kbp_run(dir, "stats " + quote(plan) + " --cost");
    INFO(show(cost));
    REQUIRE(cost.exit == 0);
    CHECK_THAT(cost.out, Catch::Contains("cost on h100 (3350 GB/s), arm decode rows 1, context 4096 tokens"));
    auto longer = kbp_run(dir, "stats " + quote(plan) + " --cost --context 32768");
    REQUIRE(longer.exit == 0);
    CHECK_THAT(longer.out, Catch::Contains("context 32768 tokens"));
    CHECK(longer.out != cost.out);
}

TEST_CASE("cli: a --catalog folder with a broken file is refused naming the file and where", "[cli][planner][catalog]") {
    test::TempDir dir;
    fs::create_directories(dir.file("catalog/kernels"));
    const std::string out = dir.file("plan.json");
    SECTION("JSON that does not parse: FILE:LINE:COL") {
        test::spit(dir.file("catalog/kernels/cuda-generic.json"), "{\n  \"name\": \"cuda-generic\",\n  \"table\": [\n}\n");
        auto r = kbp_run(dir, "plan " + llama_arg() + " --catalog " + quote(dir.file("catalog")) + " -o " + quote(out));
        INFO(show(r));
        CHECK(r.exit == 2);
        CHECK_THAT(r.err, Catch::Contains(dir.file("catalog/kernels/cuda-generic.json") + ":4:1"));
        CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
        CHECK_FALSE(fs::exists(out));
    }
    SECTION("a member of the wrong type: FILE: /json/pointer") {
        test::spit(dir.file("catalog/kernels/cuda-generic.json"), R"({"name": "cuda-generic", "description": "x", "instances": {}, "table": "none"})");
        auto r = kbp_run(dir, "plan " + llama_arg() + " --catalog " + quote(dir.file("catalog")) + " -o " + quote(out));
        INFO(show(r));
        CHECK(r.exit == 2);
        CHECK_THAT(r.err, Catch::Contains(dir.file("catalog/kernels/cuda-generic.json") + ": /table"));
        CHECK_FALSE(fs::exists(out));
    }
    SECTION("a folder of no kind of data") {
        fs::create_directories(dir.file("catalog/kernel"));
        test::spit(dir.file("catalog/kernel/x.json"), "{}");
        auto r = kbp_run(dir, "plan " + llama_arg() + " --catalog " + quote(dir.file("catalog")) + " -o " + quote(out));
        INFO(show(r));
        CHECK(r.exit == 2);
        CHECK_THAT(r.err, Catch::Contains(dir.file("catalog/kernel/x.json")));
        CHECK_FALSE(fs::exists(out));
    }
}

TEST_CASE("planner cli: kbp plan to a terminal without -o prints a summary and says how to get the JSON", "[planner][cli]") {
    test::TempDir dir;
    // script(1) gives the command a terminal for standard output.
    const std::string command = test::quote(KBP_CLI_PATH) + " plan " + test::quote(test::source_dir() + "/samples/llama-3.1-8b/config.json") + " --target h100";
    const std::string out = dir.file("tty.txt");
    int status = std::system(("script -qec " + test::quote(command) + " /dev/null >" + test::quote(out) + " 2>&1").c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    const std::string text = test::slurp(out);
    INFO(text);
    CHECK_THAT(text, Catch::Contains("plan: llama, recipe fp8-dynamic, target h100, engine vllm; decode, 1 row") &&
                         Catch::Contains("32 layers, 580 ops, 356 groups launching 356 kernels, 128 quantization points") &&
                         Catch::Contains("-o FILE writes it, -o - prints it here"));
    CHECK(text.size() < 1000);
    // Into a pipe, the JSON as before.
    auto piped = test::kbp_run(dir, "plan " + test::quote(test::source_dir() + "/samples/llama-3.1-8b/config.json") + " --target h100");
    CHECK(piped.exit == 0);
    CHECK(piped.out.rfind("{", 0) == 0);
}
