// The bad-input corpus (tests/corpus): every case goes through the reader and the validator
// in a child process, and must fail cleanly: no crash, no hang, an error that names the file
// and carries the expected line:col or JSON pointer.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <sstream>

#include "schema/reader.hpp"
#include "schema/validator.hpp"
#include "support.hpp"

using namespace kbp;
using namespace kbp::schema;
using kbp::test::OJson;

namespace {

// What a child reports back: the read error, or the diagnostics of a blueprint that read.
struct Outcome {
    bool read_ok = false;
    std::string where, message;                                  // when the read failed
    std::vector<std::pair<std::string, std::string>> diagnostics;  // when it read
};

// One line per field, tab-separated; the messages never contain newlines or tabs we rely on.
std::string encode(const Result<Blueprint>& r) {
    std::ostringstream out;
    if (!r) {
        out << "ERROR\t" << r.error().where << "\t" << r.error().message << "\n";
        return out.str();
    }
    auto d = validate(r.value());
    out << "READ\t" << d.total() << "\n";
    for (const auto& item : d.items()) out << item.pointer << "\t" << item.message << "\n";
    return out.str();
}

Outcome decode(const std::string& text) {
    Outcome o;
    std::istringstream in(text);
    std::string line;
    std::getline(in, line);
    auto tab = line.find('\t');
    std::string head = line.substr(0, tab);
    if (head == "ERROR") {
        auto second = line.find('\t', tab + 1);
        o.where = line.substr(tab + 1, second - tab - 1);
        o.message = second == std::string::npos ? "" : line.substr(second + 1);
        // A message may span lines; keep the rest.
        std::string more;
        while (std::getline(in, more)) o.message += "\n" + more;
        return o;
    }
    o.read_ok = true;
    while (std::getline(in, line)) {
        auto t = line.find('\t');
        o.diagnostics.emplace_back(line.substr(0, t), t == std::string::npos ? "" : line.substr(t + 1));
    }
    return o;
}

std::string describe(const Outcome& o) {
    if (!o.read_ok) return "read error: where '" + o.where + "', message '" + o.message + "'";
    std::string s = "read fine; " + std::to_string(o.diagnostics.size()) + " diagnostic(s)";
    for (std::size_t i = 0; i < o.diagnostics.size() && i < 15; ++i)
        s += "\n  " + o.diagnostics[i].first + ": " + o.diagnostics[i].second;
    return s;
}

// Checks one case. `expect` is "L:C" (syntax) or a JSON pointer; `name` is what the error must
// start with (the file name given to the reader).
void check_case(const test::Isolated& run, const std::string& name, const std::string& stage, const std::string& expect,
                const std::string& message) {
    INFO(run.describe());
    REQUIRE(run.finished);  // no crash, no hang
    Outcome o = decode(run.output);
    INFO(describe(o));
    if (stage == "read") {
        REQUIRE_FALSE(o.read_ok);
        std::string expected_where = expect.rfind("/", 0) == 0 ? name + ": " + expect : name + ":" + expect;
        CHECK(o.where == expected_where);
        CHECK_THAT(o.where, Catch::StartsWith(name));
        CHECK_FALSE(o.message.empty());
        if (!message.empty()) CHECK_THAT(o.message, Catch::Contains(message, Catch::CaseSensitive::No));
    } else {
        REQUIRE(stage == "validate");
        REQUIRE(o.read_ok);
        REQUIRE_FALSE(o.diagnostics.empty());
        bool found = false, message_found = message.empty();
        for (const auto& [pointer, text] : o.diagnostics) {
            if (pointer != expect) continue;
            found = true;
            if (!message.empty() && text.find(message) != std::string::npos) message_found = true;
        }
        CHECK(found);
        CHECK(message_found);
    }
}

const OJson& cases() {
    static const OJson j = OJson::parse(test::slurp(test::corpus_dir() + "/cases.json"));
    return j;
}
const OJson& mutations() {
    static const OJson j = OJson::parse(test::slurp(test::corpus_dir() + "/mutations.json"));
    return j;
}

}  // namespace

TEST_CASE("corpus: the manifests describe enough cases", "[corpus]") {
    const auto& files = cases()["cases"];
    const auto& muts = mutations()["mutations"];
    CHECK(files.size() + muts.size() >= 30);
    std::set<std::string> names;
    for (const auto& c : files) {
        INFO(c.dump());
        CHECK(std::filesystem::is_regular_file(test::corpus_dir() + "/files/" + c["file"].get<std::string>()));
        CHECK(names.insert(c["file"].get<std::string>()).second);
        CHECK((c["stage"] == "read" || c["stage"] == "validate"));
    }
    for (const auto& m : muts) {
        INFO(m.dump());
        CHECK(names.insert(m["name"].get<std::string>()).second);
        CHECK((m["stage"] == "read" || m["stage"] == "validate"));
        CHECK(m["expect_pointer"].get<std::string>().rfind("/", 0) == 0);
        CHECK(m["ops"].is_array());
    }
    // Every corpus file but the valid base is listed.
    for (const auto& entry : std::filesystem::directory_iterator(test::corpus_dir() + "/files")) {
        std::string f = entry.path().filename().string();
        if (f == "minimal_valid.json") continue;
        INFO(f);
        CHECK(names.count(f) == 1);
    }
}

TEST_CASE("corpus: the valid base of the small cases reads and validates", "[corpus]") {
    auto r = load_blueprint(test::corpus_dir() + "/files/minimal_valid.json");
    REQUIRE(r.ok());
    auto d = validate(*r);
    INFO(test::list_diagnostics(d));
    CHECK(d.empty());
}

TEST_CASE("corpus: every bad file fails cleanly at the expected place", "[corpus]") {
    for (const auto& c : cases()["cases"]) {
        const std::string file = c["file"].get<std::string>();
        DYNAMIC_SECTION(file) {
            const std::string path = test::corpus_dir() + "/files/" + file;
            auto run = test::run_isolated([&] { return encode(load_blueprint(path)); });
            check_case(run, path, c["stage"].get<std::string>(), c["expect"].get<std::string>(), c.value("message", ""));
        }
    }
}

TEST_CASE("corpus: every mutation of the seed fails cleanly at the expected pointer", "[corpus]") {
    test::seed_json();  // parse once, before the children are forked
    for (const auto& m : mutations()["mutations"]) {
        const std::string name = m["name"].get<std::string>();
        DYNAMIC_SECTION(name) {
            const std::string file = "mutations.json#" + name;
            auto run = test::run_isolated([&] { return encode(read_blueprint(test::mutate_seed(m["ops"]), file)); });
            check_case(run, file, m["stage"].get<std::string>(), m["expect_pointer"].get<std::string>(),
                       m.value("message", ""));
        }
    }
}

TEST_CASE("corpus: cases made at test time", "[corpus]") {
    test::TempDir dir;
    SECTION("100000 nested arrays") {
        std::string path = dir.file("deep.json");
        test::spit(path, std::string(100000, '[') + std::string(100000, ']'));
        auto run = test::run_isolated([&] { return encode(load_blueprint(path)); });
        INFO(run.describe());
        REQUIRE(run.finished);
        Outcome o = decode(run.output);
        INFO(describe(o));
        REQUIRE_FALSE(o.read_ok);
        CHECK_THAT(o.where, Catch::StartsWith(path));
        CHECK_THAT(o.message, Catch::Contains("deep", Catch::CaseSensitive::No));
    }
    SECTION("100000 unclosed nested objects") {
        std::string path = dir.file("deep-open.json");
        std::string text;
        for (int i = 0; i < 100000; ++i) text += "{\"a\":";
        test::spit(path, text);
        auto run = test::run_isolated([&] { return encode(load_blueprint(path)); });
        INFO(run.describe());
        REQUIRE(run.finished);
        Outcome o = decode(run.output);
        INFO(describe(o));
        REQUIRE_FALSE(o.read_ok);
        CHECK_THAT(o.where, Catch::StartsWith(path));
    }
    SECTION("deep nesting inside an unknown member of the seed") {
        // Below simdjson's depth limit, but recursive code (extras, writer) must cope.
        std::string nested = std::string(1000, '[') + std::string(1000, ']');
        std::string text = test::seed_text();
        text.insert(1, "\"x_deep\":" + nested + ",");
        auto run = test::run_isolated([&] { return encode(read_blueprint(text, "deep-extra.json")); });
        INFO(run.describe());
        REQUIRE(run.finished);
        Outcome o = decode(run.output);
        INFO(describe(o));
        // Reading it is fine (or a clean depth error); a crash is not.
        if (!o.read_ok) CHECK_THAT(o.where, Catch::StartsWith("deep-extra.json"));
    }
    SECTION("a directory instead of a file") {
        auto run = test::run_isolated([&] { return encode(load_blueprint(dir.path())); });
        INFO(run.describe());
        REQUIRE(run.finished);
        Outcome o = decode(run.output);
        REQUIRE_FALSE(o.read_ok);
        CHECK(o.where == dir.path());
        CHECK_THAT(o.message, Catch::Contains("directory"));
    }
    SECTION("a file that does not exist") {
        std::string path = dir.file("missing.json");
        auto r = load_blueprint(path);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().where == path);
    }
    SECTION("the seed cut at many places") {
        // Truncation anywhere gives a syntax error with a position, never a crash.
        const std::string& seed = test::seed_text();
        auto run = test::run_isolated([&] {
            std::string bad;
            for (std::size_t cut : {std::size_t{1}, std::size_t{17}, std::size_t{1000}, seed.size() / 3, seed.size() / 2,
                                    seed.size() - 2, seed.size() - 1}) {
                auto r = read_blueprint(seed.substr(0, cut), "cut.json");
                if (r.ok() || r.error().where.rfind("cut.json:", 0) != 0) bad += " " + std::to_string(cut);
            }
            return bad;
        });
        INFO(run.describe());
        REQUIRE(run.finished);
        CHECK(run.output.empty());
    }
}

// Regression (found by this suite, fixed): with a `symbols` table present, validate() evaluates every edge's `dim`, and
// the recursive-descent evaluator has no depth limit: a dim of 100000 nested parentheses
// (about 200 KB) overflows the stack and kills the process instead of giving a diagnostic at
// /edges/0/dim.
TEST_CASE("corpus: a dim with 100000 nested parentheses fails cleanly", "[corpus]") {
    test::seed_json();
    auto run = test::run_isolated([] {
        OJson ops = OJson::array();
        ops.push_back({{"op", "add"}, {"path", "/symbols"}, {"value", {{"hidden", 4096}}}});
        ops.push_back({{"op", "replace"},
                       {"path", "/edges/0/dim"},
                       {"value", std::string(100000, '(') + "hidden" + std::string(100000, ')')}});
        return encode(read_blueprint(test::mutate_seed(ops), "parens.json"));
    });
    check_case(run, "parens.json", "validate", "/edges/0/dim", "");
}

// Regression (found by this suite, fixed): the validator multiplies row bytes by top_k without an overflow check. With
// symbols {"top_k": 2^40} (accepted: symbols go up to 2^40) and an expert-row edge of
// dim_value 2^40, 2^41 * 2^40 overflows int64: undefined behaviour (the message says
// "... is 0" in a release build; UBSan aborts the process).
TEST_CASE("corpus: bytes_per_token arithmetic does not overflow", "[corpus]") {
    test::seed_json();
    auto run = test::run_isolated([] {
        OJson ops = OJson::parse(R"([{"op":"add","path":"/symbols","value":{"top_k":1099511627776}},
                                     {"op":"replace","path":"/edges/187/dim_value","value":1099511627776}])");
        return encode(read_blueprint(test::mutate_seed(ops), "overflow.json"));
    });
    check_case(run, "overflow.json", "validate", "/edges/187/bytes_per_token", "");
    Outcome o = decode(run.output);
    for (const auto& [pointer, text] : o.diagnostics)
        if (pointer == "/edges/187/bytes_per_token") CHECK_THAT(text, !Catch::EndsWith(" is 0"));
}

// Regression (found by this suite, fixed): the reader accepts arm.rows up to 2^24 (reader.cpp max_rows) while the
// published JSON Schema (schema/kbp-graph-v2.schema.json, $defs/arm/rows) allows at most
// 1048576 = 2^20: a file with rows 2000000 passes `kbp check` but fails the schema.
TEST_CASE("corpus: the reader and the JSON Schema agree on the largest arm.rows", "[corpus]") {
    OJson doc = OJson::parse(test::slurp(test::corpus_dir() + "/files/minimal_valid.json"));
    doc["arm"]["rows"] = 2000000;
    auto r = read_blueprint(doc.dump(), "rows.json");
    INFO((r ? std::string("read fine") : r.error().text()));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().where == "rows.json: /arm/rows");
}
