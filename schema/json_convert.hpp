// A blueprint's open JSON values (JsonValue: a kernel's point, a planner's header, extras) as
// nlohmann's ordered JSON, for the code that writes JSON files. Kept out of json_value.hpp so
// that including the model does not pull in nlohmann's header.
#pragma once

#include <nlohmann/json.hpp>

#include "schema/json_value.hpp"

namespace kbp::schema {

nlohmann::ordered_json to_ordered_json(const JsonValue& v);

}  // namespace kbp::schema
