// The view model's panels without a window: colours as in the SVGs, find, the inspector, the diff
// of two arms, reloading a file that changed (and one that broke), the heatmap, the budget and
// `kbp why`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <thread>

#include "exporters/palette.hpp"
#include "planner/plan.hpp"
#include "schema/stats.hpp"
#include "schema/writer.hpp"
#include "viewer/model/math_text.hpp"
#include "viewer_support.hpp"

using namespace kbp;
using namespace kbp::viewer;

TEST_CASE("viewer model: the precision colours and legend are the SVG's", "[viewer][colour]") {
    Document doc(test::seed(), "seed");
    for (auto [mode, by] : {std::pair{ColorMode::precision, exporters::ColorBy::precision}, std::pair{ColorMode::family, exporters::ColorBy::family},
                            std::pair{ColorMode::state, exporters::ColorBy::state}}) {
        Colouring c(doc, mode);
        std::vector<const schema::Node*> ops;
        for (const auto& n : doc.plan().nodes) ops.push_back(&n);
        exporters::Palette palette(by, ops);
        REQUIRE(c.legend().size() == palette.legend().size());
        for (std::size_t i = 0; i < c.legend().size(); ++i) {
            CHECK(c.legend()[i].key == palette.legend()[i].key);
            CHECK(hex_of(c.legend()[i].fill) == palette.legend()[i].fill);
            CHECK(c.legend()[i].ops == palette.legend()[i].ops);
        }
        for (std::size_t n = 0; n < doc.plan().nodes.size(); n += 97) CHECK(hex_of(c.fill(n)) == palette.fill(doc.plan().nodes[n]));
    }
    auto glyph = precision_glyph(doc.plan().nodes[static_cast<std::size_t>(doc.find_node("l3.dsa.q_a"))]);
    CHECK(hex_of(glyph.weight) == exporters::format_color(schema::Format::parse("fp8/channel")).fill);
    CHECK(hex_of(glyph.activation) == exporters::format_color(schema::Format::parse("fp8/token")).fill);
    CHECK(hex_of(glyph.output) == exporters::format_color(schema::Format::parse("bf16")).fill);
}

TEST_CASE("viewer model: bytes and roofline colours count every op", "[viewer][colour]") {
    Document doc(test::seed(), "seed");
    doc.estimate_cost();
    REQUIRE(doc.cost());
    Colouring bytes(doc, ColorMode::bytes);
    std::int64_t total = 0;
    for (const auto& e : bytes.legend()) total += e.ops;
    CHECK(total == static_cast<std::int64_t>(test::seed_nodes));
    // l0.kda.q reads 8 KiB of bf16 from another kernel (what the mode shows without a roofline).
    auto q = static_cast<std::size_t>(doc.find_node("l0.kda.q"));
    CHECK(bytes_between_kernels(doc, q) >= 8192);

    Colouring bound(doc, ColorMode::bound);
    CHECK(bound.note().empty());
    std::map<std::string, std::int64_t> expected, listed;
    for (const auto& n : doc.plan().nodes) ++expected[doc.cost()->groups[static_cast<std::size_t>(n.group)].bound];
    for (const auto& e : bound.legend()) listed[e.key.substr(0, e.key.find(" · "))] += e.ops;
    CHECK(listed == expected);
    schema::Blueprint untargeted = test::seed();
    untargeted.provenance->planner_header = schema::JsonValue(nullptr);
    Document no_target(std::move(untargeted), "no target");
    no_target.estimate_cost();
    CHECK_FALSE(no_target.cost());
    Colouring unknown(no_target, ColorMode::bound);
    CHECK(unknown.note().find("no target") != std::string::npos);
    REQUIRE(unknown.legend().size() == 1);
    CHECK(unknown.legend()[0].key == "unknown");
}

TEST_CASE("viewer model: find by field, layers and block", "[viewer][find]") {
    Document doc(test::seed(), "seed");
    const auto& nodes = doc.plan().nodes;
    auto count_if = [&](auto pred) {
        std::size_t n = 0;
        for (const auto& node : nodes) n += pred(node);
        return n;
    };
    // An op matches a kernel it runs: its own, or (without one) a kernel of its group no member
    // names as its own.
    auto r = find_nodes(doc, {"kernel:w4a16", "", ""});
    CHECK(r.error.empty());
    // The seed's W4A16 kernels are GEMVs: every match is a GEMV of its own or a fused non-quantizer.
    for (auto i : r.nodes) CHECK(nodes[static_cast<std::size_t>(i)].op.name() != "act_quant");
    CHECK_FALSE(r.nodes.empty());
    // The MoE GEMV's launch also runs the quantizer before it: find by the GEMV's kernel gives the
    // expert ops, not the quantizer; by the quantizer's kernel, the quantizer.
    auto gemv = find_nodes(doc, {"kernel:w4a4_gemv_mx8_moe", "3", "moe"});
    REQUIRE_FALSE(gemv.nodes.empty());
    for (auto i : gemv.nodes) CHECK(nodes[static_cast<std::size_t>(i)].op.name() != "act_quant");
    auto quantizer = find_nodes(doc, {"kernel:w4a4_quant_rows_static", "3", "moe"});
    REQUIRE(quantizer.nodes.size() == 2);  // before gate_up and before down
    CHECK(nodes[static_cast<std::size_t>(quantizer.nodes[0])].id == "l3.moe.xn_quant");
    CHECK(nodes[static_cast<std::size_t>(quantizer.nodes[1])].id == "l3.moe.eact_quant");
    auto quant = find_nodes(doc, {"op:act_quant format:fp8/token", "3-7", "dsa"});
    CHECK(quant.nodes.size() == count_if([](const schema::Node& n) {
              bool fmt = n.precision.output && std::any_of(n.precision.output->begin(), n.precision.output->end(),
                                                            [](const schema::Format& f) { return f.name() == "fp8/token"; });
              fmt = fmt || (n.precision.activation && n.precision.activation->name() == "fp8/token");
              return n.op.name() == "act_quant" && fmt && n.layer && *n.layer >= 3 && *n.layer <= 7 && n.block_type.view() == "dsa";
          }));
    CHECK_FALSE(quant.nodes.empty());
    auto by_id = find_nodes(doc, {"L3.DSA.Q_A", "", ""}).nodes;  // case does not matter; q_a and q_a_norm
    CHECK(by_id == std::vector<std::int32_t>{102, static_cast<std::int32_t>(doc.find_node("l3.dsa.q_a_norm"))});
    CHECK(find_nodes(doc, {"rule:glm_w8a8_dsa_proj_in_split4", "3", ""}).nodes.size() == 2);
    auto bad = find_nodes(doc, {"q", "7-3", ""});
    CHECK(bad.error.find("backwards") != std::string::npos);
    CHECK(find_nodes(doc, {"", "", ""}).nodes.empty());

    auto m = test::view_of(test::seed());
    m->find({"family:wxay", "", ""});
    REQUIRE(m->find_result().nodes.size() > 2);
    m->find_next();
    CHECK(m->selection().index == m->find_result().nodes[0]);
    m->find_next();
    CHECK(m->selection().index == m->find_result().nodes[1]);
    m->find_next(-1);
    CHECK(m->selection().index == m->find_result().nodes[0]);
}

TEST_CASE("viewer model: the inspector lists every field, neighbours, family and formats", "[viewer][inspector]") {
    Document doc(test::seed(), "seed");
    doc.estimate_cost();
    auto n = static_cast<std::size_t>(doc.find_node("l3.dsa.q_a"));
    const auto& node = doc.plan().nodes[n];
    auto sections = inspect_node(doc, n);
    std::string text = inspector_text(sections);
    for (const auto& f : schema::written_fields(node)) CHECK(text.find(f.path + ": ") != std::string::npos);
    CHECK(text.find("kernel: " + *node.kernel) != std::string::npos);
    const auto& neighbours = sections[1];
    CHECK(neighbours.title == "neighbours");
    CHECK(neighbours.lines.size() == doc.in_edges(n).size() + doc.out_edges(n).size());
    for (const auto& l : neighbours.lines) CHECK(l.node >= 0);
    const auto* family = &doc.plan().explain->families.front();
    for (const auto& f : doc.plan().explain->families)
        if (f.name == node.family) family = &f;
    CHECK(text.find(family->description) != std::string::npos);
    for (const auto& f : doc.plan().explain->formats)
        if (f.name == "fp8/token") {
            REQUIRE(f.encode);
            CHECK(text.find("encode: " + math_text(*f.encode).lines.front()) != std::string::npos);  // its TeX as Unicode
        }
    CHECK(text.find("roofline on gb10") != std::string::npos);
    auto edge = inspector_text(inspect_edge(doc, static_cast<std::size_t>(doc.in_edges(n).front())));
    CHECK(edge.find("to: l3.dsa.q_a") != std::string::npos);
    auto group = inspector_text(inspect_group(doc, static_cast<std::size_t>(node.group)));
    CHECK(group.find("rule: glm_w8a8_dsa_proj_in_split4") != std::string::npos);
    CHECK(group.find("op: l3.dsa.kv_a") != std::string::npos);
}

TEST_CASE("viewer model: two arms open as a diff, coloured and listed", "[viewer][diff]") {
    const auto& a = test::glm_plan("decode", 1);
    const auto& b = test::glm_plan("multi_seq", 64);
    auto m = test::view_model();
    m->open_plan(a, "decode", 0);
    m->open_plan(b, "multi_seq 64", 1);
    REQUIRE(m->plan_diff());
    CHECK(m->color_mode() == ColorMode::diff);
    auto expected = diff::diff_plans(a, b);
    CHECK(diff::count(m->plan_diff()->nodes).added == diff::count(expected.nodes).added);
    auto legend = [&] {
        std::map<std::string, std::int64_t> out;
        for (const auto& e : m->colouring()->legend()) out[e.key] = e.ops;
        return out;
    };
    CHECK(legend()["changed"] == static_cast<std::int64_t>(diff::count(expected.nodes).changed));
    CHECK(legend().count("added") == 0);  // plan a has none of b's new ops
    m->show_side(1);
    CHECK(legend()["added"] == static_cast<std::int64_t>(diff::count(expected.nodes).added));
    // The inspector of a changed op says what changed.
    REQUIRE(m->select_id("l0.kda.q").ok());
    CHECK(m->inspector().front().title == "diff: changed");
    CHECK(inspector_text(m->inspector()).find("precision/activation: bf16 → nvfp4/g16") != std::string::npos);
    // A removed item jumps to plan a.
    diff::ItemChange removed{diff::ChangeKind::removed, "l0.kda.q", a.nodes.size() > 5 ? std::optional<std::int64_t>(5) : std::nullopt, {}, {}};
    removed.key = a.nodes[5].id;
    m->jump_to_change(removed);
    CHECK(m->shown_side() == 0);
    CHECK(m->selection().index == 5);
    m->close_second();
    CHECK_FALSE(m->plan_diff());
    CHECK(m->color_mode() == ColorMode::precision);
}

TEST_CASE("viewer model: two plans side by side share pan, zoom, folds and the selection", "[viewer][diff][side-by-side]") {
    const auto& a = test::glm_plan("decode", 1);
    const auto& b = test::glm_plan("multi_seq", 64);
    auto m = test::view_model();
    // One plan: the canvas stays one pane whatever is asked.
    m->open_plan(a, "decode", 0);
    m->set_side_by_side(true);
    CHECK_FALSE(m->side_by_side());
    DrawList one;
    m->frame(test::screen, one);
    CHECK(one.count(PrimKind::clip) == 0);
    CHECK(m->pane(0).x1 == test::screen.x1);

    m->open_plan(b, "multi_seq 64", 1);
    REQUIRE(m->side_by_side());
    const Box left = m->pane(0), right = m->pane(1);
    CHECK(left.x0 == test::screen.x0);
    CHECK(right.x1 == test::screen.x1);
    CHECK(left.x1 < right.x0);
    DrawList two;
    m->frame(test::screen, two);
    CHECK(two.count(PrimKind::clip) == 3);  // each pane, then the whole canvas for the divider
    // Each pane draws its own plan, captioned with its side.
    std::size_t in_left = 0, in_right = 0;
    std::vector<std::string> texts;
    for (const auto& p : two.prims()) {
        if (p.kind == PrimKind::fill_rect && p.box.x1 <= left.x1) ++in_left;
        if (p.kind == PrimKind::fill_rect && p.box.x0 >= right.x0) ++in_right;
        if (p.kind == PrimKind::text) texts.emplace_back(two.text_of(p));
    }
    CHECK(in_left > 10);
    CHECK(in_right > 10);
    CHECK(std::count(texts.begin(), texts.end(), "a: decode") == 1);
    CHECK(std::count(texts.begin(), texts.end(), "b: multi_seq 64") == 1);
    CHECK(m->state_json({}).find("\"side_by_side\": true") != std::string::npos);

    // A click in the right pane selects there: b becomes the shown plan, and the op is centred in
    // both panes (a has an op of the same id).
    m->show_side(1);
    const std::string id = "l0.kda.q";
    auto in_b = m->document(1)->find_node(id);
    REQUIRE(in_b >= 0);
    Place where = m->scene()->place_of_node(static_cast<std::size_t>(in_b));
    REQUIRE(where.row >= 0);
    Box box_b = m->camera().to_screen(m->scene()->node_box(where), right);
    m->show_side(0);
    m->click({(box_b.x0 + box_b.x1) / 2, (box_b.y0 + box_b.y1) / 2});
    CHECK(m->shown_side() == 1);
    REQUIRE(m->selection().kind == SelectionKind::node);
    CHECK(m->selection().index == in_b);
    m->select(m->selection(), true);
    auto centre_x = [&](int side) {
        m->show_side(side);
        return m->camera().cx;
    };
    m->show_side(0);
    const auto in_a = m->document(0)->find_node(id);
    Box world_a = m->scene()->node_box(m->scene()->place_of_node(static_cast<std::size_t>(in_a)));
    CHECK(centre_x(0) == Approx((world_a.x0 + world_a.x1) / 2));
    m->show_side(1);
    Box world_b = m->scene()->node_box(m->scene()->place_of_node(static_cast<std::size_t>(in_b)));
    CHECK(centre_x(1) == Approx((world_b.x0 + world_b.x1) / 2));

    // A pan moves both panes; a zoom at a point of one pane zooms the other at the same place.
    m->show_side(0);
    const double a_before = m->camera().cx, zoom_before = m->camera().zoom;
    m->show_side(1);
    const double b_before = m->camera().cx;
    m->pan(40, 0);
    CHECK(m->camera().cx == Approx(b_before - 40 / m->camera().zoom));
    m->show_side(0);
    CHECK(m->camera().cx == Approx(a_before - 40 / m->camera().zoom));
    m->zoom_at({(left.x0 + left.x1) / 2, (left.y0 + left.y1) / 2}, 1.5);
    CHECK(m->camera().zoom == Approx(zoom_before * 1.5));
    m->show_side(1);
    CHECK(m->camera().zoom == Approx(zoom_before * 1.5));

    // Folds follow: expanding a's layers 3-4 expands b's.
    m->show_side(0);
    REQUIRE(m->expand_layers("3-4").ok());
    m->show_side(1);
    auto has_row = [&](const std::string& title) {
        const auto& rows = m->scene()->rows();
        return std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return !r.folded && r.title.rfind(title, 0) == 0; });
    };
    CHECK(has_row("layer 3 "));
    CHECK(has_row("layer 4 "));
    CHECK_FALSE(has_row("layer 5 "));
    // Back to one pane.
    m->set_side_by_side(false);
    DrawList back;
    m->frame(test::screen, back);
    CHECK(back.count(PrimKind::clip) == 0);
}

TEST_CASE("viewer model: a file that changes is reloaded, one that breaks is reported and the old kept", "[viewer][reload]") {
    test::TempDir dir;
    std::string path = dir.file("plan.json");
    test::spit(path, test::seed_text());
    auto m = test::view_model();
    m->open(path);
    REQUIRE(m->settle());
    REQUIRE(m->document(0));
    REQUIRE(m->expand_layers("5").ok());
    REQUIRE(m->select_id("l5.kda.q").ok());
    // Broken on disk: the error is shown, the plan stays.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    test::spit(path, test::seed_text().substr(0, 5000));
    m->reload_changed();
    REQUIRE(m->settle());
    REQUIRE(m->errors().size() == 1);
    CHECK(m->errors()[0].failure.message.find("plan.json:") != std::string::npos);
    REQUIRE(m->document(0));
    CHECK(m->document(0)->plan().nodes.size() == test::seed_nodes);
    // Fixed: reloaded, keeping the folds and the selection.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    test::spit(path, schema::write_blueprint(test::seed()));
    m->reload_changed();
    REQUIRE(m->settle());
    REQUIRE(m->document(0));
    CHECK(m->scene()->rows().size() == 7);  // layer 5 still on its own, kda+moe's run cut there
    CHECK(m->document(0)->plan().nodes[static_cast<std::size_t>(m->selection().index)].id == "l5.kda.q");
    m->dismiss_errors();
    CHECK(m->errors()[0].dismissed);
    // A broken file as the second plan keeps the first.
    m->open(test::corpus_dir() + "/files/bp_dangling_edge.json", 1);
    REQUIRE(m->settle());
    CHECK(m->errors().size() == 2);
    CHECK(m->document(0));
    CHECK_FALSE(m->document(1));
}

TEST_CASE("viewer model: the heatmap marks a layer whose formats differ", "[viewer][overview]") {
    Document doc(test::seed(), "seed");
    auto h = build_heatmap(doc);
    CHECK(h.layers.size() == test::seed_layers);
    CHECK(std::none_of(h.row_differs.begin(), h.row_differs.end(), [](char c) { return c != 0; }));
    schema::Blueprint b = test::seed();
    for (auto& n : b.nodes)
        if (n.id == "l9.kda.q") n.precision.weight = schema::Format::parse("fp8/channel");
    Document odd(std::move(b), "odd");
    auto h2 = build_heatmap(odd);
    std::vector<std::int64_t> differing;
    for (std::size_t r = 0; r < h2.layers.size(); ++r)
        if (h2.row_differs[r]) differing.push_back(h2.layers[r]);
    CHECK(differing == std::vector<std::int64_t>{9});
    std::size_t column = std::find(h2.columns.begin(), h2.columns.end(), "kda.q") - h2.columns.begin();
    REQUIRE(column < h2.columns.size());
    CHECK(h2.differs[9 * h2.columns.size() + column]);
    CHECK(hex_of(h2.colours[9 * h2.columns.size() + column]) == exporters::format_color(schema::Format::parse("fp8/channel")).fill);
}

TEST_CASE("viewer model: the budget adds up", "[viewer][overview]") {
    Document doc(test::seed(), "seed");
    doc.estimate_cost();
    auto b = build_budget(doc);
    auto s = schema::compute_stats(doc.plan());
    CHECK(b.launches == s.launches);
    CHECK(b.quant_points == s.quant_points);
    CHECK(b.from_cost);
    double weights = 0, activations = 0, layer_state = 0;
    for (const auto& r : b.by_format) weights += r.weight, activations += r.activation;
    for (const auto& r : b.by_layer) layer_state += r.state;
    CHECK(weights == Approx(b.total.weight));
    CHECK(activations == Approx(b.total.activation));
    CHECK(layer_state == Approx(b.total.state));
    CHECK(b.total.weight == Approx(doc.cost()->total.weight_bytes).epsilon(1e-6));
    CHECK(b.by_layer.size() == test::seed_layers + 2);  // embed, the layers, head
    CHECK(b.by_layer.front().key == "embed");
    REQUIRE(b.step_us);
    CHECK(*b.step_us == Approx(doc.cost()->total.time_us));
}

TEST_CASE("viewer model: kbp why answers for a plan kbp made, and says why not for others", "[viewer][why]") {
    auto seed = test::view_of(test::seed());
    REQUIRE(seed->select_id("l3.moe.xn_quant").ok());
    seed->settle();
    CHECK(seed->why_text().find("not a plan kbp made") != std::string::npos);

    test::TempDir dir;
    std::string path = dir.file("decode.plan.json");
    test::spit(path, schema::write_blueprint(test::glm_plan("decode", 1)));
    auto planned = test::view_model();
    planned->open(path);
    REQUIRE(planned->settle());
    REQUIRE(planned->select_id("l3.moe.xn_quant").ok());
    REQUIRE(planned->settle(60));
    std::string why = planned->why_text();
    INFO(why);
    CHECK(why.find("l3.moe.xn_quant") == 0);
    CHECK(why.find("kernel row:") != std::string::npos);
    CHECK(why.find("fusion:") != std::string::npos);
}

TEST_CASE("viewer model: kbp why replays a plan's calibrated ranges, as kbp why does", "[viewer][why]") {
    // A Chimera plan made with --ranges: its fractional bits follow from them, and a replay that
    // left them out said "F_out unknown: no calibrated range" beside an inspector showing <25, 31>.
    const std::string sample = test::source_dir() + "/samples/sarashina2.2-3b/";
    planner::PlanRequest r;
    r.config_path = sample + "config.json";
    r.ranges = sample + "ranges.json";
    auto made = planner::make_plan(r);
    REQUIRE(made.ok());
    test::TempDir dir;
    std::string path = dir.file("qcu.plan.json");
    test::spit(path, schema::write_blueprint(made->blueprint));
    auto view = test::view_model();
    view->open(path);
    REQUIRE(view->settle());
    REQUIRE(view->select_id("l0.attn.o").ok());
    REQUIRE(view->settle(60));
    std::string why = view->why_text();
    INFO(why);
    CHECK(why.find("nn_custom::w4a16NBitsMatMul<25, 31>") != std::string::npos);
    CHECK(why.find("no calibrated range") == std::string::npos);
}
