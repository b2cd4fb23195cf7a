// A readable summary of a blueprint: what it is made of and what crosses between kernels.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "schema/blueprint.hpp"
#include "schema/memory.hpp"

namespace kbp::schema {

// (name, count) rows, most frequent first, ties by name: the same plan prints the same way.
using Tally = std::vector<std::pair<std::string, std::int64_t>>;

struct FormatTraffic {
    std::string format;
    std::int64_t edges = 0;
    std::int64_t crossing_edges = 0;  // edges between kernels (not fused)
    std::int64_t crossing_bytes = 0;  // their bytes per token
};

struct StateUse {
    std::string role;                  // "conv:update"
    std::vector<std::int64_t> layers;  // ascending; -1 for a node outside any layer
};

struct Stats {
    std::string mode;
    std::int64_t rows = 0;
    std::int64_t layers = 0, nodes = 0, edges = 0, groups = 0;
    std::int64_t device_groups = 0, host_groups = 0;
    std::int64_t launches = 0;  // kernels the device groups launch (launches_of)
    Tally layers_by_kind, layers_by_template;
    Tally nodes_by_op, nodes_by_family, nodes_by_compute;
    Tally groups_by_rule;
    std::int64_t quant_points = 0;  // inserted act_quant and smooth_mul nodes
    Tally quant_points_by_format;   // "bf16 -> fp8/token"
    std::int64_t requant_edges = 0;
    std::vector<FormatTraffic> edges_by_format;
    std::int64_t bytes_between_kernels = 0;  // per token, fused edges excluded
    std::int64_t fused_edges = 0;
    std::vector<StateUse> state_roles;
    // Templated kernels (GPNPU custom ops): launches and distinct signatures per kernel.
    struct CustomOp {
        std::string kernel;
        std::int64_t launches = 0, signatures = 0;
    };
    std::vector<CustomOp> custom_ops;
    MemoryReport memory;
};

Stats compute_stats(const Blueprint& b);
std::string stats_text(const Stats& s);
std::string stats_json(const Stats& s);  // pretty JSON, ends in a newline

// "0-2, 4-6, 8" for a sorted list of integers.
std::string ranges_text(const std::vector<std::int64_t>& sorted);

}  // namespace kbp::schema
