// From a view to a cgraph graph: clusters first (parents before children), then nodes into
// their innermost cluster, then each edge into the innermost cluster holding both ends, all in
// view order. Labels are HTML-like (escaped with html_escape) except tooltips and stub labels
// (escString, escaped with label_escape); names go through dot_name, then cgraph's writer quotes them.
#include "exporters/dot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "exporters/cgraph_build.hpp"
#include "exporters/text.hpp"
#include "schema/stats.hpp"

namespace kbp::exporters {
namespace {

using detail::CGraph;
using schema::Blueprint;
using schema::Node;

constexpr std::size_t max_member_rows = 24;  // ops listed in a group's table
constexpr std::size_t max_kernel_rows = 6;

struct Syms {
    Agsym_t *g_label, *g_style, *g_color, *g_fillcolor, *g_penwidth, *g_fontsize, *g_tooltip, *g_margin;
    Agsym_t *n_label, *n_shape, *n_style, *n_fillcolor, *n_color, *n_penwidth, *n_tooltip, *n_fontcolor, *n_fontsize;
    Agsym_t *e_label, *e_color, *e_style, *e_penwidth, *e_fontcolor, *e_tooltip, *e_constraint, *e_fontsize, *e_arrowhead,
        *e_lhead;
};

std::string fixed(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

const schema::Layer* layer_of(const Blueprint& b, std::int64_t index) {
    if (index >= 0 && static_cast<std::size_t>(index) < b.layers.size() && b.layers[static_cast<std::size_t>(index)].index == index)
        return &b.layers[static_cast<std::size_t>(index)];
    for (const auto& l : b.layers)
        if (l.index == index) return &l;
    return nullptr;
}

std::string font(int size, const std::string& html, std::string_view color = {}) {
    std::string out = "<FONT POINT-SIZE=\"" + std::to_string(size) + "\"";
    if (!color.empty()) out += " COLOR=\"" + std::string(color) + "\"";
    return out + ">" + html + "</FONT>";
}

std::string state_text(const Node& n) { return schema::state_roles_name(*n.state); }

// An op's label: its name, formats, op (when the name does not say it) and state roles. The
// collapsed view keeps to the name and state (formats show as the fill; all of it is in the
// tooltip), so that a whole model fits one screen.
std::string op_label(const Node& n, bool compact) {
    std::string name = local_name(n);
    std::string out = "<B>" + html_escape(name) + "</B>";
    if (!compact) {
        out += "<BR/>" + font(8, html_escape(precision_signature(n)));
        std::string op = n.op.name();
        if (op != name) out += "<BR/>" + font(8, html_escape(op), "#555555");
    }
    if (owns_state(n)) out += "<BR/>" + font(compact ? 7 : 8, "<B>" + html_escape(state_text(n)) + "</B>", state_color);
    return out;
}

std::string op_tooltip(const Node& n, const Blueprint& b) {
    std::string t = n.id + "\nop " + n.op.name() + "\nprecision " + precision_signature(n);
    if (n.inserted) t += " (inserted quantization point)";
    if (n.kernel) t += "\nkernel " + *n.kernel;
    t += "\nfamily " + n.family;
    if (n.compute) t += ", compute " + n.compute->name();
    t += ", " + std::string(n.where.name());
    if (owns_state(n)) t += "\nstate " + state_text(n);
    if (n.group >= 0 && static_cast<std::size_t>(n.group) < b.groups.size())
        t += "\ngroup " + std::to_string(n.group) + " " + b.groups[static_cast<std::size_t>(n.group)].rule;
    if (!n.steps.empty()) {
        t += "\nsteps:";
        for (const auto& s : n.steps) t += " " + s + ";";
        t.pop_back();
    }
    return label_escape(t);
}

std::string group_header(const schema::Group& g, std::int64_t shown_id) {
    return "<B>g" + std::to_string(shown_id) + "</B> " + html_escape(g.rule.empty() ? "(no rule)" : g.rule);
}

// The group's kernels; a templated one (a GPNPU custom op) with its arguments, as its members
// record them: nn_custom::w4a16PackedProj<3, 21, 31, 31>.
std::string kernel_lines(const schema::Group& g, const Blueprint& b) {
    if (g.kernels.empty()) return font(8, g.where.id == schema::WhereId::host ? "host step, no kernel" : "no kernel named", "#555555");
    std::string out;
    for (std::size_t i = 0; i < g.kernels.size(); ++i) {
        if (i == max_kernel_rows - 1 && g.kernels.size() > max_kernel_rows) {
            out += "<BR/>" + font(8, "… " + std::to_string(g.kernels.size() - i) + " more kernels", "#555555");
            break;
        }
        std::string name = g.kernels[i];
        for (auto m : g.nodes)
            if (m >= 0 && static_cast<std::size_t>(m) < b.nodes.size()) {
                const Node& n = b.nodes[static_cast<std::size_t>(m)];
                if (n.kernel == g.kernels[i] && n.template_args) {
                    name = schema::kernel_signature(*n.kernel, *n.template_args);
                    break;
                }
            }
        out += (i ? "<BR/>" : "") + font(8, html_escape(name), "#555555");
    }
    return out;
}

// A groups-view node: the group's rule, kernels and one row per member op.
std::string group_table(const schema::Group& g, const Blueprint& b, const Palette& palette) {
    std::vector<const Node*> members;
    for (auto m : g.nodes)
        if (m >= 0 && static_cast<std::size_t>(m) < b.nodes.size()) members.push_back(&b.nodes[static_cast<std::size_t>(m)]);
    std::string header_fill = "#eeeeee";
    if (!members.empty()) {
        header_fill = palette.fill(*members.front());
        for (const auto* m : members)
            if (palette.fill(*m) != header_fill) header_fill = "#eeeeee";
    }
    std::string t = "<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"2\" COLOR=\"#424242\" "
                    "BGCOLOR=\"#ffffff\" STYLE=\"ROUNDED\">";
    t += "<TR><TD COLSPAN=\"4\" ALIGN=\"LEFT\" BGCOLOR=\"" + header_fill + "\">" + group_header(g, g.id) + "</TD></TR>";
    t += "<TR><TD COLSPAN=\"4\" ALIGN=\"LEFT\" BALIGN=\"LEFT\">" + kernel_lines(g, b) + "</TD></TR>";
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (i == max_member_rows - 1 && members.size() > max_member_rows) {
            t += "<TR><TD COLSPAN=\"4\" ALIGN=\"LEFT\">" + font(8, "… " + std::to_string(members.size() - i) + " more ops") +
                 "</TD></TR>";
            break;
        }
        const Node& n = *members[i];
        std::string name = html_escape(local_name(n));
        std::string mark;
        if (is_quant_point(n)) {
            name = "<FONT COLOR=\"" + std::string(quant_color) + "\"><B>" + name + "</B></FONT>";
            mark = font(8, "<B>quant point</B>", quant_color);
        }
        if (owns_state(n)) {
            name = "<FONT COLOR=\"" + std::string(state_color) + "\"><B>" + name + "</B></FONT>";
            mark = font(8, "<B>state " + html_escape(state_text(n)) + "</B>", state_color);
        }
        t += "<TR><TD ALIGN=\"LEFT\" BGCOLOR=\"" + palette.fill(n) + "\">" + name + "</TD>";
        t += "<TD ALIGN=\"LEFT\">" + font(8, html_escape(n.op.name()), "#555555") + "</TD>";
        t += "<TD ALIGN=\"LEFT\">" + font(8, html_escape(precision_signature(n))) + "</TD>";
        t += "<TD ALIGN=\"LEFT\">" + mark + "</TD></TR>";
    }
    return t + "</TABLE>";
}

std::string group_tooltip(const schema::Group& g) {
    std::string t = "group " + std::to_string(g.id) + " " + g.rule + "\n" + std::to_string(g.nodes.size()) + " ops, " +
                    std::string(g.where.name());
    if (g.compute) t += ", " + g.compute->name();
    for (const auto& k : g.kernels) t += "\nkernel " + k;
    return label_escape(t);
}

std::string layers_text(const std::vector<std::int64_t>& layers) {
    if (layers.empty()) return "";
    std::string text = (layers.size() == 1 ? "layer " : "layers ") + schema::ranges_text(layers);
    std::string out;
    for (const auto& line : wrap(text, ", ", 52)) out += (out.empty() ? "" : "<BR/>") + html_escape(line);
    return out;
}

std::string cluster_label(const ViewCluster& c, const View& v) {
    const Blueprint& b = *v.plan;
    switch (c.kind) {
        case ClusterKind::layer: {
            std::string out = "<B>layer " + std::to_string(*c.layer) + "</B>";
            if (const auto* l = layer_of(b, *c.layer))
                out += " · " + html_escape(l->template_name) + " · " + font(9, html_escape(l->kind.name()), "#555555");
            return font(12, out);
        }
        case ClusterKind::block: {
            // --block TYPE: a block drawn once for the identical ones, with how many and where.
            auto alike = v.alike.find(c.block);
            if (alike == v.alike.end()) return font(10, "<B>" + html_escape(c.block) + "</B>", "#424242");
            std::vector<std::int64_t> layers;
            for (auto l : alike->second)
                if (l >= 0) layers.push_back(l);
            std::string detail = layers_text(layers);
            return font(12, "<B>" + html_escape(c.block) + " × " + std::to_string(alike->second.size()) + "</B>", "#424242") +
                   (detail.empty() ? "" : "<BR/>" + font(9, "the same block in " + detail, "#555555"));
        }
        case ClusterKind::group: {
            if (!c.group) return font(9, "<B>g" + std::to_string(c.group_id) + "</B>");
            // The collapsed view keeps to the rule (kernels are in the tooltip) to stay on one screen.
            if (v.kind == ViewKind::collapsed) return font(7, group_header(*c.group, c.group_id));
            return font(9, group_header(*c.group, c.group_id)) + "<BR/>" + kernel_lines(*c.group, b);
        }
        case ClusterKind::layer_template: {
            const auto* t = c.layer_template;
            std::string out = "<B>" + html_escape(t->name) + "</B>";
            if (c.placement == "layers") out += " × " + std::to_string(c.instances.size());
            else out += " " + font(10, "(" + c.placement + ")", "#555555");
            std::string kind;
            if (!c.instances.empty())
                if (const auto* l = layer_of(b, c.instances.front())) kind = std::string(l->kind.name());
            std::string detail = layers_text(c.instances);
            if (!kind.empty()) detail = html_escape(kind) + (detail.empty() ? "" : "<BR/>" + detail);
            return font(14, out) + (detail.empty() ? "" : "<BR/>" + font(9, detail, "#555555"));
        }
    }
    return "";
}

std::string edge_text(const ViewEdge& e) {
    std::string out(e.format.name());
    if (e.bytes_per_token) {
        out += " ";
        if (e.readers > 1 && *e.bytes_per_token % e.readers == 0)
            out += std::to_string(e.readers) + "×" + bytes_text(*e.bytes_per_token / e.readers);
        else
            out += bytes_text(*e.bytes_per_token);
    } else if (e.readers > 1) {
        out += " ×" + std::to_string(e.readers);
    }
    return out;
}

std::string edge_tooltip(const ViewEdge& e, const View& v) {
    std::string t;
    const auto& from = v.nodes[static_cast<std::size_t>(e.from)];
    const auto& to = v.nodes[static_cast<std::size_t>(e.to)];
    t = from.name + " → " + to.name;
    if (e.edge) {
        t += "\ntensor " + e.edge->id + ", " + std::string(e.format.name());
        if (e.edge->dim) t += ", dim " + *e.edge->dim + " = " + std::to_string(e.edge->dim_value);
        if (e.edge->rows) t += ", rows " + std::string(e.edge->rows->name());
    }
    if (e.bytes_per_token) t += "\n" + grouped(*e.bytes_per_token) + " bytes per token";
    if (e.readers > 1) t += " (" + std::to_string(e.readers) + " reading ops)";
    if (e.edge && schema::requantized(*e.edge))
        t += "\nrequant " + std::string(e.edge->requant->from.name()) + " → " + std::string(e.edge->requant->to.name()) +
             " at the " + std::string(e.edge->requant->at.name());
    t += e.fused ? "\nfused: stays inside the kernel" : "\ncrosses kernels";
    if (e.role == EdgeRole::port) {
        t += "\nport edge, " + std::to_string(e.transitions) + " layer boundaries; in ports:";
        for (auto p : e.in_ports) t += " " + v.nodes[static_cast<std::size_t>(p)].name;
    }
    return label_escape(t);
}

std::string subtitle(const View& v) {
    const Blueprint& b = *v.plan;
    std::string s = std::string(b.arm.mode.name()) + " arm, " + std::to_string(b.arm.rows) +
                    (b.arm.rows == 1 ? " row" : " rows") + " · " + std::string(view_kind_name(v.kind)) + " view";
    if (auto f = v.filter_text(); !f.empty()) s += " of " + f;
    s += " · ";
    switch (v.kind) {
        case ViewKind::flat: s += grouped(static_cast<std::int64_t>(v.count_nodes(ViewNodeKind::op))) + " ops"; break;
        case ViewKind::groups: s += grouped(static_cast<std::int64_t>(v.count_nodes(ViewNodeKind::group))) + " kernel groups"; break;
        case ViewKind::collapsed: {
            auto templates = std::count_if(v.clusters.begin(), v.clusters.end(),
                                           [](const ViewCluster& c) { return c.kind == ClusterKind::layer_template; });
            s += std::to_string(templates) + " templates, " + grouped(static_cast<std::int64_t>(v.count_nodes(ViewNodeKind::op))) +
                 " template ops for " + grouped(static_cast<std::int64_t>(b.nodes.size())) + " ops in " +
                 std::to_string(b.layers.size()) + " layers";
            break;
        }
    }
    s += ", " + grouped(static_cast<std::int64_t>(v.edges.size())) + " edges";
    return s;
}

std::string swatch(const std::string& fill, const std::string& text, std::string_view border = "#888888") {
    return "<TD BGCOLOR=\"" + fill + "\" BORDER=\"1\" COLOR=\"" + std::string(border) + "\">" + text + "</TD>";
}

std::string legend(const View& v, const Palette& palette, const DotOptions& o) {
    auto row = [](const std::string& cells) {
        return "<TR><TD ALIGN=\"LEFT\"><TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"3\" CELLPADDING=\"2\"><TR>" + cells +
               "</TR></TABLE></TD></TR>";
    };
    std::string t = "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\">";
    if (!o.title.empty()) t += "<TR><TD ALIGN=\"LEFT\">" + font(18, "<B>" + html_escape(o.title) + "</B>") + "</TD></TR>";
    t += "<TR><TD ALIGN=\"LEFT\">" + font(11, html_escape(subtitle(v))) + "</TD></TR>";
    if (!o.legend) return t + "</TABLE>";

    // Fill colours, at most 8 to a row.
    const auto& entries = palette.legend();
    std::string cells = "<TD ALIGN=\"LEFT\">" + font(10, "<B>" + html_escape(color_by_meaning(palette.by())) + "</B>") + "</TD>";
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i && i % 8 == 0) {
            t += row(cells);
            cells = "<TD></TD>";
        }
        cells += swatch(entries[i].fill, font(9, html_escape(entries[i].key) + " (" + grouped(entries[i].ops) + ")"));
    }
    t += row(cells);

    // Edge formats that appear, in the format table's order; FixedPoint32 once, whatever its F.
    std::vector<schema::Format> formats;
    for (const auto& e : v.edges)
        if (std::none_of(formats.begin(), formats.end(),
                         [&](const schema::Format& f) { return schema::format_doc_name(f) == schema::format_doc_name(e.format); }))
            formats.push_back(e.format);
    std::stable_sort(formats.begin(), formats.end(),
                     [](const schema::Format& a, const schema::Format& b) { return format_bits(a) < format_bits(b); });
    cells = "<TD ALIGN=\"LEFT\">" + font(10, "<B>edges: format, bytes per token</B>") + "</TD>";
    for (const auto& f : formats) {
        auto c = format_color(f);
        std::string name = f.id == schema::FormatId::fx32 ? "fx32/f&lt;F&gt;" : html_escape(f.name());
        cells += "<TD>" + font(10, "<B>━━ " + name + "</B>", c.stroke) + "</TD>";
    }
    t += row(cells);
    std::string kinds = "solid: crosses kernels, wider = more bytes · " +
                        font(9, "dashed grey: fused, stays inside its kernel", fused_color);
    if (v.kind == ViewKind::collapsed) kinds += " · " + font(9, "purple: port edge to the next layer's template", port_color);
    if (v.count_nodes(ViewNodeKind::stub)) kinds += " · dashed box: outside the cut";
    t += row("<TD ALIGN=\"LEFT\">" + font(9, kinds) + "</TD>");
    // What an op's second line says (precision_signature): the notation is read nowhere else.
    t += row("<TD ALIGN=\"LEFT\">" +
             font(9, html_escape("op: its name, then weight × activation → output formats (nvfp4/g16 × fp8/token → bf16); "
                                 "an op without an output shows the state it writes (bf16 → kv cache fp8)")) +
             "</TD>");
    std::string marks;
    if (v.kind == ViewKind::groups)
        marks = font(9, "<B>red op: inserted quantization point</B>", quant_color) + " · " +
                font(9, "<B>blue op: owns state (cache, conv window, recurrent state)</B>", state_color) + " · " +
                font(9, "one box per kernel launch: g&lt;id&gt; fusion rule, kernels, member ops");
    else
        marks = font(9, "<B>red hexagon: inserted quantization point</B>", quant_color) + " · " +
                font(9, "<B>blue cylinder: owns state (cache, conv window, recurrent state)</B>", state_color) + " · " +
                font(9, v.kind == ViewKind::collapsed ? "dark box: ops fused into one kernel launch (g&lt;id&gt; fusion rule)"
                                                      : "dark box: ops fused into one kernel launch (g&lt;id&gt; fusion rule, kernels)");
    t += row("<TD ALIGN=\"LEFT\">" + marks + "</TD>");
    return t + "</TABLE>";
}

class GraphWriter {
public:
    GraphWriter(const View& v, const DotOptions& o)
        : v_(v), o_(o), palette_(o.color, ops_of(v)), g_(std::make_unique<CGraph>(graph_name(v))) {}

    std::unique_ptr<CGraph> build() {
        declare();
        make_clusters();
        make_nodes();
        make_edges();
        make_gaps();
        g_->set_html(g_->root(), s_.g_label, legend(v_, palette_, o_));
        return std::move(g_);
    }

private:
    const View& v_;
    const DotOptions& o_;
    Palette palette_;
    std::unique_ptr<CGraph> g_;
    Syms s_{};
    std::vector<Agraph_t*> clusters_;
    std::vector<Agnode_t*> nodes_;

    static std::string graph_name(const View& v) {
        return "kbp " + std::string(view_kind_name(v.kind)) + " view";
    }

    // The ops the view shows, in plan order, for the palette.
    static std::vector<const Node*> ops_of(const View& v) {
        std::vector<const Node*> ops;
        for (const auto& n : v.nodes) {
            if (n.kind == ViewNodeKind::op && n.op) ops.push_back(n.op);
            if (n.kind == ViewNodeKind::group && n.group)
                for (auto m : n.group->nodes)
                    if (m >= 0 && static_cast<std::size_t>(m) < v.plan->nodes.size())
                        ops.push_back(&v.plan->nodes[static_cast<std::size_t>(m)]);
        }
        return ops;
    }

    void declare() {
        CGraph& g = *g_;
        g.declare(AGRAPH, "rankdir", "TB");
        g.declare(AGRAPH, "fontname", "Helvetica");
        g.declare(AGRAPH, "nodesep", v_.kind == ViewKind::collapsed ? "0.12" : "0.18");
        g.declare(AGRAPH, "ranksep", v_.kind == ViewKind::collapsed ? "0.2" : "0.3");
        g.declare(AGRAPH, "labelloc", "t");
        g.declare(AGRAPH, "labeljust", "l");
        g.declare(AGRAPH, "outputorder", "edgesfirst");
        g.declare(AGRAPH, "pad", "0.2");
        g.declare(AGRAPH, "bgcolor", "white");
        if (v_.kind == ViewKind::collapsed) g.declare(AGRAPH, "compound", "true");  // port edges end at group boxes
        s_.g_label = g.declare(AGRAPH, "label", "");
        s_.g_style = g.declare(AGRAPH, "style", "");
        s_.g_color = g.declare(AGRAPH, "color", "");
        s_.g_fillcolor = g.declare(AGRAPH, "fillcolor", "");
        s_.g_penwidth = g.declare(AGRAPH, "penwidth", "");
        s_.g_fontsize = g.declare(AGRAPH, "fontsize", "");
        s_.g_tooltip = g.declare(AGRAPH, "tooltip", "");
        s_.g_margin = g.declare(AGRAPH, "margin", "");

        g.declare(AGNODE, "fontname", "Helvetica");
        g.declare(AGNODE, "margin", "0.06,0.03");
        g.declare(AGNODE, "height", "0.2");
        g.declare(AGNODE, "width", "0.3");
        s_.n_label = g.declare(AGNODE, "label", "\\N");
        s_.n_shape = g.declare(AGNODE, "shape", "box");
        s_.n_style = g.declare(AGNODE, "style", "rounded,filled");
        s_.n_fillcolor = g.declare(AGNODE, "fillcolor", "#ffffff");
        s_.n_color = g.declare(AGNODE, "color", "#555555");
        s_.n_penwidth = g.declare(AGNODE, "penwidth", "1");
        s_.n_tooltip = g.declare(AGNODE, "tooltip", "");
        s_.n_fontcolor = g.declare(AGNODE, "fontcolor", "black");
        s_.n_fontsize = g.declare(AGNODE, "fontsize", v_.kind == ViewKind::collapsed ? "9" : "10");

        g.declare(AGEDGE, "fontname", "Helvetica");
        g.declare(AGEDGE, "arrowsize", "0.6");
        // Edge labels are dot's own `label`s in every view: dot gives each one room in the layout.
        // (xlabels, placed after layout, cost no room but overprinted edges and each other in the
        // collapsed view; room for the seed's costs it a third more height and width: 1,471 x
        // 1,315 pt became 1,902 x 1,751.)
        s_.e_label = g.declare(AGEDGE, "label", "");
        s_.e_color = g.declare(AGEDGE, "color", "#555555");
        s_.e_style = g.declare(AGEDGE, "style", "solid");
        s_.e_penwidth = g.declare(AGEDGE, "penwidth", "1");
        s_.e_fontcolor = g.declare(AGEDGE, "fontcolor", "black");
        s_.e_tooltip = g.declare(AGEDGE, "tooltip", "");
        s_.e_constraint = g.declare(AGEDGE, "constraint", "true");
        s_.e_fontsize = g.declare(AGEDGE, "fontsize", "8");
        s_.e_arrowhead = g.declare(AGEDGE, "arrowhead", "normal");
        s_.e_lhead = g.declare(AGEDGE, "lhead", "");
    }

    // cgraph's writer tests every node and edge against every subgraph of the graph it is
    // writing: with a thousand layer clusters side by side, a 40,000-op plan took 5 s to write.
    // Past `max_top_clusters` top-level clusters they are therefore put in plain (non-cluster,
    // attribute-free) subgraphs "part 1", "part 2", ... of about sqrt(n) clusters each, which
    // dot ignores when it lays out and which bring writing back to well under a second.
    static constexpr std::size_t max_top_clusters = 64;

    // The graph each top-level cluster goes into, in view order: the root, or its part.
    std::vector<Agraph_t*> homes_of_top_clusters() {
        auto top = static_cast<std::size_t>(
            std::count_if(v_.clusters.begin(), v_.clusters.end(), [](const ViewCluster& c) { return c.parent < 0; }));
        std::vector<Agraph_t*> homes(top, g_->root());
        if (top <= max_top_clusters) return homes;
        auto per_part = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(top))));
        Agraph_t* part = nullptr;
        for (std::size_t i = 0; i < top; ++i) {
            if (i % per_part == 0) part = g_->subgraph(g_->root(), "part " + std::to_string(i / per_part + 1));
            homes[i] = part;
        }
        return homes;
    }

    void make_clusters() {
        CGraph& g = *g_;
        std::vector<Agraph_t*> homes = homes_of_top_clusters();
        std::size_t top_index = 0;
        for (const auto& c : v_.clusters) {
            Agraph_t* parent = c.parent < 0 ? homes[top_index++] : clusters_[static_cast<std::size_t>(c.parent)];
            Agraph_t* sg = g.subgraph(parent, c.name);
            clusters_.push_back(sg);
            g.set_html(sg, s_.g_label, cluster_label(c, v_));
            std::string style = "rounded,filled", color, fill, pen = "1", size = "10", tip;
            switch (c.kind) {
                case ClusterKind::layer: color = "#9e9e9e"; fill = "#f3f3f3"; pen = "1.2"; size = "12"; break;
                case ClusterKind::block: color = "#c2c2c2"; fill = "#fafafa"; break;
                case ClusterKind::group:
                    color = "#424242";
                    fill = "#ffffff";
                    pen = "1.4";
                    size = "9";
                    if (c.group) tip = group_tooltip(*c.group);
                    break;
                case ClusterKind::layer_template: color = "#6a3d9a"; fill = "#f5f2f8"; pen = "1.6"; size = "14"; break;
            }
            g.set(sg, s_.g_style, style);
            g.set(sg, s_.g_color, color);
            g.set(sg, s_.g_fillcolor, fill);
            g.set(sg, s_.g_penwidth, pen);
            g.set(sg, s_.g_fontsize, size);
            // Tight margins inside templates, so that the collapsed view stays on one screen.
            if (v_.kind == ViewKind::collapsed && c.kind != ClusterKind::layer_template) g.set(sg, s_.g_margin, "5");
            g.set(sg, s_.g_tooltip, tip.empty() ? label_escape(c.name.substr(8)) : tip);
        }
    }

    void make_nodes() {
        CGraph& g = *g_;
        const Blueprint& b = *v_.plan;
        for (const auto& vn : v_.nodes) {
            Agraph_t* home = vn.cluster < 0 ? g.root() : clusters_[static_cast<std::size_t>(vn.cluster)];
            Agnode_t* n = g.node(home, vn.name);
            nodes_.push_back(n);
            switch (vn.kind) {
                case ViewNodeKind::op: {
                    const Node& op = *vn.op;
                    g.set_html(n, s_.n_label, op_label(op, v_.kind == ViewKind::collapsed));
                    g.set(n, s_.n_fillcolor, palette_.fill(op));
                    g.set(n, s_.n_tooltip, op_tooltip(op, b));
                    if (owns_state(op)) {
                        g.set(n, s_.n_shape, "cylinder");
                        g.set(n, s_.n_style, "filled");
                        g.set(n, s_.n_color, std::string(state_color));
                        g.set(n, s_.n_penwidth, "2.2");
                    } else if (is_quant_point(op)) {
                        g.set(n, s_.n_shape, "hexagon");
                        g.set(n, s_.n_style, "filled");
                        g.set(n, s_.n_color, std::string(quant_color));
                        g.set(n, s_.n_penwidth, "2.2");
                    }
                    break;
                }
                case ViewNodeKind::group:
                    g.set_html(n, s_.n_label, group_table(*vn.group, b, palette_));
                    g.set(n, s_.n_shape, "plain");
                    g.set(n, s_.n_style, "solid");
                    g.set(n, s_.n_tooltip, group_tooltip(*vn.group));
                    break;
                case ViewNodeKind::stub: {
                    std::string what = vn.name;
                    if (v_.kind == ViewKind::groups && vn.group) {
                        what += " " + vn.group->rule;
                        if (vn.op && vn.op->layer) what += " (layer " + std::to_string(*vn.op->layer) + ")";
                    }
                    g.set(n, s_.n_label, label_escape((vn.incoming ? "from " : "to ") + what));
                    g.set(n, s_.n_style, "rounded,dashed");
                    g.set(n, s_.n_color, "#9e9e9e");
                    g.set(n, s_.n_fontcolor, "#616161");
                    g.set(n, s_.n_fontsize, "8");
                    g.set(n, s_.n_tooltip, label_escape("outside the cut: " + what));
                    break;
                }
            }
        }
    }

    // --layers with a gap (0-1,3): a note between the layers either side names the ones not shown,
    // held under the last op of the one and over the first of the other (and over the stubs of
    // the missing layers that feed it) by invisible edges: dot ranks only by edges, and with none
    // between layers 1 and 3 it drew layer 3 beside layer 0 as if they were neighbours.
    void make_gaps() {
        const auto& layers = v_.options.layers;
        if (!layers || v_.kind == ViewKind::collapsed) return;
        std::map<std::int64_t, std::pair<std::size_t, std::size_t>> span;  // layer -> first and last node
        for (std::size_t i = 0; i < v_.nodes.size(); ++i) {
            const auto& vn = v_.nodes[i];
            if (vn.kind == ViewNodeKind::stub || !vn.op || !vn.op->layer) continue;
            auto [it, fresh] = span.try_emplace(*vn.op->layer, i, i);
            if (!fresh) it->second.second = i;
        }
        CGraph& g = *g_;
        for (auto it = span.begin(); it != span.end() && std::next(it) != span.end(); ++it) {
            auto next = std::next(it);
            const std::int64_t a = it->first, b = next->first;
            if (b == a + 1) continue;
            std::string missing = b == a + 2 ? "layer " + std::to_string(a + 1) : "layers " + std::to_string(a + 1) + "-" + std::to_string(b - 1);
            Agnode_t* n = g.node(g.root(), "gap after layer " + std::to_string(a));
            g.set(n, s_.n_label, label_escape("⋮  " + missing + " not shown  ⋮"));
            g.set(n, s_.n_shape, "plaintext");
            g.set(n, s_.n_style, "solid");
            g.set(n, s_.n_fontcolor, "#757575");
            g.set(n, s_.n_fontsize, "11");
            g.set(n, s_.n_tooltip, label_escape(missing + " not shown (--layers " + schema::ranges_text(*layers) + ")"));
            auto invisible = [&](Agnode_t* from, Agnode_t* to) { g.set(g.edge(g.root(), from, to), s_.e_style, "invis"); };
            invisible(nodes_[it->second.second], n);
            invisible(n, nodes_[next->second.first]);
            for (std::size_t i = 0; i < v_.nodes.size(); ++i) {
                const auto& vn = v_.nodes[i];
                if (vn.kind == ViewNodeKind::stub && vn.incoming && vn.op && vn.op->layer && *vn.op->layer > a && *vn.op->layer < b)
                    invisible(n, nodes_[i]);
            }
        }
    }

    void make_edges() {
        CGraph& g = *g_;
        // The collapsed view labels a tensor read by several ops once, on its first edge (its
        // other edges carry the same colour, width and tooltip): fan-outs stay legible.
        std::set<std::tuple<int, std::string, std::string>> labelled;
        auto first_label = [&](const ViewEdge& e, const std::string& text) {
            if (v_.kind != ViewKind::collapsed) return true;
            return labelled.insert({e.from, e.edge ? e.edge->id : std::string(), text}).second;
        };
        for (const auto& e : v_.edges) {
            const auto& from = v_.nodes[static_cast<std::size_t>(e.from)];
            const auto& to = v_.nodes[static_cast<std::size_t>(e.to)];
            int home = v_.common_cluster(from.cluster, to.cluster);
            Agraph_t* sg = home < 0 ? g.root() : clusters_[static_cast<std::size_t>(home)];
            Agedge_t* edge = g.edge(sg, nodes_[static_cast<std::size_t>(e.from)], nodes_[static_cast<std::size_t>(e.to)]);
            g.set(edge, s_.e_tooltip, edge_tooltip(e, v_));
            if (e.role == EdgeRole::port) {
                std::string text = edge_text(e) + "\nnext layer ×" + std::to_string(e.transitions);
                if (e.in_ports.size() > 1) text += ", " + std::to_string(e.in_ports.size()) + " in ports";
                g.set(edge, s_.e_label, label_escape(text));
                g.set(edge, s_.e_color, std::string(port_color));
                g.set(edge, s_.e_fontcolor, std::string(port_color));
                g.set(edge, s_.e_penwidth, "1.8");
                g.set(edge, s_.e_constraint, "false");
                if (e.head_cluster >= 0) g.set(edge, s_.e_lhead, dot_name(v_.clusters[static_cast<std::size_t>(e.head_cluster)].name));
                continue;
            }
            if (e.fused) {
                g.set(edge, s_.e_style, "dashed");
                g.set(edge, s_.e_color, std::string(fused_color));
                g.set(edge, s_.e_fontcolor, std::string(fused_color));
                g.set(edge, s_.e_fontsize, "7");
                g.set(edge, s_.e_arrowhead, "vee");
                if (v_.kind != ViewKind::collapsed) g.set(edge, s_.e_label, label_escape(edge_text(e)));
                continue;
            }
            auto c = format_color(e.format);
            std::string text = edge_text(e);
            if (e.edge && schema::requantized(*e.edge))
                text += "\nrequant " + std::string(e.edge->requant->from.name()) + "→" + std::string(e.edge->requant->to.name());
            if (first_label(e, text)) g.set(edge, s_.e_label, label_escape(text));
            g.set(edge, s_.e_color, std::string(c.stroke));
            g.set(edge, s_.e_fontcolor, std::string(c.stroke));
            g.set(edge, s_.e_penwidth, fixed(edge_pen_width(e.bytes_per_token)));
        }
    }
};

}  // namespace

namespace detail {
std::unique_ptr<CGraph> make_graph(const View& view, const DotOptions& options) {
    return GraphWriter(view, options).build();
}
}  // namespace detail

Result<std::string> export_dot(const View& view, const DotOptions& options) {
    auto graph = detail::make_graph(view, options);
    return graph->write();
}

}  // namespace kbp::exporters
