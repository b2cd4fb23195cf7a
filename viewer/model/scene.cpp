#include "viewer/model/scene.hpp"

#include <algorithm>
#include <map>

#include "schema/stats.hpp"

namespace kbp::viewer {
namespace {

// The gutter right of two neighbouring rows: connectors a few points apart, at most this many.
constexpr float gutter_gap = 14, gutter_step = 6;
constexpr std::int32_t max_gutter_lanes = 8;

}  // namespace

Scene::Scene(const Document& doc, const std::vector<UnitGeometry>& units, const std::vector<char>& expanded)
    : doc_(&doc), units_(&units) {
    const auto& instances = doc.instances();
    row_of_instance_.assign(instances.size(), -1);
    std::vector<std::int32_t> folded_row(doc.units().size(), -1);
    for (std::size_t i = 0; i < instances.size(); ++i) {
        const Instance& inst = instances[i];
        const Unit& unit = doc.units()[static_cast<std::size_t>(inst.unit)];
        bool fold = unit.layered && !(i < expanded.size() && expanded[i]);
        if (fold && folded_row[static_cast<std::size_t>(inst.unit)] >= 0) {
            auto r = folded_row[static_cast<std::size_t>(inst.unit)];
            rows_[static_cast<std::size_t>(r)].instances.push_back(static_cast<std::int32_t>(i));
            row_of_instance_[i] = r;
            continue;
        }
        // A layer shown on its own ends its unit's folded run: the layers after it fold into a
        // row below it (expanding layer 3 of 0-31 gives "× 3", "layer 3", "× 28", in order).
        if (!fold) folded_row[static_cast<std::size_t>(inst.unit)] = -1;
        Row row;
        row.unit = inst.unit;
        row.folded = fold;
        row.instances = {static_cast<std::int32_t>(i)};
        row_of_instance_[i] = static_cast<std::int32_t>(rows_.size());
        if (fold) folded_row[static_cast<std::size_t>(inst.unit)] = static_cast<std::int32_t>(rows_.size());
        rows_.push_back(std::move(row));
    }

    // Titles, then places, top to bottom, each row centred on x = 0.
    const auto& layers = doc.plan().layers;
    auto kind_of = [&](std::int64_t layer) -> std::string {
        for (const auto& l : layers)
            if (l.index == layer) return std::string(l.kind.name());
        return "";
    };
    float y = 0;
    bounds_ = {0, 0, 0, 0};
    for (auto& row : rows_) {
        const Unit& unit = doc.units()[static_cast<std::size_t>(row.unit)];
        const Instance& first = instances[static_cast<std::size_t>(row.instances.front())];
        if (row.folded) {
            std::vector<std::int64_t> ls;
            for (auto i : row.instances) ls.push_back(*instances[static_cast<std::size_t>(i)].layer);
            row.title = unit.name;
            row.badge = "× " + std::to_string(row.instances.size());
            row.detail = (ls.size() == 1 ? "layer " : "layers ") + schema::ranges_text(ls) + " · " + kind_of(ls.front());
        } else if (first.layer) {
            row.title = "layer " + std::to_string(*first.layer) + " · " + unit.name;
            row.badge = "fold";
            row.detail = kind_of(*first.layer);
        } else {
            row.title = unit.name;
        }
        const auto& layout = units[static_cast<std::size_t>(row.unit)].layout;
        float w = layout.width + 2 * world::row_pad, h = world::row_header + layout.height + 2 * world::row_pad;
        row.box = {-w / 2, y, w / 2, y + h};
        row.origin = {-layout.width / 2, y + world::row_header + world::row_pad};
        bounds_.include(row.box);
        y += h + world::row_gap;
    }
    // Connectors, each pair of (row, op) ends once, in the order of the plan's edges; between rows
    // that are not neighbours one per producing op and row (it ends at the first in port), so the
    // lanes stay few.
    std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t, std::int32_t>, std::size_t> seen;
    std::map<std::pair<std::int32_t, std::int32_t>, std::int32_t> lanes_of_rows;
    const auto& edges = doc.plan().edges;
    for (auto e : doc.crossing_edges()) {
        const auto& edge = edges[static_cast<std::size_t>(e)];
        auto from = static_cast<std::size_t>(edge.from), to = static_cast<std::size_t>(edge.to);
        Connector c{row_of_instance_[static_cast<std::size_t>(doc.instance_of_node(from))], doc.local_of_node(from),
                    row_of_instance_[static_cast<std::size_t>(doc.instance_of_node(to))], doc.local_of_node(to), e, 1};
        bool lane = c.row_to != c.row_from + 1;
        auto [it, fresh] = seen.try_emplace({c.row_from, c.node_from, c.row_to, lane ? -1 : c.node_to}, connectors_.size());
        if (fresh) {
            if (!lane) c.lane = lanes_of_rows[{c.row_from, c.row_to}]++;
            connectors_.push_back(c);
        } else {
            ++connectors_[it->second].count;
        }
    }
    for (std::size_t k = 0; k < connectors_.size(); ++k) {
        bool neighbours = connectors_[k].row_to == connectors_[k].row_from + 1;
        if (!neighbours) connectors_[k].lane = static_cast<std::int32_t>(lanes_.size());
        (neighbours ? neighbours_by_row_ : lanes_).push_back(k);
    }
    std::stable_sort(neighbours_by_row_.begin(), neighbours_by_row_.end(),
                     [&](std::size_t a, std::size_t b) { return connectors_[a].row_from < connectors_[b].row_from; });
    // The gutters right of neighbouring rows, then the lanes right of everything.
    float gutters = bounds_.x1;
    for (const auto& [rows, count] : lanes_of_rows)
        gutters = std::max(gutters, std::max(rows_[static_cast<std::size_t>(rows.first)].box.x1, rows_[static_cast<std::size_t>(rows.second)].box.x1) +
                                        gutter_gap + gutter_step * static_cast<float>(std::min(count, max_gutter_lanes) - 1));
    right_lane_ = gutters + 24;
    bounds_.x1 = lanes_.empty() ? gutters + 8 : right_lane_ + 8.0f * static_cast<float>(std::min<std::size_t>(lanes_.size(), 12)) + 8;
}

std::vector<std::size_t> Scene::connectors_near(std::size_t first, std::size_t last) const {
    auto from = static_cast<std::int32_t>(first == 0 ? 0 : first - 1);
    auto it = std::lower_bound(neighbours_by_row_.begin(), neighbours_by_row_.end(), from,
                               [&](std::size_t k, std::int32_t row) { return connectors_[k].row_from < row; });
    std::vector<std::size_t> out;
    for (; it != neighbours_by_row_.end() && connectors_[*it].row_from < static_cast<std::int32_t>(last); ++it) out.push_back(*it);
    out.insert(out.end(), lanes_.begin(), lanes_.end());
    return out;
}

Place Scene::place_of_node(std::size_t node) const {
    auto inst = doc_->instance_of_node(node);
    if (inst < 0) return {};
    return {row_of_instance_[static_cast<std::size_t>(inst)], doc_->local_of_node(node)};
}

Box Scene::node_box(const Place& p) const {
    const Row& row = rows_[static_cast<std::size_t>(p.row)];
    const auto& r = unit(row).layout.nodes[static_cast<std::size_t>(p.local)];
    return Box{r.x0, r.y0, r.x1, r.y1}.moved(row.origin.x, row.origin.y);
}

Box Scene::cluster_box(std::int32_t row_index, std::size_t cluster) const {
    const Row& row = rows_[static_cast<std::size_t>(row_index)];
    const auto& r = unit(row).layout.clusters[cluster];
    return Box{r.x0, r.y0, r.x1, r.y1}.moved(row.origin.x, row.origin.y);
}

std::int32_t Scene::flat_node(std::int32_t row, std::int32_t local) const {
    const Row& r = rows_[static_cast<std::size_t>(row)];
    return doc_->instances()[static_cast<std::size_t>(r.instances.front())].nodes[static_cast<std::size_t>(local)];
}

std::pair<std::size_t, std::size_t> Scene::rows_between(float y0, float y1) const {
    auto first = std::lower_bound(rows_.begin(), rows_.end(), y0, [](const Row& r, float v) { return r.box.y1 < v; });
    auto last = std::upper_bound(first, rows_.end(), y1, [](float v, const Row& r) { return v < r.box.y0; });
    return {static_cast<std::size_t>(first - rows_.begin()), static_cast<std::size_t>(last - rows_.begin())};
}

float Scene::free_y_below(const Row& row, float y) const {
    const auto& nodes = unit(row).layout.nodes;
    const float oy = row.origin.y;
    float top = y;
    for (bool grew = true; grew;) {  // past every op that reaches over the band's top
        grew = false;
        for (const auto& n : nodes)
            if (n.y0 + oy <= top + 0.01f && n.y1 + oy > top) top = n.y1 + oy, grew = true;
    }
    float next = row.box.y1;
    for (const auto& n : nodes)
        if (n.y0 + oy > top) next = std::min(next, n.y0 + oy);
    return (top + next) / 2;
}

float Scene::free_y_above(const Row& row, float y) const {
    const auto& nodes = unit(row).layout.nodes;
    const float oy = row.origin.y;
    float bottom = y;
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& n : nodes)
            if (n.y1 + oy >= bottom - 0.01f && n.y0 + oy < bottom) bottom = n.y0 + oy, grew = true;
    }
    float previous = row.box.y0 + world::row_header;
    for (const auto& n : nodes)
        if (n.y1 + oy < bottom) previous = std::max(previous, n.y1 + oy);
    return (previous + bottom) / 2;
}

std::vector<Vec2> Scene::connector_path(const Connector& c, std::size_t) const {
    const Row& from = rows_[static_cast<std::size_t>(c.row_from)];
    const Row& to = rows_[static_cast<std::size_t>(c.row_to)];
    Box a = node_box({c.row_from, c.node_from}), b = node_box({c.row_to, c.node_to});
    float gutter = 0;
    if (c.row_to == c.row_from + 1) {
        gutter = std::max(from.box.x1, to.box.x1) + gutter_gap + gutter_step * static_cast<float>(c.lane % max_gutter_lanes);
    } else {
        // Rows that are not neighbours (a folded unit feeding itself or a row above): along a
        // lane right of every row.
        gutter = right_lane_ + 8.0f * static_cast<float>(c.lane % 12);
    }
    const float ax = (a.x0 + a.x1) / 2, bx = (b.x0 + b.x1) / 2;
    const float out = free_y_below(from, a.y1), in = free_y_above(to, b.y0);
    return {{ax, a.y1}, {ax, out}, {gutter, out}, {gutter, in}, {bx, in}, {bx, b.y0}};
}

}  // namespace kbp::viewer
