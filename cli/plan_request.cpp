#include "cli/plan_request.hpp"

#include <charconv>

#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace kbp::cli {

std::optional<std::int64_t> parse_int(const std::string& s) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string command_line(int argc, char** argv) {
    std::string out = "kbp";
    for (int i = 0; i < argc; ++i) out += std::string(" ") + argv[i];
    return out;
}

std::optional<planner::PlanRequest> request_of(const char* command, const Args& args, int argc, char** argv, int& code) {
    planner::PlanRequest r;
    r.config_path = args.positional[0];
    r.arm = args.value("--arm").value_or("decode");
    if (auto rows = args.value("--rows")) {
        auto v = parse_int(*rows);
        if (!v) {
            code = usage_error(command, "--rows takes a whole number");
            return std::nullopt;
        }
        r.rows = *v;
    }
    if (auto tp = args.value("--tp")) {
        auto v = parse_int(*tp);
        if (!v || *v < 1 || *v > 1024) {
            code = usage_error(command, "--tp takes a whole number of devices from 1 to 1024");
            return std::nullopt;
        }
        r.tp = *v;
    }
    r.target = args.value("--target");
    r.recipe = args.value("--recipe");
    r.engine = args.value("--engine");
    r.ranges = args.value("--ranges");
    r.catalog_dir = args.value("--catalog");
    for (const auto& kv : args.all("--set")) {
        auto setting = setting_of(kv);
        if (!setting) {
            code = usage_error(command, "--set takes key=value, not '" + kv + "'");
            return std::nullopt;
        }
        r.settings.push_back(*setting);
    }
    r.command = command_line(argc, argv);
    return r;
}

}  // namespace kbp::cli
