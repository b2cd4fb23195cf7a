// What kbp-view remembers between runs (viewer/model/settings.hpp): the recent list's order and
// length, a round trip through the file, defaults for a missing file, and errors that name the
// file and where for one that is not kbp-view's settings.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>

#include "schema/file_io.hpp"
#include "support.hpp"
#include "viewer/model/settings.hpp"

using namespace kbp;
using namespace kbp::viewer;

namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("viewer settings: the recent list keeps each plan once, the newest first, at most ten", "[viewer][settings]") {
    ViewSettings s;
    s.remember("/p/a.json");
    s.remember("/p/b.json");
    s.remember("/p/a.json");
    CHECK(s.recent == std::vector<std::string>{"/p/a.json", "/p/b.json"});
    for (int i = 0; i < 20; ++i) s.remember("/p/" + std::to_string(i) + ".json");
    REQUIRE(s.recent.size() == ViewSettings::max_recent);
    CHECK(s.recent.front() == "/p/19.json");
    CHECK(s.recent.back() == "/p/10.json");
}

TEST_CASE("viewer settings: saved and loaded back; a missing file is the defaults", "[viewer][settings]") {
    test::TempDir dir;
    const std::string path = dir.file("state/kbp/view.json");  // its folders do not exist yet
    auto missing = load_settings(path);
    REQUIRE(missing.ok());
    CHECK(*missing == ViewSettings{});
    ViewSettings s;
    s.remember("/plans/decode.json");
    s.remember("/plans/ms64 \"quoted\".json");
    s.side_by_side = true;
    REQUIRE(save_settings(s, path).ok());
    auto back = load_settings(path);
    REQUIRE(back.ok());
    CHECK(*back == s);
    // Nothing to remember where no file is named.
    CHECK(save_settings(s, "").ok());
    CHECK(load_settings("").ok());
}

TEST_CASE("viewer settings: a file that is not kbp-view's settings is refused, naming where", "[viewer][settings]") {
    test::TempDir dir;
    const std::string path = dir.file("view.json");
    struct Case {
        std::string text, where, says;
    };
    const std::vector<Case> cases{
        {"{\"schema\": \"kbp-view-settings/v1\",\n \"recent\": [}", path + ":2:13", "not JSON"},
        {"[]", path + ": /", "expected an object"},
        {"{\"schema\": \"kbp-view-settings/v9\"}", path + ": /schema", "kbp-view-settings/v1"},
        {"{\"schema\": \"kbp-view-settings/v1\", \"recent\": \"a.json\"}", path + ": /recent", "a list of file names"},
        {"{\"schema\": \"kbp-view-settings/v1\", \"recent\": [\"a.json\", 7]}", path + ": /recent/1", "a file name"},
        {"{\"schema\": \"kbp-view-settings/v1\", \"recent\": [\"\"]}", path + ": /recent/0", "a file name"},
        {"{\"schema\": \"kbp-view-settings/v1\", \"side_by_side\": 1}", path + ": /side_by_side", "true or false"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        write(path, c.text);
        auto s = load_settings(path);
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().code == ErrorCode::invalid_input);
        CHECK(s.error().where == c.where);
        CHECK_THAT(s.error().message, Catch::Contains(c.says));
    }
}

TEST_CASE("viewer settings: the file is KBP_VIEW_SETTINGS, else under XDG_STATE_HOME, else HOME", "[viewer][settings]") {
    const char* saved[3] = {std::getenv("KBP_VIEW_SETTINGS"), std::getenv("XDG_STATE_HOME"), std::getenv("HOME")};
    std::string keep[3];
    for (int i = 0; i < 3; ++i) keep[i] = saved[i] ? saved[i] : "";
    setenv("KBP_VIEW_SETTINGS", "/tmp/x/view.json", 1);
    CHECK(settings_path() == "/tmp/x/view.json");
    unsetenv("KBP_VIEW_SETTINGS");
    setenv("XDG_STATE_HOME", "/tmp/state", 1);
    CHECK(settings_path() == "/tmp/state/kbp/view.json");
    unsetenv("XDG_STATE_HOME");
    setenv("HOME", "/home/u", 1);
    CHECK(settings_path() == "/home/u/.local/state/kbp/view.json");
    unsetenv("HOME");
    CHECK(settings_path().empty());
    const char* names[3] = {"KBP_VIEW_SETTINGS", "XDG_STATE_HOME", "HOME"};
    for (int i = 0; i < 3; ++i)
        if (saved[i]) setenv(names[i], keep[i].c_str(), 1);
}
