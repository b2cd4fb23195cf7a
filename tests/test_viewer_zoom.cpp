// The canvas read at every zoom, without a window: side by side, the legend and the panes' texts;
// folded runs in layer order.
#include <catch2/catch.hpp>

#include "viewer_support.hpp"

using namespace kbp;
using namespace kbp::viewer;

TEST_CASE("viewer zoom: side by side, the legend names what each pane draws and no text leaves its pane", "[viewer][zoom][side-by-side]") {
    const auto& a = test::glm_plan("decode", 1);
    const auto& b = test::glm_plan("multi_seq", 64);
    auto m = test::view_model();
    m->open_plan(a, "decode", 0);
    m->open_plan(b, "multi_seq 64", 1);
    m->settle();
    m->set_side_by_side(true);
    m->set_color_mode(ColorMode::diff);
    REQUIRE(m->side_by_side());
    // Pane a (shown) has no added op, pane b draws them green: the legend lists them, as b's.
    bool added = false;
    for (const auto& e : m->legend()) added = added || (e.key == "added (in b)" && e.fill == diff_color(DiffMark::added) && e.ops > 0);
    CHECK(added);
    // Narrow panes: the cards' headers stand left of them and must not be cut by the pane's edge.
    for (Box screen : {test::screen, Box{0, 0, 800, 800}}) {
        m->fit();
        DrawList d;
        m->frame(screen, d);
        const Box panes[2] = {m->pane(0), m->pane(1)};
        std::size_t texts = 0;
        for (const auto& p : d.prims()) {
            if (p.kind != PrimKind::text) continue;
            auto t = std::string(d.text_of(p));
            float w = m->metrics().width(t, p.size);
            bool inside = false;
            for (const auto& pane : panes) inside = inside || (p.box.x0 >= pane.x0 && p.box.x0 + w <= pane.x1 + 0.5f);
            INFO(t << " at x " << p.box.x0 << ".." << p.box.x0 + w << " on a " << screen.x1 << "-px canvas");
            CHECK(inside);
            ++texts;
        }
        CHECK(texts > 10);
    }
}

TEST_CASE("viewer zoom: a layer shown on its own cuts its unit's folded run, rows in layer order", "[viewer][zoom][fold]") {
    auto m = test::view_of(test::seed());
    const auto& instances = m->document(0)->instances();
    for (const char* expand : {"3", "4", "10", "5,20"}) {
        m->fold_all();
        REQUIRE(m->expand_layers(expand).ok());
        const auto& rows = m->scene()->rows();
        auto layers_of = [&](const Row& row) {
            std::vector<std::int64_t> ls;
            for (auto i : row.instances)
                if (const auto& l = instances[static_cast<std::size_t>(i)].layer) ls.push_back(*l);
            return ls;
        };
        std::int64_t previous = -1;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            auto ls = layers_of(rows[r]);
            if (ls.empty()) continue;
            INFO("--expand " << expand << ": " << rows[r].title << " " << rows[r].badge << " " << rows[r].detail);
            CHECK(ls.front() > previous);  // rows in the order of their first layers
            previous = ls.front();
            if (rows[r].folded) continue;
            // A layer on its own: its unit's folded layers above it all come before it, below after.
            for (std::size_t o = 0; o < rows.size(); ++o) {
                if (!rows[o].folded || rows[o].unit != rows[r].unit) continue;
                for (auto l : layers_of(rows[o])) CHECK((o < r ? l < ls.front() : l > ls.front()));
            }
        }
    }
    // Layer 10 (kda+moe) shown: "× 5" (4-6, 8, 9) above it and "× 25" below, not one "× 30" above.
    m->fold_all();
    REQUIRE(m->expand_layers("10").ok());
    std::vector<std::string> badges;
    for (const auto& row : m->scene()->rows()) badges.push_back(row.badge);
    CHECK(badges == std::vector<std::string>{"", "× 3", "× 11", "× 5", "fold", "× 25", ""});
}
