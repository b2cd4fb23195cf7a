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

namespace {

std::string sample(const std::string& path) { return test::source_dir() + "/samples/" + path; }
std::string llama() { return quote(sample("llama-3.1-8b/config.json")); }

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

    check_refused(kbp_run(dir, "plan " + llama() + " --rwos 4"), 1, "plan", "unknown option '--rwos' (did you mean '--rows'?)");
    check_refused(kbp_run(dir, "plan " + llama() + " --arm decod"), 1, "plan", "--arm: unknown arm 'decod' (did you mean 'decode'?)");
    check_refused(kbp_run(dir, "plan " + llama() + " --arms decod -o " + quote(dir.file("arms"))), 1, "plan",
                  "unknown arm 'decod' (did you mean 'decode'?)");
    check_refused(kbp_run(dir, "plan " + llama() + " --target h10"), 2, "plan", "--target: no targets file 'h10' (did you mean 'h100'?)");
    check_refused(kbp_run(dir, "plan " + llama() + " --recipe fp8-dynamc"), 2, "plan", "(did you mean 'fp8-dynamic'?)");
    check_refused(kbp_run(dir, "export dot " + test::seed_arg() + " --view colapsed"), 1, "export",
                  "unknown view 'colapsed' (did you mean 'collapsed'?)");
    check_refused(kbp_run(dir, "export dot " + test::seed_arg() + " --color famly"), 1, "export",
                  "unknown colour mode 'famly' (did you mean 'family'?)");
    check_refused(kbp_run(dir, "export dto " + test::seed_arg()), 1, "export", "unknown export format 'dto' (did you mean 'dot'?)");
    check_refused(kbp_run(dir, "render " + test::seed_arg() + " -o x.svg --format pgn"), 1, "render",
                  "unknown image format 'pgn' (did you mean 'png'?)");
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
    check_refused(kbp_run(dir, "plan " + llama() + " --catalog " + quote(dir.file("cat"))), 2, "plan",
                  dir.file("cat/recipes/fp8-dynamic.json") + ": /entries/0/activation: unknown format 'fp8/tokn' (did you mean 'fp8/token'?)");
}

TEST_CASE("an arm of fixed rows says so and names the arms --rows is for") {
    test::TempDir dir;
    check_refused(kbp_run(dir, "plan " + llama() + " --arm decode --rows 4"), 1, "plan",
                  "--rows: the decode arm is 1 row, not 4; --rows is for multi_seq 2-128, verify 2-8, prefill 1-1048576\n");
    check_refused(kbp_run(dir, "plan " + llama() + " --arm multi_seq --rows 200"), 1, "plan",
                  "--rows: 200 is outside the multi_seq arm's range 2-128");
}

TEST_CASE("kbp why: node ids, a plan kbp did not make, a missing NODE_ID") {
    test::TempDir dir;
    fs::create_directories(dir.file("m"));
    fs::copy_file(sample("qwen3-8b/config.json"), dir.file("m/config.json"));
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

    // The README's sample was made by another planner: say what to run instead.
    check_refused(kbp_run(dir, "why " + test::seed_arg() + " l3.moe.xn_quant"), 4, "why",
                  "not a plan kbp made (its provenance is 'preview'): it records no decisions to replay; re-plan it with 'kbp plan " +
                      sample("glm-5.3-flash/config.json") + " --arm decode -o plan.json', then run 'kbp why plan.json NODE_ID'");
}

TEST_CASE("kbp why: the config is found beside the plan and must be the one it was made from") {
    test::TempDir dir;
    fs::create_directories(dir.file("m"));
    fs::copy_file(sample("qwen3-8b/config.json"), dir.file("m/config.json"));
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
    fs::copy_file(sample("qwen3-8b/config.json"), dir.file("orig/config.json"));
    auto given = kbp_run(dir, "why " + p + " l3.mlp.down --config " + quote(dir.file("orig/config.json")));
    INFO(show(given));
    CHECK(given.exit == 0);
    CHECK_THAT(given.out, Catch::StartsWith("l3.mlp.down ("));
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
    auto overview = kbp_run(dir, "help");
    CHECK(overview.exit == 0);
    CHECK_THAT(overview.out, Catch::Contains("'kbp help <command>'"));
}
