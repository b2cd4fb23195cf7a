// Layouts of a unit: the quick placement and dot's (through gvc), checked for what a reader relies
// on — boxes keep their sizes, do not overlap, sit inside their block and group frames, edges run
// from their tail to their head — and the service that runs dot off the UI thread.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <thread>

#include "exporters/dot_layout.hpp"
#include "viewer/model/layout_service.hpp"
#include "viewer/model/unit_shape.hpp"
#include "viewer_support.hpp"

using namespace kbp;
using exporters::GraphLayout;
using exporters::LayoutGraph;
using exporters::LayoutRect;

namespace {

bool inside(const LayoutRect& inner, const LayoutRect& outer, float slack = 0.5f) {
    return inner.x0 >= outer.x0 - slack && inner.y0 >= outer.y0 - slack && inner.x1 <= outer.x1 + slack && inner.y1 <= outer.y1 + slack;
}

bool overlap(const LayoutRect& a, const LayoutRect& b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }

float distance(exporters::LayoutPoint p, const LayoutRect& r) {
    float dx = std::max({r.x0 - p.x, 0.0f, p.x - r.x1}), dy = std::max({r.y0 - p.y, 0.0f, p.y - r.y1});
    return std::sqrt(dx * dx + dy * dy);
}

void check_layout(const LayoutGraph& g, const GraphLayout& l, bool clusters_nest) {
    REQUIRE(l.nodes.size() == g.nodes.size());
    REQUIRE(l.clusters.size() == g.clusters.size());
    REQUIRE(l.edges.size() == g.edges.size());
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        INFO("node " << i);
        CHECK(l.nodes[i].x1 - l.nodes[i].x0 == Approx(g.nodes[i].width).margin(1));
        CHECK(l.nodes[i].y1 - l.nodes[i].y0 == Approx(g.nodes[i].height).margin(1));
        CHECK(l.nodes[i].x0 >= -0.5f);
        CHECK(l.nodes[i].y0 >= -0.5f);
        CHECK(l.nodes[i].x1 <= l.width + 0.5f);
        CHECK(l.nodes[i].y1 <= l.height + 0.5f);
        for (std::size_t j = i + 1; j < g.nodes.size(); ++j) CHECK_FALSE(overlap(l.nodes[i], l.nodes[j]));
        if (clusters_nest && g.nodes[i].cluster >= 0) CHECK(inside(l.nodes[i], l.clusters[static_cast<std::size_t>(g.nodes[i].cluster)]));
    }
    for (std::size_t c = 0; c < g.clusters.size() && clusters_nest; ++c)
        if (g.clusters[c].parent >= 0) CHECK(inside(l.clusters[c], l.clusters[static_cast<std::size_t>(g.clusters[c].parent)]));
    for (std::size_t e = 0; e < g.edges.size(); ++e) {
        INFO("edge " << e);
        const auto& line = l.edges[e];
        REQUIRE(line.size() >= 2);
        CHECK(distance(line.front(), l.nodes[static_cast<std::size_t>(g.edges[e].from)]) < 2);
        CHECK(distance(line.back(), l.nodes[static_cast<std::size_t>(g.edges[e].to)]) < 2);
    }
}

}  // namespace

TEST_CASE("viewer layout: the quick placement keeps sizes and ranks edges downwards", "[viewer][layout]") {
    viewer::Document doc(test::seed(), "seed");
    for (std::size_t u = 0; u < doc.units().size(); ++u) {
        INFO(doc.units()[u].name);
        auto shape = viewer::unit_shape(doc, u, viewer::TextMetrics::approximate());
        auto l = viewer::quick_layout(shape.graph);
        CHECK(l.engine == "quick");
        check_layout(shape.graph, l, false);
        for (const auto& e : shape.graph.edges)
            CHECK(l.nodes[static_cast<std::size_t>(e.to)].y0 > l.nodes[static_cast<std::size_t>(e.from)].y1);
    }
}

TEST_CASE("viewer layout: dot places every unit of the seed with frames around their ops", "[viewer][layout][dot]") {
    viewer::Document doc(test::seed(), "seed");
    for (std::size_t u = 0; u < doc.units().size(); ++u) {
        INFO(doc.units()[u].name);
        auto shape = viewer::unit_shape(doc, u, viewer::TextMetrics::approximate());
        auto l = exporters::dot_layout(shape.graph);
        REQUIRE(l.ok());
        CHECK(l->engine == "dot");
        check_layout(shape.graph, *l, true);
        // The same graph, the same places.
        auto again = exporters::dot_layout(shape.graph);
        REQUIRE(again.ok());
        for (std::size_t i = 0; i < l->nodes.size(); ++i) {
            CHECK(again->nodes[i].x0 == l->nodes[i].x0);
            CHECK(again->nodes[i].y0 == l->nodes[i].y0);
        }
    }
}

TEST_CASE("viewer layout: the service lays out off the calling thread and drops cancelled work", "[viewer][layout]") {
    std::atomic<int> calls{0};
    std::thread::id caller = std::this_thread::get_id(), worker;
    viewer::LayoutService service([&](const LayoutGraph& g) -> Result<GraphLayout> {
        worker = std::this_thread::get_id();
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return viewer::quick_layout(g);
    });
    LayoutGraph g;
    g.nodes = {{50, 20, -1}, {50, 20, -1}};
    g.edges = {{0, 1}};
    for (int u = 0; u < 3; ++u) service.submit(1, u, g);
    for (int u = 0; u < 5; ++u) service.submit(2, u, g);
    service.cancel(2);
    REQUIRE(service.wait_idle(10));
    auto done = service.take();
    CHECK(worker != caller);
    std::size_t owner1 = 0;
    for (const auto& d : done) {
        CHECK(d.layout.ok());
        owner1 += d.owner == 1;
    }
    CHECK(owner1 == 3);
    CHECK(calls.load() <= 4);  // at most one of owner 2's had started
    CHECK(service.idle());
    viewer::LayoutService none{viewer::LayoutEngine()};
    CHECK_FALSE(none.enabled());
    none.submit(1, 0, g);
    CHECK(none.idle());
}
