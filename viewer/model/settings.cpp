#include "viewer/model/settings.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "schema/file_io.hpp"
#include "schema/reader.hpp"

namespace kbp::viewer {
namespace {

constexpr const char* settings_schema = "kbp-view-settings/v1";

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

}  // namespace

void ViewSettings::remember(const std::string& path) {
    recent.erase(std::remove(recent.begin(), recent.end(), path), recent.end());
    recent.insert(recent.begin(), path);
    if (recent.size() > max_recent) recent.resize(max_recent);
}

std::string settings_path() {
    if (const char* explicit_path = std::getenv("KBP_VIEW_SETTINGS")) return explicit_path;
    if (auto state = env("XDG_STATE_HOME"); !state.empty()) return state + "/kbp/view.json";
    if (auto home = env("HOME"); !home.empty()) return home + "/.local/state/kbp/view.json";
    return "";
}

Result<ViewSettings> load_settings(const std::string& path) {
    ViewSettings s;
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) return s;
    auto text = read_file(path);
    if (!text) return text.error();
    using Json = nlohmann::json;
    Json j;
    try {
        j = Json::parse(*text);
    } catch (const Json::parse_error& e) {
        return make_error(ErrorCode::invalid_input, path + ":" + schema::line_col(*text, e.byte == 0 ? 0 : e.byte - 1),
                          "not JSON: kbp-view keeps its defaults");
    }
    auto bad = [&](const std::string& pointer, const std::string& message) {
        return make_error(ErrorCode::invalid_input, path + ": " + pointer, message);
    };
    if (!j.is_object()) return bad("/", "expected an object");
    if (j.value("schema", "") != settings_schema) return bad("/schema", std::string("expected \"") + settings_schema + "\"");
    if (auto r = j.find("recent"); r != j.end()) {
        if (!r->is_array()) return bad("/recent", "expected a list of file names");
        for (std::size_t i = 0; i < r->size(); ++i) {
            const Json& f = (*r)[i];
            if (!f.is_string() || f.get_ref<const std::string&>().empty())
                return bad("/recent/" + std::to_string(i), "expected a file name");
            if (s.recent.size() < ViewSettings::max_recent) s.recent.push_back(f.get<std::string>());
        }
    }
    if (auto b = j.find("side_by_side"); b != j.end()) {
        if (!b->is_boolean()) return bad("/side_by_side", "expected true or false");
        s.side_by_side = b->get<bool>();
    }
    return s;
}

Status save_settings(const ViewSettings& settings, const std::string& path) {
    if (path.empty()) return Ok{};
    nlohmann::ordered_json j;
    j["schema"] = settings_schema;
    j["recent"] = settings.recent;
    j["side_by_side"] = settings.side_by_side;
    std::error_code ec;
    if (auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir, ec);
    if (ec) return make_error(ErrorCode::output, path, "cannot make its folder: " + ec.message());
    return write_file_atomic(path, j.dump(2) + "\n");
}

}  // namespace kbp::viewer
