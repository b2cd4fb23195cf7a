// A hardware target (planner/data/targets/<name>.json) as a typed record, read once when the
// catalog loads (data_records.hpp) and read by the passes that check formats, arms and tensor
// parallelism and by the cost model. The table follows the schema
// (planner/data/schemas/targets.schema.json) member by member, in its order;
// tests/test_data_records.cpp holds the two together. A figure the file leaves null or out is
// unknown (an empty optional): its `sources` entry says why, and the cost refuses to guess it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/record_reader.hpp"

namespace kbp::planner {

// The link tensor parallelism all-reduces over.
struct Interconnect {
    std::string name;
    double bandwidth_gbps = 0;
    double latency_us = 0;
};

struct TargetRecord {
    std::string name;
    std::optional<std::string> description;
    std::optional<std::string> kind;  // gpu (default), gpnpu
    std::map<std::string, std::string> sources;
    std::optional<std::int64_t> memory_bytes;
    std::optional<double> memory_bandwidth_gbps, host_link_gbps;
    std::optional<Interconnect> interconnect;  // none: --tp above 1 is refused
    std::optional<double> ddr_read_gbps, ddr_write_gbps;
    std::map<std::string, double> peak_tflops;  // by format
    std::optional<double> cuda_core_tflops, launch_overhead_us;
    std::vector<std::string> formats;
    std::vector<std::string> weight_formats;
    std::map<std::string, std::string> instructions, mma;
    std::vector<std::string> engines;
    std::optional<std::vector<std::string>> arms;  // none: every arm
    std::optional<std::string> arms_about, hardware_tag;
    std::optional<std::int64_t> array_size;
    std::optional<double> pe_count, macs_per_pe, clock_ghz;
    std::optional<std::int64_t> ocm_bytes, lrm_bytes, axi_bits;
};

}  // namespace kbp::planner

namespace kbp::schema {

template <> inline constexpr auto record_fields<planner::Interconnect> = std::tuple{
    field("name", &planner::Interconnect::name),
    field("bandwidth_gbps", &planner::Interconnect::bandwidth_gbps),
    field("latency_us", &planner::Interconnect::latency_us),
};

template <> inline constexpr auto record_fields<planner::TargetRecord> = std::tuple{
    field("name", &planner::TargetRecord::name),
    field("description", &planner::TargetRecord::description, Presence::optional),
    field("kind", &planner::TargetRecord::kind, Presence::optional),
    field("sources", &planner::TargetRecord::sources, Presence::defaulted),
    field("memory_bytes", &planner::TargetRecord::memory_bytes, Presence::optional),
    field("memory_bandwidth_gbps", &planner::TargetRecord::memory_bandwidth_gbps, Presence::optional),
    field("host_link_gbps", &planner::TargetRecord::host_link_gbps, Presence::optional),
    field("interconnect", &planner::TargetRecord::interconnect, Presence::optional),
    field("ddr_read_gbps", &planner::TargetRecord::ddr_read_gbps, Presence::optional),
    field("ddr_write_gbps", &planner::TargetRecord::ddr_write_gbps, Presence::optional),
    field("peak_tflops", &planner::TargetRecord::peak_tflops, Presence::defaulted),
    field("cuda_core_tflops", &planner::TargetRecord::cuda_core_tflops, Presence::optional),
    field("launch_overhead_us", &planner::TargetRecord::launch_overhead_us, Presence::optional),
    field("formats", &planner::TargetRecord::formats),
    field("weight_formats", &planner::TargetRecord::weight_formats, Presence::defaulted),
    field("instructions", &planner::TargetRecord::instructions, Presence::defaulted),
    field("mma", &planner::TargetRecord::mma, Presence::defaulted),
    field("engines", &planner::TargetRecord::engines),
    field("arms", &planner::TargetRecord::arms, Presence::optional),
    field("arms_about", &planner::TargetRecord::arms_about, Presence::optional),
    field("hardware_tag", &planner::TargetRecord::hardware_tag, Presence::optional),
    field("array_size", &planner::TargetRecord::array_size, Presence::optional),
    field("pe_count", &planner::TargetRecord::pe_count, Presence::optional),
    field("macs_per_pe", &planner::TargetRecord::macs_per_pe, Presence::optional),
    field("clock_ghz", &planner::TargetRecord::clock_ghz, Presence::optional),
    field("ocm_bytes", &planner::TargetRecord::ocm_bytes, Presence::optional),
    field("lrm_bytes", &planner::TargetRecord::lrm_bytes, Presence::optional),
    field("axi_bits", &planner::TargetRecord::axi_bits, Presence::optional),
};

}  // namespace kbp::schema
