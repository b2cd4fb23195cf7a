// kbp-bench: how fast kbp loads a blueprint, against the parsers it is built on.
//
// For one file (default: the GLM-5.3-Flash decode plan) it times, best of N runs each:
//   simdjson DOM parse (the raw parse kbp's reader starts from, runtime-dispatched kernel),
//   simdjson On-Demand walk of every value (compiled into this program: its kernel depends
//   on the build's -march), nlohmann::json::parse, kbp read (parse + model), kbp validate,
//   kbp full load (read + validate), kbp write (compact and pretty).
// and prints the ratios the project tracks: full load / simdjson parse (goal <= 3),
// nlohmann parse / full load (goal >= 3), write compact / full load (goal <= 1) and write
// pretty / full load (goal <= 1.5).
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/alloc_count.hpp"
#include "bench/timing.hpp"
#include "schema/file_io.hpp"
#include "schema/reader.hpp"
#include "schema/validator.hpp"
#include "schema/writer.hpp"

namespace {

using kbp::bench::best_ms;

std::size_t walk(simdjson::ondemand::value v) {
    std::size_t n = 1;
    switch (v.type()) {
        case simdjson::ondemand::json_type::object:
            for (auto field : v.get_object()) n += walk(field.value());
            break;
        case simdjson::ondemand::json_type::array:
            for (auto item : v.get_array()) n += walk(item.value());
            break;
        case simdjson::ondemand::json_type::string: (void)v.get_raw_json_string(); break;
        case simdjson::ondemand::json_type::number: (void)v.get_number(); break;
        case simdjson::ondemand::json_type::boolean: (void)v.get_bool(); break;
        case simdjson::ondemand::json_type::null: (void)v.is_null(); break;
    }
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    std::string path = argc > 1 ? argv[1] : KBP_DEFAULT_PLAN;
    int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 30;
    auto text = kbp::read_file(path);
    if (!text) {
        std::fprintf(stderr, "kbp-bench: %s\n", text.error().text().c_str());
        return 2;
    }
    const std::string& json = *text;
    simdjson::padded_string padded(json);
    std::printf("file: %s (%zu bytes), best of %d runs\n", path.c_str(), json.size(), runs);
    std::printf("simdjson active implementation: %s (%s)\n", simdjson::get_active_implementation()->name().c_str(),
                simdjson::get_active_implementation()->description().c_str());

    simdjson::dom::parser dom;
    double t_dom = best_ms(runs, [&] {
        simdjson::dom::element root;
        if (dom.parse(padded).get(root)) std::abort();
    });
    simdjson::ondemand::parser od;
    std::size_t values = 0;
    double t_od = best_ms(runs, [&] {
        auto doc = od.iterate(padded);
        values = walk(doc.get_value());
    });
    double t_nlohmann = best_ms(std::max(1, runs / 3), [&] {
        auto j = nlohmann::json::parse(json);
        if (j.empty()) std::abort();
    });
    kbp::schema::Blueprint model;
    double t_read = best_ms(runs, [&] {
        auto b = kbp::schema::read_blueprint(json, path);
        if (!b) std::abort();
        model = std::move(*b);
    });
    double t_validate = best_ms(runs, [&] {
        if (!kbp::schema::validate(model).empty()) std::abort();
    });
    double t_full = best_ms(runs, [&] {
        auto b = kbp::schema::read_blueprint(json, path);
        if (!b || !kbp::schema::validate(*b).empty()) std::abort();
    });
    double t_write_compact = best_ms(std::max(1, runs / 3), [&] { (void)kbp::schema::write_blueprint(model, {.pretty = false}); });
    double t_write_pretty = best_ms(std::max(1, runs / 3), [&] { (void)kbp::schema::write_blueprint(model, {.pretty = true}); });

    // Heap allocations of one full load and one compact write (after the parser's buffers exist).
    std::size_t alloc_load = kbp::bench::allocations_during([&] {
        auto b = kbp::schema::read_blueprint(json, path);
        if (!b || !kbp::schema::validate(*b).empty()) std::abort();
    });
    std::size_t alloc_write = kbp::bench::allocations_during([&] { (void)kbp::schema::write_blueprint(model, {.pretty = false}); });

    auto mbps = [&](double ms) { return json.size() / (ms * 1e-3) / 1e6; };
    std::printf("\n%-40s %9s %10s\n", "step", "ms", "MB/s");
    std::printf("%-40s %9.3f %10.0f\n", "simdjson DOM parse", t_dom, mbps(t_dom));
    std::printf("%-40s %9.3f %10.0f   (%zu values)\n", "simdjson On-Demand walk (compiled-in)", t_od, mbps(t_od), values);
    std::printf("%-40s %9.3f %10.0f\n", "nlohmann::json::parse", t_nlohmann, mbps(t_nlohmann));
    std::printf("%-40s %9.3f %10.0f\n", "kbp read (parse + model)", t_read, mbps(t_read));
    std::printf("%-40s %9.3f\n", "kbp validate", t_validate);
    std::printf("%-40s %9.3f %10.0f\n", "kbp full load (read + validate)", t_full, mbps(t_full));
    std::printf("%-40s %9.3f\n", "kbp write compact", t_write_compact);
    std::printf("%-40s %9.3f\n", "kbp write pretty", t_write_pretty);
    std::printf("\nallocations: full load %zu (%.1f per node), compact write %zu\n", alloc_load,
                static_cast<double>(alloc_load) / static_cast<double>(std::max<std::size_t>(1, model.nodes.size())), alloc_write);
    double r1 = t_full / t_dom, r2 = t_nlohmann / t_full;
    std::printf("\nratio full load / simdjson DOM parse:   %.2f  (goal <= 3)  %s\n", r1, r1 <= 3 ? "met" : "NOT met");
    std::printf("ratio nlohmann parse / full load:       %.2f  (goal >= 3)  %s\n", r2, r2 >= 3 ? "met" : "NOT met");
    double r3 = t_write_compact / t_full, r4 = t_write_pretty / t_full;
    std::printf("ratio write compact / full load:        %.2f  (goal <= 1)  %s\n", r3, r3 <= 1 ? "met" : "NOT met");
    std::printf("ratio write pretty / full load:         %.2f  (goal <= 1.5)  %s\n", r4, r4 <= 1.5 ? "met" : "NOT met");
    std::printf("ratio On-Demand walk / DOM parse:       %.2f\n", t_od / t_dom);
    return 0;
}
