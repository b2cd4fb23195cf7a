// The blueprint's GPNPU words: kernel template arguments on nodes, fx32/f? for fractional bits
// no range decided, and a layer template's per-instance values. Read, written back, validated
// (one launch has one signature), and checked against the collapsed form.
#include <catch2/catch.hpp>

#include "planner/plan.hpp"
#include "schema/bytes.hpp"
#include "schema/reader.hpp"
#include "schema/validator.hpp"
#include "schema/writer.hpp"
#include "support.hpp"

using namespace kbp;
using test::OJson;

namespace {

// The Sarashina plan, written as JSON: the base every case below mutates.
const std::string& gpnpu_plan_text() {
    static const std::string text = [] {
        planner::PlanRequest r;
        r.config_path = std::string(KBP_SOURCE_DIR) + "/samples/sarashina2.2-3b/config.json";
        r.ranges = std::string(KBP_SOURCE_DIR) + "/samples/sarashina2.2-3b/ranges.json";
        r.command = "kbp plan (test)";
        auto p = planner::make_plan(r);
        if (!p) FAIL(p.error().text());
        return schema::write_blueprint(p->blueprint, {.pretty = false});
    }();
    return text;
}

int node_index(const OJson& doc, const std::string& id) {
    for (std::size_t i = 0; i < doc["nodes"].size(); ++i)
        if (doc["nodes"][i]["id"] == id) return static_cast<int>(i);
    FAIL("no node " << id);
    return -1;
}

schema::Diagnostics validate_text(const std::string& text) {
    auto b = schema::read_blueprint(text, "plan.json");
    INFO((b ? std::string() : b.error().text()));
    REQUIRE(b.ok());
    return schema::validate(*b);
}

}  // namespace

TEST_CASE("template args: read, validated and written back byte for byte", "[schema][gpnpu]") {
    const auto& text = gpnpu_plan_text();
    auto b = schema::read_blueprint(text, "plan.json");
    REQUIRE(b.ok());
    CHECK(schema::validate(*b).empty());
    CHECK(schema::write_blueprint(*b, {.pretty = false}) == text);
    auto doc = OJson::parse(text);
    auto& o = doc["nodes"][node_index(doc, "l0.attn.o")];
    CHECK(o["template_args"] == OJson::parse(R"({"F_out": 25, "F_in": 31})"));
    // Nodes without a templated kernel write no member at all (the seed's form is unchanged).
    CHECK_FALSE(doc["nodes"][node_index(doc, "l0.attn.residual")].contains("template_args"));
}

TEST_CASE("template args: wrong types are refused with a pointer", "[schema][gpnpu]") {
    auto doc = OJson::parse(gpnpu_plan_text());
    int i = node_index(doc, "l0.attn.o");
    for (auto bad : {OJson("F_out=25"), OJson::parse(R"({"F_out": "25"})"), OJson::parse(R"({"F_out": 2.5})"), OJson::array({25, 31})}) {
        auto d = doc;
        d["nodes"][i]["template_args"] = bad;
        auto b = schema::read_blueprint(d.dump(), "plan.json");
        INFO(bad.dump());
        REQUIRE_FALSE(b.ok());
        CHECK(b.error().where.find("plan.json: /nodes/" + std::to_string(i) + "/template_args") == 0);
    }
}

TEST_CASE("template args: one launch has one signature, and arguments need a kernel", "[schema][gpnpu]") {
    auto doc = OJson::parse(gpnpu_plan_text());
    int k = node_index(doc, "l0.attn.k");
    auto d = doc;
    d["nodes"][k]["template_args"]["F_out"] = 20;
    auto problems = validate_text(d.dump());
    INFO(test::list_diagnostics(problems));
    CHECK(test::has_pointer(problems, "/nodes/" + std::to_string(k) + "/template_args"));
    bool names_both = false;
    for (const auto& p : problems.items())
        names_both = names_both || (p.message.find("w4a16PackedProj<3, 20, 31, 31>") != std::string::npos &&
                                    p.message.find("<3, 21, 31, 31>") != std::string::npos);
    CHECK(names_both);

    int norm = node_index(doc, "l0.attn.input_norm");
    d = doc;
    d["nodes"][norm]["template_args"] = OJson::parse(R"({"F": 3})");
    d["nodes"][norm]["kernel"] = nullptr;
    problems = validate_text(d.dump());
    CHECK(test::has_pointer(problems, "/nodes/" + std::to_string(norm) + "/template_args"));
}

TEST_CASE("template args: a layer template's instance values rebuild every layer, and are checked", "[schema][gpnpu]") {
    auto doc = OJson::parse(gpnpu_plan_text());
    auto& t = doc["collapsed"]["templates"]["attn+mlp"];
    REQUIRE(t.contains("instance_values"));
    REQUIRE(t["instance_values"].size() == 32);
    // A flat node that disagrees with its layer's instance values is caught.
    auto d = doc;
    int o = node_index(doc, "l3.attn.o");
    d["nodes"][o]["template_args"]["F_out"] = 9;
    auto problems = validate_text(d.dump());
    CHECK(test::has_pointer(problems, "/nodes/" + std::to_string(o) + "/template_args"));
    // A row of the wrong length.
    d = doc;
    d["collapsed"]["templates"]["attn+mlp"]["instance_values"][5].erase(0);
    problems = validate_text(d.dump());
    INFO(test::list_diagnostics(problems));
    CHECK(test::has_pointer(problems, "/collapsed/templates/attn+mlp/instance_values/5"));
    // Collapsed form only: expanding it gives back every layer's own values.
    d = doc;
    d.erase("nodes");
    d.erase("edges");
    d.erase("groups");
    auto b = schema::read_blueprint(d.dump(), "collapsed.json");
    REQUIRE(b.ok());
    CHECK(schema::validate(*b).empty());
}

TEST_CASE("fixed point formats: fx32/f? and the int4/b128 bytes", "[schema][gpnpu]") {
    auto unknown = schema::Format::parse("fx32/f?");
    CHECK(unknown.id == schema::FormatId::fx32);
    CHECK(schema::fx32_fraction_bits(unknown) == -1);
    CHECK(schema::fx32_fraction_bits(schema::Format::parse("fx32/f23")) == 23);
    CHECK_FALSE(schema::Format::parse("fx32/f32").known());
    CHECK_FALSE(schema::Format::parse("fx32").known());
    CHECK(schema::format_doc_name(schema::Format::parse("fx32/f7")) == "fx32");
    CHECK(schema::fx32_format(-1).name() == "fx32/f?");
    CHECK(*schema::row_bytes(schema::Format::parse("fx32/f?"), 2560) == 10240);
    // MatMulNBits: 1280 code bytes, 20 f32 scales, 20 4-bit zero points.
    CHECK(*schema::row_bytes(schema::Format::parse("int4/b128"), 2560) == 1280 + 80 + 10);
    CHECK(*schema::weight_bytes(schema::Format::parse("int4/b128"), 102400, 2560) == 102400 * 1370);
}
