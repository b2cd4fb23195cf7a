// The communication a tensor-parallel plan (arm.parallel) costs per step: each all-reduce sends
// and receives 2(tp-1)/tp of its bytes per device (a ring all-reduce: reduce-scatter, then
// all-gather) at the interconnect's bandwidth, plus the interconnect's latency per all-reduce;
// the logits' gather sends each device's slice, plus the latency once.
// Zero for a plan on one device.
#pragma once

#include <string>

#include "schema/blueprint.hpp"

namespace kbp::planner {

struct TpCost {
    std::int64_t tp = 1;
    std::int64_t all_reduces = 0;
    std::int64_t gathers = 0;
    double bytes = 0;    // all-reduce bytes of the step (before the 2(tp-1)/tp factor)
    double time_us = 0;  // added to the step time
    // Of time_us, what the collectives' latency adds (the interconnect's latency_us per
    // collective): a calibration's fitted all_reduce_us replaces it (cost.hpp).
    double latency_us = 0;
    std::int64_t collectives() const { return all_reduces + gathers; }
};

TpCost tp_communication(const schema::Blueprint& plan);
// "  tensor parallel: ..." for `kbp stats --cost`, or "" on one device.
std::string tp_cost_line(const TpCost& cost);

}  // namespace kbp::planner
