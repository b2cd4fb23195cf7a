#include "viewer/app/options.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace kbp::viewer::app {
namespace {

Error usage(const std::string& message) { return make_error(ErrorCode::usage, "", message); }

bool to_int(const std::string& s, int& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && end == s.data() + s.size();
}

}  // namespace

Result<Options> parse_options(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        std::string value;
        auto eq = a.find('=');
        bool inline_value = a.rfind("--", 0) == 0 && eq != std::string::npos;
        if (inline_value) {
            value = a.substr(eq + 1);
            a = a.substr(0, eq);
        }
        auto take = [&]() -> std::optional<std::string> {
            if (inline_value) return value;
            if (i + 1 >= argc) return std::nullopt;
            return std::string(argv[++i]);
        };
        auto need = [&](const char* what) -> Result<std::string> {
            auto v = take();
            if (!v) return usage(a + " needs " + what);
            return *v;
        };
        if (a == "--help" || a == "-h") o.help = true;
        else if (a == "--version") o.version = true;
        else if (a == "--quick-layout") o.dot = false;
        else if (a == "--first-frame") o.first_frame = true;
        else if (a == "--diff") {
            auto v = need("a plan");
            if (!v) return v.error();
            if (o.plans.size() != 1) return usage("--diff needs exactly one PLAN before it");
            o.plans.push_back(*v);
        } else if (a == "--color") {
            auto v = need("a mode");
            if (!v) return v.error();
            o.color = parse_color_mode(*v);
            if (!o.color) {
                std::string modes;
                for (auto m : all_color_modes) modes += (modes.empty() ? "" : ", ") + std::string(color_mode_name(m));
                return usage("--color: unknown mode '" + *v + "' (" + modes + ")");
            }
        } else if (a == "--expand" || a == "--select" || a == "--find" || a == "--panel" || a == "--side" || a == "--screenshot" ||
                   a == "--dump-state") {
            auto v = need("a value");
            if (!v) return v.error();
            if (a == "--expand") o.expand = *v;
            if (a == "--select") o.select = *v;
            if (a == "--find") o.find = *v;
            if (a == "--panel") o.panel = *v;
            if (a == "--side") o.side = *v;
            if (a == "--screenshot") o.screenshot = *v;
            if (a == "--dump-state") o.dump_state = *v;
        } else if (a == "--frames" || a == "--bench-frames" || a == "--bench-layers") {
            auto v = need("a number");
            if (!v) return v.error();
            int n = 0;
            if (!to_int(*v, n) || n < 1 || n > 1000000) return usage(a + " takes a positive number, not '" + *v + "'");
            if (a == "--frames") o.frames = n;
            if (a == "--bench-frames") o.bench_frames = n;
            if (a == "--bench-layers") o.bench_layers = static_cast<std::size_t>(n);
        } else if (a == "--zoom") {
            auto v = need("a number");
            if (!v) return v.error();
            char* end = nullptr;
            double z = std::strtod(v->c_str(), &end);
            if (end != v->c_str() + v->size() || !(z > 0 && z <= 4)) return usage("--zoom takes a number in (0, 4], not '" + *v + "'");
            o.zoom = z;
        } else if (a == "--size") {
            auto v = need("WxH");
            if (!v) return v.error();
            auto x = v->find('x');
            if (x == std::string::npos || !to_int(v->substr(0, x), o.width) || !to_int(v->substr(x + 1), o.height) || o.width < 200 ||
                o.height < 150 || o.width > 8192 || o.height > 8192)
                return usage("--size takes WxH between 200x150 and 8192x8192, not '" + *v + "'");
        } else if (a.rfind("-", 0) == 0 && a.size() > 1) {
            return usage("unknown option '" + a + "'");
        } else {
            if (o.plans.size() == 2) return usage("at most two plans: PLAN and PLAN2 to compare with");
            o.plans.push_back(a);
        }
    }
    if (o.panel && *o.panel != "inspector" && *o.panel != "find" && *o.panel != "overview" && *o.panel != "diff" && *o.panel != "help")
        return usage("--panel takes inspector, find, overview, diff or help");
    if (o.side && *o.side != "a" && *o.side != "b" && *o.side != "both") return usage("--side takes a, b or both");
    if (o.first_frame && !o.screenshot && !o.dump_state) return usage("--first-frame needs --screenshot or --dump-state");
    if (o.bench_layers && o.plans.empty()) return usage("--bench-layers needs a PLAN whose templates it repeats");
    return o;
}

}  // namespace kbp::viewer::app
