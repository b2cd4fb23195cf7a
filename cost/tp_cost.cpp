#include "cost/tp_cost.hpp"

#include <cstdio>

namespace kbp::planner {

TpCost tp_communication(const schema::Blueprint& b) {
    TpCost c;
    if (!b.arm.parallel || b.arm.parallel->tp <= 1) return c;
    const auto& p = *b.arm.parallel;
    c.tp = p.tp;
    c.all_reduces = p.all_reduces_per_step;
    c.bytes = static_cast<double>(p.all_reduce_bytes_per_step);
    const double n = static_cast<double>(p.tp);
    const double sent = c.bytes * 2.0 * (n - 1.0) / n;
    const double bandwidth = static_cast<double>(p.bandwidth_mbps) * 1e6;  // bytes/s
    // A gather's bytes are the whole logits: each device sends its 1/tp slice of them.
    const double gathered = static_cast<double>(p.gather_bytes_per_step) / n;
    c.gathers = p.gathers_per_step;
    c.latency_us = static_cast<double>(p.all_reduces_per_step + p.gathers_per_step) * static_cast<double>(p.latency_ns) / 1e3;
    c.time_us = (bandwidth > 0 ? (sent + gathered) / bandwidth * 1e6 : 0.0) + c.latency_us;
    return c;
}

std::string tp_cost_line(const TpCost& c) {
    if (c.tp <= 1) return "";
    // Each all-reduce's size beside the step's total: "N all-reduces of X MB" read as X apiece.
    const double each = c.all_reduces > 0 ? c.bytes / static_cast<double>(c.all_reduces) : 0.0;
    char line[256];
    std::snprintf(line, sizeof line,
                  "  tensor parallel over %lld devices: %lld all-reduces a step (%.1f KB each, %.2f MB in all)%s, %.1f us (in the step time)\n",
                  static_cast<long long>(c.tp), static_cast<long long>(c.all_reduces), each / 1e3, c.bytes / 1e6,
                  c.gathers > 0 ? " and the logits' gather" : "", c.time_us);
    return line;
}

}  // namespace kbp::planner
