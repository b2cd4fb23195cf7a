// The JSON Schema subset the planner's data files are described in (planner/data/schemas/):
// draft 2020-12's type, enum, const, required, properties, additionalProperties (false or a
// schema), propertyNames, items, minItems, maxItems, minProperties, minimum, maximum, exclusiveMinimum,
// minLength, pattern, anyOf and $ref to "#/$defs/<name>"; the annotations $schema, $id, $defs,
// $comment, title, description, default and examples; and one keyword of kbp's own:
// "x-kbp-check" names a check the value must also pass that a schema cannot say (a name that
// refers to something elsewhere: a format, an op, a kernel of the file, an expression's syntax).
// The caller runs those checks (check_data.cpp). Other validators ignore the x- keyword, so
// python3-jsonschema reads the same files in the tests: there is one description per kind of
// file, and C++ never means more or less than it.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "schema/names.hpp"

namespace kbp::planner {

struct SchemaProblem {
    std::string pointer;  // RFC 6901 pointer into the checked document, "" for the root
    std::string message;  // "unknown member 'wieght' (did you mean 'weight'?)"
};

// An "x-kbp-check": what is wrong with `value` (at `pointer`) by the check named `check`, with
// the pointer of the part that is wrong (`pointer` or one below it), or nullopt.
using ExtraCheck = std::function<std::optional<SchemaProblem>(const std::string& check, const nlohmann::ordered_json& value,
                                                               const std::string& pointer)>;

// The first problem of `value` against `schema`, in document order (an object's unknown
// members, then its missing ones, then each member in turn; a value's own x-kbp-check after
// its members), or nullopt when it has none.
std::optional<SchemaProblem> check_schema(const nlohmann::ordered_json& value, const nlohmann::ordered_json& schema,
                                          const ExtraCheck& extra = {});

// Where `schema` uses what check_schema does not implement (a keyword outside the subset, a
// $ref it cannot resolve), or nullopt: a schema must never mean more than kbp checks.
std::optional<SchemaProblem> unsupported_in_schema(const nlohmann::ordered_json& schema);

using schema::pointer_token;  // "a~1b" for "a/b" (schema/names.hpp)

}  // namespace kbp::planner
