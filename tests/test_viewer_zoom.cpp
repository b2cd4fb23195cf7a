// The canvas read at every zoom, without a window: connectors between rows run in a gutter and
// over no op; text is at least 11 px and no two texts overlap at fit, ×4 and 1:1 of the seed;
// block names with their launch counts at fit.
#include <catch2/catch.hpp>

#include "viewer_support.hpp"

using namespace kbp;
using namespace kbp::viewer;

namespace {

// Whether the segment a-b passes through the inside of `box` (Liang-Barsky clipping).
bool crosses(Vec2 a, Vec2 b, Box box) {
    box = box.grown(-0.5f);
    float t0 = 0, t1 = 1, dx = b.x - a.x, dy = b.y - a.y;
    auto clip = [&](float p, float q) {
        if (p == 0) return q >= 0;
        float r = q / p;
        if (p < 0) {
            if (r > t1) return false;
            t0 = std::max(t0, r);
        } else {
            if (r < t0) return false;
            t1 = std::min(t1, r);
        }
        return true;
    };
    return clip(-dx, a.x - box.x0) && clip(dx, box.x1 - a.x) && clip(-dy, a.y - box.y0) && clip(dy, box.y1 - a.y) && t0 < t1;
}

}  // namespace

TEST_CASE("viewer zoom: connectors between rows cross no op", "[viewer][zoom][dot]") {
    for (const char* expand : {"", "3", "all"}) {
        auto m = test::view_of(test::seed(), true);
        if (*expand) REQUIRE(m->expand_layers(expand).ok());
        m->settle();
        const Scene& scene = *m->scene();
        REQUIRE_FALSE(scene.connectors().empty());
        std::size_t checked = 0, across = 0;
        for (std::size_t k = 0; k < scene.connectors().size(); ++k) {
            const auto& c = scene.connectors()[k];
            auto path = scene.connector_path(c, k);
            for (std::int32_t row : {c.row_from, c.row_to}) {
                const auto& r = scene.rows()[static_cast<std::size_t>(row)];
                for (std::size_t local = 0; local < scene.unit(r).layout.nodes.size(); ++local) {
                    Box op = scene.node_box({row, static_cast<std::int32_t>(local)});
                    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
                        INFO("expand '" << expand << "' connector " << k << " segment " << i << " over op " << local << " of row " << r.title);
                        CHECK_FALSE(crosses(path[i], path[i + 1], op));
                    }
                }
            }
            // Its runs between the rows lie right of each (in its column), and between two
            // columns above every card.
            const Row &from = scene.rows()[static_cast<std::size_t>(c.row_from)], &to = scene.rows()[static_cast<std::size_t>(c.row_to)];
            CHECK(path[2].x > from.box.x1);
            CHECK(path[path.size() - 3].x > to.box.x1);
            CHECK(path[2].x <= scene.bounds().x1);
            if (from.column != to.column) {
                REQUIRE(path.size() == 8);
                for (const auto& r : scene.rows()) CHECK(path[3].y < r.box.y0);
                CHECK(path[3].y >= scene.bounds().y0);
                ++across;
            }
            ++checked;
        }
        CHECK(checked > 3);
        CHECK(across > 0);  // the rows stand in columns
    }
}

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

TEST_CASE("viewer zoom: at fit, x4 and 1:1 every text is 11 px or more and none overlaps another", "[viewer][zoom][dot]") {
    auto m = test::view_of(test::seed(), true);
    m->fit();
    DrawList d;
    m->frame(test::screen, d);
    const double fit = m->camera().zoom;
    REQUIRE(fit < labels_zoom);
    const Vec2 centre{static_cast<float>(m->camera().cx), static_cast<float>(m->camera().cy)};
    for (double zoom : {fit, 4 * fit, 1.0}) {
        m->set_zoom(zoom, zoom == fit ? centre : Vec2{0, 300});
        m->frame(test::screen, d);
        std::vector<std::pair<Box, std::string>> texts;
        std::size_t blocks = 0;
        for (const auto& p : d.prims()) {
            if (p.kind != PrimKind::text) continue;
            std::string t(d.text_of(p));
            Box b{p.box.x0, p.box.y0, p.box.x0 + m->metrics().width(t, p.size), p.box.y0 + p.size * m->metrics().line_height};
            if (!b.overlaps(test::screen)) continue;
            INFO("zoom " << zoom << ": '" << t << "' at " << p.size << " px");
            CHECK(p.size >= 11);
            blocks += t.find(" launch") != std::string::npos;
            for (const auto& [other, o] : texts) {
                INFO("over '" << o << "'");
                CHECK_FALSE(b.grown(-0.5f).overlaps(other.grown(-0.5f)));
            }
            texts.push_back({b, t});
        }
        INFO("zoom " << zoom);
        CHECK(texts.size() >= 5);
        // At fit the blocks whose frames hold it are named with their launches (the seed's kda and
        // dsa; the narrow moe and mlp columns from about twice the fit); before, fit drew no text
        // but the row headers.
        if (zoom == fit) CHECK(blocks >= 2);
        if (zoom == 4 * fit) CHECK(blocks >= 1);
    }
}

TEST_CASE("viewer zoom: fit uses the pane's width, cards in columns with their titles, launches and precision strips", "[viewer][zoom][fit][dot]") {
    auto m = test::view_of(test::seed(), true);
    m->fit();
    DrawList d;
    FrameStats stats = m->frame(test::screen, d);
    const Scene& scene = *m->scene();
    const double zoom = m->camera().zoom;
    // One column (what fit showed before: 0.14 on this canvas) could at best be this large.
    float tallest_column = -world::row_gap, widest = 0;
    for (const auto& r : scene.rows()) tallest_column += world::row_gap + r.box.height(), widest = std::max(widest, r.box.width());
    const double one_column = std::min((test::screen.width() - 48) / widest, (test::screen.height() - 48) / tallest_column);
    INFO("fit zoom " << zoom << ", one column at most " << one_column << ", " << scene.columns().size() << " columns");
    CHECK(scene.columns().size() >= 2);
    CHECK(zoom >= 1.5 * one_column);
    // The cards' box covers most of the canvas (one column: under a fifth).
    Box on_screen = m->camera().to_screen(scene.bounds(), test::screen);
    const float used = std::max(0.0f, std::min(on_screen.x1, test::screen.x1) - std::max(on_screen.x0, test::screen.x0)) *
                       std::max(0.0f, std::min(on_screen.y1, test::screen.y1) - std::max(on_screen.y0, test::screen.y0));
    const float fraction = used / (test::screen.width() * test::screen.height());
    INFO("canvas used " << fraction);
    CHECK(fraction >= 0.4f);
    // Each card's title, and each layer card's blocks with their launches, at 11 px or more.
    std::vector<std::string> texts;
    for (const auto& p : d.prims())
        if (p.kind == PrimKind::text) {
            CHECK(p.size >= min_text_px);
            texts.emplace_back(d.text_of(p));
        }
    auto drawn = [&](const std::string& t) { return std::find(texts.begin(), texts.end(), t) != texts.end(); };
    for (const auto& row : scene.rows()) {
        INFO("card " << row.title);
        CHECK(drawn(row.title));
        if (!row.folded) continue;
        std::size_t blocks = 0;
        for (const auto& c : scene.unit(row).shape.clusters)
            if (!c.group) blocks += drawn(c.title + " · " + std::to_string(c.launches) + " launches") || drawn(c.title + " · " + std::to_string(c.launches));
        CHECK(blocks >= 2);
    }
    // A precision strip along each card's header: its fills, the most common first.
    CHECK(stats.card_strips == scene.rows().size());
    for (const auto& row : scene.rows()) {
        Box s = m->camera().to_screen(row.box, test::screen);
        const auto& shares = m->colouring()->card_shares(static_cast<std::size_t>(row.instances.front()));
        REQUIRE_FALSE(shares.empty());
        bool first = false;
        for (const auto& p : d.prims())
            first = first || (p.kind == PrimKind::fill_rect && p.color == shares.front().fill && std::abs(p.box.x0 - (s.x0 + 2)) < 0.5f &&
                              p.box.y0 >= s.y0 && p.box.y1 <= s.y0 + world::row_header * zoom);
        INFO("card " << row.title);
        CHECK(first);
    }
}
