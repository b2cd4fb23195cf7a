#include "exporters/chart_svg.hpp"

#include <cmath>

#include "exporters/text.hpp"
#include "schema/numbers.hpp"

namespace kbp::exporters {

ChartKind chart_kind(std::string_view head) {
    auto open = head.find_first_not_of(" \t\r\n");
    if (open == std::string_view::npos || head[open] != '{') return ChartKind::none;
    head = head.substr(0, chart_head_bytes);
    if (head.find("\"kbp-sweep/v1\"") != std::string_view::npos) return ChartKind::sweep;
    if (head.find("\"kbp-frontier/v1\"") != std::string_view::npos) return ChartKind::frontier;
    return ChartKind::none;
}

namespace chart {

std::string num(double v, int decimals) { return schema::fixed(v, decimals); }

Scale zero_based(double highest) {
    const double room = highest > 0 ? highest * 1.05 : 1.0;
    const double raw = room / 5;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    Scale s;
    s.step = 10 * power;
    for (double m : {1.0, 2.0, 5.0})
        if (m * power >= raw) {
            s.step = m * power;
            break;
        }
    s.top = std::ceil(room / s.step) * s.step;
    s.decimals = s.step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(s.step) - 1e-9));
    return s;
}

std::string open_svg(const Frame& f) {
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(f.width, 0) + "\" height=\"" + num(f.height, 0) + "\" viewBox=\"0 0 " +
           num(f.width, 0) + " " + num(f.height, 0) + "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n" +
           "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
}

std::string heading(const Frame& f, const std::string& text) {
    return "<text x=\"" + num(f.left, 0) + "\" y=\"22\" font-size=\"16\" font-weight=\"bold\">" + html_escape(text) + "</text>\n";
}

std::string axes(const Frame& f, const Scale& y, const std::string& x_title, const std::string& y_title) {
    std::string svg;
    const double right = f.left + f.plot_w(), bottom = f.plot_bottom();
    for (double v = 0; v <= y.top + y.step / 2; v += y.step) {
        const double at = bottom - v / y.top * f.plot_h();
        svg += "<line x1=\"" + num(f.left) + "\" y1=\"" + num(at) + "\" x2=\"" + num(right) + "\" y2=\"" + num(at) + "\" stroke=\"#e0e0e0\"/>\n";
        svg += "<text x=\"" + num(f.left - 8) + "\" y=\"" + num(at + 4) + "\" text-anchor=\"end\">" + num(v, y.decimals) + "</text>\n";
    }
    svg += "<line x1=\"" + num(f.left) + "\" y1=\"" + num(bottom) + "\" x2=\"" + num(right) + "\" y2=\"" + num(bottom) + "\" stroke=\"#333333\"/>\n";
    svg += "<line x1=\"" + num(f.left) + "\" y1=\"" + num(f.top) + "\" x2=\"" + num(f.left) + "\" y2=\"" + num(bottom) + "\" stroke=\"#333333\"/>\n";
    svg += "<text x=\"" + num(f.left + f.plot_w() / 2) + "\" y=\"" + num(f.height - 16) + "\" text-anchor=\"middle\">" + html_escape(x_title) + "</text>\n";
    svg += "<text x=\"18\" y=\"" + num(f.top + f.plot_h() / 2) + "\" text-anchor=\"middle\" transform=\"rotate(-90 18 " + num(f.top + f.plot_h() / 2) +
           ")\">" + html_escape(y_title) + "</text>\n";
    return svg;
}

std::string x_tick(const Frame& f, double x, const std::string& label) {
    const double bottom = f.plot_bottom();
    return "<line x1=\"" + num(x) + "\" y1=\"" + num(bottom) + "\" x2=\"" + num(x) + "\" y2=\"" + num(bottom + 5) + "\" stroke=\"#333333\"/>\n" +
           "<text x=\"" + num(x) + "\" y=\"" + num(bottom + 19) + "\" text-anchor=\"middle\">" + html_escape(label) + "</text>\n";
}

Error at(const std::string& origin, const std::string& pointer, const std::string& message) {
    return make_error(ErrorCode::invalid_input, origin + ": " + pointer, message);
}

}  // namespace chart
}  // namespace kbp::exporters
