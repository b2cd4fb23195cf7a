// kbp-memory-bench: the memory a loaded plan holds, from a thousand nodes to a million.
//
// For each size it lays the seed's GLM templates over enough layers (schema/synthetic.hpp),
// writes the plan compact, and loads it in a fresh process (this program re-run with --load), so
// that neither the generator's memory nor the allocator's free lists of an earlier size count.
// The child reports its resident memory before and after load_blueprint and its peak; the
// table gives resident bytes per node and per file byte, and the peak against the file size
// (issue 11 asks for a peak within 2.5x the file). Growth should be linear: the last column
// compares each size's bytes per node with the smallest's.
//
// usage: kbp-memory-bench [PLAN] [--max-nodes N]      (default: the seed, 1,000,000)
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/child_process.hpp"
#include "schema/file_io.hpp"
#include "schema/reader.hpp"
#include "schema/synthetic.hpp"
#include "schema/writer.hpp"


namespace {

// Resident bytes of this process now (/proc/self/statm: pages).
long long resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    long long size = 0, resident = 0;
    statm >> size >> resident;
    return resident * sysconf(_SC_PAGESIZE);
}

// The peak resident bytes of this process's memory (VmHWM). Not getrusage's ru_maxrss: a child
// that posix_spawn started on the parent's memory keeps the parent's peak in ru_maxrss after exec.
long long peak_resident_bytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::atoll(line.c_str() + 6) * 1024;
    return 0;
}

int load_child(const char* path) {
    long long before = resident_bytes();
    auto b = kbp::schema::load_blueprint(path);
    if (!b) {
        std::fprintf(stderr, "%s\n", b.error().text().c_str());
        return 2;
    }
    long long after = resident_bytes();
    std::printf("%zu %lld %lld %lld\n", b->nodes.size(), before, after, peak_resident_bytes());
    return 0;
}

struct ChildFigures {
    long long nodes = 0, before = 0, after = 0, peak = 0;
};

bool run_child(const std::string& self, const std::string& file, ChildFigures& f) {
    const auto out = kbp::bench::run_capturing_stdout(self, {"--load", file});
    return out && std::sscanf(out->c_str(), "%lld %lld %lld %lld", &f.nodes, &f.before, &f.after, &f.peak) == 4;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "--load") == 0) return load_child(argv[2]);
    std::string plan_path = KBP_DEFAULT_PLAN;
    std::size_t max_nodes = 1000000;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--max-nodes") == 0 && i + 1 < argc) max_nodes = std::strtoull(argv[++i], nullptr, 10);
        else plan_path = argv[i];
    }
    auto seed = kbp::schema::load_blueprint(plan_path);
    if (!seed) {
        std::fprintf(stderr, "kbp-memory-bench: %s\n", seed.error().text().c_str());
        return 2;
    }
    const double ops_per_layer = static_cast<double>(seed->nodes.size()) / static_cast<double>(seed->layers.size());
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string dir = std::filesystem::temp_directory_path() / ("kbp-memory-bench-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);

    std::printf("%10s %12s %12s %14s %12s %12s %10s\n", "nodes", "file MB", "resident MB", "bytes/node", "res/file", "peak/file", "vs first");
    double first_per_node = 0;
    for (std::size_t target = 1000; target <= max_nodes; target *= 10) {
        auto layers = static_cast<std::size_t>(static_cast<double>(target) / ops_per_layer + 0.5);
        auto big = kbp::schema::relayout(*seed, kbp::schema::glm_layout(std::max<std::size_t>(layers, 4)), true);
        if (!big) {
            std::fprintf(stderr, "kbp-memory-bench: %s\n", big.error().text().c_str());
            return 2;
        }
        const std::string file = dir + "/plan-" + std::to_string(target) + ".json";
        std::string text = kbp::schema::write_blueprint(*big, {.pretty = false});
        if (auto s = kbp::write_file_atomic(file, text); !s) {
            std::fprintf(stderr, "kbp-memory-bench: %s\n", s.error().text().c_str());
            return 2;
        }
        const double file_bytes = static_cast<double>(text.size());
        text.clear();
        text.shrink_to_fit();
        big = kbp::schema::Blueprint{};
        ChildFigures f;
        if (!run_child(self, file, f)) {
            std::fprintf(stderr, "kbp-memory-bench: loading %s failed\n", file.c_str());
            return 2;
        }
        std::filesystem::remove(file);
        const double held = static_cast<double>(f.after - f.before);
        const double per_node = held / static_cast<double>(f.nodes);
        if (first_per_node == 0) first_per_node = per_node;
        std::printf("%10lld %12.1f %12.1f %14.0f %12.2f %12.2f %9.2fx\n", f.nodes, file_bytes / 1e6, held / 1e6, per_node, held / file_bytes,
                    static_cast<double>(f.peak) / file_bytes, per_node / first_per_node);
    }
    std::filesystem::remove_all(dir);
    return 0;
}
