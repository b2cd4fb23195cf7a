#include "planner/data_schema.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <regex>
#include <string_view>
#include <vector>

#include "planner/regex_cache.hpp"
#include "schema/names.hpp"

namespace kbp::planner {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::array<std::string_view, 27> supported{
    "$schema",   "$id",       "$defs",         "$comment",      "$ref",     "title",      "description", "default",  "examples",
    "type",      "enum",      "const",         "required",      "properties", "additionalProperties", "propertyNames", "items",
    "minItems",  "maxItems",  "minProperties", "minimum",       "maximum",  "exclusiveMinimum", "minLength", "pattern", "anyOf",
    "x-kbp-check",
};

// "an object", "an integer", ... for messages.
std::string type_phrase(std::string_view type) {
    if (type == "object") return "an object";
    if (type == "array") return "an array";
    if (type == "string") return "a string";
    if (type == "integer") return "an integer";
    if (type == "number") return "a number";
    if (type == "boolean") return "true or false";
    if (type == "null") return "null";
    return std::string(type);
}

std::string_view type_of(const Json& v) {
    if (v.is_object()) return "object";
    if (v.is_array()) return "array";
    if (v.is_string()) return "string";
    if (v.is_number_integer()) return "integer";
    if (v.is_number()) return "number";
    if (v.is_boolean()) return "boolean";
    return "null";
}

bool has_type(const Json& v, std::string_view type) {
    if (type == "number") return v.is_number();
    return type_of(v) == type;
}

std::string joined(const std::vector<std::string>& phrases, const char* last) {
    std::string out;
    for (std::size_t i = 0; i < phrases.size(); ++i)
        out += (i == 0 ? "" : i + 1 == phrases.size() ? last : ", ") + phrases[i];
    return out;
}

// A value in a message: a scalar as written (shortened), a structure by its type (dumping a
// deeply nested one would recurse as deep).
std::string shown(const Json& v) {
    if (v.is_structured()) return type_phrase(type_of(v));
    std::string text = v.is_string() ? "'" + v.get<std::string>() + "'" : v.dump();
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

// -1, 0, 1: `a` against `b`, exact for every 64-bit integer.
int compare(const Json& a, const Json& b) {
    auto value = [](const Json& x) -> long double {
        if (x.is_number_unsigned()) return static_cast<long double>(x.get<std::uint64_t>());
        if (x.is_number_integer()) return static_cast<long double>(x.get<std::int64_t>());
        return static_cast<long double>(x.get<double>());
    };
    long double x = value(a), y = value(b);
    return x < y ? -1 : x > y ? 1 : 0;
}

// The keywords of one schema object, found in one pass over its members (an ordered_json
// lookup is a linear search: a dozen of them per checked value would dominate the check).
struct Keywords {
    const Json *ref = nullptr, *any_of = nullptr, *type = nullptr, *constant = nullptr, *enumeration = nullptr;
    const Json *min_length = nullptr, *pattern = nullptr, *minimum = nullptr, *exclusive_minimum = nullptr, *maximum = nullptr;
    const Json *min_items = nullptr, *max_items = nullptr, *items = nullptr;
    const Json *properties = nullptr, *additional = nullptr, *required = nullptr, *min_properties = nullptr, *property_names = nullptr;
    const Json* check = nullptr;

    explicit Keywords(const Json& s) {
        for (auto it = s.begin(); it != s.end(); ++it) {
            const std::string& k = it.key();
            const Json* v = &it.value();
            if (k == "$ref") ref = v;
            else if (k == "anyOf") any_of = v;
            else if (k == "type") type = v;
            else if (k == "const") constant = v;
            else if (k == "enum") enumeration = v;
            else if (k == "minLength") min_length = v;
            else if (k == "pattern") pattern = v;
            else if (k == "minimum") minimum = v;
            else if (k == "exclusiveMinimum") exclusive_minimum = v;
            else if (k == "maximum") maximum = v;
            else if (k == "minItems") min_items = v;
            else if (k == "maxItems") max_items = v;
            else if (k == "items") items = v;
            else if (k == "properties") properties = v;
            else if (k == "additionalProperties") additional = v;
            else if (k == "required") required = v;
            else if (k == "minProperties") min_properties = v;
            else if (k == "propertyNames") property_names = v;
            else if (k == "x-kbp-check") check = v;
        }
    }
};

std::vector<std::string> types_in(const Json* type) {
    std::vector<std::string> out;
    if (!type) return out;
    if (type->is_string()) out.push_back(type->get<std::string>());
    else if (type->is_array())
        for (const auto& x : *type)
            if (x.is_string()) out.push_back(x.get<std::string>());
    return out;
}

class Checker {
public:
    Checker(const Json& root, const ExtraCheck& extra) : root_(root), extra_(extra) {}

    std::optional<SchemaProblem> check(const Json& v, const Json& s, const std::string& at) {
        if (!s.is_object()) return std::nullopt;  // true / {}: anything
        const Keywords k(s);
        if (k.ref) {
            const Json* target = resolve(*k.ref);
            if (!target) return SchemaProblem{at, "the schema's $ref " + k.ref->dump() + " names nothing"};
            if (auto p = check(v, *target, at)) return p;
        }
        if (k.any_of && k.any_of->is_array())
            if (auto p = any_of(v, *k.any_of, at)) return p;
        if (auto types = types_in(k.type);
            !types.empty() && std::none_of(types.begin(), types.end(), [&](const std::string& t) { return has_type(v, t); })) {
            std::vector<std::string> phrases;
            for (const auto& t : types) phrases.push_back(type_phrase(t));
            return SchemaProblem{at, "expected " + joined(phrases, " or ") + ", not " + type_phrase(type_of(v))};
        }
        if (k.constant && v != *k.constant) return SchemaProblem{at, "expected " + shown(*k.constant) + ", not " + shown(v)};
        if (k.enumeration && k.enumeration->is_array() && std::find(k.enumeration->begin(), k.enumeration->end(), v) == k.enumeration->end())
            return SchemaProblem{at, not_one_of(v, *k.enumeration)};
        if (v.is_string())
            if (auto p = string_rules(v.get_ref<const std::string&>(), k, at)) return p;
        if (v.is_number())
            if (auto p = number_rules(v, k, at)) return p;
        if (v.is_array())
            if (auto p = array_rules(v, k, at)) return p;
        if (v.is_object())
            if (auto p = object_rules(v, k, at)) return p;
        if (k.check && k.check->is_string() && extra_)
            if (auto p = extra_(k.check->get<std::string>(), v, at)) return p;
        return std::nullopt;
    }

private:
    const Json* resolve(const Json& ref) const {
        if (!ref.is_string()) return nullptr;
        const std::string& r = ref.get_ref<const std::string&>();
        const std::string prefix = "#/$defs/";
        if (r.rfind(prefix, 0) != 0) return nullptr;
        auto defs = root_.find("$defs");
        if (defs == root_.end() || !defs->is_object()) return nullptr;
        auto it = defs->find(r.substr(prefix.size()));
        return it == defs->end() ? nullptr : &*it;
    }

    // How many members deep a pointer is ("/layers" and "/extends" both 1: the first branch's is blamed).
    static std::size_t depth(const std::string& pointer) { return static_cast<std::size_t>(std::count(pointer.begin(), pointer.end(), '/')); }

    // The branch to blame when no branch holds: of those whose type fits the value, the one
    // whose problem lies deepest (it got furthest); when none fits, the types they take.
    std::optional<SchemaProblem> any_of(const Json& v, const Json& branches, const std::string& at) {
        std::optional<SchemaProblem> best;
        std::vector<std::string> phrases;
        for (const auto& b : branches) {
            const Json* branch = &b;
            if (auto ref = b.find("$ref"); b.is_object() && ref != b.end())
                if (const Json* target = resolve(*ref)) branch = target;
            auto problem = check(v, b, at);
            if (!problem) return std::nullopt;
            auto types = branch->is_object() ? types_in(branch->contains("type") ? &(*branch)["type"] : nullptr) : std::vector<std::string>{};
            for (const auto& t : types)
                if (std::find(phrases.begin(), phrases.end(), type_phrase(t)) == phrases.end()) phrases.push_back(type_phrase(t));
            bool fits = types.empty() || std::any_of(types.begin(), types.end(), [&](const std::string& t) { return has_type(v, t); });
            if (fits && (!best || depth(problem->pointer) > depth(best->pointer))) best = problem;
        }
        if (best) return best;
        return SchemaProblem{at, "expected " + joined(phrases, " or ") + ", not " + type_phrase(type_of(v))};
    }

    static std::string not_one_of(const Json& v, const Json& allowed) {
        std::vector<std::string> names;
        std::vector<std::string> strings;
        for (const auto& a : allowed) {
            names.push_back(shown(a));
            if (a.is_string()) strings.push_back(a.get<std::string>());
        }
        std::string message = shown(v) + " is not one of " + joined(names, " or ");
        if (v.is_string())
            if (auto near = schema::closest_of(v.get<std::string>(), strings); !near.empty()) message += " (did you mean '" + near + "'?)";
        return message;
    }

    static std::optional<SchemaProblem> string_rules(const std::string& text, const Keywords& k, const std::string& at) {
        if (k.min_length && k.min_length->is_number_integer() && text.size() < k.min_length->get<std::size_t>())
            return SchemaProblem{at, text.empty() ? "empty" : "'" + text + "' is shorter than " + k.min_length->dump() + " characters"};
        if (k.pattern && k.pattern->is_string()) {
            const auto& compiled = compiled_regex(k.pattern->get_ref<const std::string&>());
            if (!compiled.regex) return SchemaProblem{at, "the schema's pattern " + k.pattern->dump() + " is not a regular expression"};
            if (!std::regex_search(text, *compiled.regex)) return SchemaProblem{at, shown(Json(text)) + " does not match " + k.pattern->dump()};
        }
        return std::nullopt;
    }

    static std::optional<SchemaProblem> number_rules(const Json& v, const Keywords& k, const std::string& at) {
        if (k.minimum && k.minimum->is_number() && compare(v, *k.minimum) < 0)
            return SchemaProblem{at, v.dump() + " is below the minimum " + k.minimum->dump()};
        if (k.exclusive_minimum && k.exclusive_minimum->is_number() && compare(v, *k.exclusive_minimum) <= 0)
            return SchemaProblem{at, v.dump() + " is not above " + k.exclusive_minimum->dump()};
        if (k.maximum && k.maximum->is_number() && compare(v, *k.maximum) > 0)
            return SchemaProblem{at, v.dump() + " is above the maximum " + k.maximum->dump()};
        return std::nullopt;
    }

    std::optional<SchemaProblem> array_rules(const Json& v, const Keywords& k, const std::string& at) {
        if (k.min_items && k.min_items->is_number_integer() && v.size() < k.min_items->get<std::size_t>())
            return SchemaProblem{at, v.empty() ? "empty (at least " + k.min_items->dump() + (k.min_items->get<int>() == 1 ? " item" : " items") + " expected)"
                                               : "has " + std::to_string(v.size()) + " items, at least " + k.min_items->dump() + " expected"};
        if (k.max_items && k.max_items->is_number_integer() && v.size() > k.max_items->get<std::size_t>())
            return SchemaProblem{at, "has " + std::to_string(v.size()) + " items, at most " + k.max_items->dump() + " expected"};
        if (k.items)
            for (std::size_t i = 0; i < v.size(); ++i)
                if (auto p = check(v[i], *k.items, at + "/" + std::to_string(i))) return p;
        return std::nullopt;
    }

    std::optional<SchemaProblem> object_rules(const Json& v, const Keywords& k, const std::string& at) {
        static const Json none = Json::object();
        const Json& properties = k.properties && k.properties->is_object() ? *k.properties : none;
        if (k.additional && k.additional->is_boolean() && !k.additional->get<bool>()) {
            for (const auto& [key, _] : v.items()) {
                if (properties.contains(key)) continue;
                std::vector<std::string> known;
                for (const auto& [name, __] : properties.items()) known.push_back(name);
                std::string near = schema::closest_of(key, known);
                return SchemaProblem{at + "/" + pointer_token(key),
                                     "unknown member '" + key + "'" + (near.empty() ? " (members: " + joined(known, ", ") + ")" : " (did you mean '" + near + "'?)")};
            }
        }
        if (k.required && k.required->is_array())
            for (const auto& r : *k.required)
                if (r.is_string() && !v.contains(r.get<std::string>())) return SchemaProblem{at + "/" + pointer_token(r.get<std::string>()), "missing"};
        if (k.min_properties && k.min_properties->is_number_integer() && v.size() < k.min_properties->get<std::size_t>())
            return SchemaProblem{at, "empty (at least " + k.min_properties->dump() + (k.min_properties->get<int>() == 1 ? " member" : " members") + " expected)"};
        if (k.property_names)
            for (const auto& [key, _] : v.items())
                if (auto p = check(Json(key), *k.property_names, at + "/" + pointer_token(key)))
                    return SchemaProblem{p->pointer, "member name: " + p->message};
        for (const auto& [key, value] : v.items()) {
            std::string where = at + "/" + pointer_token(key);
            if (auto p = properties.find(key); p != properties.end()) {
                if (auto problem = check(value, *p, where)) return problem;
            } else if (k.additional && k.additional->is_object()) {
                if (auto problem = check(value, *k.additional, where)) return problem;
            }
        }
        return std::nullopt;
    }

    const Json& root_;
    const ExtraCheck& extra_;
};

std::optional<SchemaProblem> unsupported(const Json& root, const Json& s, const std::string& at) {
    if (s.is_boolean()) return std::nullopt;
    if (!s.is_object()) return SchemaProblem{at, "a schema is an object or a boolean"};
    for (const auto& [key, value] : s.items()) {
        if (std::find(supported.begin(), supported.end(), key) == supported.end())
            return SchemaProblem{at + "/" + pointer_token(key), "keyword '" + key + "' is outside the subset kbp checks"};
        std::string where = at + "/" + pointer_token(key);
        if (key == "$ref") {
            auto defs = root.find("$defs");
            std::string r = value.is_string() ? value.get<std::string>() : "";
            if (r.rfind("#/$defs/", 0) != 0 || defs == root.end() || !defs->contains(r.substr(8)))
                return SchemaProblem{where, "a $ref names one of the root's $defs (\"#/$defs/<name>\")"};
        } else if (key == "properties" || key == "$defs") {
            if (!value.is_object()) return SchemaProblem{where, "expected an object of schemas"};
            for (const auto& [name, sub] : value.items())
                if (auto p = unsupported(root, sub, where + "/" + pointer_token(name))) return p;
        } else if (key == "items" || key == "additionalProperties" || key == "propertyNames") {
            if (auto p = unsupported(root, value, where)) return p;
        } else if (key == "anyOf") {
            if (!value.is_array() || value.empty()) return SchemaProblem{where, "expected a non-empty array of schemas"};
            for (std::size_t i = 0; i < value.size(); ++i)
                if (auto p = unsupported(root, value[i], where + "/" + std::to_string(i))) return p;
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<SchemaProblem> check_schema(const Json& value, const Json& schema, const ExtraCheck& extra) {
    return Checker(schema, extra).check(value, schema, "");
}

std::optional<SchemaProblem> unsupported_in_schema(const Json& schema) { return unsupported(schema, schema, ""); }

}  // namespace kbp::planner
