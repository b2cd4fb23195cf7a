// kbp-view-load-bench: the viewer's first frame of a large plan against `kbp check` of the same
// file (issue 30: a million-node plan's folded view no slower than checking it).
//
// Lays the seed's templates over enough layers for N ops (schema/synthetic.hpp), writes the plan
// compact to a file (--write keeps it), then runs, in turn, R times each, fresh processes (this
// program again, so that no run finds the heap another left warm):
//   check:        what `kbp check FILE` does (read, validate, the memory figures it notes);
//   first frame:  a window-less view model opening the file until its first frame is built, folded
//                 (then until the plan is wholly indexed: find, select, the inspector);
// and prints the medians and the median of the pairs' ratios first frame / check (goal <= 1).
// Then, in this process, one run of each stage: where the time goes.
//
// usage: kbp-view-load-bench [PLAN] [--nodes N | --layers L] [--runs R] [--write FILE]
//        (--layers 1035: the 40,350-op plan of the viewer's other benchmarks and tests;
//        --runs 0 with --write: write the plan, measure nothing)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench/child_process.hpp"
#include "schema/file_io.hpp"
#include "schema/memory.hpp"
#include "schema/reader.hpp"
#include "schema/synthetic.hpp"
#include "schema/templates.hpp"
#include "schema/validator.hpp"
#include "schema/writer.hpp"
#include "viewer/model/view_model.hpp"


namespace {

using namespace kbp;
using namespace kbp::viewer;
using Clock = std::chrono::steady_clock;

const Box screen{0, 0, 1180, 860};  // the canvas of a 1600x1000 window

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int check_child(const char* file, Clock::time_point t0) {
    auto b = schema::load_blueprint(file);
    if (!b || !schema::validate(*b).empty()) return 2;
    (void)schema::compute_memory(*b);
    std::printf("%f\n", ms_since(t0));
    return 0;
}

int view_child(const char* file, Clock::time_point t0) {
    ViewModel m(LayoutEngine(), TextMetrics::approximate());
    m.open(file);
    while (!m.scene()) {
        m.update();
        if (!m.errors().empty()) return 2;
        if (!m.scene()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    DrawList d;
    m.frame(screen, d);
    double first = ms_since(t0);
    m.settle(600);
    std::printf("%f %f\n", first, ms_since(t0));
    return 0;
}

// Runs this program with `args`; what it printed ("" when it failed).
std::string run_child(const std::string& self, const std::vector<std::string>& args) {
    return bench::run_capturing_stdout(self, args).value_or("");
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// One run of each stage of the viewer's way to its first frame, in this process.
void stages(const std::string& file) {
    auto t = Clock::now();
    auto skimmed = schema::load_blueprint_without_lists(file, {.pieces_above = LoadOptions{}.lists_after_above});
    double skim_ms = ms_since(t);
    t = Clock::now();
    if (skimmed) (void)schema::expand_templates(*skimmed);
    double expand_ms = ms_since(t);
    skimmed.reset();
    std::printf("stages, one run: the file but its flat lists %.0f ms, the templates expanded %.0f ms (a big plan's first frame)\n",
                skim_ms, expand_ms);
    t = Clock::now();
    auto b = schema::load_blueprint(file);
    double read_ms = ms_since(t);
    if (!b) return;
    t = Clock::now();
    bool valid = schema::validate(*b).empty();
    double validate_ms = ms_since(t);
    if (!valid) return;
    schema::Blueprint copy = *b;
    t = Clock::now();
    Document doc(std::move(*b), file);
    double index_ms = ms_since(t);
    t = Clock::now();
    ViewModel m(LayoutEngine(), TextMetrics::approximate());
    m.open_plan(std::move(copy), file);  // indexes again, then units, scene, colours
    double open_ms = ms_since(t) - m.load_ms(0);
    DrawList d;
    t = Clock::now();
    m.frame(screen, d);
    double frame_ms = ms_since(t);
    t = Clock::now();
    (void)doc.find_node("l0.embed");
    double flat_ms = ms_since(t);
    t = Clock::now();
    doc.estimate_cost();
    double cost_ms = ms_since(t);
    std::printf("stages, one run: read + parse %.0f ms, validate %.0f ms, folded index %.0f ms (the last two side by side when "
                "loading), units + scene + colours %.0f ms, frame %.1f ms; after it: flat index %.0f ms, cost %.0f ms\n",
                read_ms, validate_ms, index_ms, open_ms, frame_ms, flat_ms, cost_ms);
}

}  // namespace

int main(int argc, char** argv) {
    const auto t0 = Clock::now();
    if (argc == 3 && !std::strcmp(argv[1], "--check")) return check_child(argv[2], t0);
    if (argc == 3 && !std::strcmp(argv[1], "--view")) return view_child(argv[2], t0);
    std::string plan_path = KBP_DEFAULT_PLAN, write_path;
    std::size_t nodes = 1000000, layers = 0;
    int runs = 5;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--nodes") && i + 1 < argc) nodes = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--layers") && i + 1 < argc) layers = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::max(0, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--write") && i + 1 < argc) write_path = argv[++i];
        else plan_path = argv[i];
    }
    auto seed = schema::load_blueprint(plan_path);
    if (!seed) {
        std::fprintf(stderr, "kbp-view-load-bench: %s\n", seed.error().text().c_str());
        return 2;
    }
    const double ops_per_layer = static_cast<double>(seed->nodes.size()) / static_cast<double>(seed->layers.size());
    if (layers == 0) layers = std::max<std::size_t>(4, static_cast<std::size_t>(static_cast<double>(nodes) / ops_per_layer + 0.5));
    const bool keep = !write_path.empty();
    const std::string file =
        keep ? write_path : (std::filesystem::temp_directory_path() / ("kbp-view-load-bench-" + std::to_string(getpid()) + ".json")).string();
    {
        auto big = schema::relayout(*seed, schema::glm_layout(layers), true);
        if (!big) {
            std::fprintf(stderr, "kbp-view-load-bench: %s\n", big.error().text().c_str());
            return 2;
        }
        std::string text = schema::write_blueprint(*big, {.pretty = false});
        if (auto s = write_file_atomic(file, text); !s) {
            std::fprintf(stderr, "kbp-view-load-bench: %s\n", s.error().text().c_str());
            return 2;
        }
        std::printf("plan: %zu layers, %zu ops, %.1f MB, %s\n", layers, big->nodes.size(), static_cast<double>(text.size()) / 1e6, file.c_str());
    }
    seed = schema::Blueprint{};
    if (runs == 0) {  // --write FILE --runs 0: the plan only (scripts/pictures.py)
        if (!keep) std::filesystem::remove(file);
        return 0;
    }

    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    std::vector<double> check, first, whole, ratio;
    for (int r = 0; r < runs; ++r) {
        std::string c = run_child(self, {"--check", file}), v = run_child(self, {"--view", file});
        double check_ms = 0, first_ms = 0, whole_ms = 0;
        if (std::sscanf(c.c_str(), "%lf", &check_ms) != 1 || std::sscanf(v.c_str(), "%lf %lf", &first_ms, &whole_ms) != 2) {
            std::fprintf(stderr, "kbp-view-load-bench: a run failed on %s\n", file.c_str());
            return 2;
        }
        check.push_back(check_ms);
        first.push_back(first_ms);
        whole.push_back(whole_ms);
        ratio.push_back(first_ms / check_ms);
    }
    std::printf("medians of %d runs each, fresh processes in turn: check (read + validate + memory) %.0f ms; viewer's first frame "
                "(folded) %.0f ms, wholly indexed %.0f ms\n",
                runs, median(check), median(first), median(whole));
    std::printf("first frame / check %.2f (median of the pairs; min %.2f, max %.2f; goal <= 1)\n", median(ratio),
                *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()));
    stages(file);
    if (!keep) std::filesystem::remove(file);
    return 0;
}
