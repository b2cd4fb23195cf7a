#include "exporters/sweep_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "exporters/chart_svg.hpp"
#include "exporters/text.hpp"

namespace kbp::exporters {
namespace {

using SweepJson = nlohmann::json;

struct Point {
    double x = 0, tokens_per_s = 0, compute_share = 0;
    bool fits = true;
};

constexpr chart::Frame sweep_frame{};
constexpr const char* memory_colour = "#2f6db5";
constexpr const char* compute_colour = "#e07b00";
constexpr const char* short_colour = "#c62828";

using chart::at;
using chart::num;

// "1k", "128k", "1M" for token and row counts that are powers of two times 1024.
std::string count_label(double v) {
    auto n = static_cast<long long>(v);
    if (n >= 1048576 && n % 1048576 == 0) return std::to_string(n / 1048576) + "M";
    if (n >= 1024 && n % 1024 == 0) return std::to_string(n / 1024) + "k";
    return std::to_string(n);
}

}  // namespace

Result<std::string> sweep_chart_svg(const std::string& text, const std::string& origin, const std::string& title) {
    SweepJson doc = SweepJson::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return at(origin, "/", "not a JSON object");
    if (doc.value("schema", "") != "kbp-sweep/v1") return at(origin, "/schema", "expected \"kbp-sweep/v1\"");
    auto axis = doc.find("axis");
    if (axis == doc.end() || !axis->is_string() || (*axis != "context" && *axis != "rows"))
        return at(origin, "/axis", "expected \"context\" or \"rows\"");
    const std::string axis_name = *axis;
    auto list = doc.find("points");
    if (list == doc.end() || !list->is_array() || list->empty()) return at(origin, "/points", "expected a non-empty array");
    std::vector<Point> points;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const SweepJson& p = (*list)[i];
        const std::string where = "/points/" + std::to_string(i);
        if (!p.is_object()) return at(origin, where, "expected an object");
        for (const char* key : {axis_name.c_str(), "tokens_per_s", "compute_share"})
            if (!p.contains(key) || !p[key].is_number() || p[key].get<double>() < 0 || !std::isfinite(p[key].get<double>()))
                return at(origin, where + "/" + key, "expected a number, at least 0");
        if (!p.contains("fits") || !p["fits"].is_boolean()) return at(origin, where + "/fits", "expected true or false");
        Point pt{p[axis_name].get<double>(), p["tokens_per_s"].get<double>(), p["compute_share"].get<double>(), p["fits"].get<bool>()};
        if (pt.x < 1) return at(origin, where + "/" + axis_name, "expected at least 1 (the axis is logarithmic)");
        if (!points.empty() && pt.x <= points.back().x) return at(origin, where + "/" + axis_name, "expected ascending values");
        points.push_back(pt);
    }

    const chart::Frame& f = sweep_frame;
    const double x0 = std::log2(points.front().x), x1 = std::log2(points.back().x);
    auto sx = [&](double v) { return x1 > x0 ? f.left + (std::log2(v) - x0) / (x1 - x0) * f.plot_w() : f.left + f.plot_w() / 2; };
    double y_max = 0;
    for (const auto& p : points) y_max = std::max(y_max, p.tokens_per_s);
    const chart::Scale y = chart::zero_based(y_max);
    auto sy = [&](double v) { return f.plot_bottom() - v / y.top * f.plot_h(); };

    std::string svg = chart::open_svg(f);
    std::string heading = title;
    if (heading.empty()) {
        heading = "tokens/s by " + axis_name + " on " + doc.value("target", std::string("?"));
        if (doc.contains("arm") && doc["arm"].is_object())
            heading += " (" + doc["arm"].value("mode", std::string("?")) + ", " +
                       (axis_name == "context" ? "rows " + std::to_string(doc["arm"].value("rows", 1)) : "context " + std::to_string(doc.value("context", 0))) + ")";
    }
    svg += chart::heading(f, heading);
    // A curve priced on another target than the plan's says so where it is read, title or not
    // (left of the legend, on its line).
    if (doc.value("what_if", false))
        svg += "<text x=\"" + num(f.left, 0) + "\" y=\"" + num(f.top - 6, 0) + "\" fill=\"" + short_colour +
               "\">what-if: kernel availability ignored</text>\n";

    // Where weights and caches stop fitting: from the first point that does not fit to the right edge.
    auto first_short = std::find_if(points.begin(), points.end(), [](const Point& p) { return !p.fits; });
    if (first_short != points.end()) {
        double from = first_short == points.begin() ? f.left : (sx(std::prev(first_short)->x) + sx(first_short->x)) / 2;
        svg += "<rect x=\"" + num(from) + "\" y=\"" + num(f.top) + "\" width=\"" + num(f.left + f.plot_w() - from) + "\" height=\"" +
               num(f.plot_h()) + "\" fill=\"" + short_colour + "\" fill-opacity=\"0.10\"/>\n";
        std::string memory = doc.contains("memory_bytes") && doc["memory_bytes"].is_number()
                                 ? num(doc["memory_bytes"].get<double>() / 1e9) + " GB"
                                 : "the memory";
        svg += "<text x=\"" + num(f.left + f.plot_w() - 6) + "\" y=\"" + num(f.top + 16) + "\" text-anchor=\"end\" fill=\"" + short_colour +
               "\">shaded: does not fit " + html_escape(memory) + "</text>\n";
    }
    svg += chart::axes(f, y, axis_name == "context" ? "context (tokens in the cache)" : "rows per step", "tokens/s");
    for (const auto& p : points) svg += chart::x_tick(f, sx(p.x), count_label(p.x));  // at the points
    // The curve, then its points coloured by what bounds the step.
    std::string line;
    for (const auto& p : points) line += (line.empty() ? "" : " ") + num(sx(p.x)) + "," + num(sy(p.tokens_per_s));
    svg += "<polyline points=\"" + line + "\" fill=\"none\" stroke=\"#555555\" stroke-width=\"2\"/>\n";
    for (const auto& p : points) {
        const char* colour = p.compute_share > 0.5 ? compute_colour : memory_colour;
        svg += "<circle cx=\"" + num(sx(p.x)) + "\" cy=\"" + num(sy(p.tokens_per_s)) + "\" r=\"4.5\" fill=\"" + colour + "\"" +
               (p.fits ? "" : std::string(" stroke=\"") + short_colour + "\" stroke-width=\"2\"") + "><title>" + axis_name + " " +
               count_label(p.x) + ": " + num(p.tokens_per_s) + " tokens/s, " + num(100 * p.compute_share, 0) + "% compute-bound" +
               (p.fits ? "" : ", does not fit") + "</title></circle>\n";
    }
    // Legend.
    const double ly = f.top - 10;  // under the title
    svg += "<circle cx=\"" + num(f.width - 300) + "\" cy=\"" + num(ly) + "\" r=\"4.5\" fill=\"" + memory_colour + "\"/><text x=\"" + num(f.width - 290) +
           "\" y=\"" + num(ly + 4) + "\">memory-bound</text>\n";
    svg += "<circle cx=\"" + num(f.width - 180) + "\" cy=\"" + num(ly) + "\" r=\"4.5\" fill=\"" + compute_colour + "\"/><text x=\"" + num(f.width - 170) +
           "\" y=\"" + num(ly + 4) + "\">compute-bound</text>\n";
    svg += "</svg>\n";
    return svg;
}

}  // namespace kbp::exporters
