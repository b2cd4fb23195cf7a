// Every input that ever made a fuzz target fail (tests/fuzz/regressions/<target>/), and the
// targets' seeds (tests/fuzz/<target>/), fed through the same entry points the fuzz targets
// call (tests/fuzz/entry_points.hpp): a crash, an abort on a broken promise, or (in the ASan
// build of scripts/test.sh) a leak or an overflow fails the case that reaches it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/entry_points.hpp"

namespace {

namespace fs = std::filesystem;

// The files of tests/fuzz/`folder` in name order (none when git has no such folder yet: a
// target that never failed has no regressions).
std::vector<fs::path> inputs_of(const std::string& folder) {
    std::vector<fs::path> out;
    if (!fs::is_directory(fs::path(KBP_SOURCE_DIR) / "tests/fuzz" / folder)) return out;
    for (const auto& e : fs::directory_iterator(fs::path(KBP_SOURCE_DIR) / "tests/fuzz" / folder))
        if (e.is_regular_file()) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::string bytes_of(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Each input of `folder` through `entry`, reported by name when it fails.
void replay(const std::string& folder, void (*entry)(std::string_view)) {
    auto inputs = inputs_of(folder);
    for (const auto& path : inputs) {
        INFO(path.string());
        entry(bytes_of(path));
    }
}

}  // namespace

TEST_CASE("fuzz regressions and seeds: the blueprint reader and validator", "[fuzz]") {
    replay("regressions/blueprint", kbp::fuzz::read_and_validate_blueprint);
    replay("blueprint", kbp::fuzz::read_and_validate_blueprint);
}

TEST_CASE("fuzz regressions and seeds: model configs", "[fuzz]") {
    replay("regressions/config", kbp::fuzz::plan_config);
    replay("config", kbp::fuzz::plan_config);
}

TEST_CASE("fuzz regressions and seeds: planner data files", "[fuzz]") {
    replay("regressions/data", kbp::fuzz::plan_with_data_file);
    replay("data", kbp::fuzz::plan_with_data_file);
}

TEST_CASE("fuzz data seeds are named after the file their first byte replaces", "[fuzz]") {
    for (const auto& path : inputs_of("data")) {
        INFO(path.string());
        std::string slot(kbp::fuzz::data_file_slot(static_cast<unsigned char>(bytes_of(path).at(0))));
        std::string expected = slot.substr(0, slot.size() - 5);
        std::replace(expected.begin(), expected.end(), '/', '-');
        CHECK(path.filename().string().substr(3) == expected);
    }
}
