// kbp render's library side: SVG and PNG of the seed's collapsed view and of layer 3's groups,
// byte-stable; awkward names rendered; a view too large to lay out refused with advice.
#include <catch2/catch.hpp>

#include <cstring>
#include <string_view>
#include <vector>

#include "exporters/cgraph_build.hpp"
#include "exporters/palette.hpp"
#include "exporters/render.hpp"
#include "exporters/view.hpp"
#include "exporters_support.hpp"
#include "support.hpp"

using namespace kbp;
namespace ex = kbp::exporters;

using test::must_view;

namespace {

std::string must_render(const ex::View& v, ex::ImageFormat format, const ex::DotOptions& dot = {}) {
    auto image = ex::render_view(v, dot, {.format = format});
    INFO((image ? std::string() : image.error().text()));
    REQUIRE(image.ok());
    return *image;
}

bool is_svg(const std::string& s) {
    return s.rfind("<?xml", 0) == 0 && s.find("<svg") != std::string::npos && s.find("</svg>") != std::string::npos;
}

// Width and height from a PNG's IHDR chunk (0 when it is not a PNG).
std::pair<std::uint32_t, std::uint32_t> png_size(const std::string& s) {
    static const char magic[] = "\x89PNG\r\n\x1a\n";
    if (s.size() < 24 || s.compare(0, 8, magic, 8) != 0 || s.compare(12, 4, "IHDR") != 0) return {0, 0};
    auto be = [&](std::size_t at) {
        return (std::uint32_t(std::uint8_t(s[at])) << 24) | (std::uint32_t(std::uint8_t(s[at + 1])) << 16) |
               (std::uint32_t(std::uint8_t(s[at + 2])) << 8) | std::uint32_t(std::uint8_t(s[at + 3]));
    };
    return {be(16), be(20)};
}

// The fill of the node titled `id` in Graphviz's SVG: the first fill after its <title>.
std::string svg_fill_of(const std::string& svg, const std::string& id) {
    auto title = svg.find("<title>" + id + "</title>");
    if (title == std::string::npos) return "no node " + id;
    auto fill = svg.find("fill=\"", title);
    if (fill == std::string::npos) return "no fill";
    return svg.substr(fill + 6, svg.find('"', fill + 6) - fill - 6);
}

}  // namespace

TEST_CASE("exporters: the collapsed view renders to SVG naming every template", "[exporters][render]") {
    const auto& b = test::seed();
    auto v = must_view(b, {.kind = ex::ViewKind::collapsed});
    auto svg = must_render(v, ex::ImageFormat::svg, {.title = "GLM-5.3-Flash"});
    REQUIRE(is_svg(svg));
    for (const auto& t : b.collapsed->templates) {
        INFO(t.name);
        CHECK(svg.find(">" + t.name + "</text>") != std::string::npos);
    }
    CHECK(svg.find("× 31") != std::string::npos);
    CHECK(svg.find("× 11") != std::string::npos);
    CHECK(svg.find("GLM&#45;5.3&#45;Flash") != std::string::npos);  // Graphviz writes '-' as &#45; in SVG
    // The same view renders to the same bytes.
    CHECK(must_render(v, ex::ImageFormat::svg, {.title = "GLM-5.3-Flash"}) == svg);
}

TEST_CASE("exporters: the collapsed view's PNG shows the legend's colours and no others of the table", "[exporters][render]") {
    const auto& b = test::seed();
    auto v = must_view(b, {.kind = ex::ViewKind::collapsed});
    auto png = must_render(v, ex::ImageFormat::png);
    auto [w, h] = png_size(png);
    CHECK(w < 4000);  // one screen at a readable scale, not a poster
    CHECK(h < 4000);
    auto image = test::decode_png(png);
    REQUIRE(image.width == static_cast<int>(w));
    REQUIRE(image.height == static_cast<int>(h));
    // Every swatch of the legend is drawn in its exact colour: a filled box of many pixels.
    std::vector<const schema::Node*> ops;
    for (const auto& n : b.nodes) ops.push_back(&n);
    ex::Palette palette(ex::ColorBy::precision, ops);
    REQUIRE(palette.legend().size() >= 4);
    for (const auto& swatch : palette.legend()) {
        INFO(swatch.key << " " << swatch.fill);
        CHECK(image.pixels_of(swatch.fill) >= 100);
    }
    // The seed uses no MXFP4 and no int4: their colours appear nowhere.
    CHECK(image.pixels_of("#f7c4a0") == 0);
    CHECK(image.pixels_of("#f6c1d8") == 0);
}

TEST_CASE("exporters: layer 3's groups view shows every group with its rule", "[exporters][render]") {
    const auto& b = test::seed();
    auto v = must_view(b, {.kind = ex::ViewKind::groups, .layers = std::vector<std::int64_t>{3}});
    auto svg = must_render(v, ex::ImageFormat::svg);
    REQUIRE(is_svg(svg));
    int groups = 0;
    for (const auto& g : b.groups) {
        if (b.nodes[static_cast<std::size_t>(g.nodes.front())].layer != 3) continue;
        ++groups;
        INFO(g.id << " " << g.rule);
        CHECK(svg.find(">g" + std::to_string(g.id) + "</text>") != std::string::npos);
        CHECK(svg.find(g.rule) != std::string::npos);
    }
    CHECK(groups == 27);
}

TEST_CASE("exporters: each colour mode fills known ops of layer 3 with the palette's colour", "[exporters][render]") {
    auto v = must_view(test::seed(), {.kind = ex::ViewKind::flat, .layers = std::vector<std::int64_t>{3}});
    struct Expected {
        ex::ColorBy by;
        std::vector<std::pair<std::string, std::string>> fills;  // node id, fill (palette.cpp's tables)
    };
    const std::vector<Expected> modes{
        {ex::ColorBy::precision, {{"l3.dsa.q_a", "#fff1a8"}, {"l3.moe.experts_gate_up", "#f4aaa6"}, {"l3.dsa.mix", "#cdebc9"}, {"l3.dsa.select", "#d3e2f6"}}},
        {ex::ColorBy::family, {{"l3.dsa.mix", "#77aadd"}, {"l3.dsa.q_a", "#eedd88"}, {"l3.dsa.q_a_norm", "#ffaabb"}}},
        {ex::ColorBy::compute, {{"l3.dsa.mix", "#77aadd"}, {"l3.dsa.q_a", "#eedd88"}}},
        {ex::ColorBy::where, {{"l3.dsa.mix", "#d3e2f6"}, {"l3.moe.blend", "#d3e2f6"}}},
        {ex::ColorBy::state, {{"l3.dsa.q_a", "#ffffff"}, {"l3.dsa.kv_write", "#77aadd"}, {"l3.dsa.pool", "#ee8866"}}},
    };
    for (const auto& mode : modes) {
        auto svg = must_render(v, ex::ImageFormat::svg, {.color = mode.by});
        for (const auto& [id, fill] : mode.fills) {
            INFO(ex::color_by_name(mode.by) << " " << id);
            CHECK(svg_fill_of(svg, id) == fill);
        }
    }
}

TEST_CASE("exporters: awkward names render", "[exporters][render]") {
    schema::Blueprint b = test::seed();
    for (auto& n : b.nodes)
        if (n.layer == 3) n.id = n.block + ".<odd> \"name\" & a::b:c." + std::to_string(n.order);
    for (auto& g : b.groups) g.rule = "<rule & \"more\">";
    for (auto kind : {ex::ViewKind::flat, ex::ViewKind::groups}) {
        auto v = must_view(b, {.kind = kind, .layers = std::vector<std::int64_t>{3}});
        auto svg = must_render(v, ex::ImageFormat::svg, {.title = "<t> & \"q\""});
        REQUIRE(is_svg(svg));
        CHECK(svg.find("&lt;rule &amp; &quot;more&quot;&gt;") != std::string::npos);
    }
}

TEST_CASE("exporters: a view too large to lay out is refused with advice unless forced", "[exporters][render]") {
    const auto& b = test::seed();
    auto flat = must_view(b, {});
    auto e = ex::estimate_render(flat);
    CHECK(e.nodes == test::seed_nodes);
    CHECK(e.slow);            // the seed's flat view: a few seconds, said so
    CHECK_FALSE(e.too_large);  // but still drawn
    CHECK(e.advice.find("--view collapsed") != std::string::npos);
    CHECK(e.advice.find("--layers") != std::string::npos);
    // A lower limit stands in for a larger plan (kbp-export-bench measures the real ones).
    auto refused = ex::render_view(flat, {}, {.max_nodes = 1000});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::unsupported);
    CHECK(refused.error().message.find("--view collapsed") != std::string::npos);
    CHECK(refused.error().message.find("--force") != std::string::npos);
    auto collapsed = ex::estimate_render(must_view(b, {.kind = ex::ViewKind::collapsed}));
    CHECK_FALSE(collapsed.slow);
    CHECK(collapsed.advice.empty());
}

TEST_CASE("exporters: image formats by name and by file extension", "[exporters][render]") {
    CHECK(ex::image_format_for_path("a/b.svg") == ex::ImageFormat::svg);
    CHECK(ex::image_format_for_path("B.PNG") == ex::ImageFormat::png);
    CHECK_FALSE(ex::image_format_for_path("x.dot").has_value());
    CHECK_FALSE(ex::image_format_for_path("noext").has_value());
    CHECK(ex::parse_image_format("png") == ex::ImageFormat::png);
    CHECK_FALSE(ex::parse_image_format("jpg").has_value());
}

namespace {

struct Box {
    double x0, y0, x1, y1;
    bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// A label's box after layout, 1 pt smaller on each side (touching is not overprinting).
Box label_box(const textlabel_t* l) {
    return {l->pos.x - l->dimen.x / 2 + 1, l->pos.y - l->dimen.y / 2 + 1, l->pos.x + l->dimen.x / 2 - 1, l->pos.y + l->dimen.y / 2 - 1};
}

}  // namespace

TEST_CASE("exporters: the collapsed view's edge labels overprint no other label and no op", "[exporters][render]") {
    auto v = must_view(test::seed(), {.kind = ex::ViewKind::collapsed});
    auto dot = ex::export_dot(v, {});
    REQUIRE(dot.ok());
    Agraph_t* g = agmemread(dot->c_str());
    REQUIRE(g);
    GVC_t* gvc = ex::detail::graphviz_context();
    REQUIRE(gvLayout(gvc, g, "dot") == 0);
    std::vector<Box> labels, nodes;
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        double w = ND_width(n) * 72 / 2, h = ND_height(n) * 72 / 2;
        nodes.push_back({ND_coord(n).x - w, ND_coord(n).y - h, ND_coord(n).x + w, ND_coord(n).y + h});
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e))
            for (const textlabel_t* l : {ED_label(e), ED_xlabel(e)})
                if (l && l->set) labels.push_back(label_box(l));
    }
    gvFreeLayout(gvc, g);
    agclose(g);
    CHECK(labels.size() > 60);  // the seed's collapsed view labels most of its 165 edges
    int label_on_label = 0, label_on_node = 0;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        for (std::size_t j = i + 1; j < labels.size(); ++j) label_on_label += labels[i].overlaps(labels[j]);
        for (const auto& n : nodes) label_on_node += labels[i].overlaps(n);
    }
    CHECK(label_on_label == 0);
    CHECK(label_on_node == 0);
}

TEST_CASE("exporters: --layers 0-1,3 draws layer 3 under layer 1 with a note for layer 2, not beside layer 0", "[exporters][render]") {
    for (auto kind : {ex::ViewKind::flat, ex::ViewKind::groups}) {
        auto v = must_view(test::seed(), {.kind = kind, .layers = std::vector<std::int64_t>{0, 1, 3}});
        auto dot = ex::export_dot(v, {});
        REQUIRE(dot.ok());
        CHECK(dot->find("layer 2 not shown") != std::string::npos);
        Agraph_t* g = agmemread(dot->c_str());
        REQUIRE(g);
        GVC_t* gvc = ex::detail::graphviz_context();
        REQUIRE(gvLayout(gvc, g, "dot") == 0);
        auto bb = [&](const char* name) {
            Agraph_t* sg = agsubg(g, const_cast<char*>(name), 0);
            REQUIRE(sg);
            return GD_bb(sg);
        };
        boxf l0 = bb("cluster_l0"), l1 = bb("cluster_l1"), l3 = bb("cluster_l3");
        INFO(ex::view_kind_name(kind) << ": layer 0 y " << l0.LL.y << ".." << l0.UR.y << ", 1 " << l1.LL.y << ".." << l1.UR.y << ", 3 " << l3.LL.y << ".."
                                      << l3.UR.y);
        CHECK(l1.UR.y < l0.LL.y);  // y up: each below the one before
        CHECK(l3.UR.y < l1.LL.y);
        gvFreeLayout(gvc, g);
        agclose(g);
    }
    // Adjacent layers get no note.
    auto v = must_view(test::seed(), {.kind = ex::ViewKind::groups, .layers = std::vector<std::int64_t>{0, 1, 2}});
    auto dot = ex::export_dot(v, {});
    REQUIRE(dot.ok());
    CHECK(dot->find("not shown") == std::string::npos);
}
