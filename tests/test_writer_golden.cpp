// The writer's bytes do not change: the seed, the GPNPU sample, plans kbp makes of several
// families, a collapsed-only plan and a blueprint full of unknown members (escapes, doubles,
// big integers, nested objects) are written pretty and compact and hashed, and every hash must
// equal the one in tests/golden/writer.sha256, made by the writer before it was rewritten.
// KBP_GOLDEN_UPDATE=1 rewrites that file instead (only when the output is meant to change).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <map>

#include "planner/plan.hpp"
#include "schema/file_io.hpp"
#include "schema/reader.hpp"
#include "schema/sha256.hpp"
#include "schema/writer.hpp"
#include "support.hpp"

using namespace kbp;
using namespace kbp::schema;
using kbp::test::OJson;

namespace {

std::string golden_path() { return test::source_dir() + "/tests/golden/writer.sha256"; }

// A plan's provenance names this checkout's paths and kbp's version: the golden bytes must not.
void normalize_provenance(Blueprint& b) {
    if (!b.provenance) return;
    for (auto& file : b.provenance->files) file.path = std::filesystem::path(file.path).filename().string();
    for (auto& [key, value] : b.provenance->extras)
        if (key == "kbp_version") value = JsonValue("golden");
}

Blueprint planned(const std::string& sample, const std::string& arm, std::int64_t rows) {
    planner::PlanRequest r;
    r.config_path = test::source_dir() + "/samples/" + sample + "/config.json";
    r.arm = arm;
    r.rows = rows;
    r.command = "kbp plan (golden)";
    auto p = planner::make_plan(r);
    if (!p) FAIL(sample << ": " << p.error().text());
    normalize_provenance(p->blueprint);
    return std::move(p->blueprint);
}

Blueprint loaded(const std::string& path) {
    auto b = load_blueprint(path);
    if (!b) FAIL(path << ": " << b.error().text());
    return std::move(*b);
}

// Unknown members with every kind of JSON value the writer must reproduce exactly.
const char* odd_members = R"([
  {"op":"add","path":"/x_text","value":"quote \" backslash \\ slash / tab \t nl \n cr \r bs \b ff \f c1 \u0001 c1f \u001f del \u007f \u00e9 \u20ac \ud83d\ude00"},
  {"op":"add","path":"/x_numbers","value":[0.1,1.5,-0.0,0.0,1e100,1e-7,2.5e-5,0.0001,123456789012345.0,1234567890123456.0,1e21,5e-324,1.7976931348623157e308,-3,18446744073709551615,-9223372036854775808,3.0]},
  {"op":"add","path":"/x_empty","value":{"o":{},"a":[],"s":"","n":null,"t":true,"f":false}},
  {"op":"add","path":"/nodes/7/tile_hint","value":{"m":16,"list":[1,2.5,"x",null,true,{"deep":[[],[{}]]}]}},
  {"op":"add","path":"/nodes/7/precision/x_accumulate","value":"f32"},
  {"op":"replace","path":"/nodes/9/point","value":{"bk":128,"ratio":0.75,"name":"t\"ile"}},
  {"op":"add","path":"/edges/24/requant/x_scale","value":"per_row"},
  {"op":"add","path":"/groups/2/x_stream","value":"copy"},
  {"op":"add","path":"/layers/0/x_tag","value":["a",{"b":null}]},
  {"op":"add","path":"/arm/x_seq","value":7},
  {"op":"add","path":"/collapsed/x_note","value":"c"},
  {"op":"add","path":"/collapsed/templates/embed/nodes/0/x_note","value":"tn"},
  {"op":"add","path":"/collapsed/templates/embed/edges/0/x_note","value":"te"}
])";

// name -> blueprint, each written pretty and compact.
std::map<std::string, Blueprint> golden_inputs() {
    std::map<std::string, Blueprint> inputs;
    inputs.emplace("seed", test::seed());
    inputs.emplace("sarashina-qc-u", loaded(test::source_dir() + "/samples/sarashina2.2-3b/decode.qc-u.plan.json"));
    inputs.emplace("glm-decode", planned("glm-5.3-flash", "decode", 1));
    inputs.emplace("glm-prefill-512", planned("glm-5.3-flash", "prefill", 512));
    inputs.emplace("gpt-oss-20b-decode", planned("gpt-oss-20b", "decode", 1));
    inputs.emplace("qwen3-30b-a3b-multi-seq-64", planned("qwen3-30b-a3b", "multi_seq", 64));
    inputs.emplace("gemma-3-1b-decode", planned("gemma-3-1b", "decode", 1));
    inputs.emplace("deepseek-v2-lite-decode", planned("deepseek-v2-lite", "decode", 1));
    inputs.emplace("seed-over-7-layers", test::seed_over_layers(7));
    auto odd = read_blueprint(test::mutate_seed(OJson::parse(odd_members)), "odd");
    if (!odd) FAIL("odd: " << odd.error().text());
    inputs.emplace("odd-members", std::move(*odd));
    return inputs;
}

// The flattened members the diff and the viewer's inspector read, for a sample of records.
std::string written_fields_text(const Blueprint& b) {
    std::string out;
    auto add = [&](const std::vector<WrittenField>& fields) {
        for (const auto& f : fields) out += f.path + "=" + f.json + "\n";
    };
    for (std::size_t i = 0; i < b.nodes.size(); i += 7) add(written_fields(b.nodes[i]));
    for (std::size_t i = 0; i < b.edges.size(); i += 7) add(written_fields(b.edges[i]));
    for (std::size_t i = 0; i < b.groups.size(); i += 7) add(written_fields(b.groups[i]));
    return out;
}

std::map<std::string, std::string> hashes_now() {
    std::map<std::string, std::string> out;
    for (const auto& [name, b] : golden_inputs()) {
        out[name + ".pretty"] = sha256_hex(write_blueprint(b, {.pretty = true}));
        out[name + ".compact"] = sha256_hex(write_blueprint(b, {.pretty = false}));
        out[name + ".fields"] = sha256_hex(written_fields_text(b));
    }
    return out;
}

std::map<std::string, std::string> hashes_stored() {
    std::map<std::string, std::string> out;
    std::istringstream in(test::slurp(golden_path()));
    std::string hash, name;
    while (in >> hash >> name) out[name] = hash;
    return out;
}

}  // namespace

TEST_CASE("the writer's output equals the golden hashes", "[writer][golden]") {
    auto now = hashes_now();
    if (const char* update = std::getenv("KBP_GOLDEN_UPDATE"); update && std::string(update) == "1") {
        std::string text;
        for (const auto& [name, hash] : now) text += hash + "  " + name + "\n";
        test::spit(golden_path(), text);
        WARN("rewrote " << golden_path());
        return;
    }
    auto stored = hashes_stored();
    REQUIRE(stored.size() == now.size());
    for (const auto& [name, hash] : now) {
        INFO(name);
        CHECK(stored[name] == hash);
    }
}

// kbp plan writes through write_blueprint_file, a megabyte at a time: the seed (1.4 MB compact,
// 2.3 MB pretty) crosses that boundary, and the file must hold write_blueprint's bytes exactly.
TEST_CASE("a plan written to a file a piece at a time has the writer's bytes", "[writer][golden]") {
    const auto dir = std::filesystem::temp_directory_path() / ("kbp-writer-file-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    for (bool pretty : {false, true}) {
        const std::string path = (dir / (pretty ? "pretty.json" : "compact.json")).string();
        REQUIRE(schema::write_blueprint_file(path, test::seed(), {.pretty = pretty}).ok());
        auto written = read_file(path);
        REQUIRE(written);
        CHECK(*written == schema::write_blueprint(test::seed(), {.pretty = pretty}));
    }
    // A folder that is not there: the error names the file, nothing is left behind.
    auto missing = schema::write_blueprint_file((dir / "no" / "plan.json").string(), test::seed());
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().text().find("plan.json") != std::string::npos);
    std::filesystem::remove_all(dir);
}
