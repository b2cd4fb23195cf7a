// The overview panels' data: a layer × op heatmap of formats, in which an op whose formats differ
// from most layers' stands out, and a budget of bytes per step (weights, activations, state) by
// format and by layer, with the roofline cost when the plan's target is known.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "viewer/model/document.hpp"
#include "viewer/model/geometry.hpp"

namespace kbp::viewer {

struct Heatmap {
    std::vector<std::string> columns;   // op names inside a layer: "kda.q", "moe.gate_up"
    std::vector<std::int64_t> layers;   // one row per layer
    std::vector<std::int32_t> cells;    // rows × columns: the flat node, or -1 where a layer has no such op
    std::vector<Rgba> colours;          // per cell: the op's precision colour (as on the canvas)
    std::vector<char> differs;          // per cell: formats differ from the column's most common
    std::vector<char> row_differs;      // per row: some cell differs
    std::int32_t cell(std::size_t row, std::size_t column) const { return cells[row * columns.size() + column]; }
};
Heatmap build_heatmap(const Document& doc);

struct BudgetRow {
    std::string key;  // a format ("nvfp4/g16") or a layer ("layer 3", "embed")
    double weight = 0, activation = 0, state = 0;  // bytes per step
};

struct Budget {
    bool from_cost = false;            // weights, state and per-layer bytes from the roofline
    std::string note;                  // what is missing and why
    std::vector<BudgetRow> by_format;  // weights by weight format, activations by edge format
    std::vector<BudgetRow> by_layer;   // in plan order
    BudgetRow total;
    // Counts.
    std::int64_t nodes = 0, edges = 0, groups = 0, launches = 0, host_steps = 0, quant_points = 0, requant_edges = 0;
    // The roofline, when known.
    std::optional<double> step_us, tokens_per_s;
    std::string target;
    std::vector<std::pair<std::string, double>> time_by_family;  // us, largest first
};
Budget build_budget(const Document& doc);

}  // namespace kbp::viewer
