#include "planner/settings_types.hpp"

#include <algorithm>
#include <charconv>

#include "planner/regex_cache.hpp"
#include "planner/target_records.hpp"
#include "schema/bytes.hpp"
#include "schema/names.hpp"

namespace kbp::planner {
namespace {

using Json = nlohmann::ordered_json;

// The vocabulary's settings object (an empty one when a catalog has none).
const Json& vocabulary(const Catalog& catalog) {
    static const Json none = Json::object();
    for (const DataFile* f : catalog.all("vocabulary"))
        if (f->name == "settings")
            if (auto s = f->json.find("settings"); s != f->json.end() && s->is_object()) return *s;
    return none;
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// The target's formats as written, and whether it lists `format`.
const std::vector<std::string>& target_formats(const DataFile& target) { return target.target_record->formats; }

// "'fp8' (fp8/tensor) is not a format target 'qc-u' lists (FILE: /formats: ...)".
std::string not_on_target(const std::string& value, const std::string& format, const DataFile& target) {
    return "'" + value + "'" + (value == format ? "" : " (" + format + ")") + " is not a format target '" + target.target_record->name +
           "' lists (" + target.origin + ": /formats: " + joined(target_formats(target)) + ")";
}

bool listed(const DataFile& target, const std::string& format) {
    const auto& formats = target_formats(target);
    return std::find(formats.begin(), formats.end(), format) != formats.end();
}

}  // namespace

std::vector<std::string> setting_names(const Catalog& catalog) {
    std::vector<std::string> out;
    for (const auto& [k, v] : vocabulary(catalog).items()) out.push_back(k);
    return out;
}

std::string setting_problem(const Catalog& catalog, const std::string& name, const std::string& value, const DataFile* target) {
    const Json& settings = vocabulary(catalog);
    auto it = settings.find(name);
    if (it == settings.end())
        return "kbp has no setting '" + name + "'" + schema::name_hint(name, setting_names(catalog), "settings");
    const Json& type = *it;
    const std::string about = name + ": " + type.value("about", std::string());
    if (auto values = type.find("values"); values != type.end()) {
        auto v = values->find(value);
        if (v == values->end()) {
            std::vector<std::string> names;
            for (const auto& [k, _] : values->items()) names.push_back(k);
            std::string near = schema::closest_of(value, names);
            return "'" + value + "' is not a " + name + " value (" + (near.empty() ? "" : "did you mean '" + near + "'? ") + "it takes " +
                   schema::quoted_names(names) + "; " + about + ")";
        }
        if (auto format = v->find("format"); target && format != v->end() && !listed(*target, format->get<std::string>()))
            return not_on_target(value, format->get<std::string>(), *target);
        return "";
    }
    if (auto range = type.find("integer"); range != type.end()) {
        std::int64_t v = 0;
        auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        std::string span = (*range)[0].dump() + "-" + (*range)[1].dump();
        if (value.empty() || ec != std::errc{} || end != value.data() + value.size())
            return "'" + value + "' is not a whole number (" + span + "; " + about + ")";
        if (v < (*range)[0].get<std::int64_t>() || v > (*range)[1].get<std::int64_t>()) return value + " is outside " + span + " (" + about + ")";
        return "";
    }
    if (type.contains("format")) {
        auto parsed = schema::Format::parse(value);
        if (!parsed.known()) {
            std::string near(schema::closest_name<schema::FormatId>(value));
            // "nvfp4" alone: the target's format of that family.
            if (near.empty() && target)
                for (const auto& f : target_formats(*target))
                    if (f.rfind(value + "/", 0) == 0 && near.empty()) near = f;
            return "'" + value + "' is not a format kbp knows" + (near.empty() ? "" : " (did you mean '" + near + "'?)") + " (" + about + ")";
        }
        if (target && !listed(*target, value)) return not_on_target(value, value, *target);
        return "";
    }
    if (auto pattern = type.find("pattern"); pattern != type.end()) {
        const auto& re = compiled_regex(pattern->get<std::string>());
        if (re.regex && !std::regex_match(value, *re.regex)) return "'" + value + "' does not match " + pattern->get<std::string>() + " (" + about + ")";
        return "";
    }
    return "";
}

std::optional<std::int64_t> cache_bytes_per_value(const Catalog& catalog, std::string_view dtype) {
    const Json& settings = vocabulary(catalog);
    auto kv = settings.find("kv_cache_dtype");
    if (kv == settings.end()) return std::nullopt;
    auto values = kv->find("values");
    if (values == kv->end()) return std::nullopt;
    auto v = values->find(std::string(dtype));
    if (v == values->end() || !v->contains("format")) return std::nullopt;
    return schema::row_bytes(schema::Format::parse((*v)["format"].get<std::string>()), 1);
}

std::string cache_dtype_names(const Catalog& catalog) {
    const Json& settings = vocabulary(catalog);
    std::vector<std::string> names;
    if (auto kv = settings.find("kv_cache_dtype"); kv != settings.end())
        if (auto values = kv->find("values"); values != kv->end())
            for (const auto& [k, _] : values->items()) names.push_back(k);
    return joined(names);
}

}  // namespace kbp::planner
