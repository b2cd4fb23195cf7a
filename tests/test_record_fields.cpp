// The records' tables (schema/record_fields.hpp): they agree with the JSON Schema member by
// member, and every entry of a table reaches the reader (read, required or defaulted), the
// writer (written in the table's order) and the tests' comparison. The reader, writer and
// comparison are templates over the tables, so these checks, run over every entry, also cover
// an entry added later: adding a member to a record is its table line plus its Schema text.
#include <catch2/catch.hpp>

#include <algorithm>

#include "schema/reader.hpp"
#include "schema/record_fields.hpp"
#include "schema/writer.hpp"
#include "support.hpp"

using namespace kbp;
using namespace kbp::schema;
using kbp::test::OJson;

namespace {

// A Shape::inlined field is not a member of its own: its sub-record's members are, and they are
// checked against the sub-record's own definition (a template edge's tensor detail: edgeDetail).
template <class F> constexpr bool is_member = F::shape != Shape::inlined;

template <class T> std::vector<std::string> table_members() {
    std::vector<std::string> out;
    for_each_field<T>([&](const auto& f) {
        if (is_member<std::decay_t<decltype(f)>>) out.emplace_back(f.json);
    });
    return out;
}

template <class T> std::vector<std::string> table_required() {
    std::vector<std::string> out;
    for_each_field<T>([&](const auto& f) {
        if (is_member<std::decay_t<decltype(f)>> && schema_required(f.presence)) out.emplace_back(f.json);
    });
    std::sort(out.begin(), out.end());
    return out;
}

const OJson& graph_schema() {
    static const OJson schema = OJson::parse(test::slurp(test::source_dir() + "/schema/kbp-graph-v2.schema.json"));
    return schema;
}

// `def` names a $defs entry; "" the document root.
template <class T> void check_against_schema(const std::string& def) {
    INFO("$defs/" << def);
    const OJson& d = def.empty() ? graph_schema() : graph_schema().at("$defs").at(def);
    std::vector<std::string> properties;
    for (const auto& [name, value] : d.at("properties").items()) properties.push_back(name);
    CHECK(properties == table_members<T>());  // the same members, in the same (written) order
    auto required = d.value("required", std::vector<std::string>{});
    std::sort(required.begin(), required.end());
    CHECK(required == table_required<T>());
}

// The seed written compact and parsed back with its key order: what the writer wrote.
const OJson& seed_as_written() {
    static const OJson j = OJson::parse(write_blueprint(test::seed(), {.pretty = false}));
    return j;
}

// For the record at `pointer` in the seed (got by `get` from a blueprint): the writer wrote its
// table's members in order, the reader refuses it without a required member and gives a
// left-out member its default, and the comparison looks at every member.
template <class T, class Get> void check_reach(const std::string& pointer, Get get) {
    INFO(pointer);
    const OJson& written = seed_as_written().at(OJson::json_pointer(pointer));
    std::vector<std::string> keys;
    for (const auto& [name, value] : written.items()) keys.push_back(name);

    std::size_t next = 0;  // the table's members appear in the written keys in the table's order
    for_each_field<T>([&](const auto& f) {
        const std::string name(f.json);
        INFO("member " << name);
        auto at = std::find(keys.begin() + static_cast<std::ptrdiff_t>(std::min(next, keys.size())), keys.end(), name);
        bool present = at != keys.end();
        if (always_written(f.presence)) CHECK(present);
        if (!present) return;
        next = static_cast<std::size_t>(at - keys.begin()) + 1;

        auto text = test::mutate_seed(OJson::array({{{"op", "remove"}, {"path", pointer + "/" + name}}}));
        auto read = read_blueprint(text, "m.json");
        if (f.presence == Presence::required) {
            REQUIRE_FALSE(read);
            CHECK(read.error().text() == "m.json: " + pointer + ": missing required member '" + name + "'");
        } else {
            REQUIRE(read);
            CHECK(get(*read).*(f.member) == T{}.*(f.member));
        }
    });

    test::Diff diff;
    test::compare_record(diff, pointer, get(test::seed()), get(test::seed()));
    CHECK(diff.compared() == field_count<T>() + 1);  // every member and the extras
    CHECK(diff.empty());
}

std::size_t first_edge_with_requant() {
    const auto& edges = test::seed().edges;
    auto it = std::find_if(edges.begin(), edges.end(), [](const Edge& e) { return e.requant.has_value(); });
    REQUIRE(it != edges.end());
    return static_cast<std::size_t>(it - edges.begin());
}

// A record that exists only here: describing it is enough for the comparison to cover it.
struct ProbeRecord {
    std::string name;
    std::int64_t count = 0;
    std::optional<std::string> note;
    Extras extras;
};

}  // namespace

namespace kbp::schema {
template <> inline constexpr auto record_fields<ProbeRecord> = std::tuple{
    field("name", &ProbeRecord::name),
    field("count", &ProbeRecord::count, Presence::required, 0, 10),
    field("note", &ProbeRecord::note, Presence::optional),
};
}  // namespace kbp::schema

TEST_CASE("every record's table agrees with the JSON Schema member by member", "[record_fields][schema]") {
    check_against_schema<Precision>("precision");
    check_against_schema<Requant>("requant");
    check_against_schema<Arm>("arm");
    check_against_schema<Parallel>("parallel");
    check_against_schema<Layer>("layer");
    check_against_schema<Node>("node");
    check_against_schema<Edge>("edge");
    check_against_schema<Group>("group");
    check_against_schema<TemplateNode>("templateNode");
    check_against_schema<EdgeDetail>("edgeDetail");
    check_against_schema<TemplateGroup>("templateGroup");
    check_against_schema<Ports>("ports");
    check_against_schema<FileDigest>("provenanceFile");
    check_against_schema<FamilyDoc>("explainFamily");
    check_against_schema<FormatDoc>("explainFormat");
    check_against_schema<TemplateEdge>("templateEdge");
    check_against_schema<Template>("template");
    check_against_schema<Collapsed>("collapsed");
    check_against_schema<Explain>("explain");
    check_against_schema<Provenance>("provenance");
    check_against_schema<Blueprint>("");
}

TEST_CASE("the shapes of the tables' special members match the JSON Schema", "[record_fields][schema]") {
    const OJson& defs = graph_schema().at("$defs");
    // Lists keyed by name are objects in the Schema, whose values are the items' records.
    for_each_field<Collapsed>([&](const auto& f) {
        if constexpr (std::decay_t<decltype(f)>::shape == Shape::keyed_by_name) {
            CHECK(defs.at("collapsed").at("properties").at(std::string(f.json)).at("type") == "object");
        } else {
            CHECK(defs.at("collapsed").at("properties").at(std::string(f.json)).at("type") == "array");
        }
    });
    for_each_field<Explain>([&](const auto& f) {
        STATIC_REQUIRE(std::decay_t<decltype(f)>::shape == Shape::keyed_by_name);
        CHECK(defs.at("explain").at("properties").at(std::string(f.json)).at("type") == "object");
    });
    // The template edge's inlined detail: its members are not the edge's own in the Schema.
    for_each_field<EdgeDetail>([&](const auto& f) {
        CHECK_FALSE(defs.at("templateEdge").at("properties").contains(std::string(f.json)));
    });
}

TEST_CASE("the root, template, collapsed, explain and provenance are read, written and compared by their tables",
          "[record_fields]") {
    // The root's required members are refused by name when missing (the flat lists only when
    // there is no collapsed form to stand for them).
    for (const char* name : {"schema", "arm", "layers", "nodes", "edges", "groups"}) {
        INFO(name);
        auto read = read_blueprint(test::mutate_seed(OJson::array({{{"op", "remove"}, {"path", std::string("/") + name}}})), "m.json");
        REQUIRE_FALSE(read);
        CHECK(read.error().text() == std::string("m.json: /: missing required member '") + name + "'");
    }
    auto only = read_blueprint(test::mutate_seed(OJson::array({{{"op", "remove"}, {"path", "/nodes"}},
                                                               {{"op", "remove"}, {"path", "/edges"}},
                                                               {{"op", "remove"}, {"path", "/groups"}}})),
                               "m.json");
    REQUIRE(only);
    CHECK(only->collapsed_only);
    const OJson written = OJson::parse(write_blueprint(*only, {.pretty = false}));
    CHECK_FALSE(written.contains("nodes"));
    CHECK(written.contains("collapsed"));

    // The required members of the records the root holds.
    for (const char* pointer : {"/collapsed/templates/embed/blocks", "/collapsed/templates/embed/ports", "/collapsed/layout",
                                "/collapsed/templates", "/explain/formats", "/provenance/kind",
                                "/collapsed/templates/embed/edges/0/fused"}) {
        INFO(pointer);
        std::string p = pointer;
        auto read = read_blueprint(test::mutate_seed(OJson::array({{{"op", "remove"}, {"path", p}}})), "m.json");
        REQUIRE_FALSE(read);
        auto slash = p.rfind('/');
        CHECK(read.error().text() == "m.json: " + p.substr(0, slash) + ": missing required member '" + p.substr(slash + 1) + "'");
    }

    // planner_header is written only when not null, and is an object when present.
    Blueprint b = test::seed();
    b.provenance->planner_header = JsonValue(nullptr);
    CHECK_FALSE(OJson::parse(write_blueprint(b, {.pretty = false})).at("/provenance"_json_pointer).contains("planner_header"));
    auto null_header = read_blueprint(test::mutate_seed(OJson::array({{{"op", "replace"}, {"path", "/provenance/planner_header"}, {"value", nullptr}}})), "m.json");
    REQUIRE_FALSE(null_header);
    CHECK(null_header.error().text() == "m.json: /provenance/planner_header: expected an object, found null");

    // The comparison reaches every member of the root and of the records below it.
    test::Diff same;
    test::compare(same, test::seed(), test::seed());
    CHECK(same.empty());
    Blueprint c = test::seed();
    c.collapsed->templates[0].instances.push_back(99);
    c.explain->formats[0].title = "changed";
    c.provenance->commands.push_back("x");
    c.arm.digest = std::nullopt;
    test::Diff diff;
    test::compare(diff, test::seed(), c);
    CHECK(diff.count() == 4);
}

TEST_CASE("every member of a table is read, written, required and compared", "[record_fields]") {
    check_reach<Node>("/nodes/5", [](const Blueprint& b) -> const Node& { return b.nodes[5]; });
    check_reach<Edge>("/edges/3", [](const Blueprint& b) -> const Edge& { return b.edges[3]; });
    check_reach<Group>("/groups/2", [](const Blueprint& b) -> const Group& { return b.groups[2]; });
    check_reach<Layer>("/layers/4", [](const Blueprint& b) -> const Layer& { return b.layers[4]; });
    check_reach<Arm>("/arm", [](const Blueprint& b) -> const Arm& { return b.arm; });
    check_reach<Precision>("/nodes/5/precision", [](const Blueprint& b) -> const Precision& { return b.nodes[5].precision; });
    static const std::size_t requant_edge = first_edge_with_requant();
    check_reach<Requant>("/edges/" + std::to_string(requant_edge) + "/requant",
                         [](const Blueprint& b) -> const Requant& { return *b.edges[requant_edge].requant; });
    check_reach<TemplateNode>("/collapsed/templates/embed/nodes/0",
                              [](const Blueprint& b) -> const TemplateNode& { return b.collapsed->find("embed")->nodes[0]; });
}

TEST_CASE("a record described only in a test is compared member by member", "[record_fields]") {
    ProbeRecord a{"x", 3, std::nullopt, {}}, b{"x", 4, std::string("n"), {}};
    test::Diff diff;
    test::compare_record(diff, "/probe", a, b);
    CHECK(diff.compared() == 4);
    REQUIRE(diff.items().size() == 2);
    CHECK_THAT(diff.items()[0], Catch::StartsWith("/probe/count"));
    CHECK_THAT(diff.items()[1], Catch::StartsWith("/probe/note"));
    STATIC_REQUIRE(field_count<ProbeRecord>() == 3);
    STATIC_REQUIRE(Described<ProbeRecord>);
    STATIC_REQUIRE(Described<Blueprint>);
    STATIC_REQUIRE_FALSE(Described<Symbol>);  // written as one member of the symbols object
}
