// kbp diff as a CI job runs it: exit 0 equal, 1 different, 2 trouble, 3 output not written; the
// --json report validates against its JSON Schema and is the same bytes every time.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "support.hpp"

using namespace kbp;
using test::kbp_run;
using test::quote;
using test::show;

namespace {

std::string config() { return quote(test::source_dir() + "/samples/glm-5.3-flash/config.json"); }

// decode and multi_seq 64 planned into `dir`.
void plan_two(const test::TempDir& dir) {
    auto d = kbp_run(dir, "plan " + config() + " --arm decode -o " + quote(dir.file("decode.json")));
    REQUIRE(d.exit == 0);
    auto m = kbp_run(dir, "plan " + config() + " --arm multi_seq --rows 64 -o " + quote(dir.file("ms64.json")));
    REQUIRE(m.exit == 0);
}

}  // namespace

TEST_CASE("diff cli: equal plans exit 0, different plans exit 1", "[diff][cli]") {
    test::TempDir dir;
    plan_two(dir);
    auto same = kbp_run(dir, "diff " + test::seed_arg() + " " + quote(dir.file("decode.json")));
    INFO(show(same));
    CHECK(same.exit == 0);
    CHECK(same.out.find("the plans are equal") != std::string::npos);
    auto differ = kbp_run(dir, "diff " + quote(dir.file("decode.json")) + " " + quote(dir.file("ms64.json")));
    INFO(show(differ));
    CHECK(differ.exit == 1);
    CHECK(differ.err.empty());
    for (const char* text : {"plan arm/rows: 1 -> 64", "quantization points", "kernel launches", "nodes: ", "groups: ", "edges: ",
                             "+ l*.kda.xn_quant (added)  in ", "precision/activation: bf16 -> nvfp4/g16"})
        CHECK(differ.out.find(text) != std::string::npos);
    // Layer by layer on request.
    auto each = kbp_run(dir, "diff --each-layer --max-items 0 " + quote(dir.file("decode.json")) + " " + quote(dir.file("ms64.json")));
    CHECK(each.exit == 1);
    CHECK(each.out.find("+ l0.kda.xn_quant (added)\n") != std::string::npos);
    CHECK(each.out.find("l*.") == std::string::npos);
}

TEST_CASE("diff cli: --json validates against its schema and is byte-stable", "[diff][cli]") {
    test::TempDir dir;
    plan_two(dir);
    auto args = "diff --json " + quote(dir.file("decode.json")) + " " + quote(dir.file("ms64.json"));
    auto one = kbp_run(dir, args + " -o " + quote(dir.file("d1.json")));
    auto two = kbp_run(dir, args + " -o " + quote(dir.file("d2.json")));
    REQUIRE(one.exit == 1);
    REQUIRE(two.exit == 1);
    auto text = test::slurp(dir.file("d1.json"));
    CHECK(text == test::slurp(dir.file("d2.json")));
    auto same = kbp_run(dir, "diff --json " + test::seed_arg() + " " + test::seed_arg() + " -o " + quote(dir.file("eq.json")));
    REQUIRE(same.exit == 0);

    std::string cmd = "/usr/bin/python3 " + quote(test::source_dir() + "/tests/schema/check_json_schema.py") + " " +
                      quote(test::source_dir() + "/diff/kbp-diff-v1.schema.json") + " " + quote(dir.file("d1.json")) + " " +
                      quote(dir.file("eq.json")) + " >" + quote(dir.file("schema.txt")) + " 2>&1";
    int status = std::system(cmd.c_str());
    INFO(test::slurp(dir.file("schema.txt")));
    CHECK(status == 0);

    auto j = nlohmann::json::parse(text);
    CHECK(j["schema"] == "kbp-diff/v1");
    CHECK(j["equal"] == false);
    CHECK(j["b"]["arm"]["rows"] == 64);
    bool found = false;
    for (const auto& t : j["totals"])
        if (t["name"] == "quant_points") {
            found = true;
            CHECK(t["after"].get<int>() > t["before"].get<int>());
            CHECK(t["delta"] == t["after"].get<int>() - t["before"].get<int>());
        }
    CHECK(found);
    CHECK(j["nodes"]["added"].get<int>() == static_cast<int>(std::count_if(j["nodes"]["items"].begin(), j["nodes"]["items"].end(),
                                                                             [](const auto& i) { return i["status"] == "added"; })));

    // A broken report is caught by the schema: the test above could fail.
    j["totals"][0]["delta"] = "ten";
    test::spit(dir.file("bad.json"), j.dump());
    std::string bad = "/usr/bin/python3 " + quote(test::source_dir() + "/tests/schema/check_json_schema.py") + " --expect invalid " +
                      quote(test::source_dir() + "/diff/kbp-diff-v1.schema.json") + " " + quote(dir.file("bad.json")) + " >/dev/null 2>&1";
    CHECK(std::system(bad.c_str()) == 0);
}

TEST_CASE("diff cli: trouble exits 2 with the file named, an unwritable output 3", "[diff][cli]") {
    test::TempDir dir;
    auto missing = kbp_run(dir, "diff " + test::seed_arg());
    CHECK(missing.exit == 2);
    CHECK(missing.err.find("kbp diff") != std::string::npos);
    auto unknown = kbp_run(dir, "diff --frobnicate " + test::seed_arg() + " " + test::seed_arg());
    CHECK(unknown.exit == 2);
    auto absent = kbp_run(dir, "diff " + test::seed_arg() + " " + quote(dir.file("nope.json")));
    CHECK(absent.exit == 2);
    CHECK(absent.err.find(dir.file("nope.json")) != std::string::npos);
    auto corrupt = kbp_run(dir, "diff " + quote(test::corpus_dir() + "/files/bp_dangling_edge.json") + " " + test::seed_arg());
    CHECK(corrupt.exit == 2);
    CHECK(corrupt.err.find("bp_dangling_edge.json: /edges/") != std::string::npos);
    auto out = kbp_run(dir, "diff " + test::seed_arg() + " " + test::seed_arg() + " -o " + quote(dir.file("no/such/dir/x.txt")));
    CHECK(out.exit == 3);
    auto help = kbp_run(dir, "diff --help");
    CHECK(help.exit == 0);
    CHECK(help.out.find("0 equal, 1 different, 2 trouble") != std::string::npos);
}
