#include "tests/fuzz/entry_points.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "cost/cost.hpp"
#include "planner/plan.hpp"
#include "schema/reader.hpp"
#include "schema/validator.hpp"
#include "schema/writer.hpp"

namespace kbp::fuzz {
namespace {

namespace fs = std::filesystem;

// A broken promise of kbp's own: libFuzzer reports the abort with the input that caused it.
[[noreturn]] void broken(const std::string& what) {
    std::fprintf(stderr, "kbp fuzz: %s\n", what.c_str());
    std::abort();
}

// Every error names where it happened (schema/result.hpp): one without a place is a finding.
void expect_placed(const Error& e) {
    if (e.where.empty()) broken("an error names no file or place: " + e.message);
}

// A folder of this process's own for the files an input becomes (config, catalog, ranges),
// removed when the process exits.
struct Scratch {
    std::filesystem::path dir = std::filesystem::temp_directory_path() / ("kbp-fuzz-" + std::to_string(::getpid()));
    Scratch() { std::filesystem::create_directories(dir); }
    ~Scratch() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

const fs::path& scratch() {
    static const Scratch s;
    return s.dir;
}

void write_bytes(const fs::path& path, std::string_view bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) broken("cannot write " + path.string());
}

// A plan the planner returns must be one kbp check accepts, and one the cost model can read.
void check_plan(const planner::Catalog& catalog, const schema::Blueprint& plan) {
    auto problems = schema::validate(plan);
    if (!problems.empty())
        broken("the planner wrote a plan the validator refuses: " + problems.items().front().pointer + ": " +
               problems.items().front().message);
    auto cost = planner::estimate_cost(catalog, plan, planner::CostOptions{});
    if (!cost) expect_placed(cost.error());
}

struct Slot {
    std::string_view path;  // catalog-relative, or "ranges.json"
    bool gpnpu;             // planned with chimera-w4a16 on qc-u rather than fp8-dynamic on h100
};

constexpr std::array<Slot, 17> slots{{
    {"architectures/llama.json", false},
    {"recipes/fp8-dynamic.json", false},
    {"recipes/parts/bf16-exclusions.json", false},
    {"targets/h100.json", false},
    {"kernels/cuda-generic.json", false},
    {"fusion/cuda-generic.json", false},
    {"ops/core.json", false},
    {"explain/formats.json", false},
    {"explain/families.json", false},
    {"recipes/chimera-w4a16.json", true},
    {"targets/qc-u.json", true},
    {"kernels/chimera.json", true},
    {"fusion/chimera.json", true},
    {"ranges.json", true},
    {"engines/vllm.json", false},
    {"fusion/vllm.json", false},
    {"kernels/vllm.json", false},
}};

}  // namespace

std::string_view data_file_slot(unsigned char selector) { return slots[selector % slots.size()].path; }

void read_and_validate_blueprint(std::string_view bytes) {
    auto b = schema::read_blueprint(std::string(bytes), "fuzz.json");
    if (!b) return expect_placed(b.error());
    if (!schema::validate(*b).empty()) return;
    // A valid blueprint survives writing and reading back unchanged.
    std::string written = schema::write_blueprint(*b);
    auto again = schema::read_blueprint(written, "written.json");
    if (!again) broken("the writer wrote what the reader refuses: " + again.error().text());
    if (schema::write_blueprint(*again) != written) broken("a written blueprint reads back different");
}

namespace {

// The planner with the embedded catalog, loaded once per process.
const planner::Planner& embedded_planner() {
    static const auto planner = [] {
        auto p = planner::Planner::load(std::nullopt);
        if (!p) broken("the embedded catalog does not load: " + p.error().text());
        return std::move(*p);
    }();
    return planner;
}

// `request` planned by `planner`: an error must name its place, a plan must pass check_plan.
void plan_and_check(const planner::Planner& planner, const planner::PlanRequest& request) {
    auto plan = planner.plan(request);
    if (!plan) return expect_placed(plan.error());
    check_plan(planner.catalog(), plan->blueprint);
}

}  // namespace

void plan_config(std::string_view bytes) {
    fs::path config = scratch() / "config.json";
    write_bytes(config, bytes);
    planner::PlanRequest request;
    request.config_path = config.string();
    plan_and_check(embedded_planner(), request);
}

void plan_with_data_file(std::string_view bytes) {
    if (bytes.empty()) return;
    const Slot& slot = slots[static_cast<unsigned char>(bytes[0]) % slots.size()];
    bytes.remove_prefix(1);
    planner::PlanRequest request;
    request.config_path = KBP_SMALL_LLAMA_CONFIG;  // two layers: a plan in milliseconds
    request.recipe = slot.gpnpu ? "chimera-w4a16" : "fp8-dynamic";
    request.target = slot.gpnpu ? "qc-u" : "h100";
    if (slot.path == "ranges.json") {
        request.ranges = (scratch() / "ranges.json").string();
        write_bytes(*request.ranges, bytes);
        return plan_and_check(embedded_planner(), request);
    }
    // First the file alone, checked against the embedded catalog as a file named by path is:
    // most inputs stop here, without the cost of loading a whole catalog.
    const fs::path alone = scratch() / "alone" / slot.path;
    write_bytes(alone, bytes);
    planner::Catalog embedded = embedded_planner().catalog().share();
    if (auto checked = embedded.file(fs::path(slot.path).parent_path().generic_string(), alone.string()); !checked)
        return expect_placed(checked.error());
    // Then in its place in a --catalog folder, planned.
    const fs::path catalog_dir = scratch() / "catalog";
    fs::remove_all(catalog_dir);
    write_bytes(catalog_dir / slot.path, bytes);
    request.catalog_dir = catalog_dir.string();
    auto planner = planner::Planner::load(request.catalog_dir);
    if (!planner) return expect_placed(planner.error());
    plan_and_check(*planner, request);
}

}  // namespace kbp::fuzz
