// A small ordered JSON value for the parts of a blueprint that are open by design
// (a kernel's `point` knobs, a planner's header) and for fields a newer planner added that
// this version does not know: they are kept in reading order and written back unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kbp::schema {

class JsonValue;
using JsonArray = std::vector<JsonValue>;
using JsonMember = std::pair<std::string, JsonValue>;
using JsonObject = std::vector<JsonMember>;  // keeps key order

class JsonValue {
public:
    using Storage = std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double,
                                 std::string, JsonArray, JsonObject>;

    JsonValue() : value_(nullptr) {}
    JsonValue(std::nullptr_t) : value_(nullptr) {}
    JsonValue(bool b) : value_(b) {}
    JsonValue(std::int64_t i) : value_(i) {}
    JsonValue(std::uint64_t u) : value_(u) {}
    JsonValue(double d) : value_(d) {}
    JsonValue(std::string s) : value_(std::move(s)) {}
    JsonValue(const char* s) : value_(std::string(s)) {}
    JsonValue(JsonArray a) : value_(std::move(a)) {}
    JsonValue(JsonObject o) : value_(std::move(o)) {}

    bool is_null() const { return std::holds_alternative<std::nullptr_t>(value_); }
    bool is_object() const { return std::holds_alternative<JsonObject>(value_); }
    bool is_array() const { return std::holds_alternative<JsonArray>(value_); }
    bool is_string() const { return std::holds_alternative<std::string>(value_); }
    bool is_integer() const { return std::holds_alternative<std::int64_t>(value_); }
    std::int64_t integer() const { return std::get<std::int64_t>(value_); }

    const JsonObject& object() const { return std::get<JsonObject>(value_); }
    JsonObject& object() { return std::get<JsonObject>(value_); }
    const JsonArray& array() const { return std::get<JsonArray>(value_); }
    const std::string& string() const { return std::get<std::string>(value_); }
    const Storage& storage() const { return value_; }

    // Member of an object by key, or nullptr.
    const JsonValue* find(std::string_view key) const;

    bool operator==(const JsonValue& o) const = default;

private:
    Storage value_;
};

// Unknown members of a known object, in reading order.
using Extras = JsonObject;

}  // namespace kbp::schema
