// Laying out a LayoutGraph with dot: each node a fixed-size box with no label (the caller sized
// it for its own text), each cluster a subgraph whose label is one space at a font size that keeps
// `title_height` free at its top, each edge a spline. After gvLayout the positions are read from
// the graph (dot's coordinates have y growing upwards; they are flipped) and the splines' cubic
// Béziers are flattened to polylines, so the caller draws straight segments only.
#include "exporters/dot_layout.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "exporters/cgraph_build.hpp"

namespace kbp::exporters {
namespace {

constexpr int bezier_steps = 8;  // segments per cubic: smooth at the viewer's largest zoom

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

LayoutPoint flip(pointf p, double top) { return {static_cast<float>(p.x), static_cast<float>(top - p.y)}; }

std::vector<LayoutPoint> flatten(const splines* spl, double top, bool& arrow) {
    std::vector<LayoutPoint> out;
    arrow = false;
    if (!spl) return out;
    for (int b = 0; b < spl->size; ++b) {
        const bezier& bz = spl->list[b];
        if (bz.sflag && b == 0) out.push_back(flip(bz.sp, top));
        for (int i = 0; i + 3 < bz.size; i += 3) {
            const pointf *p = bz.list + i;
            if (out.empty()) out.push_back(flip(p[0], top));
            for (int s = 1; s <= bezier_steps; ++s) {
                double t = static_cast<double>(s) / bezier_steps, u = 1 - t;
                pointf q;
                q.x = u * u * u * p[0].x + 3 * u * u * t * p[1].x + 3 * u * t * t * p[2].x + t * t * t * p[3].x;
                q.y = u * u * u * p[0].y + 3 * u * u * t * p[1].y + 3 * u * t * t * p[2].y + t * t * t * p[3].y;
                out.push_back(flip(q, top));
            }
        }
        if (bz.eflag && b == spl->size - 1) {
            out.push_back(flip(bz.ep, top));
            arrow = true;
        }
    }
    return out;
}

}  // namespace

Result<GraphLayout> dot_layout(const LayoutGraph& graph) {
    detail::ErrorCapture errors;
    GVC_t* gvc = detail::graphviz_context();
    if (!gvc) return make_error(ErrorCode::unsupported, "", "Graphviz: cannot create a context");
    detail::CGraph g("unit");
    g.declare(AGRAPH, "rankdir", "TB");
    g.declare(AGRAPH, "nodesep", number(graph.node_gap / 72.0).c_str());
    g.declare(AGRAPH, "ranksep", number(graph.rank_gap / 72.0).c_str());
    g.declare(AGRAPH, "pad", "0");
    Agsym_t* c_label = g.declare(AGRAPH, "label", "");
    Agsym_t* c_fontsize = g.declare(AGRAPH, "fontsize", "14");
    Agsym_t* c_margin = g.declare(AGRAPH, "margin", "8");
    g.declare(AGNODE, "shape", "box");
    g.declare(AGNODE, "fixedsize", "true");
    g.declare(AGNODE, "label", "");
    Agsym_t* n_width = g.declare(AGNODE, "width", "0.5");
    Agsym_t* n_height = g.declare(AGNODE, "height", "0.5");
    g.declare(AGEDGE, "arrowsize", "0.6");

    std::vector<Agraph_t*> clusters;
    for (std::size_t c = 0; c < graph.clusters.size(); ++c) {
        const auto& spec = graph.clusters[c];
        Agraph_t* parent = spec.parent < 0 ? g.root() : clusters[static_cast<std::size_t>(spec.parent)];
        Agraph_t* sg = g.subgraph(parent, "cluster_" + std::to_string(c));
        if (spec.title_height > 0) {
            g.set(sg, c_label, " ");
            g.set(sg, c_fontsize, number(spec.title_height / 1.2));
        }
        g.set(sg, c_margin, "6");
        clusters.push_back(sg);
    }
    std::vector<Agnode_t*> nodes;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const auto& spec = graph.nodes[i];
        Agraph_t* home = spec.cluster < 0 ? g.root() : clusters[static_cast<std::size_t>(spec.cluster)];
        Agnode_t* n = g.node(home, "n" + std::to_string(i));
        g.set(n, n_width, number(spec.width / 72.0));
        g.set(n, n_height, number(spec.height / 72.0));
        nodes.push_back(n);
    }
    std::vector<Agedge_t*> edges;
    for (const auto& e : graph.edges) {
        if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= nodes.size() || static_cast<std::size_t>(e.to) >= nodes.size()) {
            edges.push_back(nullptr);
            continue;
        }
        edges.push_back(g.edge(g.root(), nodes[static_cast<std::size_t>(e.from)], nodes[static_cast<std::size_t>(e.to)]));
    }

    if (gvLayout(gvc, g.root(), "dot") != 0) {
        std::string why = errors.text();
        return make_error(ErrorCode::unsupported, "", "Graphviz could not lay out the graph" + (why.empty() ? "" : ": " + why));
    }
    GraphLayout out;
    out.engine = "dot";
    boxf bb = GD_bb(g.root());
    double top = bb.UR.y, left = bb.LL.x;
    out.width = static_cast<float>(bb.UR.x - bb.LL.x);
    out.height = static_cast<float>(bb.UR.y - bb.LL.y);
    auto shift = [&](LayoutPoint p) { return LayoutPoint{p.x - static_cast<float>(left), p.y}; };
    for (auto* n : nodes) {
        pointf c = ND_coord(n);
        double w = ND_width(n) * 72.0, h = ND_height(n) * 72.0;
        LayoutPoint p = shift(flip(c, top));
        out.nodes.push_back({p.x - static_cast<float>(w / 2), p.y - static_cast<float>(h / 2), p.x + static_cast<float>(w / 2),
                             p.y + static_cast<float>(h / 2)});
    }
    for (auto* sg : clusters) {
        boxf cb = GD_bb(sg);
        LayoutPoint a = shift(flip(cb.LL, top)), b = shift(flip(cb.UR, top));
        out.clusters.push_back({a.x, b.y, b.x, a.y});
    }
    for (auto* e : edges) {
        bool arrow = false;
        std::vector<LayoutPoint> line;
        if (e) line = flatten(ED_spl(e), top, arrow);
        for (auto& p : line) p = shift(p);
        out.edges.push_back(std::move(line));
        out.edge_arrow.push_back(arrow);
    }
    gvFreeLayout(gvc, g.root());
    return out;
}

}  // namespace kbp::exporters
