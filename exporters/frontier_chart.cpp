#include "exporters/frontier_chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>

#include "exporters/chart_svg.hpp"
#include "exporters/text.hpp"
#include "schema/file_kind.hpp"
#include "schema/json_parse.hpp"
#include "schema/names.hpp"
#include "schema/numbers.hpp"

namespace kbp::exporters {
namespace {

using FrontierJson = nlohmann::ordered_json;
using chart::at;
using chart::num;

constexpr std::string_view schema_name = "kbp-frontier/v1";
constexpr std::array<std::string_view, 5> measure_names{"time", "memory", "effective_bits", "sensitivity", "tokens_s"};
constexpr std::array<std::string_view, 5> point_members{"time_us", "tokens_s", "memory_bytes", "effective_bits", "sensitivity"};

std::optional<FrontierMeasure> measure_of(std::string_view name) {
    for (std::size_t i = 0; i < measure_names.size(); ++i)
        if (measure_names[i] == name) return static_cast<FrontierMeasure>(i);
    return std::nullopt;
}

std::vector<std::string> names_of(std::span<const std::string_view> names) { return {names.begin(), names.end()}; }

// An unknown member of an object, with a near miss named.
Error unknown_member(const std::string& origin, const std::string& object, const std::string& key, std::span<const std::string_view> known) {
    return at(origin, object + "/" + schema::pointer_token(key), "unknown member '" + key + "'" + schema::name_hint(key, names_of(known), "members"));
}

Result<FrontierPoint> read_point(const std::string& origin, const std::string& where, const FrontierJson& p) {
    if (!p.is_object())
        return at(origin, where, "expected an object {\"time_us\", \"tokens_s\", \"memory_bytes\", \"effective_bits\", \"sensitivity\"}");
    for (const auto& [key, value] : p.items())
        if (std::find(point_members.begin(), point_members.end(), key) == point_members.end()) return unknown_member(origin, where, key, point_members);
    std::array<double, 5> v{};
    for (std::size_t i = 0; i < point_members.size(); ++i) {
        const std::string key(point_members[i]);
        auto it = p.find(key);
        if (it == p.end()) return at(origin, where + "/" + key, "missing (a number, at least 0)");
        if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
            return at(origin, where + "/" + key, "expected a number, at least 0, found " + it->dump());
        v[i] = it->get<double>();
    }
    return FrontierPoint{v[0], v[1], v[2], v[3], v[4]};
}

// --- the chart ---------------------------------------------------------------------------------

constexpr chart::Frame frontier_frame{800, 480, 84, 32, 64, 64};
constexpr const char* point_colour = "#2f6db5";
constexpr const char* chosen_colour = "#e07b00";
constexpr const char* bits_only_colour = "#8e24aa";
constexpr double label_font = 13;

bool higher_is_better(FrontierMeasure m) { return m == FrontierMeasure::time || m == FrontierMeasure::tokens_s; }

// A point's figure on a measure as drawn: the step time as tokens/s, memory in GB.
double shown(const FrontierPoint& p, FrontierMeasure m) {
    switch (m) {
        case FrontierMeasure::time:
        case FrontierMeasure::tokens_s: return p.tokens_s;
        case FrontierMeasure::memory: return p.memory_bytes / 1e9;
        case FrontierMeasure::effective_bits: return p.effective_bits;
        case FrontierMeasure::sensitivity: return p.sensitivity;
    }
    return 0;
}

std::string axis_title(FrontierMeasure m) {
    switch (m) {
        case FrontierMeasure::time:
        case FrontierMeasure::tokens_s: return "tokens/s";
        case FrontierMeasure::memory: return "memory (GB: weights and state)";
        case FrontierMeasure::effective_bits: return "effective bits (per weight)";
        case FrontierMeasure::sensitivity: return "sensitivity (summed score, 0 = lossless)";
    }
    return "";
}

std::string short_name(FrontierMeasure m) {
    switch (m) {
        case FrontierMeasure::time:
        case FrontierMeasure::tokens_s: return "tokens/s";
        case FrontierMeasure::memory: return "memory";
        case FrontierMeasure::effective_bits: return "effective bits";
        case FrontierMeasure::sensitivity: return "sensitivity";
    }
    return "";
}

// "199.7 tokens/s", "11.02 GB", "10.06 bits", "sensitivity 5.988".
std::string figure_text(double shown_value, FrontierMeasure m) {
    char s[64];
    switch (m) {
        case FrontierMeasure::time:
        case FrontierMeasure::tokens_s: std::snprintf(s, sizeof s, "%.1f tokens/s", shown_value); break;
        case FrontierMeasure::memory: std::snprintf(s, sizeof s, "%.2f GB", shown_value); break;
        case FrontierMeasure::effective_bits: std::snprintf(s, sizeof s, "%.2f bits", shown_value); break;
        case FrontierMeasure::sensitivity: std::snprintf(s, sizeof s, "sensitivity %.4g", shown_value); break;
    }
    return s;
}

// Where the chart's text goes: a box is tried against what is drawn already (every point, every
// segment of the step line, the marks, the budget's label) and the place that covers the
// least of it wins. Text is label_font px, about 0.55 em a character.
struct Box {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
    bool inside(const Box& o) const { return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1; }
};

double text_width(const std::string& text) { return 0.55 * label_font * static_cast<double>(text.size()); }

// What is drawn, each box weighted by how much covering it hurts: text hides text (a label or a
// tick's number), a mark hides what it marks, a dot or a piece of line is one of many.
constexpr std::size_t covers_text = 100, covers_mark = 10, covers_line = 1;
struct Drawn {
    std::vector<std::pair<Box, std::size_t>> boxes;
    void add(const Box& b, std::size_t weight) { boxes.push_back({b, weight}); }
    std::size_t hits(const Box& b) const {
        std::size_t sum = 0;
        for (const auto& [o, weight] : boxes) sum += b.overlaps(o) ? weight : 0;
        return sum;
    }
};

struct Label {
    double x = 0, y = 0;  // the baseline's anchor
    std::string anchor;   // "start", "middle" or "end"
    std::string text;
    Box box() const {
        const double w = text_width(text);
        const double x0 = anchor == "start" ? x : anchor == "middle" ? x - w / 2 : x - w;
        return {x0, y - label_font + 2, x0 + w, y + 3};
    }
};

// Of `candidates` (in order of preference), the first that lies inside `area` and covers the
// least of what is drawn.
Label least_covering(const std::vector<Label>& candidates, const Box& area, const Drawn& drawn) {
    const Label* best = nullptr;
    std::size_t best_hits = 0;
    for (const auto& c : candidates) {
        if (!c.box().inside(area)) continue;
        const std::size_t h = drawn.hits(c.box());
        if (!best || h < best_hits) best = &c, best_hits = h;
    }
    return best ? *best : candidates.front();
}

// A mark's short name beside it: right, left, above, below, the diagonals, then a line further.
Label tag(double px, double py, const std::string& text, const Box& area, const Drawn& drawn) {
    const double r = 10;
    return least_covering({{px + r, py + 4, "start", text},
                           {px - r, py + 4, "end", text},
                           {px, py - r - 2, "middle", text},
                           {px, py + r + label_font, "middle", text},
                           {px + r - 2, py - r, "start", text},
                           {px + r - 2, py + r + label_font - 2, "start", text},
                           {px - r + 2, py - r, "end", text},
                           {px - r + 2, py + r + label_font - 2, "end", text},
                           {px + r, py + 2 * r + label_font, "start", text},
                           {px + r, py - 2 * r - 2, "start", text},
                           {px - r, py + 2 * r + label_font, "end", text},
                           {px - r, py - 2 * r - 2, "end", text}},
                          area, drawn);
}

std::string text_svg(const Label& l, const std::string& fill = "#222222", const std::string& extra = "") {
    return "<text x=\"" + num(l.x) + "\" y=\"" + num(l.y) + "\" font-size=\"" + num(label_font, 0) + "\"" +
           (l.anchor == "start" ? "" : " text-anchor=\"" + l.anchor + "\"") + " fill=\"" + fill + "\"" + extra + ">" + html_escape(l.text) + "</text>\n";
}

enum class MarkKind { base, chosen, bits_only };

// A mark: the base a hollow ring, the choice an orange disc, the bits-only allocation a purple
// square; `title` is what a browser shows over it.
std::string mark_svg(MarkKind kind, double x, double y, double r, const std::string& title) {
    std::string element = kind == MarkKind::bits_only ? "rect" : "circle";
    std::string svg = kind == MarkKind::bits_only
                          ? "<rect x=\"" + num(x - r) + "\" y=\"" + num(y - r) + "\" width=\"" + num(2 * r) + "\" height=\"" + num(2 * r) + "\""
                          : "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(r) + "\"";
    switch (kind) {
        case MarkKind::base: svg += " fill=\"#ffffff\" stroke=\"#333333\" stroke-width=\"2\""; break;
        case MarkKind::chosen: svg += " fill=\"" + std::string(chosen_colour) + "\" stroke=\"#333333\" stroke-width=\"1.5\""; break;
        case MarkKind::bits_only: svg += " fill=\"" + std::string(bits_only_colour) + "\" stroke=\"#333333\" stroke-width=\"1.5\""; break;
    }
    if (title.empty()) return svg + "/>\n";
    return svg + "><title>" + html_escape(title) + "</title></" + element + ">\n";
}

}  // namespace

Result<Frontier> read_frontier(const std::string& text, const std::string& origin) {
    if (auto what = schema::wrong_kind(text, schema::FileKind::frontier); !what.empty()) return at(origin, "/", what);
    auto doc = schema::parse_json(text, origin, "a Pareto frontier, kbp-frontier/v1");
    if (!doc) return doc.error();
    const FrontierJson& j = *doc;
    if (!j.is_object())
        return at(origin, "/", "a frontier is a JSON object {\"schema\": \"kbp-frontier/v1\", \"budget\": ..., \"points\": [...]} (kbp tune --frontier)");
    static constexpr std::array<std::string_view, 8> members{"schema", "budget", "objective", "base", "chosen", "planned", "bits_only", "points"};
    for (const auto& [key, value] : j.items())
        if (std::find(members.begin(), members.end(), key) == members.end()) return unknown_member(origin, "", key, members);
    for (auto key : members)
        if (key != "bits_only" && !j.contains(std::string(key)))
            return at(origin, "/" + std::string(key), key == "schema" ? "missing (\"" + std::string(schema_name) + "\")" : "missing");
    if (j["schema"] != schema_name) return at(origin, "/schema", "expected \"" + std::string(schema_name) + "\", found " + j["schema"].dump());

    Frontier f;
    const FrontierJson& budget = j["budget"];
    const std::string accepted = "expected \"KIND=VALUE\": memory=SIZE (40GB), effective_bits=N, sensitivity=X or tokens_s=N";
    if (!budget.is_string()) return at(origin, "/budget", accepted + ", found " + budget.dump());
    f.budget = budget.get<std::string>();
    const auto eq = f.budget.find('=');
    const auto kind = measure_of(std::string_view(f.budget).substr(0, eq));
    if (eq == std::string::npos || !kind || *kind == FrontierMeasure::time) return at(origin, "/budget", accepted + ", found " + budget.dump());
    f.budget_kind = *kind;
    const std::string_view value = std::string_view(f.budget).substr(eq + 1);
    auto limit = *kind == FrontierMeasure::memory ? schema::parse_bytes(value) : schema::parse_number(value);
    if (!limit || *limit < 0) return at(origin, "/budget", accepted + ", found " + budget.dump());
    f.limit = *limit;

    const FrontierJson& objective = j["objective"];
    auto objective_kind = objective.is_string() ? measure_of(objective.get<std::string>()) : std::nullopt;
    if (!objective_kind || *objective_kind == FrontierMeasure::effective_bits || *objective_kind == FrontierMeasure::tokens_s)
        return at(origin, "/objective", "expected \"time\", \"memory\" or \"sensitivity\", found " + objective.dump());
    f.objective = *objective_kind;

    for (auto [key, point] : {std::pair{"base", &f.base}, {"chosen", &f.chosen}, {"planned", &f.planned}}) {
        auto p = read_point(origin, "/" + std::string(key), j[key]);
        if (!p) return p.error();
        *point = *p;
    }
    if (j.contains("bits_only")) {
        auto p = read_point(origin, "/bits_only", j["bits_only"]);
        if (!p) return p.error();
        f.bits_only = *p;
    }
    const FrontierJson& points = j["points"];
    if (!points.is_array() || points.empty()) return at(origin, "/points", "expected a non-empty array of the frontier's points");
    for (std::size_t i = 0; i < points.size(); ++i) {
        auto p = read_point(origin, "/points/" + std::to_string(i), points[i]);
        if (!p) return p.error();
        f.points.push_back(*p);
    }
    return f;
}

std::string frontier_chart_svg(const Frontier& fr, const std::string& title) {
    const chart::Frame& f = frontier_frame;
    const FrontierMeasure xm = fr.budget_kind, ym = fr.objective;
    // A budget caps memory, bits or sensitivity from above, and tokens/s from below.
    const bool at_most = xm != FrontierMeasure::tokens_s;
    const double limit = xm == FrontierMeasure::memory ? fr.limit / 1e9 : fr.limit;

    double x_max = 0, y_max = 0;
    for (const auto* p : {&fr.base, &fr.chosen, &fr.planned}) x_max = std::max(x_max, shown(*p, xm)), y_max = std::max(y_max, shown(*p, ym));
    if (fr.bits_only) x_max = std::max(x_max, shown(*fr.bits_only, xm)), y_max = std::max(y_max, shown(*fr.bits_only, ym));
    for (const auto& p : fr.points) x_max = std::max(x_max, shown(p, xm)), y_max = std::max(y_max, shown(p, ym));
    // The budget's line is drawn when it falls near the points; one far past them would squash them.
    const bool limit_shown = limit <= 1.5 * std::max(x_max, 1e-12);
    if (limit_shown) x_max = std::max(x_max, limit);
    const chart::Scale xs = chart::zero_based(x_max), ys = chart::zero_based(y_max);
    auto sx = [&](double v) { return f.left + v / xs.top * f.plot_w(); };
    auto sy = [&](double v) { return f.plot_bottom() - v / ys.top * f.plot_h(); };
    const Box plot{f.left, f.top, f.left + f.plot_w(), f.plot_bottom()};
    Drawn drawn;
    drawn.add({plot.x0 - 1, plot.y0, plot.x0 + 1, plot.y1}, covers_line);  // the axes and the y ticks' labels
    drawn.add({plot.x0, plot.y1 - 1, plot.x1, plot.y1 + 1}, covers_line);
    for (double v = 0; v <= ys.top + ys.step / 2; v += ys.step)
        drawn.add({plot.x0 - 8 - text_width(num(v, ys.decimals)), sy(v) - 9, plot.x0 - 8, sy(v) + 4}, covers_text);
    // A mark's name may stand in the margin left of the plot, beside the ticks' labels.
    const Box tag_area{4, plot.y0, plot.x1, plot.y1};

    std::string svg = chart::open_svg(f);
    svg += chart::heading(f, title.empty() ? "Pareto frontier: " + short_name(ym) + " by " + short_name(xm) : title);
    svg += "<text x=\"" + num(f.left, 0) + "\" y=\"44\" fill=\"#555555\">" +
           html_escape("kbp tune: budget " + fr.budget + ", objective " + std::string(measure_names[static_cast<std::size_t>(ym)]) + "; " +
                       grouped(static_cast<std::int64_t>(fr.points.size())) + " Pareto point" + (fr.points.size() == 1 ? "" : "s")) +
           "</text>\n";

    // Past the budget: shaded, behind everything else.
    if (limit_shown) {
        const double lx = sx(limit);
        const double from = at_most ? lx : f.left, to = at_most ? f.left + f.plot_w() : lx;
        svg += "<rect x=\"" + num(from) + "\" y=\"" + num(f.top) + "\" width=\"" + num(to - from) + "\" height=\"" + num(f.plot_h()) +
               "\" fill=\"#000000\" fill-opacity=\"0.04\"/>\n";
    }
    svg += chart::axes(f, ys, axis_title(xm), axis_title(ym));
    for (double v = 0; v <= xs.top + xs.step / 2; v += xs.step) svg += chart::x_tick(f, sx(v), num(v, xs.decimals));
    // "budget: memory ≤ 40GB", the value as kbp tune was given it, at the top of its line.
    const std::string budget_text = "budget: " + short_name(xm) + (at_most ? " ≤ " : " ≥ ") + fr.budget.substr(fr.budget.find('=') + 1);
    Label budget_label{f.left + f.plot_w() - 6, f.top + 16, "end", budget_text + " (past the right edge)"};
    if (limit_shown) {
        const double lx = sx(limit);
        svg += "<line x1=\"" + num(lx) + "\" y1=\"" + num(f.top) + "\" x2=\"" + num(lx) + "\" y2=\"" + num(f.plot_bottom()) +
               "\" stroke=\"#c62828\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n";
        drawn.add({lx - 1, plot.y0, lx + 1, plot.y1}, covers_mark);
        const bool right = lx + 6 + text_width(budget_text) <= plot.x1;
        budget_label = {right ? lx + 6 : lx - 6, f.top + 16, right ? "start" : "end", budget_text};
    }

    // The step line: the best objective a budget at each x buys. Under a cap (at most x) that is
    // the last point left of x, so the line runs level to the next point and then steps to it;
    // under a floor (tokens/s at least x) it is the first point right of x, so it steps first.
    std::vector<std::size_t> order(fr.points.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return shown(fr.points[a], xm) < shown(fr.points[b], xm); });
    std::string line, last;
    double last_x = 0, last_y = 0;
    auto vertex = [&](double x, double y) {  // one a place: points closer than the 0.1 px written are one
        std::string v = num(sx(x)) + "," + num(sy(y));
        if (v == last) return;
        if (!line.empty())
            drawn.add({std::min(last_x, sx(x)) - 1, std::min(last_y, sy(y)) - 1, std::max(last_x, sx(x)) + 1, std::max(last_y, sy(y)) + 1}, covers_line);
        line += (line.empty() ? "" : " ") + v;
        last = std::move(v);
        last_x = sx(x), last_y = sy(y);
    };
    for (std::size_t k = 0; k < order.size(); ++k) {
        const FrontierPoint& p = fr.points[order[k]];
        if (k > 0) {
            const FrontierPoint& prev = fr.points[order[k - 1]];
            if (at_most) vertex(shown(p, xm), shown(prev, ym));
            else vertex(shown(prev, xm), shown(p, ym));
        }
        vertex(shown(p, xm), shown(p, ym));
    }
    svg += "<polyline points=\"" + line + "\" fill=\"none\" stroke=\"#8aa9d6\" stroke-width=\"1.5\"/>\n";
    svg += "<g class=\"points\" fill=\"" + std::string(point_colour) + "\">\n";
    for (const auto& p : fr.points) {
        const double x = sx(shown(p, xm)), y = sy(shown(p, ym));
        svg += "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"2.5\"/>\n";
        drawn.add({x - 3, y - 3, x + 3, y + 3}, covers_line);
    }
    svg += "</g>\n";
    svg += text_svg(budget_label, "#c62828");
    drawn.add(budget_label.box(), covers_text);

    // The chosen point, the base and the bits-only allocation: marked, named beside the mark (once
    // for marks in one place), their figures in a key in the corner of the plot that covers least.
    auto figures = [&](const FrontierPoint& p) {
        std::string t = figure_text(shown(p, ym), ym);
        if (short_name(xm) != short_name(ym)) t += ", " + figure_text(shown(p, xm), xm);
        return t;
    };
    struct Mark {
        MarkKind kind;
        std::string name, text;
        double x = 0, y = 0;
    };
    std::vector<Mark> marks;
    auto add_mark = [&](MarkKind kind, const std::string& name, const std::string& text, const FrontierPoint& p) {
        marks.push_back({kind, name, text, sx(shown(p, xm)), sy(shown(p, ym))});
    };
    std::string chosen_text = "chosen: " + figures(fr.chosen);
    if (figure_text(shown(fr.planned, ym), ym) != figure_text(shown(fr.chosen, ym), ym)) chosen_text += " (planned " + figure_text(shown(fr.planned, ym), ym) + ")";
    add_mark(MarkKind::chosen, "chosen", chosen_text, fr.chosen);
    add_mark(MarkKind::base, "base", "base (uniform): " + figures(fr.base), fr.base);
    if (fr.bits_only) add_mark(MarkKind::bits_only, "bits-only", "bits-only (the same effective bits by score per bit): " + figures(*fr.bits_only), *fr.bits_only);
    for (auto it = marks.rbegin(); it != marks.rend(); ++it) {  // the chosen point on top
        svg += mark_svg(it->kind, it->x, it->y, 6, it->text);
        drawn.add({it->x - 7, it->y - 7, it->x + 7, it->y + 7}, covers_mark);
    }
    std::vector<bool> named(marks.size(), false);
    for (std::size_t i = 0; i < marks.size(); ++i) {
        if (named[i]) continue;
        std::string name = marks[i].name;
        for (std::size_t k = i + 1; k < marks.size(); ++k)
            if (std::abs(marks[k].x - marks[i].x) < 4 && std::abs(marks[k].y - marks[i].y) < 4) name += ", " + marks[k].name, named[k] = true;
        const Label t = tag(marks[i].x, marks[i].y, name, tag_area, drawn);
        drawn.add(t.box(), covers_text);
        svg += text_svg(t, "#222222", " class=\"tag\"");
    }
    double key_w = 0;
    for (const auto& m : marks) key_w = std::max(key_w, 28 + text_width(m.text));
    const double key_h = 20 * static_cast<double>(marks.size()) + 8, pad = 8;
    // The key's place: right-bottom, left-top, right-top or left-bottom, whichever covers the least.
    std::optional<Box> key;
    std::size_t key_hits = 0;
    for (auto [right, bottom] : {std::pair{true, true}, {false, false}, {true, false}, {false, true}}) {
        const double x0 = right ? plot.x1 - pad - key_w : plot.x0 + pad, y0 = bottom ? plot.y1 - pad - key_h : plot.y0 + pad;
        const Box b{x0, y0, x0 + key_w, y0 + key_h};
        if (const std::size_t h = drawn.hits(b); !key || h < key_hits) key = b, key_hits = h;
    }
    svg += "<g class=\"key\">\n<rect x=\"" + num(key->x0) + "\" y=\"" + num(key->y0) + "\" width=\"" + num(key_w) + "\" height=\"" + num(key_h) +
           "\" fill=\"#ffffff\" fill-opacity=\"0.85\" stroke=\"#cccccc\"/>\n";
    // The key lists the base first, as the eye reads the chart from it.
    std::stable_sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.kind < b.kind; });
    for (std::size_t i = 0; i < marks.size(); ++i) {
        const double line_y = key->y0 + 16 + 20 * static_cast<double>(i);
        svg += mark_svg(marks[i].kind, key->x0 + 14, line_y, 5, "") + text_svg({key->x0 + 26, line_y + 4, "start", marks[i].text});
    }
    svg += "</g>\n</svg>\n";
    return svg;
}

}  // namespace kbp::exporters
