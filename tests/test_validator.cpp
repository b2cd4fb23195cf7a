// The validator: the seed is clean, and each broken invariant of kbp-graph/v2, applied to the
// seed as an RFC 6902 patch, is reported at the JSON pointer of the broken value.
#include <catch2/catch.hpp>

#include "schema/reader.hpp"
#include "schema/validator.hpp"
#include "support.hpp"

using namespace kbp;
using namespace kbp::schema;
using kbp::test::OJson;

namespace {

// Reads the patched seed; a case whose patch does not even read is a broken test.
Blueprint read_mutated(const OJson& ops) {
    auto r = read_blueprint(test::mutate_seed(ops), "mutated-seed.json");
    if (!r) FAIL("the mutated seed does not read: " << r.error().text());
    return std::move(*r);
}

struct Case {
    const char* name;
    const char* ops;      // a JSON array of RFC 6902 operations
    const char* pointer;  // the diagnostic that must be among the results
};

// Indices refer to the seed (facts in /work/shared/docs/kbp-graph-v2-facts.md): node 1 is
// embed.expand (group 1), nodes 2-4 are group 2, node 5 is l0.kda.q (template kda+mlp node 3;
// layer 0 starts at node 2, layer 1 at 34, layer 2 at 66), group 5 is nodes 12-14, edge 24 is
// a producer-side requant bf16 -> fp8/token, edge 187 an expert-row edge (bf16 4096 x top_k 8).
const Case cases[] = {
    {"order differs from the index", R"([{"op":"replace","path":"/nodes/5/order","value":6}])", "/nodes/5/order"},
    {"duplicate node id", R"([{"op":"replace","path":"/nodes/6/id","value":"l0.kda.q"}])", "/nodes/6/id"},
    {"group id differs from the index", R"([{"op":"replace","path":"/groups/4/id","value":5}])", "/groups/4/id"},
    {"dangling edge (to)", R"([{"op":"replace","path":"/edges/20/to","value":99999}])", "/edges/20/to"},
    {"dangling edge (from)", R"([{"op":"replace","path":"/edges/2503/from","value":5000}])", "/edges/2503/from"},
    {"backward edge", R"([{"op":"replace","path":"/edges/100/to","value":67}])", "/edges/100/to"},
    {"edge to itself", R"([{"op":"replace","path":"/edges/100/to","value":68}])", "/edges/100/to"},
    {"fused set across groups", R"([{"op":"replace","path":"/edges/0/fused","value":true}])", "/edges/0/fused"},
    {"fused cleared inside a group", R"([{"op":"replace","path":"/edges/5/fused","value":false}])", "/edges/5/fused"},
    {"node in two groups", R"([{"op":"replace","path":"/groups/2/nodes","value":[1,2,3,4]}])", "/groups/2/nodes/0"},
    {"non-contiguous group", R"([{"op":"replace","path":"/groups/5/nodes","value":[12,14,13]}])", "/groups/5/nodes/1"},
    {"node in no group", R"([{"op":"replace","path":"/groups/5/nodes","value":[12,13]}])", "/nodes/14/group"},
    {"node names the wrong group", R"([{"op":"replace","path":"/nodes/5/group","value":4}])", "/nodes/5/group"},
    {"node where differs from its group", R"([{"op":"replace","path":"/nodes/1/where","value":"host"}])", "/nodes/1/where"},
    {"node kernel not among its group's", R"([{"op":"replace","path":"/nodes/3/kernel","value":"other::kernel"}])",
     "/nodes/3/kernel"},
    {"kernel not namespace::entry", R"([{"op":"replace","path":"/nodes/3/kernel","value":"plain"}])", "/nodes/3/kernel"},
    {"bytes_per_token wrong", R"([{"op":"replace","path":"/edges/0/bytes_per_token","value":8193}])",
     "/edges/0/bytes_per_token"},
    {"expert-row bytes_per_token without the top_k factor", R"([{"op":"replace","path":"/edges/187/bytes_per_token","value":8192}])",
     "/edges/187/bytes_per_token"},
    {"bytes_per_token null on an edge that leaves its kernel",
     R"([{"op":"replace","path":"/edges/0/bytes_per_token","value":null}])", "/edges/0/bytes_per_token"},
    {"requant from and to the same format", R"([{"op":"replace","path":"/edges/24/requant/from","value":"fp8/token"}])",
     "/edges/24/requant"},
    {"producer-side requant to another format than the edge's",
     R"([{"op":"replace","path":"/edges/24/requant/to","value":"bf16"}])", "/edges/24/requant/to"},
    {"edge format its producer does not write", R"([{"op":"replace","path":"/edges/0/format","value":"f32"}])",
     "/edges/0/format"},
    {"layer template differs from the layout", R"([{"op":"replace","path":"/layers/5/template","value":"dsa+moe"}])",
     "/collapsed/layout/5"},
    {"layer index differs from its position", R"([{"op":"replace","path":"/layers/3/index","value":4}])", "/layers/3/index"},
    {"layer block without the layer prefix", R"([{"op":"replace","path":"/layers/2/blocks/0","value":"l9.kda"}])",
     "/layers/2/blocks/0"},
    {"node kind differs from its layer's", R"([{"op":"replace","path":"/nodes/5/kind","value":"deepseek_sparse_attention"}])",
     "/nodes/5/kind"},
    {"node block not a block of its layer", R"([{"op":"replace","path":"/nodes/5/block","value":"l0.xyz"}])", "/nodes/5/block"},
    {"only act_quant nodes are inserted", R"([{"op":"replace","path":"/nodes/5/inserted","value":true}])", "/nodes/5/inserted"},
    {"projection roles differ from the op's role", R"([{"op":"replace","path":"/nodes/5/roles","value":["k"]}])",
     "/nodes/5/roles"},
    {"template node op changed: expansion mismatch (first instance)",
     R"([{"op":"replace","path":"/collapsed/templates/kda+mlp/nodes/3/op","value":"linear:z"}])", "/nodes/5/op"},
    {"template node op changed: expansion mismatch (third instance)",
     R"([{"op":"replace","path":"/collapsed/templates/kda+mlp/nodes/3/op","value":"linear:z"}])", "/nodes/69/op"},
    {"template node group changed", R"([{"op":"replace","path":"/collapsed/templates/kda+mlp/nodes/3/group","value":2}])",
     "/nodes/5/group"},
    // Node 14 moved from group 5 to group 6 with the flat lists kept consistent: only the
    // collapsed form, which puts it in group 5 in every layer, sees both groups differ.
    {"a group that lost a member to the next one",
     R"([{"op":"replace","path":"/groups/5/nodes","value":[12,13]},{"op":"replace","path":"/groups/6/nodes","value":[14,15,16,17,18,19]},
         {"op":"add","path":"/groups/6/kernels/-","value":"causal_conv1d::causal_conv1d_update_l2norm"},{"op":"replace","path":"/nodes/14/group","value":6}])",
     "/groups/5/nodes"},
    {"a group that gained a member from the one before",
     R"([{"op":"replace","path":"/groups/5/nodes","value":[12,13]},{"op":"replace","path":"/groups/6/nodes","value":[14,15,16,17,18,19]},
         {"op":"add","path":"/groups/6/kernels/-","value":"causal_conv1d::causal_conv1d_update_l2norm"},{"op":"replace","path":"/nodes/14/group","value":6}])",
     "/groups/6/nodes"},
    {"template edge format changed", R"([{"op":"replace","path":"/collapsed/templates/embed/edges/0/format","value":"f32"}])",
     "/edges/0/format"},
    {"template instances differ from the layout",
     R"([{"op":"replace","path":"/collapsed/templates/kda+mlp/instances","value":[0,1]}])",
     "/collapsed/templates/kda+mlp/instances"},
    {"layout names an unknown template", R"([{"op":"replace","path":"/collapsed/layout/0","value":"kda+xyz"}])",
     "/collapsed/layout/0"},
    {"template edge names a node the template lacks",
     R"([{"op":"replace","path":"/collapsed/templates/embed/edges/0/to","value":7}])", "/collapsed/templates/embed/edges/0"},
    {"explain misses a family", R"([{"op":"remove","path":"/explain/families/glm_mhc"}])", "/nodes/1/family"},
    {"explain misses a format", R"([{"op":"remove","path":"/explain/formats/fp8~1channel"}])", "/nodes/16/precision/weight"},
    {"edges not ordered by producer",
     R"([{"op":"replace","path":"/edges/0","value":{"id":"embed.streams","from":1,"to":2,"format":"f32","rows":"n","dim":"hc*hidden","fused":false,"dim_value":16384,"bytes_per_token":65536,"requant":null}},
         {"op":"replace","path":"/edges/1","value":{"id":"embed.h","from":0,"to":1,"format":"bf16","rows":"n","dim":"hidden","fused":false,"dim_value":4096,"bytes_per_token":8192,"requant":null}}])",
     "/edges/1/from"},
    {"unknown arm mode", R"([{"op":"replace","path":"/arm/mode","value":"turbo"}])", "/arm/mode"},
    {"unknown place", R"([{"op":"replace","path":"/groups/0/where","value":"tpu"},{"op":"replace","path":"/nodes/0/where","value":"tpu"}])",
     "/groups/0/where"},
};

}  // namespace

TEST_CASE("validator: the seed has no diagnostics", "[validator]") {
    const Blueprint& b = test::seed();
    REQUIRE(b.nodes.size() == test::seed_nodes);
    REQUIRE(b.edges.size() == test::seed_edges);
    REQUIRE(b.groups.size() == test::seed_groups);
    auto d = validate(b);
    INFO(test::list_diagnostics(d));
    CHECK(d.total() == 0);
    CHECK(d.items().empty());
}

TEST_CASE("validator: the seed read from its own compact output has no diagnostics", "[validator]") {
    // The seed file contains the same blueprint; a clean re-read must stay clean.
    auto r = read_blueprint(test::seed_text(), "seed-copy.json");
    REQUIRE(r.ok());
    auto d = validate(*r);
    INFO(test::list_diagnostics(d));
    CHECK(d.empty());
}

TEST_CASE("validator: each broken invariant is reported at its pointer", "[validator]") {
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            Blueprint b = read_mutated(OJson::parse(c.ops));
            auto d = validate(b);
            INFO("case: " << c.name << "\nexpected a diagnostic at " << c.pointer << "\ngot " << test::list_diagnostics(d));
            CHECK(test::has_pointer(d, c.pointer));
            CHECK(d.total() >= 1);
            for (const auto& item : d.items()) {
                CHECK_FALSE(item.message.empty());
                CHECK(item.pointer.rfind("/", 0) == 0);
            }
        }
    }
}

TEST_CASE("validator: symbols are checked against symbolic dims", "[validator]") {
    auto base = test::slurp(test::corpus_dir() + "/files/minimal_valid.json");
    OJson doc = OJson::parse(base);
    REQUIRE(validate(*read_blueprint(base, "minimal_valid.json")).empty());

    SECTION("consistent symbols: clean") {
        doc["symbols"] = {{"hidden", 4096}, {"vocab", 154880}};
        auto b = read_blueprint(doc.dump(), "symbols.json");
        REQUIRE(b.ok());
        REQUIRE(b->symbols.has_value());
        auto d = validate(*b);
        INFO(test::list_diagnostics(d));
        CHECK(d.empty());
    }
    SECTION("a symbol that disagrees with dim_value") {
        doc["symbols"] = {{"hidden", 4000}};
        auto b = read_blueprint(doc.dump(), "symbols.json");
        REQUIRE(b.ok());
        auto d = validate(*b);
        INFO(test::list_diagnostics(d));
        CHECK(test::has_pointer(d, "/edges/0/dim_value"));
        CHECK(test::has_pointer(d, "/edges/1/dim_value"));
    }
    SECTION("a dim that names a symbol the table lacks") {
        doc["symbols"] = {{"vocab", 154880}};
        auto b = read_blueprint(doc.dump(), "symbols.json");
        REQUIRE(b.ok());
        auto d = validate(*b);
        INFO(test::list_diagnostics(d));
        CHECK(test::has_pointer(d, "/edges/0/dim"));
    }
}

TEST_CASE("validator: diagnostics are capped but still counted", "[validator]") {
    // An empty symbol table makes every symbolic dim of the seed unresolvable.
    Blueprint b = read_mutated(OJson::parse(R"([{"op":"add","path":"/symbols","value":{}}])"));
    REQUIRE(b.symbols.has_value());
    auto full = validate(b);
    REQUIRE(full.total() > 100);
    ValidateOptions options;
    options.max_problems = 5;
    auto capped = validate(b, options);
    CHECK(capped.items().size() == 5);
    CHECK(capped.total() == full.total());
}

TEST_CASE("validator: a collapsed-only blueprint needs a layout that expands", "[validator][templates]") {
    Blueprint b = test::seed();
    b.collapsed_only = true;
    b.nodes.clear();
    b.edges.clear();
    b.groups.clear();
    b.collapsed->layout[2] = "no-such-template";
    b.layers[2].template_name = "no-such-template";
    auto d = validate(b);
    INFO(test::list_diagnostics(d));
    CHECK(test::has_pointer(d, "/collapsed/layout/2"));
}
