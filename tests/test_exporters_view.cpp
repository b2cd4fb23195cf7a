// The exporters' view model: which nodes, clusters and edges each view and cut implies, checked
// against counts computed here from the seed by other means; --layers parsing; cut errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "exporters/dot.hpp"
#include "exporters/view.hpp"
#include "schema/templates.hpp"
#include "exporters_support.hpp"
#include "support.hpp"

using namespace kbp;
namespace ex = kbp::exporters;

using test::must_view;

namespace {

std::size_t count_clusters(const ex::View& v, ex::ClusterKind kind) {
    std::size_t n = 0;
    for (const auto& c : v.clusters) n += c.kind == kind;
    return n;
}

}  // namespace

TEST_CASE("exporters: --layers takes a layer, a range or a list", "[exporters][view]") {
    auto one = ex::parse_layer_list("3", 45);
    REQUIRE(one.ok());
    CHECK(*one == std::vector<std::int64_t>{3});
    auto range = ex::parse_layer_list("3-7", 45);
    REQUIRE(range.ok());
    CHECK(*range == std::vector<std::int64_t>{3, 4, 5, 6, 7});
    auto list = ex::parse_layer_list("9,0-2,7,1", 45);
    REQUIRE(list.ok());
    CHECK(*list == std::vector<std::int64_t>{0, 1, 2, 7, 9});
    for (const char* bad : {"", "x", "3-", "-3", "7-3", "45", "0-45", "3,,4", "+3", "3.5"}) {
        auto r = ex::parse_layer_list(bad, 45);
        INFO(bad);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::usage);
    }
    CHECK(ex::parse_layer_list("45", 45).error().message.find("0-44") != std::string::npos);
}

TEST_CASE("exporters: the flat view has every op, edge and cluster of the seed", "[exporters][view]") {
    const auto& b = test::seed();
    auto v = must_view(b, {});
    std::set<std::int64_t> layers;
    std::set<std::string> blocks;
    for (const auto& n : b.nodes) {
        if (n.layer) layers.insert(*n.layer);
        blocks.insert(n.block);
    }
    std::size_t fused_groups = 0;
    for (const auto& g : b.groups) fused_groups += g.nodes.size() >= 2;
    CHECK(v.nodes.size() == test::seed_nodes);
    CHECK(v.count_nodes(ex::ViewNodeKind::op) == test::seed_nodes);
    CHECK(v.edges.size() == test::seed_edges);
    CHECK(count_clusters(v, ex::ClusterKind::layer) == layers.size());
    CHECK(count_clusters(v, ex::ClusterKind::block) == blocks.size());
    CHECK(count_clusters(v, ex::ClusterKind::group) == fused_groups);
    // Names are blueprint ids, in plan order; a parent cluster comes before its children.
    for (std::size_t i = 0; i < b.nodes.size(); ++i) REQUIRE(v.nodes[i].name == b.nodes[i].id);
    for (std::size_t i = 0; i < v.clusters.size(); ++i) {
        REQUIRE(v.clusters[i].parent < static_cast<int>(i));
        REQUIRE(v.clusters[i].name.rfind("cluster", 0) == 0);
    }
    // Layer -> block -> group nesting.
    for (const auto& c : v.clusters) {
        if (c.kind == ex::ClusterKind::block && c.layer) {
            REQUIRE(c.parent >= 0);
            CHECK(v.clusters[static_cast<std::size_t>(c.parent)].kind == ex::ClusterKind::layer);
        }
        if (c.kind == ex::ClusterKind::group) {
            REQUIRE(c.parent >= 0);
            CHECK(v.clusters[static_cast<std::size_t>(c.parent)].kind == ex::ClusterKind::block);
        }
    }
    for (const auto& e : v.edges) CHECK(e.fused == e.edge->fused);
}

TEST_CASE("exporters: the groups view has one node per kernel group and merges readers", "[exporters][view]") {
    const auto& b = test::seed();
    auto v = must_view(b, {.kind = ex::ViewKind::groups});
    std::set<std::tuple<std::int64_t, std::int64_t, std::string, std::string>> crossing;
    std::int64_t crossing_bytes = 0;
    for (const auto& e : b.edges) {
        auto gf = b.nodes[static_cast<std::size_t>(e.from)].group, gt = b.nodes[static_cast<std::size_t>(e.to)].group;
        if (gf == gt) continue;
        crossing.insert({gf, gt, e.id, std::string(e.format.name())});
        crossing_bytes += e.bytes_per_token.value_or(0);
    }
    CHECK(v.nodes.size() == test::seed_groups);
    CHECK(v.count_nodes(ex::ViewNodeKind::group) == test::seed_groups);
    CHECK(v.edges.size() == crossing.size());
    std::int64_t bytes = 0;
    int readers = 0;
    for (const auto& e : v.edges) {
        bytes += e.bytes_per_token.value_or(0);
        readers += e.readers;
        CHECK_FALSE(e.fused);
    }
    // Merging keeps every byte that moves between kernels (kbp stats counts the same).
    CHECK(bytes == crossing_bytes);
    CHECK(readers == static_cast<int>(std::count_if(b.edges.begin(), b.edges.end(), [](const auto& e) { return !e.fused; })));
    CHECK(count_clusters(v, ex::ClusterKind::group) == 0);
    CHECK(v.nodes[52].name == "g52");
}

TEST_CASE("exporters: the collapsed view has one cluster per template and the port edges", "[exporters][view]") {
    const auto& b = test::seed();
    REQUIRE(b.collapsed);
    const auto& c = *b.collapsed;
    auto v = must_view(b, {.kind = ex::ViewKind::collapsed});

    std::size_t nodes = 0, edges = 0, clusters = 0;
    for (const auto& t : c.templates) {
        nodes += t.nodes.size();
        edges += t.edges.size();
        std::set<std::string> blocks;
        std::map<std::int64_t, int> group_size;
        for (const auto& n : t.nodes) {
            blocks.insert(n.id.substr(0, n.id.find('.')));
            ++group_size[n.group];
        }
        clusters += 1 + blocks.size();
        for (const auto& [g, size] : group_size) clusters += size >= 2;
    }
    // Port edges: for each pair of templates that follow each other, one edge from each out
    // port to each fused group of in ports (an in port outside a fused group on its own).
    std::vector<std::string> seq(c.prologue);
    seq.insert(seq.end(), c.layout.begin(), c.layout.end());
    seq.insert(seq.end(), c.epilogue.begin(), c.epilogue.end());
    std::set<std::pair<std::string, std::string>> pairs;
    for (std::size_t i = 1; i < seq.size(); ++i) pairs.insert({seq[i - 1], seq[i]});
    std::size_t port_edges = 0;
    for (const auto& [from, to] : pairs) {
        const auto* a = c.find(from);
        const auto* t = c.find(to);
        std::map<std::int64_t, int> group_size;
        for (const auto& n : t->nodes) ++group_size[n.group];
        std::set<std::int64_t> buckets;
        for (auto in : t->ports.in) {
            auto g = t->nodes[static_cast<std::size_t>(in)].group;
            buckets.insert(group_size[g] >= 2 ? g : -1000 - in);
        }
        port_edges += a->ports.out.size() * buckets.size();
    }
    CHECK(v.nodes.size() == nodes);
    CHECK(v.clusters.size() == clusters);
    CHECK(count_clusters(v, ex::ClusterKind::layer_template) == c.templates.size());
    CHECK(v.edges.size() == edges + port_edges);
    std::size_t ports = 0;
    for (const auto& e : v.edges) ports += e.role == ex::EdgeRole::port;
    CHECK(ports == port_edges);

    // "kda+moe × 31": instances per template, as the layout says.
    std::map<std::string, std::size_t> count;
    for (const auto& name : c.layout) ++count[name];
    for (const auto& cl : v.clusters)
        if (cl.kind == ex::ClusterKind::layer_template && cl.placement == "layers")
            CHECK(cl.instances.size() == count[cl.layer_template->name]);
    CHECK(count["kda+moe"] == 31);
    CHECK(v.nodes.front().name == "embed/embed.embed");
}

TEST_CASE("exporters: a cut keeps the chosen layers and blocks and stubs what is outside", "[exporters][view]") {
    const auto& b = test::seed();
    auto in_layer = [&](std::int64_t l) {
        std::size_t n = 0;
        for (const auto& node : b.nodes) n += node.layer && *node.layer == l;
        return n;
    };
    SECTION("flat, layer 3") {
        auto v = must_view(b, {.layers = std::vector<std::int64_t>{3}});
        std::set<std::int64_t> outside;
        std::size_t edges = 0;
        for (const auto& e : b.edges) {
            bool f = b.nodes[static_cast<std::size_t>(e.from)].layer == 3, t = b.nodes[static_cast<std::size_t>(e.to)].layer == 3;
            if (!f && !t) continue;
            ++edges;
            if (!f) outside.insert(e.from);
            if (!t) outside.insert(e.to);
        }
        CHECK(v.count_nodes(ex::ViewNodeKind::op) == in_layer(3));
        CHECK(v.count_nodes(ex::ViewNodeKind::stub) == outside.size());
        CHECK(v.edges.size() == edges);
        CHECK(count_clusters(v, ex::ClusterKind::layer) == 1);
        CHECK(v.filter_text() == "layer 3");
    }
    SECTION("groups, layer 3: every group of a DSA+MoE layer") {
        auto v = must_view(b, {.kind = ex::ViewKind::groups, .layers = std::vector<std::int64_t>{3}});
        std::set<std::int64_t> groups;
        for (const auto& n : b.nodes)
            if (n.layer == 3) groups.insert(n.group);
        CHECK(v.count_nodes(ex::ViewNodeKind::group) == groups.size());
        CHECK(groups.size() == 27);
        CHECK(b.layers[3].template_name == "dsa+moe");
        for (const auto& n : v.nodes)
            if (n.kind == ex::ViewNodeKind::group) CHECK(groups.count(n.group->id) == 1);
    }
    SECTION("--block dsa over layers 3-7") {
        auto v = must_view(b, {.layers = std::vector<std::int64_t>{3, 4, 5, 6, 7}, .block = "dsa"});
        std::size_t n = 0;
        for (const auto& node : b.nodes) n += node.block_type.view() == "dsa" && node.layer && *node.layer >= 3 && *node.layer <= 7;
        // Of layers 3-7, 3 and 7 are dsa+moe; their DSA blocks are alike: drawn once, for both.
        CHECK(v.count_nodes(ex::ViewNodeKind::op) == n / 2);
        CHECK(count_clusters(v, ex::ClusterKind::layer) == 1);
        CHECK(v.alike == std::map<std::string, std::vector<std::int64_t>>{{"l3.dsa", {3, 7}}});
        CHECK(v.filter_text() == "layers 3-7, block dsa");
    }
    SECTION("a block id") {
        auto v = must_view(b, {.block = "l3.moe"});
        std::size_t n = 0;
        for (const auto& node : b.nodes) n += node.block == "l3.moe";
        CHECK(v.count_nodes(ex::ViewNodeKind::op) == n);
    }
    SECTION("collapsed, layers 3-4: the two templates serving them") {
        auto v = must_view(b, {.kind = ex::ViewKind::collapsed, .layers = std::vector<std::int64_t>{3, 4}});
        CHECK(count_clusters(v, ex::ClusterKind::layer_template) == 2);
    }
    SECTION("nothing selected is a usage error") {
        auto none = ex::build_view(b, {.block = "nope"});
        REQUIRE_FALSE(none.ok());
        CHECK(none.error().code == ErrorCode::usage);
        CHECK(none.error().message.find("dsa") != std::string::npos);  // lists the block types
        auto empty = ex::build_view(b, {.layers = std::vector<std::int64_t>{0}, .block = "dsa"});
        REQUIRE_FALSE(empty.ok());
        CHECK(empty.error().code == ErrorCode::usage);
    }
}

TEST_CASE("exporters: a plan in collapsed form only is expanded for its views", "[exporters][view]") {
    schema::Blueprint b = test::seed();
    auto collapsed = schema::collapse_layers(b, {.detail = true});
    REQUIRE(collapsed.ok());
    b.collapsed = std::move(*collapsed);
    b.nodes.clear();
    b.edges.clear();
    b.groups.clear();
    b.collapsed_only = true;
    CHECK_FALSE(ex::build_view(b, {}).ok());
    REQUIRE(ex::ensure_flat(b).ok());
    auto v = must_view(b, {.kind = ex::ViewKind::groups});
    CHECK(v.nodes.size() == test::seed_groups);
}

TEST_CASE("exporters: --block TYPE draws each distinct block once, with the blocks it stands for", "[exporters][view]") {
    const auto& seed = test::seed();
    std::size_t one = 0;
    for (const auto& n : seed.nodes) one += n.block == "l3.dsa";
    SECTION("the seed's eleven DSA blocks are alike: one picture, x 11") {
        auto v = must_view(seed, {.block = "dsa"});
        CHECK(v.count_nodes(ex::ViewNodeKind::op) == one);
        CHECK(v.alike.size() == 1);
        CHECK(v.alike.at("l3.dsa") == std::vector<std::int64_t>{3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43});
        auto dot = ex::export_dot(v, {});
        REQUIRE(dot.ok());
        CHECK(dot->find("l3.dsa × 11") != std::string::npos);
        auto groups = must_view(seed, {.kind = ex::ViewKind::groups, .block = "dsa"});
        CHECK(groups.alike.at("l3.dsa").size() == 11);
    }
    SECTION("a block that differs (layer 7's q_a in another format) is drawn on its own") {
        auto b = seed;
        for (auto& n : b.nodes)
            if (n.id == "l7.dsa.q_a") n.kernel = schema::Sym("another::kernel");
        auto v = must_view(b, {.block = "dsa"});
        CHECK(v.count_nodes(ex::ViewNodeKind::op) == 2 * one);
        CHECK(v.alike.at("l3.dsa") == std::vector<std::int64_t>{3, 11, 15, 19, 23, 27, 31, 35, 39, 43});
        CHECK(v.alike.count("l7.dsa") == 0);  // itself only
    }
    SECTION("a block id is that block") {
        auto v = must_view(seed, {.block = "l7.dsa"});
        CHECK(v.count_nodes(ex::ViewNodeKind::op) == one);
        CHECK(v.alike.empty());
    }
}
