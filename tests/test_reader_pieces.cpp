// A big plan is read a piece at a time (schema/reader.hpp, ReadOptions). Forcing that path onto
// the samples, with pieces from one element to a megabyte, must give the same model as reading
// the whole text, and a broken text must give the same error either way (the piece reader
// hands every problem to the whole-text reader).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "schema/file_io.hpp"
#include "schema/reader.hpp"
#include "support.hpp"

using namespace kbp;

namespace {

const schema::ReadOptions in_pieces(std::size_t bytes) { return {.pieces_above = 0, .piece_bytes = bytes}; }

std::string error_of(const std::string& text, const schema::ReadOptions& options) {
    auto b = schema::read_blueprint(text, "plan.json", options);
    return b ? std::string("ok") : b.error().text();
}

std::string replaced(std::string text, std::string_view from, std::string_view to, std::size_t nth = 0) {
    std::size_t at = text.find(from);
    for (std::size_t i = 0; i < nth && at != std::string::npos; ++i) at = text.find(from, at + 1);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("a plan read in pieces equals the plan read whole", "[reader][pieces]") {
    for (const char* sample : {"samples/glm-5.3-flash/decode.plan.json", "samples/sarashina2.2-3b/decode.qc-u.plan.json"}) {
        const std::string path = test::source_dir() + "/" + sample;
        auto text = read_file(path);
        REQUIRE(text);
        auto whole = schema::read_blueprint(*text, path);
        REQUIRE(whole);
        for (std::size_t bytes : {std::size_t{1}, std::size_t{700}, std::size_t{1} << 16, std::size_t{1} << 22}) {
            INFO(sample << ", pieces of " << bytes << " bytes");
            auto pieces = schema::read_blueprint(*text, path, in_pieces(bytes));
            REQUIRE(pieces);
            CHECK(*pieces == *whole);
        }
        auto mapped = schema::load_blueprint(path, in_pieces(1 << 12));  // the file mapped, pages released
        REQUIRE(mapped);
        CHECK(*mapped == *whole);
    }
}

TEST_CASE("a broken plan gives the same error in pieces as whole", "[reader][pieces]") {
    const std::string& seed = test::seed_text();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"a syntax error in the middle of the nodes", replaced(seed, "\"order\":900,", "\"order\":900")},
        {"a wrong type deep in the edges", replaced(seed, "\"fused\":false", "\"fused\":0", 1500)},
        {"a duplicate top-level member", replaced(seed, "\"lineage\":", "\"schema\":\"kbp-graph/v2\",\"lineage\":")},
        {"an escaped key that repeats a member", replaced(seed, "\"lineage\":", "\"\\u0073chema\":\"kbp-graph/v2\",\"lineage\":")},
        {"text after the plan", seed + " {}"},
        {"a truncated plan", seed.substr(0, seed.size() / 2)},
        {"an unterminated string in a group", replaced(seed, "\"rule\":\"", "\"rule\":\"\\", 300)},
        {"a node that is not an object", replaced(seed, "{\"id\":\"l3.dsa.input_norm\"", "[{\"id\":\"l3.dsa.input_norm\"")},
    };
    for (const auto& [what, text] : cases) {
        INFO(what);
        const std::string whole = error_of(text, {});
        CHECK(whole != "ok");
        for (std::size_t bytes : {std::size_t{1}, std::size_t{1} << 14}) CHECK(error_of(text, in_pieces(bytes)) == whole);
    }
}

TEST_CASE("empty lists, unknown members and escaped keys read the same in pieces", "[reader][pieces]") {
    const std::vector<std::string> texts = {
        R"({"schema": "kbp-graph/v2", "arm": {"mode": "decode", "rows": 1}, "layers": [], "nodes": [], "edges": [ ], "groups": []})",
        replaced(test::seed_text(), "\"nodes\":[", "\"nodes\":[],\"x\":["),          // the nodes kept as an unknown member
        replaced(test::seed_text(), "\"lineage\":", "\"line\\u0061ge\":"),            // an escaped key: read whole
    };
    for (const auto& text : texts) {
        auto whole = schema::read_blueprint(text, "plan.json");
        REQUIRE(whole);
        for (std::size_t bytes : {std::size_t{1}, std::size_t{1} << 14}) {
            auto pieces = schema::read_blueprint(text, "plan.json", in_pieces(bytes));
            REQUIRE(pieces);
            CHECK(*pieces == *whole);
        }
    }
}
