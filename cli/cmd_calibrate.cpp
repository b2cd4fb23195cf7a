// kbp calibrate: fits each target's bandwidth efficiency and step overhead on the `fit` rows of
// published measurements and reports every row before and after; -o DIR writes the fitted
// figures as DIR/calibrations/<target>.json, a --catalog folder that kbp stats --cost reads.
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cost/calibrate.hpp"
#include "schema/file_io.hpp"

namespace kbp::cli {

int run_calibrate(int argc, char** argv) {
    int code = 0;
    auto args = parse_command("calibrate", argc, argv, {{"--output", "-o", true}, {"--catalog", "", true}, {"--markdown", ""}}, 1, 1, code);
    if (!args) return code;
    auto planner = planner::Planner::load(args->value("--catalog"));
    if (!planner) return report(planner.error());
    auto result = planner::calibrate(*planner, args->positional[0]);
    if (!result) return report(result.error());
    std::cout << planner::calibration_text(*result, args->flag("--markdown"));
    if (auto dir = args->value("--output")) {
        std::error_code ec;
        std::filesystem::create_directories(std::filesystem::path(*dir) / "calibrations", ec);
        if (ec) return report(make_error(ErrorCode::output, *dir + "/calibrations", ec.message()));
        for (const auto& fit : result->fits) {
            std::string path = (std::filesystem::path(*dir) / "calibrations" / planner::calibration_file_name(fit)).string();
            if (auto s = write_file_atomic(path, planner::calibration_file(fit)); !s) return report(s.error());
            std::cerr << prefix("note") << "wrote " << path << "\n";
        }
    }
    return 0;
}

}  // namespace kbp::cli
