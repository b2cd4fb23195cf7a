// The viewer's documents: a plan cut into instances and units (a layer template found from the
// flat lists), checked against the seed's known structure; loading a bad file; the folded view
// before the flat lists.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include "schema/file_io.hpp"
#include "schema/reader.hpp"
#include "schema/templates.hpp"
#include "schema/writer.hpp"
#include "viewer/model/document.hpp"
#include "viewer_support.hpp"

using namespace kbp;
using viewer::Document;

TEST_CASE("viewer document: the seed's 45 layers share three units, plus embed and head", "[viewer][document]") {
    Document doc(test::seed(), "seed");
    const auto& units = doc.units();
    REQUIRE(units.size() == 5);
    std::map<std::string, std::size_t> instances;
    for (const auto& u : units) instances[u.name] = u.instances.size();
    CHECK(instances == std::map<std::string, std::size_t>{{"embed", 1}, {"kda+mlp", 3}, {"dsa+moe", 11}, {"kda+moe", 31}, {"head", 1}});
    CHECK(doc.instances().size() == 47);
    // Every op in exactly one instance, at its local index.
    std::size_t ops = 0;
    for (std::size_t i = 0; i < doc.instances().size(); ++i) {
        const auto& inst = doc.instances()[i];
        const auto& unit = doc.units()[static_cast<std::size_t>(inst.unit)];
        REQUIRE(inst.nodes.size() == unit.nodes.size());
        REQUIRE(inst.edges.size() == unit.edges.size());
        for (std::size_t l = 0; l < inst.nodes.size(); ++l) {
            auto n = static_cast<std::size_t>(inst.nodes[l]);
            CHECK(doc.instance_of_node(n) == static_cast<std::int32_t>(i));
            CHECK(doc.local_of_node(n) == static_cast<std::int32_t>(l));
            // Instances of one unit are the same op at the same place.
            const auto& first = doc.plan().nodes[static_cast<std::size_t>(doc.instances()[static_cast<std::size_t>(unit.instances.front())].nodes[l])];
            CHECK(doc.plan().nodes[n].op == first.op);
            CHECK(doc.plan().nodes[n].precision == first.precision);
        }
        ops += inst.nodes.size();
    }
    CHECK(ops == test::seed_nodes);
    // The facts of the format: template edges times instances give 2,368 of the 2,504 edges; the
    // other 136 join a layer's out port to the next layer's in ports.
    std::size_t inside = 0;
    for (const auto& inst : doc.instances()) inside += inst.edges.size();
    CHECK(inside == 2368);
    CHECK(doc.crossing_edges().size() == 136);
    CHECK(doc.find_node("l3.dsa.q_a") == 102);
    CHECK(doc.find_node("nope") == -1);
    CHECK(doc.instance_of_layer(3) == 4);  // embed, layers 0-2, then layer 3
}

TEST_CASE("viewer document: a layer that differs from its template gets a unit of its own", "[viewer][document]") {
    schema::Blueprint b = test::seed();
    for (auto& n : b.nodes)
        if (n.id == "l9.moe.shared_down") n.kernel = "other::kernel";
    Document doc(std::move(b), "changed");
    REQUIRE(doc.units().size() == 6);
    auto it = std::find_if(doc.units().begin(), doc.units().end(), [](const viewer::Unit& u) { return u.name == "kda+moe (variant 2)"; });
    REQUIRE(it != doc.units().end());
    const auto& variant = *it;
    REQUIRE(variant.instances.size() == 1);
    CHECK(doc.instances()[static_cast<std::size_t>(variant.instances.front())].layer == 9);
}

TEST_CASE("viewer document: a GPNPU plan's layers differ in fixed-point bits only and fold into one unit", "[viewer][document][gpnpu]") {
    auto b = schema::load_blueprint(std::string(KBP_SOURCE_DIR) + "/samples/sarashina2.2-3b/decode.qc-u.plan.json");
    REQUIRE(b.ok());
    Document doc(std::move(*b), "sarashina");
    std::map<std::string, std::size_t> instances;
    for (const auto& u : doc.units()) instances[u.name] = u.instances.size();
    CHECK(instances == std::map<std::string, std::size_t>{{"embed", 1}, {"attn+mlp", 32}, {"head", 1}});
    // Each layer keeps its own numbers: the unit shares the layout, not the labels.
    auto f_out = [&](const char* id) {
        const auto& n = doc.plan().nodes[static_cast<std::size_t>(doc.find_node(id))];
        return (*n.template_args)[0].value;
    };
    CHECK(f_out("l3.mlp.down") == 15);
    CHECK(f_out("l31.mlp.down") == 19);
}

TEST_CASE("viewer document: loading names the file and keeps the validator's problems", "[viewer][document]") {
    auto good = viewer::load_document(test::seed_path());
    REQUIRE(good.document);
    CHECK_FALSE(good.failure);
    CHECK(good.document->cost());  // the seed names a target kbp knows (gb10)
    auto bad = viewer::load_document(test::corpus_dir() + "/files/bp_dangling_edge.json");
    CHECK_FALSE(bad.document);
    REQUIRE(bad.failure);
    CHECK(bad.failure->message.find("bp_dangling_edge.json: invalid blueprint") != std::string::npos);
    REQUIRE_FALSE(bad.failure->problems.empty());
    CHECK(bad.failure->problems[0].find("/edges/1/to") != std::string::npos);
    auto missing = viewer::load_document("/nonexistent/plan.json");
    REQUIRE(missing.failure);
    CHECK(missing.failure->message.find("/nonexistent/plan.json") != std::string::npos);
    auto syntax = viewer::load_document(test::corpus_dir() + "/files/truncated.json");
    if (syntax.failure) CHECK(syntax.failure->message.find("truncated.json:") != std::string::npos);
}

// Issue 30: a million-node plan's folded view is drawn as soon as the file is read and checked;
// every op's edges, the sorted ids and the roofline cost follow on a thread. Nothing the folded
// view draws may need them: if loading, adopting or the first frame asked for them, the plan
// would be complete before that frame.
TEST_CASE("viewer document: the folded view is drawn before the flat lists and the cost are made", "[viewer][document]") {
    auto m = test::view_model();
    m->open(test::seed_path());
    while (!m->document(0)) {
        m->update();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const viewer::Document* doc = m->document(0);
    CHECK_FALSE(doc->complete());
    CHECK(doc->completion() == 0);
    CHECK(m->completing());
    CHECK(m->busy());
    viewer::DrawList d;
    auto stats = m->frame(test::screen, d);
    CHECK(stats.rows == 5);  // embed, the three cards, head
    CHECK(d.estimated_vertices() > 0);
    CHECK_FALSE(doc->complete());  // the frame drew from the units alone

    REQUIRE(m->settle());  // the next update starts the rest on a thread; settle waits for it
    CHECK(doc->complete());
    CHECK(doc->completion() == 1);
    CHECK_FALSE(m->completing());
    CHECK(doc->find_node("l3.dsa.q_a") >= 0);
    CHECK(doc->cost());
    REQUIRE(m->select_id("l3.dsa.q_a"));
    CHECK_FALSE(m->inspector().empty());
}

TEST_CASE("viewer document: the flat lists and the cost are made on first use without a thread", "[viewer][document]") {
    Document doc(test::seed(), "seed");
    CHECK(doc.units().size() == 5);
    CHECK_FALSE(doc.complete());
    auto q_a = doc.find_node("l3.dsa.q_a");
    REQUIRE(q_a >= 0);
    CHECK(doc.plan().nodes[static_cast<std::size_t>(q_a)].id == "l3.dsa.q_a");
    CHECK_FALSE(doc.in_edges(static_cast<std::size_t>(q_a)).empty());
    CHECK_FALSE(doc.complete());  // the cost is still to come
    CHECK(doc.cost());
    CHECK(doc.complete());
    CHECK(doc.find_node("l3.dsa.nope") == -1);
}

namespace {

// The seed's templates over `layers` layers (kbp's lossless collapse, flat lists too), written
// compact to `path`, with `patch` applied to the plan first.
void write_relaid(const std::string& path, std::size_t layers, const std::function<void(schema::Blueprint&)>& patch = {}) {
    schema::Blueprint b = test::seed_over_layers(layers, true);
    if (patch) patch(b);
    REQUIRE(write_file_atomic(path, schema::write_blueprint(b, {.pretty = false})).ok());
}

// Opens `path` as a big plan is opened, whatever its size: shown before its flat lists are read.
const Document* open_lists_after(viewer::ViewModel& m, const std::string& path) {
    m.open(viewer::start_loading(path, {}, {.lists_after_above = 1}));
    while (!m.document(0) && m.errors().empty()) {
        m.update();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    REQUIRE(m.document(0));
    return m.document(0);
}

}  // namespace

TEST_CASE("reader: a big plan read without its flat lists gives every other member", "[reader][viewer][document]") {
    test::TempDir dir;
    const std::string path = dir.file("relaid.json");
    write_relaid(path, 12);
    auto whole = schema::load_blueprint(path);
    REQUIRE(whole.ok());
    CHECK_FALSE(schema::load_blueprint_without_lists(path));  // below pieces_above: read whole
    auto skimmed = schema::load_blueprint_without_lists(path, {.pieces_above = 1, .piece_bytes = 4096});
    REQUIRE(skimmed);
    CHECK(skimmed->nodes.empty());
    CHECK(skimmed->edges.empty());
    CHECK(skimmed->groups.empty());
    CHECK_FALSE(skimmed->collapsed_only);
    schema::Blueprint rest = std::move(*whole);
    rest.nodes.clear();
    rest.edges.clear();
    rest.groups.clear();
    CHECK(*skimmed == rest);
    // The templates expand to the file's flat lists (the first frame draws the expansion).
    auto flat = schema::expand_templates(*skimmed);
    REQUIRE(flat.ok());
    CHECK(flat->complete);
    auto file = schema::load_blueprint(path);
    CHECK(flat->nodes == file->nodes);
    CHECK(flat->edges == file->edges);
    CHECK(flat->groups == file->groups);
    // A file without flat lists, or not a plan, is left to load_blueprint.
    CHECK_FALSE(schema::load_blueprint_without_lists(test::corpus_dir() + "/files/truncated.json", {.pieces_above = 1}));
}

// Issue 30: a million-op plan's first frame is drawn from its templates and layers; its flat
// lists are read from the file after that frame, on a thread, with the progress bar.
TEST_CASE("viewer document: a big plan's first frame is drawn before its flat lists are read", "[viewer][document]") {
    test::TempDir dir;
    const std::string path = dir.file("relaid.json");
    write_relaid(path, 12);
    auto m = test::view_model();
    auto doc = open_lists_after(*m, path);
    CHECK_FALSE(doc->lists_read());
    CHECK(std::string(doc->stage()) == "reading ops");
    CHECK(doc->completion() == 0);
    viewer::DrawList d;
    auto stats = m->frame(test::screen, d);
    CHECK(stats.rows > 0);
    CHECK(d.estimated_vertices() > 0);
    CHECK_FALSE(doc->lists_read());  // the frame drew from the templates' expansion

    REQUIRE(m->settle());  // the next update reads the lists on the document's thread
    CHECK(doc->lists_read());
    CHECK(doc->complete());
    CHECK(std::string(doc->stage()) == "indexing ops");
    CHECK_FALSE(doc->late_failure());
    CHECK_FALSE(doc->replacement());  // the file's lists are the expansion
    CHECK(m->document(0) == doc);
    CHECK(m->errors().empty());
    CHECK(doc->plan().nodes == schema::load_blueprint(path)->nodes);
    REQUIRE(m->select_id("l7.dsa.q_a"));
    CHECK_FALSE(m->inspector().empty());
}

TEST_CASE("viewer document: a big plan whose flat lists turn out invalid is dropped with its problems", "[viewer][document]") {
    test::TempDir dir;
    const std::string path = dir.file("bad.json");
    write_relaid(path, 12, [](schema::Blueprint& b) {
        for (auto& n : b.nodes)
            if (n.id == "l5.kda.q") n.kernel = "other::kernel";  // no longer its template's
    });
    auto m = test::view_model();
    open_lists_after(*m, path);
    viewer::DrawList d;
    CHECK(m->frame(test::screen, d).rows > 0);  // drawn from the templates, which are valid
    CHECK(m->errors().empty());
    REQUIRE(m->settle());
    CHECK_FALSE(m->document(0));
    REQUIRE(m->errors().size() == 1);
    CHECK(m->errors()[0].failure.message.find("bad.json: invalid blueprint") != std::string::npos);
    bool names_node = false;
    for (const auto& p : m->errors()[0].failure.problems) names_node |= p.find("/nodes/") != std::string::npos;
    CHECK(names_node);
}

TEST_CASE("viewer document: a big plan whose valid flat lists are not its templates' expansion is replaced by them", "[viewer][document]") {
    test::TempDir dir;
    const std::string path = dir.file("extra.json");
    // A member kbp does not know, on one flat op: kept by the reader, no template carries it.
    write_relaid(path, 12, [](schema::Blueprint& b) { b.nodes[40].extras.emplace_back("x_note", schema::JsonValue("kept")); });
    auto m = test::view_model();
    const Document* first = open_lists_after(*m, path);
    CHECK(first->plan().nodes[40].extras.empty());  // drawn from the expansion
    viewer::DrawList d;
    CHECK(m->frame(test::screen, d).rows > 0);
    REQUIRE(m->select_id(first->plan().nodes[40].id));
    const std::string selected = first->plan().nodes[40].id;
    REQUIRE(m->settle());
    CHECK(m->errors().empty());
    const Document* now = m->document(0);
    REQUIRE(now);
    CHECK(now != first);
    CHECK(now->lists_read());
    REQUIRE(now->plan().nodes[40].extras.size() == 1);
    CHECK(now->plan().nodes[40].extras[0].first == "x_note");
    // As on a reload: the selection is kept by id.
    REQUIRE(m->selection().kind == viewer::SelectionKind::node);
    CHECK(now->plan().nodes[static_cast<std::size_t>(m->selection().index)].id == selected);
}
