// The collapsed form: collapse reproduces the seed's templates, kbp's lossless collapse expands
// back to the flat lists, a collapsed-only file round-trips, and mismatches are named.
#include <catch2/catch.hpp>

#include "schema/reader.hpp"
#include "schema/templates.hpp"
#include "schema/validator.hpp"
#include "schema/writer.hpp"
#include "support.hpp"

using namespace kbp;
using namespace kbp::schema;
using kbp::test::OJson;

namespace {

const Collapsed& detailed() {
    static const Collapsed c = [] {
        auto r = collapse_layers(test::seed(), CollapseOptions{true});
        if (!r) throw std::runtime_error("collapse with detail failed: " + r.error().text());
        return std::move(*r);
    }();
    return c;
}

void compare_flat(test::Diff& d, const FlatLists& flat, const Blueprint& b) {
    test::compare_lists(d, "/nodes", flat.nodes, b.nodes);
    test::compare_lists(d, "/edges", flat.edges, b.edges);
    test::compare_lists(d, "/groups", flat.groups, b.groups);
}

}  // namespace

TEST_CASE("templates: collapse without detail reproduces the seed's collapsed form", "[templates]") {
    const Blueprint& b = test::seed();
    REQUIRE(b.collapsed.has_value());
    auto c = collapse_layers(b, CollapseOptions{false});
    REQUIRE(c.ok());
    test::Diff diff;
    test::compare(diff, "/collapsed", *c, *b.collapsed);
    INFO(diff.report());
    CHECK(diff.empty());
    CHECK(*c == *b.collapsed);
    CHECK(c->prologue == std::vector<std::string>{"embed"});
    CHECK(c->epilogue == std::vector<std::string>{"head"});
    CHECK(c->layout.size() == test::seed_layers);
    CHECK(c->templates.size() == 5);
}

TEST_CASE("templates: the seed's templates expand onto its flat lists", "[templates]") {
    const Blueprint& b = test::seed();
    auto flat = expand_templates(b);
    REQUIRE(flat.ok());
    CHECK_FALSE(flat->complete);  // the seed's templates lack steps, points, tensor names ...
    CHECK(flat->nodes.size() == test::seed_nodes);
    CHECK(flat->edges.size() == test::seed_edges);
    CHECK(flat->groups.size() == test::seed_groups);
    // The fields the seed's templates do carry come back exactly.
    test::Diff diff;
    for (std::size_t i = 0; i < std::min(flat->nodes.size(), b.nodes.size()); ++i) {
        const Node& e = flat->nodes[i];
        const Node& a = b.nodes[i];
        std::string at = "/nodes/" + std::to_string(i);
        diff.field(at + "/id", e.id, a.id);
        diff.field(at + "/order", e.order, a.order);
        diff.field(at + "/layer", e.layer, a.layer);
        diff.field(at + "/block", e.block, a.block);
        diff.field(at + "/op", e.op, a.op);
        diff.field(at + "/precision", e.precision, a.precision);
        diff.field(at + "/group", e.group, a.group);
        diff.field(at + "/kernel", e.kernel, a.kernel);
        diff.field(at + "/family", e.family, a.family);
        diff.field(at + "/where", e.where, a.where);
        diff.field(at + "/inserted", e.inserted, a.inserted);
    }
    for (std::size_t i = 0; i < std::min(flat->edges.size(), b.edges.size()); ++i) {
        std::string at = "/edges/" + std::to_string(i);
        diff.field(at + "/from", flat->edges[i].from, b.edges[i].from);
        diff.field(at + "/to", flat->edges[i].to, b.edges[i].to);
        diff.field(at + "/format", flat->edges[i].format, b.edges[i].format);
        diff.field(at + "/fused", flat->edges[i].fused, b.edges[i].fused);
    }
    for (std::size_t i = 0; i < std::min(flat->groups.size(), b.groups.size()); ++i)
        diff.field("/groups/" + std::to_string(i) + "/nodes", flat->groups[i].nodes, b.groups[i].nodes);
    INFO(diff.report());
    CHECK(diff.empty());

    schema::Diagnostics d;
    check_expansion(b, d);
    INFO(test::list_diagnostics(d));
    CHECK(d.empty());
}

TEST_CASE("templates: collapse with detail expands back to the complete flat lists", "[templates]") {
    Blueprint b = test::seed();
    b.collapsed = detailed();
    auto flat = expand_templates(b);
    REQUIRE(flat.ok());
    CHECK(flat->complete);
    test::Diff diff;
    compare_flat(diff, *flat, test::seed());
    INFO(diff.report());
    CHECK(diff.empty());
    CHECK(diff.compared() > 1740 * 19);
    CHECK(flat->nodes == test::seed().nodes);
    CHECK(flat->edges == test::seed().edges);
    CHECK(flat->groups == test::seed().groups);

    SECTION("and the blueprint with the detailed form still validates") {
        auto d = validate(b);
        INFO(test::list_diagnostics(d));
        CHECK(d.empty());
    }
    SECTION("the detailed form keeps the seed's template shapes") {
        const Collapsed& plain = *test::seed().collapsed;
        const Collapsed& full = detailed();
        REQUIRE(full.templates.size() == plain.templates.size());
        for (std::size_t t = 0; t < full.templates.size(); ++t) {
            INFO("template " << full.templates[t].name);
            CHECK(full.templates[t].name == plain.templates[t].name);
            CHECK(full.templates[t].nodes.size() == plain.templates[t].nodes.size());
            CHECK(full.templates[t].edges.size() == plain.templates[t].edges.size());
            CHECK(full.templates[t].instances == plain.templates[t].instances);
            REQUIRE(full.templates[t].groups.has_value());
        }
    }
}

TEST_CASE("templates: a collapsed-only blueprint round-trips and expands to the flat lists", "[templates]") {
    Blueprint b = test::seed();
    b.collapsed = detailed();
    b.collapsed_only = true;
    b.nodes.clear();
    b.edges.clear();
    b.groups.clear();
    std::string text = write_blueprint(b, WriteOptions{true});
    OJson doc = OJson::parse(text);
    CHECK_FALSE(doc.contains("nodes"));
    CHECK_FALSE(doc.contains("edges"));
    CHECK_FALSE(doc.contains("groups"));
    CHECK(doc.contains("collapsed"));
    CHECK(text.size() < test::seed_text().size());

    auto back = read_blueprint(text, "collapsed-only.json");
    REQUIRE(back.ok());
    CHECK(back->collapsed_only);
    CHECK(back->nodes.empty());
    CHECK(*back == b);
    CHECK(write_blueprint(*back, WriteOptions{true}) == text);

    auto d = validate(*back);
    INFO(test::list_diagnostics(d));
    CHECK(d.empty());

    auto flat = expand_templates(*back);
    REQUIRE(flat.ok());
    CHECK(flat->complete);
    test::Diff diff;
    compare_flat(diff, *flat, test::seed());
    INFO(diff.report());
    CHECK(diff.empty());

    SECTION("filling the flat lists back in gives the seed's flat lists") {
        Blueprint full = *back;
        full.nodes = flat->nodes;
        full.edges = flat->edges;
        full.groups = flat->groups;
        full.collapsed_only = false;
        full.collapsed = test::seed().collapsed;
        CHECK(full == test::seed());
        CHECK(write_blueprint(full, WriteOptions{false}) == test::seed_text() + "\n");
    }
}

TEST_CASE("templates: an instance that differs from its template cannot be collapsed", "[templates]") {
    // Layer 7 is a dsa+moe layer (template first seen at layer 3); change one of its nodes.
    Blueprint b = test::seed();
    REQUIRE(b.layers[7].template_name == "dsa+moe");
    std::size_t k = 0;
    while (b.nodes[k].layer != std::optional<std::int64_t>(7)) ++k;
    b.nodes[k + 3].family = "something_else";
    for (bool detail : {false, true}) {
        DYNAMIC_SECTION("detail " << detail) {
            auto c = collapse_layers(b, CollapseOptions{detail});
            REQUIRE_FALSE(c.ok());
            INFO(c.error().text());
            CHECK(c.error().code == ErrorCode::invalid_input);
            CHECK(c.error().where == "/layers/7");
            CHECK_THAT(c.error().message, Catch::Contains("dsa+moe"));
            CHECK_THAT(c.error().message, Catch::Contains("layer 3"));
            CHECK_THAT(c.error().message, Catch::Contains(b.nodes[k + 3].id.substr(3)));
        }
    }
    SECTION("and validation names the node") {
        auto d = validate(b);
        INFO(test::list_diagnostics(d));
        CHECK(test::has_pointer(d, "/nodes/" + std::to_string(k + 3) + "/family"));
    }
}

TEST_CASE("templates: expansion errors name the template member", "[templates]") {
    SECTION("unknown template in the layout") {
        Blueprint b = test::seed();
        b.collapsed->layout[4] = "nope";
        auto flat = expand_templates(b);
        REQUIRE_FALSE(flat.ok());
        CHECK(flat.error().where == "/collapsed/layout/4");
        CHECK_THAT(flat.error().message, Catch::Contains("nope"));
    }
    SECTION("template edge beyond the template's nodes") {
        Blueprint b = test::seed();
        b.collapsed->templates[0].edges[0].to = 99;
        auto flat = expand_templates(b);
        REQUIRE_FALSE(flat.ok());
        CHECK(flat.error().where == "/collapsed/templates/" + b.collapsed->templates[0].name + "/edges/0");
    }
    SECTION("port beyond the template's nodes") {
        Blueprint b = test::seed();
        b.collapsed->templates[1].ports.in.push_back(1000);
        auto flat = expand_templates(b);
        REQUIRE_FALSE(flat.ok());
        CHECK_THAT(flat.error().where, Catch::StartsWith("/collapsed/templates/" + b.collapsed->templates[1].name + "/ports/in/"));
    }
    SECTION("no collapsed form") {
        Blueprint b = test::seed();
        b.collapsed.reset();
        auto flat = expand_templates(b);
        REQUIRE_FALSE(flat.ok());
        CHECK(flat.error().where == "/collapsed");
    }
}

// Regression (found by this suite, fixed): a template node's local `group` is only bounded by the reader's index limit
// (2^31-1). expand_templates creates one Group per local group number up to the largest one,
// so "group": 2147483646 in a template without `groups` makes `kbp expand` allocate about 2^31
// groups (hundreds of GB) instead of failing with an error at the template node. Run in a
// child process with a time and memory limit.
TEST_CASE("templates: a huge template-local group number fails instead of exhausting memory",
          "[templates]") {
    auto run = test::run_isolated(
        [] {
            Blueprint b = test::seed();
            b.collapsed->templates[0].nodes[0].group = 2147483646;
            auto flat = expand_templates(b);
            if (flat) return "expanded to " + std::to_string(flat->groups.size()) + " groups";
            return "error " + flat.error().text();
        },
        20, 2048);
    INFO(run.describe());
    REQUIRE(run.finished);
    CHECK_THAT(run.output, Catch::StartsWith("error /collapsed/templates/embed/nodes/0"));
}
