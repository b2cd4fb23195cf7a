// The plan placed as rows: one per expanded instance ("layer 3 · dsa+moe", "embed") and one per run
// of a unit's folded layers ("kda+moe × 31") between the layers of that unit shown on their own,
// standing where its first layer is: rows follow the plan's layer order, top to bottom, in columns
// read left to right (as a newspaper's) when the pane the fit shows is wider than one column needs.
// Each row places its unit's layout; connectors join the ops that pass a tensor from one row to
// another (a layer's out port to the next layer's in ports), each pair of ops once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "viewer/model/document.hpp"
#include "viewer/model/geometry.hpp"
#include "viewer/model/text_metrics.hpp"
#include "viewer/model/unit_shape.hpp"

namespace kbp::viewer {

struct UnitGeometry {
    UnitShape shape;
    exporters::GraphLayout layout;
    bool final = false;  // dot's layout (else the quick one)
};

struct Row {
    std::int32_t unit = 0;
    std::int32_t column = 0;  // rows of a column are consecutive, top to bottom
    std::vector<std::int32_t> instances;  // folded: every folded instance of the unit; else one
    bool folded = false;
    Box box;      // the row's frame, header included (world)
    Vec2 origin;  // where the unit layout's (0, 0) lies
    std::string title;   // "layer 3 · dsa+moe", "kda+moe", "embed"
    std::string badge;   // folded: "× 31" (click: expand); an expanded layer: "fold"
    std::string detail;  // folded: "layers 4-6, 8-10, ... · linear_attention"; else the layer kind
};

struct Connector {
    std::int32_t row_from = 0, node_from = 0;  // row and unit-local node
    std::int32_t row_to = 0, node_to = 0;
    std::int32_t edge = 0;   // the first flat edge it stands for
    std::int32_t count = 0;  // how many flat edges
    std::int32_t lane = 0;   // its place in the gutter, among the connectors of the same rows
};

// The pane the whole plan is fitted to (pixels), and the metrics and size (pixels) of the row
// titles, which stand left of a card when its header band is too thin for them: the rows flow into
// as many columns as give the largest zoom at fit, with room for the titles left of each. A zero
// pane: one column.
struct Flow {
    float width = 0, height = 0;
    const TextMetrics* metrics = nullptr;
    float font = 14;
    bool operator==(const Flow&) const = default;
};

// Where a column stands (world): its cards' span, and the lanes right of it.
struct Column {
    float x0 = 0, x1 = 0;   // the widest card's edges
    float right = 0;        // the end of its gutter and lanes
    float lane_x = 0;       // x of its first lane (connectors between rows that are not neighbours)
    std::size_t first = 0, last = 0;  // its rows [first, last)
};

// Where a flat node is drawn.
struct Place {
    std::int32_t row = -1, local = -1;
};

class Scene {
public:
    // `expanded`: per instance, whether it is shown on its own (instances outside the layers
    // always are).
    Scene(const Document& doc, const std::vector<UnitGeometry>& units, const std::vector<char>& expanded, const Flow& flow = {});

    // Places the rows again for another pane (the same rows, in columns for it).
    void place(const Flow& flow);

    const std::vector<Row>& rows() const { return rows_; }
    const std::vector<Column>& columns() const { return columns_; }
    // The pixels the widest row title and badge take left of a card (0 without metrics).
    float title_room() const { return title_room_; }
    const std::vector<Connector>& connectors() const { return connectors_; }
    // The connectors a frame showing rows [first, last) may need: those between neighbouring rows
    // that start in or just above the range, and every one along the right lane.
    std::vector<std::size_t> connectors_near(std::size_t first, std::size_t last) const;
    const Box& bounds() const { return bounds_; }
    const UnitGeometry& unit(const Row& r) const { return (*units_)[static_cast<std::size_t>(r.unit)]; }

    std::int32_t row_of_instance(std::int32_t instance) const { return row_of_instance_[static_cast<std::size_t>(instance)]; }
    Place place_of_node(std::size_t node) const;
    Box node_box(const Place& p) const;           // world
    Box cluster_box(std::int32_t row, std::size_t cluster) const;
    // The flat node a row shows at `local` (a folded row shows its first folded instance's).
    std::int32_t flat_node(std::int32_t row, std::int32_t local) const;
    // Rows whose boxes overlap `world`, in order (a binary search in each column it meets).
    std::vector<std::size_t> rows_in(const Box& world) const;
    // The polyline of a connector (world): down from its op into the first band of the row free
    // of ops, across that band to a gutter right of the rows, along the gutter to the band above
    // the op it feeds and down into it; so it crosses no op, whatever the layout. Between columns
    // it runs up its column's lane to above every card, across, and down the other column's lane.
    std::vector<Vec2> connector_path(const Connector& c, std::size_t index) const;

private:
    const Document* doc_;
    const std::vector<UnitGeometry>* units_;
    std::vector<Row> rows_;
    std::vector<std::int32_t> row_of_instance_;
    std::vector<Column> columns_;
    std::vector<Connector> connectors_;
    std::vector<std::size_t> neighbours_by_row_;  // connectors between neighbouring rows, by row_from
    std::vector<std::size_t> lanes_;              // the others
    Box bounds_;
    float top_lane_ = 0;
    float title_room_ = 0;  // y of the first run above the cards (connectors between columns)

    // The lane x of connector `c` right of column `column`.
    float lane_x(std::int32_t column, const Connector& c) const;

    // The middle of the first band of the row at or below `y` (above: at or above) that no op
    // covers (world).
    float free_y_below(const Row& row, float y) const;
    float free_y_above(const Row& row, float y) const;
};

}  // namespace kbp::viewer
