// Reading a planner data file, already parsed and checked against its kind's JSON Schema
// (check_data.hpp), into typed records described by field tables in the style of
// schema/record_fields.hpp: one table per record (JSON name, member, presence), from which this
// reader is expanded. The passes then read members, not JSON by key.
//
// The schema is the one gate: a file that reaches this reader has every required member and
// every type its schema says, so the reader checks neither again. The JSON type of a member
// follows from its C++ type (std::string, bool, std::int64_t, double: a number; std::optional<T>: T or null;
// std::vector<T> and std::array<T, N>: an array; std::map<std::string, T>: an object of T;
// Keyed<T>: an object of T whose members' order matters (a recipe's settings, in its order);
// std::variant: the alternative whose JSON type the value has; a described record: an object;
// Json: any value, kept as written: a family's free-form knobs). Where the C++ type and the
// value disagree anyway, the table and its schema disagree: a build problem, reported where
// the value is (tests/test_data_records.cpp holds each table to its schema so it is caught
// before a build ships).
//
// Absent, null and a value: a member absent from the JSON keeps its default (the table's
// presence says which members the schema requires; the schema has seen they are there). A
// std::optional<T> reads null as empty; a std::optional<std::optional<T>> is engaged when the
// member is present, whatever its value, so it tells absent, null and a value apart (a fusion
// member spec's `kernel` left alone, set to none, or set).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/names.hpp"
#include "schema/record_fields.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

using Json = nlohmann::ordered_json;
using schema::field;
using schema::Presence;

// An object of T in the order its members are written.
template <class T> using Keyed = std::vector<std::pair<std::string, T>>;
// A whole number, or text over the settings and symbols ("{imf_headroom}") filled in per plan.
using IntegerOrText = std::variant<std::int64_t, std::string>;

namespace record_reader {

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};

// Whether `j` has the JSON type the C++ type T reads (a variant picks its alternative by it).
template <class T> bool fits(const Json& j);
template <class T> struct Fits {
    static bool of(const Json& j) {
        if constexpr (std::is_same_v<T, std::string>) return j.is_string();
        else if constexpr (std::is_same_v<T, bool>) return j.is_boolean();
        else if constexpr (std::is_same_v<T, std::int64_t>) return j.is_number_integer();
        else if constexpr (std::is_same_v<T, double>) return j.is_number();
        else if constexpr (std::is_same_v<T, Json>) return true;
        else if constexpr (schema::Described<T>) return j.is_object();
        else return false;
    }
};
template <class T> struct Fits<std::optional<T>> {
    static bool of(const Json& j) { return j.is_null() || fits<T>(j); }
};
template <class T> struct Fits<std::vector<T>> {
    static bool of(const Json& j) { return j.is_array(); }
};
template <class T> struct Fits<Keyed<T>> {
    static bool of(const Json& j) { return j.is_object(); }
};
template <class T, std::size_t N> struct Fits<std::array<T, N>> {
    static bool of(const Json& j) { return j.is_array() && j.size() == N; }
};
template <class T> struct Fits<std::map<std::string, T>> {
    static bool of(const Json& j) { return j.is_object(); }
};
template <class... T> struct Fits<std::variant<T...>> {
    static bool of(const Json& j) { return (fits<T>(j) || ...); }
};
template <class T> bool fits(const Json& j) { return Fits<T>::of(j); }

inline Error disagrees(const std::string& origin, const std::string& pointer) {
    return make_error(ErrorCode::invalid_input, origin + ": " + (pointer.empty() ? "/" : pointer),
                      "the value's type is not its record member's (a kbp build problem: the record's table and its schema disagree)");
}

template <class T> Status read_value(const Json& j, T& out, const std::string& origin, const std::string& pointer);

template <class T> Status read_fields(const Json& j, T& out, const std::string& origin, const std::string& pointer) {
    Status status = Ok{};
    schema::for_each_field<T>([&](const auto& f) {
        if (!status) return;
        auto it = j.find(std::string(f.json));  // (a std::string: nlohmann 3.10 finds by no string_view)
        if (it == j.end()) return;  // the schema required what must be here: absent is its default
        auto& member = out.*(f.member);
        const std::string at = pointer + "/" + std::string(f.json);
        using M = std::decay_t<decltype(member)>;
        if constexpr (is_optional<M>::value)
            if constexpr (is_optional<typename M::value_type>::value) {
                status = read_value(*it, member.emplace(), origin, at);
                return;
            }
        status = read_value(*it, member, origin, at);
    });
    return status;
}

template <class T> struct Reader;

template <class T> Status read_value(const Json& j, T& out, const std::string& origin, const std::string& pointer) {
    if (!fits<T>(j)) return disagrees(origin, pointer);
    return Reader<T>::read(j, out, origin, pointer);
}

template <class T> struct Reader {
    static Status read(const Json& j, T& out, const std::string& origin, const std::string& pointer) {
        if constexpr (schema::Described<T>) return read_fields(j, out, origin, pointer);
        else {
            out = j.get<T>();  // a string, bool, integer, number or Json: fits() has seen its type
            return Ok{};
        }
    }
};
template <class T> struct Reader<std::optional<T>> {
    static Status read(const Json& j, std::optional<T>& out, const std::string& origin, const std::string& pointer) {
        if (j.is_null()) {
            out.reset();
            return Ok{};
        }
        return read_value(j, out.emplace(), origin, pointer);
    }
};
template <class T> struct Reader<std::vector<T>> {
    static Status read(const Json& j, std::vector<T>& out, const std::string& origin, const std::string& pointer) {
        out.resize(j.size());
        for (std::size_t i = 0; i < j.size(); ++i)
            if (auto s = read_value(j[i], out[i], origin, pointer + "/" + std::to_string(i)); !s) return s;
        return Ok{};
    }
};
template <class T> struct Reader<Keyed<T>> {
    static Status read(const Json& j, Keyed<T>& out, const std::string& origin, const std::string& pointer) {
        for (const auto& [key, value] : j.items())
            if (auto s = read_value(value, out.emplace_back(key, T{}).second, origin, pointer + "/" + schema::pointer_token(key)); !s) return s;
        return Ok{};
    }
};
template <class T, std::size_t N> struct Reader<std::array<T, N>> {
    static Status read(const Json& j, std::array<T, N>& out, const std::string& origin, const std::string& pointer) {
        for (std::size_t i = 0; i < N; ++i)
            if (auto s = read_value(j[i], out[i], origin, pointer + "/" + std::to_string(i)); !s) return s;
        return Ok{};
    }
};
template <class T> struct Reader<std::map<std::string, T>> {
    static Status read(const Json& j, std::map<std::string, T>& out, const std::string& origin, const std::string& pointer) {
        for (const auto& [key, value] : j.items())
            if (auto s = read_value(value, out[key], origin, pointer + "/" + schema::pointer_token(key)); !s) return s;
        return Ok{};
    }
};
template <class... T> struct Reader<std::variant<T...>> {
    static Status read(const Json& j, std::variant<T...>& out, const std::string& origin, const std::string& pointer) {
        Status status = Ok{};
        // The first alternative the value fits (fits() has seen that one does).
        (void)((fits<T>(j) ? (status = read_value(j, out.template emplace<T>(), origin, pointer), true) : false) || ...);
        return status;
    }
};

}  // namespace record_reader

// Fills `out` from `j`, the JSON of a record at `pointer` ("" for a file's root) of `origin`.
template <class T> Status read_record(const Json& j, T& out, const std::string& origin, const std::string& pointer = "") {
    return record_reader::read_value(j, out, origin, pointer);
}

}  // namespace kbp::planner
