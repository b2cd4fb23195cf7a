// What the charts `kbp render` draws from JSON share (a cost sweep, sweep_chart.hpp; a tune
// frontier, frontier_chart.hpp): SVG text written directly (there is nothing to lay out, so no
// Graphviz; a PNG is the SVG rendered through Graphviz's cairo, render.hpp), every number with
// fixed decimals so that the same input gives the same bytes, and text of 12 px and more.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "schema/result.hpp"

namespace kbp::exporters {

enum class ChartKind { none, sweep, frontier };

// What a file's first chart_head_bytes bytes say it is: a JSON object whose head names
// "kbp-sweep/v1" or "kbp-frontier/v1" (their writers put "schema" first), else none. A plan is
// then read once, by the plan reader, rather than parsed here.
inline constexpr std::size_t chart_head_bytes = 256;
ChartKind chart_kind(std::string_view head);

namespace chart {

std::string num(double v, int decimals = 1);  // schema::fixed

// The picture's size and margins; the plot is what lies inside them.
struct Frame {
    double width = 760, height = 440, left = 78, right = 24, top = 52, bottom = 64;
    double plot_w() const { return width - left - right; }
    double plot_h() const { return height - top - bottom; }
    double plot_bottom() const { return top + plot_h(); }
};

// A linear axis from 0 to `top`, ticked every `step` (1, 2 or 5 times a power of ten), with
// about 5% room above the highest value; `decimals` for the tick labels.
struct Scale {
    double top = 1, step = 0.2;
    int decimals = 1;
};
Scale zero_based(double highest);

std::string open_svg(const Frame& f);                           // the root element and a white ground
std::string heading(const Frame& f, const std::string& text);  // bold, above the plot
// The grid line and label of every tick of `y` across the plot, the two axis lines, the x
// axis's title under the plot and the y axis's turned beside it.
std::string axes(const Frame& f, const Scale& y, const std::string& x_title, const std::string& y_title);
// A tick under the plot at `x` (a position), labelled.
std::string x_tick(const Frame& f, double x, const std::string& label);

// "FILE: /pointer: message", invalid input.
Error at(const std::string& origin, const std::string& pointer, const std::string& message);

}  // namespace chart
}  // namespace kbp::exporters
