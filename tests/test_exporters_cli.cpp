// kbp export / kbp render as a user runs them: files written, exit codes (1 usage, 2 invalid
// plan, 4 too large), the validator's message for a broken plan, the advice for a large one, and
// the same bytes on every run.
#include <catch2/catch.hpp>

#include <graphviz/cgraph.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <sys/wait.h>

#include "schema/templates.hpp"
#include "schema/writer.hpp"
#include "cli_runner.hpp"
#include "exporters_support.hpp"
#include "support.hpp"

using namespace kbp;
using kbp::test::OJson;
namespace fs = std::filesystem;

using test::kbp_run;
using test::quote;
using test::Run;
using test::show;

namespace {

std::string seed() { return test::seed_arg(); }






int dot_nodes(const std::string& dot) {
    Agraph_t* g = agmemread(dot.c_str());
    if (!g) return -1;
    int n = agnnodes(g);
    agclose(g);
    return n;
}

}  // namespace

TEST_CASE("exporters cli: export dot writes each view, the same bytes every time", "[exporters][cli]") {
    test::TempDir dir;
    for (const char* view : {"flat", "groups", "collapsed"}) {
        INFO(view);
        auto a = kbp_run(dir, "export dot " + seed() + " --view " + view + " -o " + quote(dir.file("a.dot")));
        REQUIRE(a.exit == 0);
        auto b = kbp_run(dir, "export dot " + seed() + " --view " + view + " -o " + quote(dir.file("b.dot")));
        REQUIRE(b.exit == 0);
        auto first = test::slurp(dir.file("a.dot"));
        CHECK(first == test::slurp(dir.file("b.dot")));
        CHECK(dot_nodes(first) > 0);
    }
    auto stdout_run = kbp_run(dir, "export dot " + seed() + " --view collapsed --layers 3-7 --block dsa --color state");
    REQUIRE(stdout_run.exit == 0);
    CHECK(stdout_run.out.rfind("digraph", 0) == 0);
    CHECK(dot_nodes(stdout_run.out) > 0);
}

TEST_CASE("exporters cli: render writes SVG and PNG, byte-stable", "[exporters][cli]") {
    test::TempDir dir;
    auto svg = kbp_run(dir, "render " + seed() + " --view collapsed -o " + quote(dir.file("c.svg")));
    INFO(show(svg));
    REQUIRE(svg.exit == 0);
    auto text = test::slurp(dir.file("c.svg"));
    CHECK(text.rfind("<?xml", 0) == 0);
    for (const char* t : {"embed", "kda+mlp", "dsa+moe", "kda+moe", "head"}) CHECK(text.find(std::string(">") + t + "</text>") != std::string::npos);
    auto again = kbp_run(dir, "render " + seed() + " --view collapsed -o " + quote(dir.file("d.svg")));
    REQUIRE(again.exit == 0);
    CHECK(text == test::slurp(dir.file("d.svg")));
    auto png = kbp_run(dir, "render " + seed() + " --view groups --layers 3 -o " + quote(dir.file("g.png")));
    INFO(show(png));
    REQUIRE(png.exit == 0);
    // The PNG decodes to a picture whose ops are filled: layer 3 of the seed reads nvfp4/g16
    // experts and fp8/channel projections (palette.cpp's #f4aaa6 and #fff1a8).
    auto image = test::decode_png(test::slurp(dir.file("g.png")));
    CHECK(image.width > 100);
    CHECK(image.pixels_of("#f4aaa6") >= 100);
    CHECK(image.pixels_of("#fff1a8") >= 100);
    auto forced_format = kbp_run(dir, "render " + seed() + " --view collapsed --format png -o " + quote(dir.file("c.img")));
    REQUIRE(forced_format.exit == 0);
    CHECK(test::slurp(dir.file("c.img")).rfind("\x89PNG", 0) == 0);
}

TEST_CASE("exporters cli: export json and model-explorer", "[exporters][cli]") {
    test::TempDir dir;
    auto groups = kbp_run(dir, "export json " + seed() + " --view groups --layers 3");
    REQUIRE(groups.exit == 0);
    auto j = OJson::parse(groups.out);
    CHECK(j["view"] == "groups");
    CHECK(j["filter"]["layers"] == OJson::array({3}));
    auto me = kbp_run(dir, "export model-explorer " + seed() + " -o " + quote(dir.file("me.json")));
    REQUIRE(me.exit == 0);
    auto m = OJson::parse(test::slurp(dir.file("me.json")));
    CHECK(m["graphs"][0]["nodes"].size() == test::seed_nodes);
    auto wrong_view = kbp_run(dir, "export model-explorer " + seed() + " --view groups");
    CHECK(wrong_view.exit == 1);
}

TEST_CASE("exporters cli: an invalid plan is refused with the validator's message", "[exporters][cli]") {
    test::TempDir dir;
    std::size_t i = 0;
    while (test::seed().edges[i].fused) ++i;
    std::string pointer = "/edges/" + std::to_string(i) + "/fused";
    test::spit(dir.file("broken.json"), test::mutate_seed(OJson::array({{{"op", "replace"}, {"path", pointer}, {"value", true}}})));
    for (std::string args : {"export dot ", "export json ", "export model-explorer ", "render -o x.svg "}) {
        auto r = kbp_run(dir, args + quote(dir.file("broken.json")));
        INFO(args << "\n" << show(r));
        CHECK(r.exit == 2);
        CHECK(r.err.find(pointer) != std::string::npos);
        CHECK(r.err.find("invalid blueprint") != std::string::npos);
    }
}

TEST_CASE("exporters cli: usage errors exit 1 with one line", "[exporters][cli]") {
    test::TempDir dir;
    for (const std::string& args : std::vector<std::string>{
             "export svg " + seed(), "export dot " + seed() + " --view tree", "export dot " + seed() + " --layers 45",
          "export dot " + seed() + " --layers 7-3", "export dot " + seed() + " --block nope",
          "export dot " + seed() + " --color rainbow", "export dot " + seed() + " --layers 0 --block dsa", "export dot",
          "render " + seed(), "render " + seed() + " -o out.gif", "render " + seed() + " -o x.svg --format gif"}) {
        auto r = kbp_run(dir, args);
        INFO(args << "\n" << show(r));
        CHECK(r.exit == 1);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
    auto help = kbp_run(dir, "render --help");
    CHECK(help.exit == 0);
    CHECK(help.out.find("--force") != std::string::npos);
}

TEST_CASE("exporters cli: render refuses a plan too large to lay out, with advice", "[exporters][cli]") {
    // The seed's templates over 90 layers (~3,500 ops): over the 2,000-node limit.
    schema::Blueprint b = test::seed_over_layers(90);
    test::TempDir dir;
    test::spit(dir.file("big.json"), schema::write_blueprint(b, {.pretty = false}));

    auto refused = kbp_run(dir, "render " + quote(dir.file("big.json")) + " -o " + quote(dir.file("big.svg")));
    INFO(show(refused));
    CHECK(refused.exit == 4);
    CHECK(refused.err.find("warning") != std::string::npos);
    CHECK(refused.err.find("--view collapsed") != std::string::npos);
    CHECK(refused.err.find("--layers") != std::string::npos);
    CHECK(refused.err.find("--force") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.file("big.svg")));
    // The cut it suggests is drawn, and DOT of the whole plan is still written.
    auto cut = kbp_run(dir, "render " + quote(dir.file("big.json")) + " --view collapsed -o " + quote(dir.file("c.svg")));
    INFO(show(cut));
    CHECK(cut.exit == 0);
    auto dot = kbp_run(dir, "export dot " + quote(dir.file("big.json")) + " -o " + quote(dir.file("big.dot")));
    CHECK(dot.exit == 0);
    CHECK(dot_nodes(test::slurp(dir.file("big.dot"))) > 3000);
}
