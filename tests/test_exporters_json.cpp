// kbp export json (kbp-view/v1) and kbp export model-explorer (Google Model Explorer graph JSON).
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "exporters/json_views.hpp"
#include "exporters/model_explorer.hpp"
#include "exporters/view.hpp"
#include "exporters_support.hpp"
#include "support.hpp"

using namespace kbp;
using kbp::test::OJson;
namespace ex = kbp::exporters;

using test::must_view;

namespace {

}  // namespace

TEST_CASE("exporters: JSON of the groups view lists groups, their ops and crossing edges", "[exporters][json]") {
    const auto& b = test::seed();
    auto v = must_view(b, {.kind = ex::ViewKind::groups});
    auto text = ex::export_view_json(v);
    REQUIRE(text.ok());
    auto j = OJson::parse(*text);
    CHECK(j["format"] == "kbp-view/v1");
    CHECK(j["view"] == "groups");
    CHECK(j["plan"]["nodes"] == test::seed_nodes);
    REQUIRE(j["nodes"].size() == test::seed_groups);
    CHECK(j["edges"].size() == v.edges.size());
    std::set<std::string> names, clusters;
    std::size_t ops = 0;
    for (const auto& c : j["clusters"]) clusters.insert(c["name"].get<std::string>());
    for (const auto& n : j["nodes"]) {
        CHECK(n["kind"] == "group");
        names.insert(n["name"].get<std::string>());
        ops += n["ops"].size();
        if (!n["cluster"].is_null()) CHECK(clusters.count(n["cluster"].get<std::string>()) == 1);
    }
    CHECK(ops == test::seed_nodes);
    for (const auto& e : j["edges"]) {
        CHECK(names.count(e["from"].get<std::string>()) == 1);
        CHECK(names.count(e["to"].get<std::string>()) == 1);
        CHECK(e["fused"] == false);
    }
    CHECK(j["nodes"][52]["rule"] == b.groups[52].rule.str());
    CHECK(*text == *ex::export_view_json(must_view(b, {.kind = ex::ViewKind::groups})));
}

TEST_CASE("exporters: JSON of the collapsed view has the templates with their counts", "[exporters][json]") {
    auto v = must_view(test::seed(), {.kind = ex::ViewKind::collapsed});
    auto j = OJson::parse(*ex::export_view_json(v));
    std::map<std::string, std::int64_t> count;
    for (const auto& c : j["clusters"])
        if (c["kind"] == "template") count[c["template"].get<std::string>()] = c["count"].get<std::int64_t>();
    CHECK(count == std::map<std::string, std::int64_t>{{"embed", 1}, {"kda+mlp", 3}, {"dsa+moe", 11}, {"kda+moe", 31}, {"head", 1}});
    std::size_t ports = 0;
    for (const auto& e : j["edges"])
        if (e["role"] == "port") {
            ++ports;
            CHECK(e["transitions"].get<int>() >= 1);
            CHECK(!e["in_ports"].empty());
        }
    CHECK(ports > 0);
}

TEST_CASE("exporters: Model Explorer JSON has every op with namespaces, attributes and inputs", "[exporters][json]") {
    const auto& b = test::seed();
    auto v = must_view(b, {});
    auto text = ex::export_model_explorer(v, {.label = "glm"});
    REQUIRE(text.ok());
    auto j = OJson::parse(*text);
    CHECK(j["label"] == "glm");
    REQUIRE(j["graphs"].size() == 1);
    const auto& g = j["graphs"][0];
    REQUIRE(g["nodes"].size() == test::seed_nodes);
    std::set<std::string> ids;
    for (const auto& n : g["nodes"]) ids.insert(n["id"].get<std::string>());
    std::size_t incoming = 0;
    for (const auto& n : g["nodes"]) {
        REQUIRE(n.contains("namespace"));
        std::set<std::string> keys;
        for (const auto& a : n["attrs"]) keys.insert(a["key"].get<std::string>());
        for (const char* k : {"op", "precision", "kernel", "family", "bytes_in_per_token", "bytes_out_per_token"})
            CHECK(keys.count(k) == 1);
        for (const auto& e : n["incomingEdges"]) {
            ++incoming;
            REQUIRE(ids.count(e["sourceNodeId"].get<std::string>()) == 1);
        }
    }
    CHECK(incoming == test::seed_edges);
    // Namespaces follow layer / block / fused group.
    for (const auto& n : g["nodes"]) {
        if (n["id"] == "l3.dsa.q_a") CHECK(n["namespace"] == "l3/dsa/g52 " + b.groups[52].rule);
        if (n["id"] == "l3.dsa.xn_quant") {
            CHECK(n["namespace"] == "l3/dsa");  // a group of one op adds no level
            CHECK(n["style"]["borderColor"].is_string());
        }
    }
    CHECK(g["groupNodeAttributes"].contains("l3/dsa/g52 " + b.groups[52].rule));
    CHECK_FALSE(ex::export_model_explorer(must_view(b, {.kind = ex::ViewKind::groups})).ok());
    // Every output carries a `shape` (rows x width), the key Model Explorer's edge labels read;
    // a tensor two ops read counts once in its producer's bytes out (the embedding's one output).
    std::size_t shaped = 0, outputs = 0;
    for (const auto& n : g["nodes"])
        for (const auto& o : n["outputsMetadata"]) {
            ++outputs;
            for (const auto& a : o["attrs"])
                if (a["key"] == "shape") ++shaped;
        }
    CHECK(outputs > 0);
    CHECK(shaped == outputs);
    for (const auto& n : g["nodes"]) {
        if (n["id"] != "embed.embed") continue;
        std::string out_bytes, out_tensor;
        for (const auto& a : n["attrs"])
            if (a["key"] == "bytes_out_per_token") out_bytes = a["value"];
        for (const auto& a : n["outputsMetadata"][0]["attrs"])
            if (a["key"] == "bytes_per_token") out_tensor = a["value"];
        CHECK(n["outputsMetadata"].size() == 1);
        CHECK(out_bytes == out_tensor);
    }
}
