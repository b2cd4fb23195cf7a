// kbp-plan-bench: how long planning takes, and how it grows with the number of layers.
//
// Prints the time to load and check the catalog, of one plan (GLM-5.3-Flash decode) as
// `kbp plan` makes it (catalog loaded included), of all 17 arms the seed's planner ran as
// `kbp plan --arms all` makes them (one catalog for all), and of synthetic GLM configs with 125
// to 1,000 layers planned with a loaded catalog, with the time per layer, so a reader can see
// the cost is linear in layers. Best of N runs each.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "planner/plan.hpp"
#include "bench/timing.hpp"
#include "schema/file_io.hpp"
#include "schema/validator.hpp"

namespace {

using kbp::bench::best_ms;

template <class T> T or_die(kbp::Result<T> r) {
    if (!r) {
        std::fprintf(stderr, "kbp-plan-bench: %s\n", r.error().text().c_str());
        std::exit(2);
    }
    return std::move(*r);
}

kbp::planner::PlanOutput plan_or_die(const kbp::planner::PlanRequest& r) { return or_die(kbp::planner::make_plan(r)); }

}  // namespace

int main(int argc, char** argv) {
    std::string config = argc > 1 ? argv[1] : KBP_GLM_CONFIG;
    int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    kbp::planner::PlanRequest r;
    r.config_path = config;
    r.command = "kbp-plan-bench";

    double load = best_ms(runs, [&] { (void)or_die(kbp::planner::Planner::load(std::nullopt)); });
    const auto planner = or_die(kbp::planner::Planner::load(std::nullopt));
    std::size_t nodes = 0;
    double one = best_ms(runs, [&] { nodes = plan_or_die(r).blueprint.nodes.size(); });
    double validate = 0;
    {
        auto p = plan_or_die(r);
        validate = best_ms(runs, [&] { (void)kbp::schema::validate(p.blueprint); });
    }
    double all = best_ms(std::max(1, runs / 2), [&] {
        for (const auto& [arm, rows] : kbp::planner::standard_arms()) {
            auto a = r;
            a.arm = arm;
            a.rows = rows;
            (void)or_die(planner.plan(a));
        }
    });
    std::printf("config: %s, best of %d runs\n\n", config.c_str(), runs);
    std::printf("catalog load and check:              %8.2f ms\n", load);
    std::printf("one plan (decode, %zu nodes):        %8.2f ms  (validate %.2f ms)\n", nodes, one, validate);
    std::printf("all %zu arms:                          %8.2f ms  (%.2f ms per arm)\n\n", kbp::planner::standard_arms().size(), all, all / kbp::planner::standard_arms().size());

    // Synthetic depth: the same model with more layers.
    auto text = kbp::read_file(config);
    if (!text) return 2;
    auto json = nlohmann::ordered_json::parse(*text);
    auto dir = std::filesystem::temp_directory_path() / "kbp-plan-bench";
    std::filesystem::create_directories(dir);
    std::printf("%8s %10s %12s %14s\n", "layers", "nodes", "plan ms", "us per layer");
    for (int layers : {125, 250, 500, 1000}) {
        json["num_hidden_layers"] = layers;
        auto path = (dir / ("config-" + std::to_string(layers) + ".json")).string();
        if (!kbp::write_file_atomic(path, json.dump(2))) return 3;
        auto s = r;
        s.config_path = path;
        std::size_t n = 0;
        double ms = best_ms(std::max(1, runs / 2), [&] { n = or_die(planner.plan(s)).blueprint.nodes.size(); });
        std::printf("%8d %10zu %12.1f %14.1f\n", layers, n, ms, 1000.0 * ms / layers);
    }
    std::filesystem::remove_all(dir);
    return 0;
}
