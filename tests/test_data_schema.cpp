// The JSON Schema subset the planner's data files are checked against (planner/data_schema.hpp):
// each keyword refuses what it should, with the pointer of the part that is wrong and a "did
// you mean" for near misses; every shipped schema stays within the subset.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "planner/check_names.hpp"
#include "planner/data_schema.hpp"
#include "support.hpp"

namespace {

using kbp::planner::check_schema;
using kbp::planner::SchemaProblem;
using kbp::test::OJson;

// The problem of `value` against `schema` (both JSON text), or "ok".
std::string problem(const char* schema, const char* value, const kbp::planner::ExtraCheck& extra = {}) {
    auto p = check_schema(OJson::parse(value), OJson::parse(schema), extra);
    return p ? p->pointer + ": " + p->message : "ok";
}

const char* entry = R"({"type": "object", "required": ["op"], "additionalProperties": false,
                        "properties": {"op": {"type": "string"}, "weight": {"type": "string"}, "rows": {"type": "array", "minItems": 2,
                                       "maxItems": 2, "items": {"type": "integer", "minimum": 1}}}})";

}  // namespace

TEST_CASE("data schema: types, members and items are checked with the pointer of what is wrong", "[data][schema]") {
    CHECK(problem(entry, R"({"op": "linear:*", "weight": "fp8/channel", "rows": [1, 8]})") == "ok");
    CHECK(problem(entry, R"([1])") == ": expected an object, not an array");
    CHECK(problem(entry, R"({"weight": "bf16"})") == "/op: missing");
    CHECK(problem(entry, R"({"op": 3})") == "/op: expected a string, not an integer");
    CHECK(problem(entry, R"({"op": "x", "wieght": "bf16"})") == "/wieght: unknown member 'wieght' (did you mean 'weight'?)");
    CHECK(problem(entry, R"({"op": "x", "zzzzzzzz": 1})") == "/zzzzzzzz: unknown member 'zzzzzzzz' (members: op, weight, rows)");
    CHECK(problem(entry, R"({"op": "x", "rows": []})") == "/rows: empty (at least 2 items expected)");
    CHECK(problem(entry, R"({"op": "x", "rows": [1, 2, 3]})") == "/rows: has 3 items, at most 2 expected");
    CHECK(problem(entry, R"({"op": "x", "rows": [1, 0]})") == "/rows/1: 0 is below the minimum 1");
    CHECK(problem(entry, R"({"op": "x", "rows": [1, 2.5]})") == "/rows/1: expected an integer, not a number");
}

TEST_CASE("data schema: enum, const, pattern, numbers and property names", "[data][schema]") {
    CHECK(problem(R"({"enum": ["range", "input", "arg"]})", R"("rnage")") == ": 'rnage' is not one of 'range', 'input' or 'arg' (did you mean 'range'?)");
    CHECK(problem(R"({"const": "members"})", R"("membres")") == ": expected 'members', not 'membres'");
    CHECK(problem(R"({"type": "string", "pattern": "^[a-z]+$"})", R"("Ab")") == ": 'Ab' does not match \"^[a-z]+$\"");
    CHECK(problem(R"({"type": "string", "minLength": 1})", R"("")") == ": empty");
    CHECK(problem(R"({"type": "number", "exclusiveMinimum": 0})", "0") == ": 0 is not above 0");
    CHECK(problem(R"({"type": "integer", "maximum": 9007199254740992})", "18446744073709551615") ==
          ": 18446744073709551615 is above the maximum 9007199254740992");
    CHECK(problem(R"({"type": ["number", "null"], "exclusiveMinimum": 0})", "null") == "ok");
    CHECK(problem(R"({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}})", R"({"ok": 1, "a/B": 2})") ==
          "/a~1B: member name: 'a/B' does not match \"^[a-z]+$\"");
    CHECK(problem(R"({"type": "object", "minProperties": 1})", "{}") == ": empty (at least 1 member expected)");
}

TEST_CASE("data schema: anyOf blames the branch the value's type fits, $ref reads $defs", "[data][schema]") {
    const char* activation = R"({"$defs": {"tier": {"type": "object", "required": ["format"]}},
        "anyOf": [{"type": "string"}, {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/tier"}}]})";
    CHECK(problem(activation, R"("bf16")") == "ok");
    CHECK(problem(activation, R"([{"format": "bf16"}])") == "ok");
    CHECK(problem(activation, R"([{"max_rows": 2}])") == "/0/format: missing");
    CHECK(problem(activation, R"([])") == ": empty (at least 1 item expected)");
    CHECK(problem(activation, "7") == ": expected a string or an array, not an integer");
}

TEST_CASE("data schema: x-kbp-check runs the caller's check after the value's members", "[data][schema]") {
    std::vector<std::string> seen;
    auto range = [&](const std::string& check, const OJson& v, const std::string& at) -> std::optional<SchemaProblem> {
        seen.push_back(check + " " + at);
        if (v[0] > v[1]) return SchemaProblem{at, "low end above high end"};
        return std::nullopt;
    };
    const char* rows = R"({"type": "array", "items": {"type": "integer"}, "x-kbp-check": "range"})";
    CHECK(problem(rows, "[1, 8]", range) == "ok");
    CHECK(problem(rows, "[8, 1]", range) == ": low end above high end");
    // A member of the wrong type is reported before the check sees the value.
    CHECK(problem(rows, R"([1, "x"])", range) == "/1: expected an integer, not a string");
    CHECK(seen == std::vector<std::string>{"range ", "range "});
}

TEST_CASE("data schema: a schema outside the subset is refused, the shipped ones are inside it", "[data][schema]") {
    using kbp::planner::unsupported_in_schema;
    CHECK(unsupported_in_schema(OJson::parse(R"({"type": "object", "oneOf": [{}]})"))->pointer == "/oneOf");
    CHECK(unsupported_in_schema(OJson::parse(R"({"properties": {"a": {"uniqueItems": true}}})"))->pointer == "/properties/a/uniqueItems");
    CHECK(unsupported_in_schema(OJson::parse(R"({"items": {"$ref": "#/$defs/none"}})"))->pointer == "/items/$ref");
    CHECK_FALSE(unsupported_in_schema(OJson::parse(R"({"$defs": {"a": {"type": "string"}}, "items": {"$ref": "#/$defs/a"}})")));
    // Every shipped schema: inside the subset, naming only the x-kbp-checks kbp has.
    const auto checks = kbp::planner::extra_check_names();
    std::function<void(const OJson&)> named_checks = [&](const OJson& s) {
        if (s.is_object())
            if (auto x = s.find("x-kbp-check"); x != s.end())
                CHECK(std::find(checks.begin(), checks.end(), x->get<std::string>()) != checks.end());
        if (s.is_structured())
            for (const auto& v : s) named_checks(v);
    };
    std::size_t schemas = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kbp::test::source_dir() + "/planner/data/schemas")) {
        if (entry.path().extension() != ".json") continue;
        INFO(entry.path().string());
        const OJson schema = OJson::parse(kbp::test::slurp(entry.path().string()));
        CHECK_FALSE(unsupported_in_schema(schema));
        named_checks(schema);
        ++schemas;
    }
    CHECK(schemas >= 9);
}
