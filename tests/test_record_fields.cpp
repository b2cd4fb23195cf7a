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

template <class T> std::vector<std::string> table_members() {
    std::vector<std::string> out;
    for_each_field<T>([&](const auto& f) { out.emplace_back(f.json); });
    return out;
}

template <class T> std::vector<std::string> table_required() {
    std::vector<std::string> out;
    for_each_field<T>([&](const auto& f) {
        if (schema_required(f.presence)) out.emplace_back(f.json);
    });
    std::sort(out.begin(), out.end());
    return out;
}

const OJson& graph_schema() {
    static const OJson schema = OJson::parse(test::slurp(test::source_dir() + "/schema/kbp-graph-v2.schema.json"));
    return schema;
}

template <class T> void check_against_schema(const std::string& def) {
    INFO("$defs/" << def);
    const OJson& d = graph_schema().at("$defs").at(def);
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
    STATIC_REQUIRE_FALSE(Described<Blueprint>);
}
