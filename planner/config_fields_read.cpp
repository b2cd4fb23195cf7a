#include "planner/config_fields_read.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "planner/expr.hpp"

namespace kbp::planner {
namespace {

using Json = nlohmann::ordered_json;

// The config fields an expression or a field path names ("rope_scaling/rope_type" names rope_scaling).
void add_expression(std::set<std::string>& out, const std::string& text) {
    if (auto names = expr_names(text)) out.insert(names->begin(), names->end());
}

void add_field(std::set<std::string>& out, const std::string& path) { out.insert(path.substr(0, path.find('/'))); }

// A layer rule's fields: layer_list / layer_char {"field": ...}, layer_in / layer_not_in, and
// layer_types where a choice names a layer_type.
void add_layer_fields(std::set<std::string>& out, const Json& j) {
    if (j.is_array())
        for (const auto& v : j) add_layer_fields(out, v);
    if (!j.is_object()) return;
    for (const auto& [k, v] : j.items()) {
        if (v.is_string() && k == "field") add_field(out, v.get<std::string>());
        if (v.is_string() && (k == "layer_in" || k == "layer_not_in")) out.insert(v.get<std::string>());
        if (k == "layer_type") out.insert("layer_types");
        add_layer_fields(out, v);
    }
}

std::set<std::string> named_by(const Json& arch) {
    std::set<std::string> out;
    // Copies: a range-for over a temporary's items() would read freed memory.
    const Json symbols = arch.value("symbols", Json::object()), checks = arch.value("checks", Json::array()),
               describes = arch.value("describes", Json::array()), defaults = arch.value("config_defaults", Json::object());
    for (const auto& [name, spec] : symbols.items()) {
        const Json& from = spec.is_object() ? spec.value("from", Json()) : spec;
        const bool by_name = spec.is_object() && spec.contains("names");
        std::vector<std::string> texts;
        if (from.is_string()) texts.push_back(from.get<std::string>());
        else if (from.is_array())
            for (const auto& a : from)
                if (a.is_string()) texts.push_back(a.get<std::string>());
        for (const auto& t : texts) by_name ? add_field(out, t) : add_expression(out, t);
    }
    for (const auto& c : checks)
        if (c.is_object() && c.contains("field") && c["field"].is_string()) out.insert(c["field"].get<std::string>());
    for (const auto& f : describes)
        if (f.is_string()) out.insert(f.get<std::string>());
    for (const auto& [k, v] : defaults.items()) out.insert(k);
    if (auto layers = arch.find("layers"); layers != arch.end()) add_layer_fields(out, *layers);
    return out;
}

}  // namespace

ConfigFieldsRead config_fields_read(const Json& config, const Json& architecture, const Catalog& catalog) {
    const std::set<std::string> named = named_by(architecture);
    Json read = Json::object(), metadata = Json::object();
    for (const DataFile* f : catalog.all("vocabulary"))
        if (f->name == "config-fields") {
            read = f->json.value("read", Json::object());
            metadata = f->json.value("metadata", Json::object());
        }
    ConfigFieldsRead out;
    for (const auto& [field, _] : config.items()) {
        if (named.count(field) || read.contains(field)) continue;
        bool is_metadata = false;
        for (const auto& [pattern, why] : metadata.items())
            if (fnmatch(pattern.c_str(), field.c_str(), 0) == 0) is_metadata = true;
        (is_metadata ? out.metadata : out.unread).push_back(field);
    }
    std::sort(out.unread.begin(), out.unread.end());
    std::sort(out.metadata.begin(), out.metadata.end());
    return out;
}

}  // namespace kbp::planner
