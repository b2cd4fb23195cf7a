// The kbp command line, run as a separate process with its output sent to files: exit codes
// (0 ok, 1 usage, 2 invalid input, 3 output not written), problems on stderr starting with the
// file name, byte-stable fmt, '-o -' to stdout, and stats --json.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <functional>

#include <sys/wait.h>

#include "cli_runner.hpp"
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




std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }



// The first integer found under a member named `key`, searched depth-first ("nodes": 1740 or
// "nodes": {"total": 1740}); -1 when there is none.
std::int64_t find_total(const OJson& j, const std::string& key) {
    if (j.is_object()) {
        auto it = j.find(key);
        if (it != j.end()) {
            if (it->is_number_integer()) return it->get<std::int64_t>();
            if (it->is_object())
                for (const char* k : {"total", "count"})
                    if (it->contains(k) && (*it)[k].is_number_integer()) return (*it)[k].get<std::int64_t>();
        }
        for (const auto& [k, v] : j.items())
            if (auto found = find_total(v, key); found >= 0) return found;
    } else if (j.is_array()) {
        for (const auto& v : j)
            if (auto found = find_total(v, key); found >= 0) return found;
    }
    return -1;
}

}  // namespace

TEST_CASE("cli: --version and --help", "[cli]") {
    test::TempDir dir;
    auto r = kbp_run(dir, "--version");
    INFO(show(r));
    CHECK(r.exit == 0);
    CHECK_THAT(r.out, Catch::StartsWith("kbp "));
    CHECK_THAT(r.out, Catch::Contains(KBP_VERSION));
    for (const char* command : {"check", "stats", "fmt", "expand", "collapse"}) {
        DYNAMIC_SECTION(command << " --help") {
            auto h = kbp_run(dir, std::string(command) + " --help");
            INFO(show(h));
            CHECK(h.exit == 0);
            CHECK_THAT(h.out, Catch::Contains(std::string("kbp ") + command));
        }
    }
}

TEST_CASE("cli: usage errors exit 1", "[cli]") {
    test::TempDir dir;
    const char* cases[] = {
        "",                                   // no command
        "frobnicate",                         // unknown command
        "check",                              // no file
        "check --no-such-option SEED",        // unknown option
        "check --max-problems many SEED",     // option value not a number
        "stats",                              // no file
        "stats SEED SEED",                    // too many files
        "fmt",                                // no file
        "fmt SEED -o",                        // -o without a value
        "expand",                             // no file
        "collapse SEED --bogus -o OUT",       // unknown flag
    };
    for (const char* c : cases) {
        std::string args = c;
        for (auto [from, to] : {std::pair<std::string, std::string>{"SEED", seed()}, {"OUT", quote(dir.file("out.json"))}}) {
            for (auto p = args.find(from); p != std::string::npos; p = args.find(from)) args.replace(p, from.size(), to);
        }
        DYNAMIC_SECTION("kbp " << c) {
            auto r = kbp_run(dir, args);
            INFO(show(r));
            CHECK(r.exit == 1);
            CHECK_FALSE((r.err.empty() && r.out.empty()));
            CHECK_FALSE(fs::exists(dir.file("out.json")));
        }
    }
}

TEST_CASE("cli: check accepts the seed", "[cli]") {
    test::TempDir dir;
    auto r = kbp_run(dir, "check " + seed());
    INFO(show(r));
    CHECK(r.exit == 0);
    CHECK(r.err.empty());
    SECTION("also from standard input") {
        auto s = kbp_run(dir, "check -", test::seed_path());
        INFO(show(s));
        CHECK(s.exit == 0);
    }
}

TEST_CASE("cli: check rejects every corpus file, naming it first on stderr", "[cli][corpus]") {
    test::TempDir dir;
    OJson cases = OJson::parse(test::slurp(test::corpus_dir() + "/cases.json"));
    for (const auto& c : cases["cases"]) {
        const std::string file = c["file"].get<std::string>();
        DYNAMIC_SECTION(file) {
            const std::string path = test::corpus_dir() + "/files/" + file;
            auto r = kbp_run(dir, "check " + quote(path));
            INFO(show(r));
            CHECK(r.exit == 2);
            CHECK_THAT(first_line(r.err), Catch::StartsWith("kbp check: error: " + path));
            const std::string expect = c["expect"].get<std::string>();
            // FILE:LINE:COL: message, or FILE: /pointer: message
            std::string where = expect.rfind("/", 0) == 0 ? path + ": " + expect + ": " : path + ":" + expect + ": ";
            CHECK_THAT(r.err, Catch::Contains(where));
            // Every line names the file.
            std::size_t start = 0;
            while (start < r.err.size()) {
                auto end = r.err.find('\n', start);
                std::string line = r.err.substr(start, end - start);
                if (!line.empty()) CHECK_THAT(line, Catch::StartsWith("kbp check: error: " + path));
                if (end == std::string::npos) break;
                start = end + 1;
            }
        }
    }
    SECTION("a directory") {
        auto r = kbp_run(dir, "check " + quote(dir.path()));
        INFO(show(r));
        CHECK(r.exit == 2);
        CHECK_THAT(first_line(r.err), Catch::StartsWith("kbp check: error: " + dir.path()));
    }
    SECTION("a missing file") {
        auto r = kbp_run(dir, "check " + quote(dir.file("missing.json")));
        INFO(show(r));
        CHECK(r.exit == 2);
        CHECK_THAT(first_line(r.err), Catch::StartsWith("kbp check: error: " + dir.file("missing.json")));
    }
    SECTION("100000 nested arrays") {
        test::spit(dir.file("deep.json"), std::string(100000, '[') + std::string(100000, ']'));
        auto r = kbp_run(dir, "check " + quote(dir.file("deep.json")));
        INFO(show(r));
        CHECK(r.exit == 2);
        CHECK_THAT(first_line(r.err), Catch::StartsWith("kbp check: error: " + dir.file("deep.json")));
    }
}

TEST_CASE("cli: check reports invalid blueprints as FILE: /pointer: message", "[cli]") {
    test::TempDir dir;
    struct M {
        const char* ops;
        const char* pointer;
    } mutations[] = {
        {R"([{"op":"replace","path":"/nodes/5/order","value":"5"}])", "/nodes/5/order"},          // read stage
        {R"([{"op":"replace","path":"/edges/100/to","value":67}])", "/edges/100/to"},              // backward edge
        {R"([{"op":"replace","path":"/groups/5/nodes","value":[12,14,13]}])", "/groups/5/nodes/1"},  // broken group
    };
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < std::size(mutations); ++i) {
        std::string path = dir.file("m" + std::to_string(i) + ".json");
        test::spit(path, test::mutate_seed(OJson::parse(mutations[i].ops)));
        paths.push_back(path);
        auto r = kbp_run(dir, "check " + quote(path));
        INFO(show(r));
        CHECK(r.exit == 2);
        CHECK_THAT(r.err, Catch::Contains(path + ": " + mutations[i].pointer + ": "));
        CHECK_THAT(first_line(r.err), Catch::StartsWith("kbp check: error: " + path + ": /"));
    }
    SECTION("several files: exit 2 when one is bad, and only the bad one is named on stderr") {
        auto r = kbp_run(dir, "check " + seed() + " " + quote(paths[1]));
        INFO(show(r));
        CHECK(r.exit == 2);
        CHECK_THAT(first_line(r.err), Catch::StartsWith("kbp check: error: " + paths[1]));
        CHECK_THAT(r.err, !Catch::Contains(test::seed_path()));
    }
}

TEST_CASE("cli: fmt is byte-stable and writes atomically", "[cli]") {
    test::TempDir dir;
    std::string a = dir.file("a.json"), b = dir.file("b.json");
    SECTION("pretty") {
        auto r1 = kbp_run(dir, "fmt " + seed() + " -o " + quote(a));
        INFO(show(r1));
        REQUIRE(r1.exit == 0);
        auto r2 = kbp_run(dir, "fmt " + quote(a) + " -o " + quote(b));
        INFO(show(r2));
        REQUIRE(r2.exit == 0);
        std::string once = test::slurp(a), twice = test::slurp(b);
        CHECK(once.rfind("{\n  \"schema\": \"kbp-graph/v2\"", 0) == 0);
        CHECK(once == twice);
        CHECK(OJson::parse(once) == test::seed_json());
    }
    SECTION("compact") {
        REQUIRE(kbp_run(dir, "fmt " + seed() + " --compact -o " + quote(a)).exit == 0);
        REQUIRE(kbp_run(dir, "fmt " + quote(a) + " --compact -o " + quote(b)).exit == 0);
        CHECK(test::slurp(a) == test::seed_text() + "\n");
        CHECK(test::slurp(b) == test::slurp(a));
    }
    SECTION("-o - writes to stdout") {
        auto r = kbp_run(dir, "fmt " + seed() + " --compact -o -");
        INFO(show(r).substr(0, 300));
        CHECK(r.exit == 0);
        CHECK(r.out == test::seed_text() + "\n");
        auto p = kbp_run(dir, "fmt " + seed() + " -o -");
        CHECK(p.exit == 0);
        CHECK(OJson::parse(p.out) == test::seed_json());
    }
    SECTION("from standard input") {
        auto r = kbp_run(dir, "fmt - --compact -o -", test::seed_path());
        CHECK(r.exit == 0);
        CHECK(r.out == test::seed_text() + "\n");
    }
    SECTION("the output folder holds only the output") {
        REQUIRE(kbp_run(dir, "fmt " + seed() + " -o " + quote(a)).exit == 0);
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        CHECK(names == std::vector<std::string>{"a.json", "stderr.txt", "stdout.txt"});
    }
    SECTION("invalid input: exit 2 and no output file") {
        auto r = kbp_run(dir, "fmt " + quote(test::corpus_dir() + "/files/truncated.json") + " -o " + quote(a));
        INFO(show(r));
        CHECK(r.exit == 2);
        CHECK_FALSE(fs::exists(a));
        CHECK_THAT(r.err, Catch::Contains(test::corpus_dir() + "/files/truncated.json:3:42"));
    }
    SECTION("an output folder that does not exist: exit 3, nothing written") {
        auto r = kbp_run(dir, "fmt " + seed() + " -o " + quote(dir.file("no/such/out.json")));
        INFO(show(r));
        CHECK(r.exit == 3);
        CHECK_FALSE(fs::exists(dir.file("no")));
    }
}

TEST_CASE("cli: stats --json", "[cli]") {
    test::TempDir dir;
    auto r = kbp_run(dir, "stats " + seed() + " --json");
    INFO(show(r));
    REQUIRE(r.exit == 0);
    OJson j;
    REQUIRE_NOTHROW(j = OJson::parse(r.out));
    INFO(r.out.substr(0, 600));
    CHECK(find_total(j, "nodes") == 1740);
    CHECK(find_total(j, "edges") == 2504);
    CHECK(find_total(j, "groups") == 909);
    CHECK(find_total(j, "layers") == 45);
    SECTION("text form names the file") {
        auto t = kbp_run(dir, "stats " + seed());
        INFO(show(t));
        CHECK(t.exit == 0);
        // Thousands may be grouped ("1,740").
        CHECK_THAT(t.out, Catch::Contains("1740") || Catch::Contains("1,740"));
        CHECK_THAT(t.out, Catch::Contains("2504") || Catch::Contains("2,504"));
        CHECK_THAT(t.out, Catch::Contains("909"));
        CHECK_THAT(t.out, Catch::StartsWith(test::seed_path()));
    }
    SECTION("an invalid file: exit 2") {
        auto bad = kbp_run(dir, "stats " + quote(test::corpus_dir() + "/files/bp_dangling_edge.json") + " --json");
        INFO(show(bad));
        CHECK(bad.exit == 2);
        CHECK(bad.out.empty());
    }
}

TEST_CASE("cli: collapse and expand", "[cli][templates]") {
    test::TempDir dir;
    std::string full = dir.file("full.json"), only = dir.file("only.json"), expanded = dir.file("expanded.json");
    auto c = kbp_run(dir, "collapse " + seed() + " -o " + quote(full));
    INFO(show(c));
    REQUIRE(c.exit == 0);
    CHECK(kbp_run(dir, "check " + quote(full)).exit == 0);
    OJson fj = OJson::parse(test::slurp(full));
    CHECK(fj["nodes"] == test::seed_json()["nodes"]);
    CHECK(fj["edges"] == test::seed_json()["edges"]);
    CHECK(fj["groups"] == test::seed_json()["groups"]);

    auto o = kbp_run(dir, "collapse " + seed() + " --only -o " + quote(only));
    INFO(show(o));
    REQUIRE(o.exit == 0);
    OJson oj = OJson::parse(test::slurp(only));
    CHECK_FALSE(oj.contains("nodes"));
    CHECK_FALSE(oj.contains("edges"));
    CHECK_FALSE(oj.contains("groups"));
    CHECK(kbp_run(dir, "check " + quote(only)).exit == 0);

    auto e = kbp_run(dir, "expand " + quote(only) + " -o " + quote(expanded));
    INFO(show(e));
    REQUIRE(e.exit == 0);
    OJson ej = OJson::parse(test::slurp(expanded));
    CHECK(ej["nodes"] == test::seed_json()["nodes"]);
    CHECK(ej["edges"] == test::seed_json()["edges"]);
    CHECK(ej["groups"] == test::seed_json()["groups"]);
    CHECK(test::slurp(expanded) == test::slurp(full));

    SECTION("expand of a flat blueprint whose lists agree is its canonical form") {
        auto s = kbp_run(dir, "expand " + seed() + " --compact -o -");
        INFO(show(s).substr(0, 300));
        CHECK(s.exit == 0);
        CHECK(s.out == test::seed_text() + "\n");
    }
    SECTION("expand of a blueprint without a collapsed form: exit 2") {
        auto s = kbp_run(dir, "expand " + quote(test::corpus_dir() + "/files/minimal_valid.json") + " -o " +
                                  quote(dir.file("x.json")));
        INFO(show(s));
        CHECK(s.exit == 2);
        CHECK_FALSE(fs::exists(dir.file("x.json")));
    }
}
