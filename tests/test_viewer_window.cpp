// kbp-view as a person sees it, under Xvfb: screenshots checked by content (not blank, the
// legend's colours, the selection, the diff's colours, the problems panel) with what the window
// showed read from the view model (--dump-state); the kbp view launcher; the benchmark's figures.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <stb_image.h>
#include <unistd.h>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "schema/file_io.hpp"
#include "schema/writer.hpp"
#include "support.hpp"
#include "viewer/model/geometry.hpp"

using namespace kbp;
using test::quote;

namespace {

struct Image {
    int width = 0, height = 0;
    std::vector<unsigned char> rgba;
    std::size_t count(viewer::Rgba c) const {
        std::size_t n = 0;
        for (std::size_t i = 0; i + 3 < rgba.size(); i += 4)
            n += rgba[i] == (c & 0xff) && rgba[i + 1] == ((c >> 8) & 0xff) && rgba[i + 2] == ((c >> 16) & 0xff);
        return n;
    }
    std::size_t distinct() const {
        std::set<std::uint32_t> colours;
        for (std::size_t i = 0; i + 3 < rgba.size(); i += 4)
            colours.insert(static_cast<std::uint32_t>(rgba[i]) | rgba[i + 1] << 8 | rgba[i + 2] << 16);
        return colours.size();
    }
};

Image load_png(const std::string& path) {
    Image im;
    int channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &im.width, &im.height, &channels, 4);
    if (data) {
        im.rgba.assign(data, data + static_cast<std::size_t>(im.width) * static_cast<std::size_t>(im.height) * 4);
        stbi_image_free(data);
    }
    return im;
}

struct ViewRun {
    test::Run run;
    Image image;
    nlohmann::json state;
};

// kbp-view ARGS under xvfb-run, with a screenshot and the view model's state.
ViewRun view(const test::TempDir& dir, const std::string& args, const std::string& program = KBP_VIEW_PATH) {
    std::string png = dir.file("shot.png"), state = dir.file("state.json");
    std::remove(png.c_str());
    std::remove(state.c_str());
    std::string out = dir.file("out.txt"), err = dir.file("err.txt");
    // A server number of our own (xvfb-run -a counts up from it), so parallel tests do not race.
    std::string server = std::to_string(100 + getpid() % 800);
    std::string cmd = "xvfb-run -a -n " + server + " -s '-screen 0 1600x1000x24' " + quote(program) + " " + args +
                      " --screenshot " + quote(png) + " --dump-state " + quote(state) + " >" + quote(out) + " 2>" + quote(err) + " </dev/null";
    int status = std::system(cmd.c_str());
    ViewRun r;
    r.run.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.run.out = test::slurp(out);
    r.run.err = test::slurp(err);
    r.image = load_png(png);
    std::string text = test::slurp(state);
    if (!text.empty()) r.state = nlohmann::json::parse(text);
    return r;
}

std::string seed() { return quote(test::seed_path()); }

}  // namespace

TEST_CASE("viewer window: the seed, folded, with its legend's colours on screen", "[viewer][window]") {
    test::TempDir dir;
    auto r = view(dir, seed() + " --size 1400x900");
    INFO(test::show(r.run));
    REQUIRE(r.run.exit == 0);
    REQUIRE(r.image.width == 1400);
    REQUIRE(r.image.height == 900);
    CHECK(r.image.distinct() > 50);  // not blank
    CHECK(r.image.count(viewer::rgba(255, 255, 255)) < std::size_t(1400 * 900 * 0.9));
    CHECK(r.state["rows"] == 5);
    CHECK(r.state["folded_rows"] == 3);
    CHECK(r.state["layouts_final"] == true);
    CHECK(r.state["errors"].empty());
    REQUIRE(r.state["legend"].size() == 5);
    for (const auto& e : r.state["legend"]) {
        INFO(e.dump());
        // The legend's swatch and the ops' fills: many pixels of each colour.
        CHECK(r.image.count(viewer::parse_hex(e["color"].get<std::string>())) > 100);
    }
    CHECK(r.image.count(viewer::parse_hex("#6a3d9a")) > 50);  // folded rows' frames and badges
}

// Issue 30: a big plan's first frame is drawn from its templates; --first-frame shows it so, the
// progress bar at 0% and the flat lists not read (scripts/pictures.sh's million-op picture).
TEST_CASE("viewer window: --first-frame shows a big plan before its flat lists are read", "[viewer][window]") {
    test::TempDir dir;
    const std::string plan = dir.file("big.json");  // 300 layers: 11,700 ops, about 9.5 MB (8 MB or more)
    REQUIRE(write_file_atomic(plan, schema::write_blueprint(test::seed_over_layers(300, true), {.pretty = false})).ok());
    auto first = view(dir, quote(plan) + " --first-frame --size 1000x700");
    INFO(test::show(first.run));
    REQUIRE(first.run.exit == 0);
    CHECK(first.image.distinct() > 50);
    REQUIRE(first.state["files"].size() == 1);
    CHECK(first.state["files"][0]["lists_read"] == false);
    CHECK(first.state["rows"] == 5);
    auto whole = view(dir, quote(plan) + " --size 1000x700");
    REQUIRE(whole.run.exit == 0);
    CHECK(whole.state["files"][0]["lists_read"] == true);
    CHECK(whole.state["files"][0]["nodes"] == first.state["files"][0]["nodes"]);
    CHECK(whole.state["errors"].empty());
}

TEST_CASE("viewer window: two screenshots of one plan are the same bytes", "[viewer][window][screenshot]") {
    // The status bar prints no frame time in a screenshot (a person's window does): the docs'
    // pictures (scripts/pictures.sh) change only when what they show does.
    for (const char* args : {"", " --expand all --select l3.dsa.q_a --zoom 1"}) {
        std::string bytes[2];
        for (int i = 0; i < 2; ++i) {
            // After the layouts settle, 3 frames or 9: the same picture (a frame time would differ).
            test::TempDir dir;
            auto r = view(dir, seed() + args + " --size 1000x700 --frames " + (i == 0 ? "3" : "9"));
            INFO(test::show(r.run));
            REQUIRE(r.run.exit == 0);
            bytes[i] = test::slurp(dir.file("shot.png"));
        }
        INFO("kbp-view SEED" << args);
        REQUIRE(bytes[0].size() > 1000);
        CHECK(bytes[0] == bytes[1]);
    }
}

TEST_CASE("viewer window: expanded, an op selected, its inspector shown", "[viewer][window]") {
    test::TempDir dir;
    auto r = view(dir, seed() + " --expand all --select l3.dsa.q_a");
    INFO(test::show(r.run));
    REQUIRE(r.run.exit == 0);
    CHECK(r.state["rows"] == 47);
    CHECK(r.state["selection"]["kind"] == "node");
    CHECK(r.state["selection"]["index"] == 102);
    std::string inspector = r.state["inspector"];
    CHECK(inspector.find("[op l3.dsa.q_a]") == 0);
    CHECK(inspector.find("kernel: w8a8_gemv::w8a8_gemv_rowscale_mb1_ku8_split4") != std::string::npos);
    CHECK(inspector.find("[family wxay]") != std::string::npos);
    CHECK(r.state["frame"]["detail"] == "labels");
    CHECK(r.image.count(viewer::rgba(255, 128, 0)) > 100);  // the selection's frame
    CHECK(r.image.distinct() > 200);                         // text drawn anti-aliased
}

TEST_CASE("viewer window: --select of an op the plan lacks exits 2 with a hint and writes no screenshot", "[viewer][window]") {
    test::TempDir dir;
    const std::string png = dir.file("shot.png");
    auto run = [&](const std::string& id) {
        std::string cmd = "xvfb-run -a -n " + std::to_string(100 + getpid() % 800) + " " + quote(KBP_VIEW_PATH) + " " + seed() + " --select " + id +
                          " --screenshot " + quote(png) + " >/dev/null 2>" + quote(dir.file("err.txt")) + " </dev/null";
        // xvfb-run exits 5 when it fails to remove its own temporary folder after the program
        // (seen under ctest -j2 when kbp-view exits at once, as here): kbp-view's status is then
        // lost, so that run is made again.
        for (int attempt = 0;; ++attempt) {
            int status = std::system(cmd.c_str());
            int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            std::string err = test::slurp(dir.file("err.txt"));
            if (code == 5 && err.find("xvfb-run: error: problem while cleaning up") != std::string::npos && attempt < 3) continue;
            return std::make_pair(code, err);
        }
    };
    auto [code, err] = run("l3.dsa.q_aa");
    INFO(err);
    CHECK(code == 2);
    CHECK_FALSE(std::ifstream(png).good());  // no screenshot of something else
    CHECK_THAT(err, Catch::Contains("kbp-view: error: --select: no op 'l3.dsa.q_aa' in") && Catch::Contains("(did you mean 'l3.dsa.q_a'?)"));
    // A layer past the plan's last is said as such, not "corrected" to another layer.
    auto [layer_code, layer_err] = run("l99.dsa.q_a");
    INFO(layer_err);
    CHECK(layer_code == 2);
    CHECK_THAT(layer_err, Catch::Contains("no op 'l99.dsa.q_a'") && Catch::Contains("(the plan has ") && !Catch::Contains("did you mean"));
}

TEST_CASE("viewer window: a model config opened as a plan is named as the CLI names it", "[viewer][window]") {
    test::TempDir dir;
    auto r = view(dir, quote(test::source_dir() + "/samples/llama-3.1-8b/config.json"));
    INFO(test::show(r.run));
    REQUIRE(r.run.exit == 0);  // the window stays, showing the problem
    REQUIRE(r.state["errors"].size() >= 1);
    CHECK_THAT(r.state["errors"][0]["message"].get<std::string>(),
               Catch::Contains("this is a model config (config.json with model_type), not a kbp plan (kbp-graph/v2): plan it first with 'kbp plan CONFIG -o PLAN'"));
}

TEST_CASE("viewer window: two arms show the diff's colours and counts", "[viewer][window][diff]") {
    test::TempDir dir;
    std::string config = quote(test::source_dir() + "/samples/glm-5.3-flash/config.json");
    REQUIRE(test::kbp_run(dir, "plan " + config + " --arm multi_seq --rows 64 -o " + quote(dir.file("ms64.json"))).exit == 0);
    // A person's remembered settings (side by side) do not reach a headless run, which leaves them as they were.
    const std::string remembered = "{\"schema\": \"kbp-view-settings/v1\", \"recent\": [], \"side_by_side\": true}\n";
    {
        std::ofstream(dir.file("view.json")) << remembered;
    }
    setenv("KBP_VIEW_SETTINGS", dir.file("view.json").c_str(), 1);
    auto r = view(dir, seed() + " --diff " + quote(dir.file("ms64.json")) + " --side b --select l0.kda.xn_quant");
    unsetenv("KBP_VIEW_SETTINGS");
    INFO(test::show(r.run));
    REQUIRE(r.run.exit == 0);
    CHECK(r.state["side_by_side"] == false);
    CHECK(test::slurp(dir.file("view.json")) == remembered);
    CHECK(r.state["color"] == "diff");
    CHECK(r.state["shown"] == "b");
    CHECK(r.state["diff"]["nodes"]["added"].get<int>() > 0);
    CHECK(r.state["diff"]["nodes"]["changed"].get<int>() > 0);
    std::map<std::string, std::string> legend;
    for (const auto& e : r.state["legend"]) legend[e["key"]] = e["color"];
    REQUIRE(legend.count("added"));
    REQUIRE(legend.count("changed"));
    CHECK(r.image.count(viewer::parse_hex(legend["added"])) > 100);
    CHECK(r.image.count(viewer::parse_hex(legend["changed"])) > 100);
    CHECK(std::string(r.state["inspector"]).find("[diff: added]") == 0);

    // Both side by side: the divider between the panes, and the diff's colours in each half.
    auto both = view(dir, seed() + " --diff " + quote(dir.file("ms64.json")) + " --side both --select l0.kda.q");
    INFO(test::show(both.run));
    REQUIRE(both.run.exit == 0);
    CHECK(both.state["side_by_side"] == true);
    CHECK(both.image.count(viewer::rgba(214, 214, 222)) > 2000);  // 6 px down the canvas
    auto in_half = [&](viewer::Rgba c, bool right) {
        std::size_t n = 0;
        const int middle = 400;  // well inside the left pane of the 1600-px window's canvas
        for (int y = 0; y < both.image.height; ++y)
            for (int x = right ? 700 : 0; x < (right ? 1100 : middle); ++x) {
                const auto* p = &both.image.rgba[(static_cast<std::size_t>(y) * static_cast<std::size_t>(both.image.width) + static_cast<std::size_t>(x)) * 4];
                n += p[0] == (c & 0xff) && p[1] == ((c >> 8) & 0xff) && p[2] == ((c >> 16) & 0xff);
            }
        return n;
    };
    CHECK(in_half(viewer::parse_hex(legend["changed"]), false) > 100);
    CHECK(in_half(viewer::parse_hex(legend["changed"]), true) > 100);
}

TEST_CASE("viewer window: a corrupt file shows its problems and keeps the window and the open plan", "[viewer][window]") {
    test::TempDir dir;
    std::string bad = quote(test::corpus_dir() + "/files/bp_dangling_edge.json");
    auto alone = view(dir, bad);
    INFO(test::show(alone.run));
    REQUIRE(alone.run.exit == 0);
    REQUIRE(alone.state["errors"].size() == 1);
    CHECK(std::string(alone.state["errors"][0]["problems"][0]).find("bp_dangling_edge.json: /edges/1/to") != std::string::npos);
    CHECK(alone.image.count(viewer::rgba(255, 243, 243)) > 1000);  // the problems panel
    auto beside = view(dir, seed() + " " + bad);
    REQUIRE(beside.run.exit == 0);
    CHECK(beside.state["errors"].size() == 1);
    REQUIRE(beside.state["files"].size() == 1);
    CHECK(beside.state["files"][0]["nodes"] == 1740);
    CHECK(beside.state["rows"] == 5);
}

TEST_CASE("viewer window: a person's run remembers the plan it opened", "[viewer][window][settings]") {
    test::TempDir dir;
    const std::string plan = dir.file("remembered.plan.json"), settings = dir.file("state/view.json");
    {
        std::ofstream(plan) << test::slurp(test::seed_path());
    }
    // An interactive run (no --screenshot): it saves the recent list as soon as the plan loads.
    std::string server = std::to_string(100 + (getpid() + 7) % 800);
    std::string cmd = "KBP_VIEW_SETTINGS=" + quote(settings) + " timeout 120 xvfb-run -a -n " + server + " " + quote(KBP_VIEW_PATH) + " " +
                      quote(plan) + " >/dev/null 2>&1 </dev/null &";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::string saved;
    for (int i = 0; i < 600 && saved.find("remembered.plan.json") == std::string::npos; ++i) {
        usleep(100 * 1000);
        std::ifstream in(settings);  // not there until the plan has loaded
        saved.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    // The window itself, so that xvfb-run sees it end and takes its server down.
    std::system(("pkill -f " + quote("^" + std::string(KBP_VIEW_PATH) + " " + plan) + " >/dev/null 2>&1").c_str());
    INFO(saved);
    auto j = nlohmann::json::parse(saved.empty() ? "{}" : saved);
    REQUIRE(j.contains("recent"));
    REQUIRE(j["recent"].size() == 1);
    CHECK(j["recent"][0] == std::filesystem::absolute(plan).lexically_normal().string());
    CHECK(j["side_by_side"] == false);
}

TEST_CASE("viewer window: kbp view starts kbp-view, bad options exit 1", "[viewer][window][cli]") {
    test::TempDir dir;
    unsetenv("KBP_VIEW");  // found in the build tree beside kbp
    auto r = view(dir, "view " + seed() + " --color family", KBP_CLI_PATH);
    INFO(test::show(r.run));
    REQUIRE(r.run.exit == 0);
    CHECK(r.state["color"] == "family");
    auto usage = test::kbp_run(dir, "view --help");
    CHECK(usage.exit == 0);
    CHECK(usage.out.find("kbp view PLAN") != std::string::npos);
    std::string cmd = quote(KBP_VIEW_PATH) + " --color purple >/dev/null 2>" + quote(dir.file("e.txt"));
    int status = std::system(cmd.c_str());
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(test::slurp(dir.file("e.txt")).find("unknown mode 'purple'") != std::string::npos);
    cmd = quote(KBP_VIEW_PATH) + " --side left >/dev/null 2>" + quote(dir.file("e.txt"));
    status = std::system(cmd.c_str());
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(test::slurp(dir.file("e.txt")).find("--side takes a, b or both") != std::string::npos);
}

TEST_CASE("viewer window: the benchmark's frames stay under 60,000 vertices", "[viewer][window][bench]") {
    test::TempDir dir;
    std::string cmd = "xvfb-run -a -n " + std::to_string(100 + getpid() % 800) + " -s '-screen 0 1600x1000x24' " + quote(KBP_VIEW_PATH) +
                      " " + seed() + " --expand all --bench-frames 2 >" + quote(dir.file("bench.txt")) + " 2>&1";
    int status = std::system(cmd.c_str());
    std::string out = test::slurp(dir.file("bench.txt"));
    INFO(out);
    REQUIRE(WEXITSTATUS(status) == 0);
    auto at = out.find("most vertices in a frame: ");
    REQUIRE(at != std::string::npos);
    long most = std::stol(out.substr(at + 26));
    CHECK(most > 1000);
    CHECK(most < 60000);
    CHECK(out.find("time to first frame") != std::string::npos);
}
