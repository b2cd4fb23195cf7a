// DOT of every view read back by Graphviz's own parser (agmemread) with the node, edge and
// cluster counts the view implies; byte-stable output; names and labels with awkward characters.
#include <catch2/catch.hpp>

#include <graphviz/cgraph.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <set>

#include "exporters/dot.hpp"
#include "exporters/text.hpp"
#include "exporters/view.hpp"
#include "schema/templates.hpp"
#include "schema/validator.hpp"
#include "exporters_support.hpp"
#include "support.hpp"

using namespace kbp;
namespace ex = kbp::exporters;

using test::must_view;

namespace {

struct Counts {
    int nodes = 0, edges = 0, clusters = 0;
};

void count_clusters(Agraph_t* g, int& n) {
    for (Agraph_t* sg = agfstsubg(g); sg; sg = agnxtsubg(sg)) {
        if (std::strncmp(agnameof(sg), "cluster", 7) == 0) ++n;
        count_clusters(sg, n);
    }
}

// Reads DOT with Graphviz's parser; nullptr when it does not parse.
struct Parsed {
    Agraph_t* g = nullptr;
    explicit Parsed(const std::string& dot) : g(agmemread(dot.c_str())) {}
    ~Parsed() {
        if (g) agclose(g);
    }
    Counts counts() const {
        Counts c;
        c.nodes = agnnodes(g);
        c.edges = agnedges(g);
        count_clusters(g, c.clusters);
        return c;
    }
};

std::string must_dot(const ex::View& v, const ex::DotOptions& o = {}) {
    auto dot = ex::export_dot(v, o);
    REQUIRE(dot.ok());
    return *dot;
}

void check_read_back(const ex::View& v, const std::string& dot) {
    Parsed p(dot);
    REQUIRE(p.g != nullptr);
    auto c = p.counts();
    CHECK(c.nodes == static_cast<int>(v.nodes.size()));
    CHECK(c.edges == static_cast<int>(v.edges.size()));
    CHECK(c.clusters == static_cast<int>(v.clusters.size()));
    for (const auto& n : v.nodes) {
        INFO(n.name);
        REQUIRE(agnode(p.g, const_cast<char*>(n.name.c_str()), 0) != nullptr);
    }
    CHECK(agisdirected(p.g));
}

}  // namespace

TEST_CASE("exporters: DOT of the seed's flat view reads back with every op, edge and cluster", "[exporters][dot]") {
    const auto& b = test::seed();
    auto v = must_view(b, {});
    auto dot = must_dot(v);
    check_read_back(v, dot);
    std::set<std::string> blocks;
    std::size_t fused_groups = 0;
    for (const auto& n : b.nodes) blocks.insert(n.block);
    for (const auto& g : b.groups) fused_groups += g.nodes.size() >= 2;
    Parsed p(dot);
    auto c = p.counts();
    CHECK(c.nodes == static_cast<int>(test::seed_nodes));
    CHECK(c.edges == static_cast<int>(test::seed_edges));
    CHECK(c.clusters == static_cast<int>(test::seed_layers + blocks.size() + fused_groups));
    // Every cluster is a DOT cluster with a label; every op node has an HTML label and a tooltip.
    Agnode_t* q_a = agnode(p.g, const_cast<char*>("l3.dsa.q_a"), 0);
    REQUIRE(q_a);
    CHECK(std::string(agget(q_a, const_cast<char*>("label"))).find("q_a") != std::string::npos);
    CHECK(aghtmlstr(agget(q_a, const_cast<char*>("label"))));
    CHECK(std::string(agget(q_a, const_cast<char*>("tooltip"))).find("w8a8_gemv::") != std::string::npos);
}

TEST_CASE("exporters: DOT labels re-quantized edges but not the integer ids the seed writes a requant on", "[exporters][dot][requant]") {
    // The seed writes its 84 top-k ids edges as requant i32 -> nvfp4/g16 at the reader: ids are
    // indices, not values, so the picture says nothing of a requant there; the 213 real ones it labels.
    auto count = [](const std::string& text, const std::string& part) {
        std::size_t n = 0;
        for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
        return n;
    };
    for (auto kind : {ex::ViewKind::flat, ex::ViewKind::groups}) {
        INFO(ex::view_kind_name(kind));
        const std::string dot = must_dot(must_view(test::seed(), {.kind = kind}));
        CHECK(count(dot, "requant i32") == 0);
        CHECK(count(dot, "requant bf16") > 0);
    }
}

TEST_CASE("exporters: DOT of the groups and collapsed views reads back", "[exporters][dot]") {
    const auto& b = test::seed();
    for (auto kind : {ex::ViewKind::groups, ex::ViewKind::collapsed}) {
        INFO(ex::view_kind_name(kind));
        auto v = must_view(b, {.kind = kind});
        check_read_back(v, must_dot(v));
    }
    auto collapsed = must_view(b, {.kind = ex::ViewKind::collapsed});
    Parsed p(must_dot(collapsed));
    CHECK(p.counts().nodes == 116);
    for (const auto& t : b.collapsed->templates) {
        Agraph_t* sg = agsubg(p.g, const_cast<char*>(("cluster_t:" + t.name).c_str()), 0);
        INFO(t.name);
        REQUIRE(sg);
        CHECK(std::string(agget(sg, const_cast<char*>("label"))).find(t.name) != std::string::npos);
    }
    Agraph_t* kda_moe = agsubg(p.g, const_cast<char*>("cluster_t:kda+moe"), 0);
    CHECK(std::string(agget(kda_moe, const_cast<char*>("label"))).find("× 31") != std::string::npos);
}

TEST_CASE("exporters: DOT of cuts reads back (layers, blocks)", "[exporters][dot]") {
    const auto& b = test::seed();
    std::vector<ex::ViewOptions> cuts{
        {.kind = ex::ViewKind::flat, .layers = std::vector<std::int64_t>{3}},
        {.kind = ex::ViewKind::groups, .layers = std::vector<std::int64_t>{3}},
        {.kind = ex::ViewKind::flat, .layers = std::vector<std::int64_t>{3, 4, 5, 6, 7}, .block = "dsa"},
        {.kind = ex::ViewKind::groups, .block = "moe"},
        {.kind = ex::ViewKind::collapsed, .block = "kda"},
    };
    for (const auto& o : cuts) {
        auto v = must_view(b, o);
        INFO(ex::view_kind_name(o.kind) << " " << v.filter_text());
        check_read_back(v, must_dot(v));
    }
}

TEST_CASE("exporters: DOT is byte-stable", "[exporters][dot]") {
    const auto& b = test::seed();
    for (auto kind : {ex::ViewKind::flat, ex::ViewKind::groups, ex::ViewKind::collapsed}) {
        auto first = must_dot(must_view(b, {.kind = kind}));
        // Other graphs in between reuse the heap differently; the output must not notice.
        (void)must_dot(must_view(b, {.kind = ex::ViewKind::groups, .layers = std::vector<std::int64_t>{5}}));
        auto second = must_dot(must_view(b, {.kind = kind}));
        CHECK(first == second);
    }
}

TEST_CASE("exporters: quantization points, state and fused edges stand out in DOT", "[exporters][dot]") {
    const auto& b = test::seed();
    auto v = must_view(b, {.layers = std::vector<std::int64_t>{3}});
    Parsed p(must_dot(v, {.color = ex::ColorBy::family}));
    REQUIRE(p.g);
    auto attr = [&](const char* node, const char* name) {
        Agnode_t* n = agnode(p.g, const_cast<char*>(node), 0);
        REQUIRE(n);
        return std::string(agget(n, const_cast<char*>(name)));
    };
    CHECK(attr("l3.dsa.xn_quant", "shape") == "hexagon");    // inserted act_quant
    CHECK(attr("l3.dsa.kv_write", "shape") == "cylinder");   // latent:write
    CHECK(attr("l3.dsa.q_a", "shape") == "box");
    int fused = 0, crossing = 0;
    for (Agnode_t* n = agfstnode(p.g); n; n = agnxtnode(p.g, n))
        for (Agedge_t* e = agfstout(p.g, n); e; e = agnxtout(p.g, e)) {
            std::string style = agget(e, const_cast<char*>("style"));
            std::string label = agget(e, const_cast<char*>("label"));
            if (style == "dashed") ++fused;
            else {
                ++crossing;
                CHECK(std::atof(agget(e, const_cast<char*>("penwidth"))) >= 0.8);
                CHECK(label.find("B") != std::string::npos);  // "bf16 8 KiB", "fp8/token 132 B"
            }
        }
    std::size_t seed_fused = 0;
    for (const auto& e : v.edges) seed_fused += e.fused;
    CHECK(fused == static_cast<int>(seed_fused));
    CHECK(crossing == static_cast<int>(v.edges.size() - seed_fused));
}

TEST_CASE("exporters: names and labels with dots, colons, ::, <, >, quotes and & survive DOT", "[exporters][dot]") {
    schema::Blueprint b = test::seed();
    const std::vector<std::string> awkward{"a.b.c", "x:y", "ns::entry", "<lt>", "q\"uote", "amp&er", "sp ace", "<b>html</b>", "1.5"};
    std::size_t k = 0;
    std::vector<std::size_t> layer3;
    for (std::size_t i = 0; i < b.nodes.size(); ++i)
        if (b.nodes[i].layer == 3) {
            b.nodes[i].id = b.nodes[i].block + "." + awkward[k % awkward.size()] + std::to_string(k);
            ++k;
            layer3.push_back(i);
        }
    // Whole names that are DOT keywords or numbers.
    b.nodes[layer3[0]].id = "node";
    b.nodes[layer3[1]].id = "subgraph";
    b.nodes[layer3[2]].id = "1.5";
    b.nodes[layer3[3]].id = "-2";
    for (auto& g : b.groups) g.rule = g.rule + "<&\"::>";
    b.groups[52].kernels = b.groups[52].kernels.with("evil\"kernel<name>::x");
    for (auto kind : {ex::ViewKind::flat, ex::ViewKind::groups}) {
        auto v = must_view(b, {.kind = kind, .layers = std::vector<std::int64_t>{2, 3}});
        auto dot = must_dot(v, {.title = "title with <html> & \"quotes\" \\ backslash"});
        check_read_back(v, dot);  // every name found again, exactly
        Parsed p(dot);
        if (kind == ex::ViewKind::flat) {
            Agnode_t* n = agnode(p.g, const_cast<char*>("q\"uote4"), 0);
            CHECK(n == nullptr);  // the name carries its block: l3.<block>.q"uote4
            bool quoted = false;
            for (Agnode_t* m = agfstnode(p.g); m; m = agnxtnode(p.g, m)) quoted |= std::string(agnameof(m)).find("q\"uote") != std::string::npos;
            CHECK(quoted);
        }
    }
}

TEST_CASE("exporters: names with backslashes, newlines and control bytes stay distinct and parse back", "[exporters][dot]") {
    schema::Blueprint b = test::seed();
    // Pairs that a careless escape would merge: a backslash + n against a newline, one backslash
    // against two, an escaped quote against a plain one.
    const std::vector<std::string> tails{"\\", "\\\\", "\\n", "\n", "\"", "\\\"", "\x1b[0m", "\\x1b[0m", "\x7f"};
    std::vector<std::string> names;
    std::size_t k = 0;
    for (auto& n : b.nodes)
        if (n.layer == 3 && k < tails.size()) names.push_back(n.id += tails[k++]);
    auto v = must_view(b, {.kind = ex::ViewKind::flat, .layers = std::vector<std::int64_t>{3}});
    auto dot = must_dot(v);
    CHECK(dot.find('\x1b') == std::string::npos);
    CHECK(dot.find('\x7f') == std::string::npos);
    Parsed p(dot);
    REQUIRE(p.g != nullptr);
    CHECK(p.counts().nodes == static_cast<int>(v.nodes.size()));
    for (const auto& name : names) {
        INFO(name);
        CHECK(agnode(p.g, const_cast<char*>(ex::dot_name(name).c_str()), 0) != nullptr);
    }
}

TEST_CASE("exporters: DOT of a plan 4x the seed's size is written quickly and reads back", "[exporters][dot]") {
    // ~7,000 ops over 180 layers; the 40,000-op case is measured by kbp-export-bench.
    auto big = test::seed_over_layers(180, true);
    REQUIRE(schema::validate(big).empty());
    REQUIRE(big.nodes.size() > 6900);
    auto start = std::chrono::steady_clock::now();
    auto v = must_view(big, {});
    auto dot = must_dot(v);
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    CHECK(ms < 5000);  // ~0.25 s in a release build
    check_read_back(v, dot);
}
