#include "viewer/model/overview.hpp"

#include <algorithm>
#include <map>

#include "exporters/text.hpp"
#include "schema/bytes.hpp"
#include "schema/stats.hpp"
#include "viewer/model/colouring.hpp"

namespace kbp::viewer {

Heatmap build_heatmap(const Document& doc) {
    Heatmap h;
    const auto& b = doc.plan();
    std::map<std::string, std::size_t> column_of;  // lookup only; columns keep first-use order
    std::vector<std::vector<std::pair<std::size_t, std::int32_t>>> rows;
    for (const auto& inst : doc.instances()) {
        if (!inst.layer) continue;
        h.layers.push_back(*inst.layer);
        rows.emplace_back();
        const Unit& unit = doc.units()[static_cast<std::size_t>(inst.unit)];
        for (std::size_t i = 0; i < inst.nodes.size(); ++i) {
            std::string key = unit.nodes[i].block + "." + unit.nodes[i].local;
            auto [it, fresh] = column_of.try_emplace(key, h.columns.size());
            if (fresh) h.columns.push_back(key);
            rows.back().push_back({it->second, inst.nodes[i]});
        }
    }
    const std::size_t width = h.columns.size();
    h.cells.assign(rows.size() * width, -1);
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (const auto& [c, n] : rows[r]) h.cells[r * width + c] = n;
    Colouring precision(doc, ColorMode::precision);
    h.colours.assign(h.cells.size(), 0);
    for (std::size_t i = 0; i < h.cells.size(); ++i)
        if (h.cells[i] >= 0) h.colours[i] = precision.fill(static_cast<std::size_t>(h.cells[i]));
    // Per column, the most common formats; a cell with others differs.
    h.differs.assign(h.cells.size(), 0);
    h.row_differs.assign(rows.size(), 0);
    for (std::size_t c = 0; c < width; ++c) {
        std::map<std::string, std::size_t> counts;
        for (std::size_t r = 0; r < rows.size(); ++r)
            if (auto n = h.cells[r * width + c]; n >= 0) ++counts[exporters::precision_signature(b.nodes[static_cast<std::size_t>(n)])];
        std::string common;
        std::size_t best = 0;
        for (const auto& [sig, count] : counts)
            if (count > best) best = count, common = sig;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            auto n = h.cells[r * width + c];
            if (n >= 0 && exporters::precision_signature(b.nodes[static_cast<std::size_t>(n)]) != common) {
                h.differs[r * width + c] = 1;
                h.row_differs[r] = 1;
            }
        }
    }
    return h;
}

namespace {

std::string layer_key(const schema::Node& n) { return n.layer ? "layer " + std::to_string(*n.layer) : n.block.str(); }

BudgetRow& row_for(std::vector<BudgetRow>& rows, std::map<std::string, std::size_t>& index, const std::string& key) {
    auto [it, fresh] = index.try_emplace(key, rows.size());
    if (fresh) rows.push_back({key});
    return rows[it->second];
}

}  // namespace

Budget build_budget(const Document& doc) {
    Budget out;
    const auto& b = doc.plan();
    auto stats = schema::compute_stats(b);
    out.nodes = stats.nodes;
    out.edges = stats.edges;
    out.groups = stats.groups;
    out.launches = stats.launches;
    out.host_steps = stats.host_groups;
    out.quant_points = stats.quant_points;
    out.requant_edges = stats.requant_edges;
    const double rows = static_cast<double>(b.arm.rows);

    std::map<std::string, std::size_t> format_index, layer_index;
    for (const auto& n : b.nodes) row_for(out.by_layer, layer_index, layer_key(n));  // in plan order
    // Activations: every tensor that crosses between kernels, written once and read by each
    // reader, as the roofline counts them; by the edge's format and its producer's layer.
    std::vector<std::vector<std::string>> written(b.nodes.size());
    for (const auto& e : b.edges) {
        if (e.fused || !e.bytes_per_token) continue;
        double bytes = static_cast<double>(*e.bytes_per_token) * rows;
        auto& w = written[static_cast<std::size_t>(e.from)];
        bool first = std::find(w.begin(), w.end(), e.id) == w.end();
        if (first) w.push_back(e.id);
        double moved = bytes * (first ? 2 : 1);
        row_for(out.by_format, format_index, std::string(e.format.name())).activation += moved;
        row_for(out.by_layer, layer_index, layer_key(b.nodes[static_cast<std::size_t>(e.from)])).activation += moved;
        out.total.activation += moved;
    }
    // Weights: the matrix bytes of each weighted op by its weight format (K from its input, N from
    // its output), scaled to what the roofline reads per step when the target is known.
    std::vector<double> stored(b.nodes.size(), 0);
    std::vector<double> group_stored(b.groups.size(), 0);
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        const auto& n = b.nodes[i];
        if (!n.precision.weight || doc.in_edges(i).empty() || doc.out_edges(i).empty()) continue;
        std::int64_t k = 0;
        for (auto e : doc.in_edges(i))
            if (b.edges[static_cast<std::size_t>(e)].format.id != schema::FormatId::i32) {
                k = b.edges[static_cast<std::size_t>(e)].dim_value;
                break;
            }
        std::int64_t nn = b.edges[static_cast<std::size_t>(doc.out_edges(i).front())].dim_value;
        stored[i] = static_cast<double>(schema::weight_bytes(*n.precision.weight, nn, k).value_or(0));
        if (n.group >= 0 && static_cast<std::size_t>(n.group) < b.groups.size()) group_stored[static_cast<std::size_t>(n.group)] += stored[i];
    }
    const auto& cost = doc.cost();
    out.from_cost = cost.has_value();
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        if (stored[i] <= 0) continue;
        const auto& n = b.nodes[i];
        double w = stored[i];
        if (cost && n.group >= 0 && static_cast<std::size_t>(n.group) < cost->groups.size() && group_stored[static_cast<std::size_t>(n.group)] > 0)
            w = cost->groups[static_cast<std::size_t>(n.group)].weight_bytes * stored[i] / group_stored[static_cast<std::size_t>(n.group)];
        row_for(out.by_format, format_index, std::string(n.precision.weight->name())).weight += w;
        row_for(out.by_layer, layer_index, layer_key(n)).weight += w;
        out.total.weight += w;
    }
    if (cost) {
        for (std::size_t g = 0; g < b.groups.size() && g < cost->groups.size(); ++g) {
            double s = cost->groups[g].state_bytes;
            if (s <= 0 || b.groups[g].nodes.empty()) continue;
            row_for(out.by_layer, layer_index, layer_key(b.nodes[static_cast<std::size_t>(b.groups[g].nodes.front())])).state += s;
            out.total.state += s;
        }
        out.step_us = cost->total.time_us;
        out.tokens_per_s = cost->tokens_per_s;
        out.target = cost->target;
        out.time_by_family = cost->time_by_family;
        out.note = "weights and state as the roofline reads them per step on " + cost->target + " (context " +
                   std::to_string(cost->context) + " tokens)";
    } else {
        out.note = "weights as stored (every expert); no state or cost: " +
                   (doc.cost_error().empty() ? std::string("the plan names no target") : doc.cost_error());
    }
    std::stable_sort(out.by_format.begin(), out.by_format.end(),
                     [](const BudgetRow& x, const BudgetRow& y) { return x.weight + x.activation > y.weight + y.activation; });
    return out;
}

}  // namespace kbp::viewer
