#include "schema/json_parse.hpp"

#include <algorithm>
#include <optional>

#include "schema/file_kind.hpp"
#include "schema/reader.hpp"

namespace kbp::schema {
namespace {

// The byte where `text` first opens a value more than max_json_nesting deep, if it does.
std::optional<std::size_t> too_deep(const std::string& text) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_json_nesting) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

}  // namespace

Result<nlohmann::ordered_json> parse_json(const std::string& text, const std::string& origin, std::string_view kind) {
    if (auto at = too_deep(text))
        return make_error(ErrorCode::invalid_input, origin + ":" + line_col(text, *at),
                          "nested deeper than " + std::to_string(max_json_nesting) + " levels (" + std::string(kind) + " needs a few)");
    try {
        auto json = nlohmann::ordered_json::parse(text);
        return Result<nlohmann::ordered_json>(std::move(json));
    } catch (const nlohmann::json::parse_error& e) {
        if (file_kind(text) == FileKind::yaml)
            return make_error(ErrorCode::invalid_input, origin + ": /", "this looks like YAML: kbp reads JSON (" + std::string(kind) + ")");
        // "FILE:LINE:COL: what", as the blueprint reader says it.
        std::size_t at = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        std::string what = e.what();
        if (auto colon = what.find(": ", what.find("column")); colon != std::string::npos) what = what.substr(colon + 2);
        else if (auto bracket = what.find("] "); bracket != std::string::npos) what = what.substr(bracket + 2);
        return make_error(ErrorCode::invalid_input, origin + ":" + line_col(text, at), what);
    } catch (const nlohmann::json::out_of_range& e) {
        // A number too large for a double ("1e4050"): nlohmann names the number, not its place,
        // so the place is where that number's text first stands.
        std::string what = e.what();
        if (auto bracket = what.find("] "); bracket != std::string::npos) what = what.substr(bracket + 2);
        auto quote = what.find('\'');
        auto number = quote == std::string::npos ? std::string() : what.substr(quote + 1, what.rfind('\'') - quote - 1);
        auto at = number.empty() ? std::string::npos : text.find(number);
        return make_error(ErrorCode::invalid_input, at == std::string::npos ? origin : origin + ":" + line_col(text, at), what);
    }
}

}  // namespace kbp::schema
