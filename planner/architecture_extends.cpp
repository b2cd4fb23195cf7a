#include "planner/architecture_extends.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <span>
#include <vector>

#include "planner/expr.hpp"
#include "schema/names.hpp"

namespace kbp::planner {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::array<std::string_view, 4> own_members{"name", "description", "model_types", "extends"};
constexpr std::array<std::string_view, 4> keyed_members{"symbols", "limits", "blocks", "config_defaults"};

bool among(std::string_view key, std::span<const std::string_view> list) { return std::find(list.begin(), list.end(), key) != list.end(); }

Error at(const DataFile& f, const std::string& pointer, std::string message) {
    return make_error(ErrorCode::invalid_input, f.origin + ": " + pointer, std::move(message));
}

// The symbols (or config fields) a symbol's value reads: the names of its expressions. A symbol
// read {"names": ...} reads a config field by its path, never a symbol.
std::vector<std::string> names_read(const Json& spec) {
    if (spec.is_object() && spec.contains("names")) return {};
    const Json& from = spec.is_object() ? spec.value("from", Json()) : spec;
    std::vector<std::string> out;
    auto add = [&](const Json& text) {
        if (!text.is_string()) return;
        if (auto names = expr_names(text.get<std::string>()))
            for (auto& n : *names) out.push_back(std::move(n));
    };
    if (from.is_array())
        for (const auto& a : from) add(a);
    else
        add(from);
    return out;
}

// Keyed members: the parent's entries the child does not name, then the child's (null removes).
Json merge_keyed(const Json& parent, const Json& child) {
    if (!parent.is_object() || !child.is_object()) return child;  // the schema says what it should be
    Json out = Json::object();
    for (const auto& [k, v] : parent.items())
        if (!child.contains(k)) out[k] = v;
    for (const auto& [k, v] : child.items())
        if (!v.is_null()) out[k] = v;
    return out;
}

// An inherited symbol is evaluated before the child's: one that reads a symbol the child
// redefines or removes would read the config field of that name instead, unnoticed.
Status check_symbol_order(const DataFile& child, const Json& child_symbols, const DataFile& parent) {
    if (!parent.json.is_object()) return Ok{};  // the parent's own check says what it should be
    const Json parent_symbols = parent.json.value("symbols", Json::object());
    if (!child_symbols.is_object() || !parent_symbols.is_object()) return Ok{};
    for (const auto& [name, spec] : parent_symbols.items()) {
        if (child_symbols.contains(name)) continue;  // restated: evaluated in the child's order
        for (const auto& read : names_read(spec)) {
            if (!child_symbols.contains(read) || !parent_symbols.contains(read)) continue;
            const bool removed = child_symbols[read].is_null();
            return at(child, "/symbols/" + schema::pointer_token(read),
                      "the symbol '" + name + "' this file inherits from " + parent.origin + " reads '" + read + "', which this file " +
                          (removed ? "removes" : "redefines after it") + ": restate '" + name + "' here too");
        }
    }
    return Ok{};
}

Result<Json> merged(const DataFile& child, const DataFile& parent) {
    const Json& c = child.json;
    const Json p = parent.json.is_object() ? parent.json : Json::object();
    if (auto s = check_symbol_order(child, c.value("symbols", Json::object()), parent); !s) return s.error();
    Json out = Json::object();
    for (const auto& [k, v] : c.items())
        if (among(k, own_members)) out[k] = v;
    for (const auto& [k, v] : p.items()) {
        if (among(k, own_members)) continue;
        auto mine = c.find(k);
        if (mine == c.end()) out[k] = v;
        else out[k] = among(k, keyed_members) ? merge_keyed(v, *mine) : *mine;
    }
    for (const auto& [k, v] : c.items())
        if (!among(k, own_members) && !p.contains(k)) out[k] = among(k, keyed_members) ? merge_keyed(Json::object(), v) : v;
    return out;
}

// The name a file extends, or "" when it extends none.
Result<std::string> parent_name(const DataFile& f) {
    if (!f.json.is_object()) return std::string();
    auto e = f.json.find("extends");
    if (e == f.json.end()) return std::string();
    if (!e->is_string() || e->get_ref<const std::string&>().empty())
        return at(f, "/extends", "expected the name of the architecture this one extends (a string), not " + e->dump());
    return e->get<std::string>();
}

// A null entry removes what a file inherits: in one that extends nothing it is a mistake.
Status no_removals(const DataFile& f) {
    if (!f.json.is_object()) return Ok{};
    for (auto member : keyed_members)
        if (auto m = f.json.find(std::string(member)); m != f.json.end() && m->is_object())
            for (const auto& [k, v] : m->items())
                if (v.is_null())
                    return at(f, "/" + std::string(member) + "/" + schema::pointer_token(k),
                              "null removes an entry a file inherits, and this file extends no architecture");
    return Ok{};
}

Error unknown_parent(const DataFile& child, const std::string& parent, const std::vector<std::string>& names) {
    std::string near = schema::closest_of(parent, names);
    return at(child, "/extends", "no architecture '" + parent + "' to extend" +
                                     (near.empty() ? " (architectures: " + schema::quoted_names(names) + ")" : " (did you mean '" + near + "'?)"));
}

Status merge_onto(DataFile& child, const DataFile& parent) {
    auto m = merged(child, parent);
    if (!m) return m.error();
    child.json = std::move(*m);
    child.bases = {&parent};
    child.bases.insert(child.bases.end(), parent.bases.begin(), parent.bases.end());
    return Ok{};
}

}  // namespace

Status resolve_extends(std::map<std::string, DataFile>& files) {
    const std::string prefix = "architectures/";
    std::vector<std::string> names;
    for (const auto& [key, f] : files)
        if (f.kind == "architectures") names.push_back(f.name);
    enum class State { open, resolving, done };
    std::map<std::string, State> state;
    // `chain`: the names being resolved, the child first, for a cycle's message.
    std::function<Status(DataFile&, std::vector<std::string>&)> resolve = [&](DataFile& f, std::vector<std::string>& chain) -> Status {
        if (state[f.name] == State::done) return Ok{};
        auto parent = parent_name(f);
        if (!parent) return parent.error();
        if (parent->empty()) {
            state[f.name] = State::done;
            return no_removals(f);
        }
        auto it = files.find(prefix + *parent);
        if (it == files.end()) return unknown_parent(f, *parent, names);
        chain.push_back(f.name);
        if (state[*parent] == State::resolving || *parent == f.name) {
            std::string cycle;
            auto from = std::find(chain.begin(), chain.end(), *parent);
            for (auto n = from; n != chain.end(); ++n) cycle += "'" + *n + "' extends ";
            return at(f, "/extends", cycle + "'" + *parent + "': an architecture cannot extend itself, through others or not");
        }
        state[f.name] = State::resolving;
        if (auto s = resolve(it->second, chain); !s) return s;
        chain.pop_back();
        if (auto s = merge_onto(f, it->second); !s) return s;
        state[f.name] = State::done;
        return Ok{};
    };
    for (auto& [key, f] : files) {
        if (f.kind != "architectures") continue;
        std::vector<std::string> chain;
        if (auto s = resolve(f, chain); !s) return s;
    }
    return Ok{};
}

Status resolve_extends(DataFile& file, Catalog& catalog) {
    auto parent = parent_name(file);
    if (!parent) return parent.error();
    if (parent->empty()) return no_removals(file);
    std::vector<std::string> names;
    for (const DataFile* a : catalog.all("architectures")) {
        if (a->name == *parent) return merge_onto(file, *a);
        names.push_back(a->name);
    }
    return unknown_parent(file, *parent, names);
}

}  // namespace kbp::planner
