// An architecture that extends another ("extends": "llama") is merged onto it when the catalog
// loads: keyed members (symbols, limits, blocks, config_defaults) by key, the parent's entries
// first, a null entry removing one; any other member given replaces the parent's whole. An unknown
// parent, a cycle, an inherited symbol reading one the child redefines, and a merge the schema
// refuses are refused at the child's file with a JSON pointer (exit 2); a plan records the parent.
#include <catch2/catch.hpp>

#include <filesystem>

#include "planner/catalog.hpp"
#include "planner/plan.hpp"
#include "support.hpp"

namespace {

using kbp::test::OJson;
namespace fs = std::filesystem;

const std::string root = KBP_SOURCE_DIR;

// A catalog folder holding `files` (architectures/<name>.json -> its JSON), loaded.
struct Loaded {
    kbp::test::TempDir dir;
    kbp::Result<kbp::planner::Catalog> catalog = kbp::make_error(kbp::ErrorCode::internal, "", "not loaded");
};

std::unique_ptr<Loaded> load_with(const std::vector<std::pair<std::string, OJson>>& files) {
    auto out = std::make_unique<Loaded>();
    fs::create_directories(out->dir.file("architectures"));
    for (const auto& [name, json] : files) kbp::test::spit(out->dir.file("architectures/" + name + ".json"), json.dump(1));
    out->catalog = kbp::planner::Catalog::load(out->dir.path());
    return out;
}

// A child of llama planning model_type `type`, with `members` added.
OJson child(const std::string& name, const std::string& parent, const OJson& members = OJson::object()) {
    OJson j = {{"name", name}, {"extends", parent}, {"model_types", {name + "_type"}}};
    for (const auto& [k, v] : members.items()) j[k] = v;
    return j;
}

// Where a load failed, relative to the catalog folder, and what it said.
std::string where(const Loaded& l) {
    REQUIRE_FALSE(l.catalog.ok());
    std::string w = l.catalog.error().where;
    if (w.rfind(l.dir.path(), 0) == 0) w = w.substr(l.dir.path().size() + 1);
    return w;
}

std::vector<std::string> keys(const OJson& j) {
    std::vector<std::string> out;
    for (const auto& [k, _] : j.items()) out.push_back(k);
    return out;
}

}  // namespace

TEST_CASE("architectures: a file that extends another merges onto it by key", "[data][extends]") {
    const OJson llama = OJson::parse(kbp::test::slurp(root + "/planner/data/architectures/llama.json"));
    OJson attn = llama["blocks"]["attn"];
    attn["ops"][0]["module"] = "self_attn.pre_norm";  // a block given replaces the parent's of that name
    auto l = load_with({{"llama_plus", child("llama_plus", "llama",
                                             {{"symbols", {{"mlp_bias", nullptr}, {"inter", "intermediate_size"}, {"extra", {{"from", "extra_field"}, {"default", 3}}}}},
                                              {"limits", {{"mlp_bias", nullptr}, {"extra", {1, 8}}}},
                                              {"checks", OJson::array({{{"expr", "extra > 0"}, {"field", "extra_field"}}})},
                                              {"blocks", {{"attn", attn}}}})}});
    INFO((l->catalog ? std::string() : l->catalog.error().text()));
    REQUIRE(l->catalog.ok());
    auto merged = l->catalog->get("architectures", "llama_plus");
    REQUIRE(merged.ok());
    const OJson& j = (*merged)->json;
    // The parent's symbols the child does not name, in the parent's order, then the child's.
    CHECK(keys(j["symbols"]) == std::vector<std::string>{"mlp_act", "rope_kind", "attn_bias", "hidden", "vocab", "layers", "q_heads", "kv_heads",
                                                         "explicit_head_dim", "head_dim", "sliding_window", "inter", "extra"});
    CHECK_FALSE(j["limits"].contains("mlp_bias"));
    CHECK(j["limits"]["extra"] == OJson({1, 8}));
    CHECK(j["limits"]["layers"] == llama["limits"]["layers"]);
    // Lists given replace the parent's; the rest is inherited whole.
    CHECK(j["checks"].size() == 1);
    CHECK(j["describes"] == llama["describes"]);
    CHECK(j["layers"] == llama["layers"]);
    CHECK(j["blocks"]["attn"]["ops"][0]["module"] == "self_attn.pre_norm");
    CHECK(j["blocks"]["mlp"] == llama["blocks"]["mlp"]);
    CHECK(j["blocks"]["head"] == llama["blocks"]["head"]);
    // Its own name and model types, never the parent's; the parent is recorded.
    CHECK(j["name"] == "llama_plus");
    CHECK(j["model_types"] == OJson({"llama_plus_type"}));
    CHECK(j.value("description", std::string()).empty());
    REQUIRE((*merged)->bases.size() == 1);
    CHECK((*merged)->bases.front()->name == "llama");
}

TEST_CASE("architectures: a grandchild merges onto its parent's merge", "[data][extends]") {
    auto l = load_with({{"b_arch", child("b_arch", "a_arch", {{"symbols", {{"b_sym", {{"from", "b"}, {"default", 2}}}}}})},
                        {"a_arch", child("a_arch", "llama", {{"symbols", {{"a_sym", {{"from", "a"}, {"default", 1}}}}}})}});
    INFO((l->catalog ? std::string() : l->catalog.error().text()));
    REQUIRE(l->catalog.ok());
    auto b = l->catalog->get("architectures", "b_arch");
    REQUIRE(b.ok());
    const auto symbols = keys((*b)->json["symbols"]);
    CHECK(symbols.size() == 15);  // llama's 13, a's, b's
    CHECK(symbols[13] == "a_sym");
    CHECK(symbols[14] == "b_sym");
    REQUIRE((*b)->bases.size() == 2);
    CHECK((*b)->bases[0]->name == "a_arch");
    CHECK((*b)->bases[1]->name == "llama");
}

TEST_CASE("architectures: an unknown parent or a cycle is refused at /extends", "[data][extends]") {
    auto unknown = load_with({{"x_arch", child("x_arch", "lama")}});
    CHECK(where(*unknown) == "architectures/x_arch.json: /extends");
    CHECK_THAT(unknown->catalog.error().message, Catch::Contains("no architecture 'lama' to extend") && Catch::Contains("did you mean 'llama'?"));
    CHECK(kbp::exit_code(unknown->catalog.error().code) == 2);

    auto cycle = load_with({{"a_arch", child("a_arch", "b_arch")}, {"b_arch", child("b_arch", "a_arch")}});
    CHECK_THAT(where(*cycle), Catch::EndsWith(".json: /extends"));
    CHECK_THAT(cycle->catalog.error().message, Catch::Contains("'a_arch' extends 'b_arch' extends 'a_arch'") && Catch::Contains("cannot extend itself"));
    CHECK(kbp::exit_code(cycle->catalog.error().code) == 2);

    auto self = load_with({{"s_arch", child("s_arch", "s_arch")}});
    CHECK(where(*self) == "architectures/s_arch.json: /extends");
    CHECK_THAT(self->catalog.error().message, Catch::Contains("'s_arch' extends 's_arch'"));

    auto not_a_name = load_with({{"n_arch", child("n_arch", "llama", {{"extends", 7}})}});
    CHECK(where(*not_a_name) == "architectures/n_arch.json: /extends");
}

TEST_CASE("architectures: a merge that breaks a rule is refused at the child", "[data][extends]") {
    // The merge is checked as any architecture: inherited layers naming a removed block, inherited
    // checks reading a removed symbol.
    auto removed_block = load_with({{"r_arch", child("r_arch", "llama", {{"blocks", {{"mlp", nullptr}}}})}});
    CHECK_THAT(where(*removed_block), Catch::StartsWith("architectures/r_arch.json: /layers/slots/1"));
    CHECK(kbp::exit_code(removed_block->catalog.error().code) == 2);

    auto removed_symbol = load_with({{"q_arch", child("q_arch", "llama", {{"symbols", {{"kv_heads", nullptr}}}})}});
    CHECK_THAT(where(*removed_symbol), Catch::StartsWith("architectures/q_arch.json: /"));

    // An inherited symbol read by name would read the config field instead, unnoticed: refused.
    OJson base = child("p_arch", "llama", {{"symbols", {{"width", "hidden_size"}, {"double_width", "width*2"}}}});
    auto reorder = load_with({{"p_arch", base}, {"c_arch", child("c_arch", "p_arch", {{"symbols", {{"width", "intermediate_size"}}}})}});
    CHECK(where(*reorder) == "architectures/c_arch.json: /symbols/width");
    CHECK_THAT(reorder->catalog.error().message, Catch::Contains("'double_width'") && Catch::Contains("restate 'double_width' here too"));

    // A null removes an inherited entry: in a file that extends nothing it is a mistake.
    OJson plain = OJson::parse(kbp::test::slurp(root + "/planner/data/architectures/llama.json"));
    plain["name"] = "plain_arch";
    plain["model_types"] = {"plain_type"};
    plain["symbols"]["gone"] = nullptr;
    auto stray_null = load_with({{"plain_arch", plain}});
    CHECK(where(*stray_null) == "architectures/plain_arch.json: /symbols/gone");
}

TEST_CASE("architectures: a plan of an extending architecture records the file it extends", "[data][extends]") {
    kbp::planner::PlanRequest r;
    r.config_path = root + "/samples/qwen3-8b/config.json";
    r.command = "kbp plan (test)";
    auto p = kbp::planner::make_plan(r);
    INFO((p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    const auto& files = p->blueprint.provenance->files;
    REQUIRE(files.size() > 4);
    CHECK(files[1].path == "embedded:architectures/qwen3.json");
    CHECK(files[2].path == "embedded:recipes/fp8-dynamic.json");
    CHECK(std::any_of(files.begin(), files.end(), [](const auto& f) { return f.path == "embedded:architectures/llama.json"; }));
}
