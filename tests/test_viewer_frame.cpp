// Frames without a window: rows and folding, culling, detail by zoom, and the bound on what a frame
// submits, for the seed and for a synthetic plan of 40,350 ops (the seed's templates over 1,035
// layers); hit-testing and clicks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "schema/synthetic.hpp"
#include "viewer_support.hpp"

using namespace kbp;
using namespace kbp::viewer;

namespace {

constexpr std::size_t vertex_budget = 60000;

const schema::Blueprint& big_plan() {
    static const schema::Blueprint b = [] {
        auto r = schema::relayout(test::seed(), schema::glm_layout(1035), true);
        if (!r) throw std::runtime_error(r.error().text());
        return std::move(*r);
    }();
    return b;
}

std::set<std::string> texts(const DrawList& d) {
    std::set<std::string> out;
    for (const auto& p : d.prims())
        if (p.kind == PrimKind::text) out.insert(std::string(d.text_of(p)));
    return out;
}

}  // namespace

TEST_CASE("viewer frame: the seed folds into five rows, and a badge expands its layers", "[viewer][frame]") {
    auto m = test::view_of(test::seed());
    const Scene* scene = m->scene();
    REQUIRE(scene);
    REQUIRE(scene->rows().size() == 5);
    std::vector<std::string> titles, badges;
    for (const auto& r : scene->rows()) titles.push_back(r.title), badges.push_back(r.badge);
    CHECK(titles == std::vector<std::string>{"embed", "kda+mlp", "dsa+moe", "kda+moe", "head"});
    CHECK(badges == std::vector<std::string>{"", "× 3", "× 11", "× 31", ""});
    CHECK(scene->rows()[3].detail.find("layers 4-6, 8-10") == 0);
    // In reading order: below the row before it, or at the top of the next column, right of it.
    for (std::size_t i = 1; i < scene->rows().size(); ++i) {
        const Row &row = scene->rows()[i], &before = scene->rows()[i - 1];
        if (row.column == before.column) CHECK(row.box.y0 > before.box.y1);
        else CHECK((row.column == before.column + 1 && row.box.x0 > scene->columns()[static_cast<std::size_t>(before.column)].x1));
    }

    // Clicking the "× 31" badge shows those 31 layers on their own, in plan order.
    DrawList d;
    m->frame(test::screen, d);
    RowHeader h = row_header(FrameContext{*m->document(0), *scene, *m->colouring(), m->camera(), test::screen, m->metrics(), {}, 14}, scene->rows()[3]);
    REQUIRE(h.visible);
    m->click({(h.badge.x0 + h.badge.x1) / 2, (h.badge.y0 + h.badge.y1) / 2});
    scene = m->scene();
    REQUIRE(scene->rows().size() == 4 + 31);
    CHECK(scene->rows()[3].title == "layer 4 · kda+moe");
    CHECK(scene->rows()[3].badge == "fold");
    CHECK(scene->rows()[2].title == "dsa+moe");  // still folded, at its first layer (3)
    m->toggle_row(3);  // fold layer 4 back into its template
    CHECK(m->scene()->rows().size() == 4 + 30 + 1);
    m->fold_all();
    CHECK(m->scene()->rows().size() == 5);
    REQUIRE(m->expand_layers("3,7-8").ok());
    // kda+moe's run is cut at layer 8: "× 3" (4-6) above it, "× 27" below.
    CHECK(m->scene()->rows().size() == 5 + 3 + 1);
    CHECK_FALSE(m->expand_layers("3-99").ok());
    m->expand_all();
    CHECK(m->scene()->rows().size() == 47);
    CHECK(m->all_expanded());
}

TEST_CASE("viewer frame: off-screen ops are culled, detail follows the zoom", "[viewer][frame]") {
    auto m = test::view_of(test::seed());
    m->expand_all();
    DrawList d;
    // Zoomed in on one op: only the ops whose boxes meet the screen are drawn, with labels.
    REQUIRE(m->select_id("l3.dsa.q_a").ok());
    auto stats = m->frame(test::screen, d);
    CHECK(stats.detail == Detail::labels);
    const Scene& scene = *m->scene();
    Box visible = m->camera().visible_world(test::screen).grown(static_cast<float>(8 / m->camera().zoom));
    std::size_t meeting = 0;
    for (std::size_t n = 0; n < m->document(0)->plan().nodes.size(); ++n)
        meeting += scene.node_box(scene.place_of_node(n)).overlaps(visible);
    CHECK(stats.nodes == meeting);
    CHECK(stats.nodes > 5);
    CHECK(stats.nodes < 100);
    auto shown = texts(d);
    CHECK(shown.count("q_a"));
    CHECK(shown.count("fp8/channel × fp8/token → bf16"));
    CHECK_FALSE(shown.count("lm_head"));

    // At boxes zoom: boxes and edges, no op names (only blocks' names and launches).
    m->set_zoom(0.2, {0, 0});
    stats = m->frame(test::screen, d);
    CHECK(stats.detail == Detail::boxes);
    auto boxes = texts(d);
    CHECK_FALSE(boxes.count("q_a"));
    CHECK_FALSE(boxes.count("fp8/channel × fp8/token → bf16"));
    CHECK(std::any_of(boxes.begin(), boxes.end(), [](const std::string& t) { return t.find(" launches") != std::string::npos; }));
    CHECK(stats.edges > 0);
    // Fit: the 47 rows are too thin for ops; one blob per group or lone op, or strips.
    m->fit();
    stats = m->frame(test::screen, d);
    CHECK(stats.nodes == 0);
    CHECK(stats.rows == 47);
    CHECK(stats.detail <= Detail::blobs);
    CHECK(d.estimated_vertices() < vertex_budget);
}

TEST_CASE("viewer frame: 40,350 ops stay under the vertex budget at every zoom", "[viewer][frame][large]") {
    const auto& big = big_plan();
    REQUIRE(big.nodes.size() == 40350);
    auto m = test::view_of(big);
    m->expand_all();
    const Scene& scene = *m->scene();
    REQUIRE(scene.rows().size() == 1037);
    DrawList d;
    m->fit();
    m->frame(test::screen, d);
    double fit = m->camera().zoom;
    const Box& b = scene.bounds();
    std::size_t most = 0;
    std::set<Detail> seen;
    for (double z = fit; z <= Camera::max_zoom; z *= 2) {
        for (float at : {0.02f, 0.5f, 0.98f}) {
            m->set_zoom(z, {(b.x0 + b.x1) / 2, b.y0 + (b.y1 - b.y0) * at});
            auto stats = m->frame(test::screen, d);
            INFO("zoom " << z << " at " << at << ": " << stats.rows << " rows, " << stats.nodes << " ops, " << stats.edges << " edges");
            CHECK(d.estimated_vertices() < vertex_budget);
            most = std::max(most, d.estimated_vertices());
            seen.insert(stats.detail);
        }
    }
    CHECK(seen == std::set<Detail>{Detail::strips, Detail::blobs, Detail::boxes, Detail::labels});
    CHECK(most > 1000);  // it drew something
}

TEST_CASE("viewer frame: a click selects what is under it", "[viewer][frame]") {
    auto m = test::view_of(test::seed());
    REQUIRE(m->expand_layers("3").ok());
    REQUIRE(m->select_id("l3.dsa.kv_a").ok());
    DrawList d;
    m->frame(test::screen, d);
    m->select({});
    const Scene& scene = *m->scene();
    auto p = scene.place_of_node(static_cast<std::size_t>(m->document(0)->find_node("l3.dsa.kv_a")));
    Box s = m->camera().to_screen(scene.node_box(p), test::screen);
    Vec2 centre{(s.x0 + s.x1) / 2, (s.y0 + s.y1) / 2};
    Hit h = m->hit(centre);
    CHECK(h.kind == HitKind::node);
    m->click(centre);
    REQUIRE(m->selection().kind == SelectionKind::node);
    CHECK(m->document(0)->plan().nodes[static_cast<std::size_t>(m->selection().index)].id == "l3.dsa.kv_a");
    CHECK(m->inspector().front().title == "op l3.dsa.kv_a");
    // A folded row's op is its first folded layer's.
    m->fold_all();
    REQUIRE(m->select_id("l9.kda.q").ok());
    m->frame(test::screen, d);
    p = m->scene()->place_of_node(static_cast<std::size_t>(m->document(0)->find_node("l9.kda.q")));
    s = m->camera().to_screen(m->scene()->node_box(p), test::screen);
    m->click({(s.x0 + s.x1) / 2, (s.y0 + s.y1) / 2});
    CHECK(m->document(0)->plan().nodes[static_cast<std::size_t>(m->selection().index)].id == "l4.kda.q");
    // Empty space clears the selection.
    m->click({1, 1});
    CHECK(m->selection().kind == SelectionKind::none);
    CHECK(m->inspector().empty());
}
