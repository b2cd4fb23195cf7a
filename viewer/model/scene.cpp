#include "viewer/model/scene.hpp"

#include <algorithm>
#include <map>

#include "schema/stats.hpp"

namespace kbp::viewer {
namespace {

// The gutter right of two neighbouring rows: connectors a few points apart, at most this many.
constexpr float gutter_gap = 14, gutter_step = 6;
constexpr std::int32_t max_gutter_lanes = 8;
// The lanes right of a column (connectors between rows that are not neighbours, or that stand in
// two columns), and the runs above the cards that join two columns' lanes.
constexpr float lanes_from_gutter = 24, lane_step = 8, top_gap = 12, top_step = 6;
constexpr std::int32_t max_lanes = 12;
// What the flow counts right of each column before it knows the connectors: the most they take.
constexpr float most_lanes_width = gutter_gap + gutter_step * (max_gutter_lanes - 1) + lanes_from_gutter + lane_step * max_lanes + 8;
constexpr float most_top_height = top_gap + top_step * max_lanes;
constexpr float fit_margin = 24;          // Camera::fit's, each side
constexpr float column_gap_no_titles = 40;  // between columns when no title stands left of a card
constexpr std::size_t most_columns = 64;

// Rows into columns no taller than `limit` (world), in order: each row's column.
std::vector<std::int32_t> pack(const std::vector<Box>& sizes, double limit) {
    std::vector<std::int32_t> column(sizes.size(), 0);
    double height = -1;
    std::int32_t c = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        double h = sizes[i].height();
        if (height >= 0 && height + world::row_gap + h > limit) {
            ++c;
            height = -1;
        }
        height = height < 0 ? h : height + world::row_gap + h;
        column[i] = c;
    }
    return column;
}

// The zoom at which `flow`'s pane shows rows packed as `column`: columns as wide as their widest
// card with the most lanes right of each and the titles' room (pixels) left of each.
double zoom_of(const std::vector<Box>& sizes, const std::vector<std::int32_t>& column, const Flow& flow, double title_px) {
    const std::size_t k = static_cast<std::size_t>(column.back()) + 1;
    std::vector<double> w(k, 0), h(k, -world::row_gap);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        auto c = static_cast<std::size_t>(column[i]);
        w[c] = std::max(w[c], static_cast<double>(sizes[i].width()));
        h[c] += world::row_gap + sizes[i].height();
    }
    double width = 0, height = 0;
    for (std::size_t c = 0; c < k; ++c) width += w[c] + most_lanes_width, height = std::max(height, h[c]);
    if (k > 1) height += most_top_height;
    const double title = std::min<double>(title_px, flow.width / 3.0);
    const double pane_w = flow.width - 2 * fit_margin - title, pane_h = flow.height - 2 * fit_margin;
    // Left of columns after the first: a title's pixels or a fixed gap of world points.
    const double titles_px = static_cast<double>(k - 1) * title;
    if (title <= 0) width += static_cast<double>(k - 1) * column_gap_no_titles;
    const double zw = (pane_w - titles_px) / width;
    return zw <= 0 ? 0 : std::min(zw, pane_h / height);
}

// Each row's column: of the packings into 1, 2, ... columns no taller than needed, the one the
// fit shows largest.
std::pair<std::vector<std::int32_t>, double> flow_columns(const std::vector<Box>& sizes, const Flow& flow, double title_px) {
    std::vector<std::int32_t> best(sizes.size(), 0);
    if (sizes.empty() || flow.width <= 0 || flow.height <= 0) return {best, 0};
    double best_zoom = zoom_of(sizes, best, flow, title_px);
    double total = 0;
    for (const auto& b : sizes) total += world::row_gap + b.height();
    for (std::size_t k = 2; k <= std::min(sizes.size(), most_columns); ++k) {
        // The lowest column height that packs into k columns (bisection: packing is monotone).
        double lo = 0, hi = total;
        for (int it = 0; it < 40 && hi - lo > 0.5; ++it) {
            double mid = (lo + hi) / 2;
            (pack(sizes, mid).back() < static_cast<std::int32_t>(k) ? hi : lo) = mid;
        }
        auto column = pack(sizes, hi);
        const bool fewer = static_cast<std::size_t>(column.back()) + 1 < k;  // as many columns as rows can stand
        double z = zoom_of(sizes, column, flow, title_px);
        if (z > best_zoom * 1.0001) best_zoom = z, best = std::move(column);
        if (fewer) break;
    }
    return {best, best_zoom};
}

}  // namespace

Scene::Scene(const Document& doc, const std::vector<UnitGeometry>& units, const std::vector<char>& expanded, const Flow& flow)
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

    // Titles and sizes, then the columns.
    const auto& layers = doc.plan().layers;
    auto kind_of = [&](std::int64_t layer) -> std::string {
        for (const auto& l : layers)
            if (l.index == layer) return std::string(l.kind.name());
        return "";
    };
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
    }
    place(flow);
}

void Scene::place(const Flow& flow) {
    const Document& doc = *doc_;
    const auto& units = *units_;
    columns_.clear();
    connectors_.clear();
    neighbours_by_row_.clear();
    lanes_.clear();
    title_room_ = 0;
    std::vector<Box> sizes;
    for (const auto& row : rows_) {
        if (flow.metrics) {
            float w = flow.metrics->width(row.title, flow.font) + 18;
            if (!row.badge.empty()) w += flow.metrics->width(row.badge, flow.font * 0.9f) + 22;
            title_room_ = std::max(title_room_, w);
        }
        const auto& layout = units[static_cast<std::size_t>(row.unit)].layout;
        sizes.push_back({0, 0, layout.width + 2 * world::row_pad, world::row_header + layout.height + 2 * world::row_pad});
    }
    auto [column_of, zoom] = flow_columns(sizes, flow, title_room_);
    for (std::size_t r = 0; r < rows_.size(); ++r) rows_[r].column = column_of[r];
    auto same_column = [&](std::int32_t a, std::int32_t b) { return rows_[static_cast<std::size_t>(a)].column == rows_[static_cast<std::size_t>(b)].column; };

    // Connectors, each pair of (row, op) ends once, in the order of the plan's edges; between rows
    // that are not neighbours in one column one per producing op and row (it ends at the first in
    // port), so the lanes stay few.
    std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t, std::int32_t>, std::size_t> seen;
    std::map<std::pair<std::int32_t, std::int32_t>, std::int32_t> lanes_of_rows;
    const auto& edges = doc.plan().edges;
    for (auto e : doc.crossing_edges()) {
        const auto& edge = edges[static_cast<std::size_t>(e)];
        auto from = static_cast<std::size_t>(edge.from), to = static_cast<std::size_t>(edge.to);
        Connector c{row_of_instance_[static_cast<std::size_t>(doc.instance_of_node(from))], doc.local_of_node(from),
                    row_of_instance_[static_cast<std::size_t>(doc.instance_of_node(to))], doc.local_of_node(to), e, 1};
        bool lane = c.row_to != c.row_from + 1 || !same_column(c.row_from, c.row_to);
        auto [it, fresh] = seen.try_emplace({c.row_from, c.node_from, c.row_to, lane ? -1 : c.node_to}, connectors_.size());
        if (fresh) {
            if (!lane) c.lane = lanes_of_rows[{c.row_from, c.row_to}]++;
            connectors_.push_back(c);
        } else {
            ++connectors_[it->second].count;
        }
    }
    std::vector<char> column_has_lanes(column_of.empty() ? 0 : static_cast<std::size_t>(column_of.back()) + 1, 0);
    std::size_t lane_count = 0;
    bool across = false;
    for (std::size_t k = 0; k < connectors_.size(); ++k) {
        auto& c = connectors_[k];
        bool neighbours = c.row_to == c.row_from + 1 && same_column(c.row_from, c.row_to);
        if (!neighbours) {
            c.lane = static_cast<std::int32_t>(lanes_.size());
            column_has_lanes[static_cast<std::size_t>(rows_[static_cast<std::size_t>(c.row_from)].column)] = 1;
            column_has_lanes[static_cast<std::size_t>(rows_[static_cast<std::size_t>(c.row_to)].column)] = 1;
            across = across || !same_column(c.row_from, c.row_to);
        }
        (neighbours ? neighbours_by_row_ : lanes_).push_back(k);
    }
    lane_count = lanes_.size();
    std::stable_sort(neighbours_by_row_.begin(), neighbours_by_row_.end(),
                     [&](std::size_t a, std::size_t b) { return connectors_[a].row_from < connectors_[b].row_from; });

    // Places, column by column, each row centred in its column, top to bottom; then the column's
    // gutters right of neighbouring rows and its lanes right of everything in it.
    const float title = std::min(title_room_, flow.width / 3);
    const float column_gap = title > 0 && zoom > 0 ? static_cast<float>(title / zoom) : column_gap_no_titles;
    bounds_ = {0, 0, 0, 0};
    float left = 0;
    for (std::size_t first = 0; first < rows_.size();) {
        std::size_t last = first;
        float width = 0;
        while (last < rows_.size() && rows_[last].column == rows_[first].column) width = std::max(width, sizes[last++].width());
        Column col{left, left + width, 0, 0, first, last};
        float y = 0;
        for (std::size_t r = first; r < last; ++r) {
            Row& row = rows_[r];
            const auto& layout = units[static_cast<std::size_t>(row.unit)].layout;
            float w = sizes[r].width(), h = sizes[r].height(), cx = left + width / 2;
            row.box = {cx - w / 2, y, cx + w / 2, y + h};
            row.origin = {cx - layout.width / 2, y + world::row_header + world::row_pad};
            bounds_.include(row.box);
            y += h + world::row_gap;
        }
        float gutters = col.x1;
        for (const auto& [pair, count] : lanes_of_rows) {
            if (static_cast<std::size_t>(pair.first) < first || static_cast<std::size_t>(pair.first) >= last) continue;
            gutters = std::max(gutters, std::max(rows_[static_cast<std::size_t>(pair.first)].box.x1, rows_[static_cast<std::size_t>(pair.second)].box.x1) +
                                            gutter_gap + gutter_step * static_cast<float>(std::min(count, max_gutter_lanes) - 1));
        }
        col.lane_x = gutters + lanes_from_gutter;
        col.right = column_has_lanes[static_cast<std::size_t>(rows_[first].column)]
                        ? col.lane_x + lane_step * static_cast<float>(std::min<std::size_t>(lane_count, max_lanes)) + 8
                        : gutters + 8;
        columns_.push_back(col);
        left = col.right + column_gap;
        first = last;
    }
    if (!columns_.empty()) bounds_.x1 = columns_.back().right;
    top_lane_ = -top_gap;
    if (across) bounds_.y0 = top_lane_ - top_step * static_cast<float>(std::min<std::size_t>(lane_count, max_lanes)) - 4;
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

std::vector<std::size_t> Scene::rows_in(const Box& world) const {
    std::vector<std::size_t> out;
    for (const auto& col : columns_) {
        if (col.right < world.x0 || col.x0 > world.x1) continue;
        auto begin = rows_.begin() + static_cast<std::ptrdiff_t>(col.first), end = rows_.begin() + static_cast<std::ptrdiff_t>(col.last);
        auto first = std::lower_bound(begin, end, world.y0, [](const Row& r, float v) { return r.box.y1 < v; });
        auto last = std::upper_bound(first, end, world.y1, [](float v, const Row& r) { return v < r.box.y0; });
        for (auto it = first; it != last; ++it)
            if (it->box.overlaps(world)) out.push_back(static_cast<std::size_t>(it - rows_.begin()));
    }
    return out;
}

float Scene::lane_x(std::int32_t column, const Connector& c) const {
    return columns_[static_cast<std::size_t>(column)].lane_x + lane_step * static_cast<float>(c.lane % max_lanes);
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
    const float ax = (a.x0 + a.x1) / 2, bx = (b.x0 + b.x1) / 2;
    const float out = free_y_below(from, a.y1), in = free_y_above(to, b.y0);
    if (from.column != to.column) {
        // Up its column's lane to a run above every card, across, down the other column's lane.
        const float g1 = lane_x(from.column, c), g2 = lane_x(to.column, c);
        const float top = top_lane_ - top_step * static_cast<float>(c.lane % max_lanes);
        return {{ax, a.y1}, {ax, out}, {g1, out}, {g1, top}, {g2, top}, {g2, in}, {bx, in}, {bx, b.y0}};
    }
    float gutter = 0;
    if (c.row_to == c.row_from + 1) {
        gutter = std::max(from.box.x1, to.box.x1) + gutter_gap + gutter_step * static_cast<float>(c.lane % max_gutter_lanes);
    } else {
        // Rows that are not neighbours (a folded unit feeding itself or a row above): along a
        // lane right of every row of the column.
        gutter = lane_x(from.column, c);
    }
    return {{ax, a.y1}, {ax, out}, {gutter, out}, {gutter, in}, {bx, in}, {bx, b.y0}};
}

}  // namespace kbp::viewer
