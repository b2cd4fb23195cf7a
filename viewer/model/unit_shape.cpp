#include "viewer/model/unit_shape.hpp"

#include <algorithm>
#include <map>

#include "exporters/palette.hpp"
#include "exporters/text.hpp"

namespace kbp::viewer {

std::vector<std::string> node_lines(const schema::Node& n, const std::string& local) {
    std::vector<std::string> lines{local, exporters::precision_signature(n)};
    if (exporters::owns_state(n)) lines.push_back(schema::state_roles_name(*n.state));
    return lines;
}

UnitShape unit_shape(const Document& doc, std::size_t unit_index, const TextMetrics& metrics) {
    const Unit& unit = doc.units()[unit_index];
    const Instance& first = doc.instances()[static_cast<std::size_t>(unit.instances.front())];
    const auto& plan = doc.plan();
    UnitShape s;
    s.graph.nodes.resize(unit.nodes.size());
    s.lines.resize(unit.nodes.size());

    // Blocks in order of first use; a group of two or more ops gets a box inside its block (or
    // beside the blocks when it spans two).
    std::map<std::string, int> blocks;
    std::map<std::int64_t, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < unit.nodes.size(); ++i) groups[unit.nodes[i].group].push_back(i);
    std::map<std::int64_t, int> group_cluster;
    auto block_cluster = [&](const std::string& block) {
        auto [it, fresh] = blocks.try_emplace(block, static_cast<int>(s.clusters.size()));
        if (fresh) {
            s.graph.clusters.push_back({-1, world::block_title * 1.4f});
            s.clusters.push_back({false, block, 0, -1});
        }
        return it->second;
    };
    for (std::size_t i = 0; i < unit.nodes.size(); ++i) {
        const UnitNode& un = unit.nodes[i];
        const schema::Node& n = plan.nodes[static_cast<std::size_t>(first.nodes[i])];
        int cluster = block_cluster(un.block);
        const auto& members = groups[un.group];
        if (members.size() >= 2) {
            auto [it, fresh] = group_cluster.try_emplace(un.group, -1);
            if (fresh) {
                bool one_block = std::all_of(members.begin(), members.end(),
                                             [&](std::size_t m) { return unit.nodes[m].block == un.block; });
                std::string rule = n.group >= 0 && static_cast<std::size_t>(n.group) < plan.groups.size()
                                       ? plan.groups[static_cast<std::size_t>(n.group)].rule
                                       : "";
                it->second = static_cast<int>(s.clusters.size());
                s.graph.clusters.push_back({one_block ? cluster : -1, world::group_title * 1.4f});
                s.clusters.push_back({true, rule, un.group, static_cast<std::int32_t>(i)});
            }
            cluster = it->second;
        }
        s.lines[i] = node_lines(n, un.local);
        float w = 0;
        for (std::size_t l = 0; l < s.lines[i].size(); ++l)
            w = std::max(w, metrics.width(s.lines[i][l], world::node_font) + (l == 0 ? 3 * world::glyph_cell + world::glyph_gap : 0));
        auto& gn = s.graph.nodes[i];
        gn.width = std::max(60.0f, w + 2 * world::node_pad_x);
        gn.height = static_cast<float>(s.lines[i].size()) * world::node_font * metrics.line_height + 2 * world::node_pad_y;
        gn.cluster = cluster;
    }
    for (const auto& [group, members] : groups) {
        const auto flat = plan.nodes[static_cast<std::size_t>(first.nodes[members.front()])].group;
        if (flat < 0 || static_cast<std::size_t>(flat) >= plan.groups.size()) continue;
        s.clusters[static_cast<std::size_t>(blocks.at(unit.nodes[members.front()].block))].launches +=
            schema::launches_of(plan.groups[static_cast<std::size_t>(flat)]);
    }
    for (const auto& e : unit.edges) s.graph.edges.push_back({e.from, e.to});
    return s;
}

exporters::GraphLayout quick_layout(const exporters::LayoutGraph& g) {
    exporters::GraphLayout out;
    out.engine = "quick";
    const std::size_t n = g.nodes.size();
    std::vector<int> rank(n, 0);
    // Edges run forward in plan order, so one pass in order gives the longest path.
    std::vector<std::vector<int>> preds(n);
    for (const auto& e : g.edges)
        if (e.from >= 0 && e.to >= 0 && static_cast<std::size_t>(e.to) < n && e.from < e.to) preds[static_cast<std::size_t>(e.to)].push_back(e.from);
    int ranks = 0;
    for (std::size_t i = 0; i < n; ++i) {
        for (int p : preds[i]) rank[i] = std::max(rank[i], rank[static_cast<std::size_t>(p)] + 1);
        ranks = std::max(ranks, rank[i] + 1);
    }
    std::vector<float> rank_width(static_cast<std::size_t>(ranks), 0), rank_height(static_cast<std::size_t>(ranks), 0);
    for (std::size_t i = 0; i < n; ++i) {
        auto r = static_cast<std::size_t>(rank[i]);
        rank_width[r] += g.nodes[i].width + g.node_gap;
        rank_height[r] = std::max(rank_height[r], g.nodes[i].height);
    }
    float width = 0;
    for (float w : rank_width) width = std::max(width, w);
    std::vector<float> y(static_cast<std::size_t>(ranks), 0), x(static_cast<std::size_t>(ranks), 0);
    float at = 50;  // room for two cluster titles above the first rank
    for (std::size_t r = 0; r < static_cast<std::size_t>(ranks); ++r) {
        y[r] = at;
        at += rank_height[r] + g.rank_gap;
        x[r] = (width - rank_width[r]) / 2;
    }
    out.nodes.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        auto r = static_cast<std::size_t>(rank[i]);
        out.nodes[i] = {x[r], y[r], x[r] + g.nodes[i].width, y[r] + g.nodes[i].height};
        x[r] += g.nodes[i].width + g.node_gap;
    }
    // Clusters: the box around their members (children first, so a parent holds them).
    out.clusters.assign(g.clusters.size(), {1e30f, 1e30f, -1e30f, -1e30f});
    auto grow = [&](std::size_t c, const exporters::LayoutRect& r, float pad) {
        auto& b = out.clusters[c];
        b = {std::min(b.x0, r.x0 - pad), std::min(b.y0, r.y0 - pad), std::max(b.x1, r.x1 + pad), std::max(b.y1, r.y1 + pad)};
    };
    for (std::size_t i = 0; i < n; ++i)
        if (g.nodes[i].cluster >= 0) grow(static_cast<std::size_t>(g.nodes[i].cluster), out.nodes[i], 6);
    for (std::size_t c = g.clusters.size(); c-- > 0;) {
        if (out.clusters[c].x0 > out.clusters[c].x1) out.clusters[c] = {0, 0, 0, 0};
        out.clusters[c].y0 -= g.clusters[c].title_height;
        if (g.clusters[c].parent >= 0) grow(static_cast<std::size_t>(g.clusters[c].parent), out.clusters[c], 6);
    }
    float x1 = width, y1 = at;
    for (const auto& c : out.clusters) x1 = std::max(x1, c.x1), y1 = std::max(y1, c.y1);
    out.width = x1;
    out.height = y1;
    for (const auto& e : g.edges) {
        std::vector<exporters::LayoutPoint> line;
        if (e.from >= 0 && e.to >= 0 && static_cast<std::size_t>(e.from) < n && static_cast<std::size_t>(e.to) < n) {
            const auto& a = out.nodes[static_cast<std::size_t>(e.from)];
            const auto& b = out.nodes[static_cast<std::size_t>(e.to)];
            line = {{(a.x0 + a.x1) / 2, a.y1}, {(b.x0 + b.x1) / 2, b.y0}};
        }
        out.edges.push_back(std::move(line));
        out.edge_arrow.push_back(true);
    }
    return out;
}

}  // namespace kbp::viewer
