#include "support.hpp"

#include "schema/json_convert.hpp"

#include <map>
#include <stdexcept>

#include "planner/plan.hpp"
#include "schema/synthetic.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "schema/reader.hpp"

namespace kbp::test {

std::string seed_path() { return KBP_SEED_PATH; }
std::string corpus_dir() { return KBP_CORPUS_DIR; }
std::string source_dir() { return KBP_SOURCE_DIR; }

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot create " + path);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

const std::string& seed_text() {
    static const std::string text = slurp(seed_path());
    return text;
}

const Blueprint& seed() {
    static const Blueprint b = [] {
        auto r = schema::load_blueprint(seed_path());
        if (!r) throw std::runtime_error("the seed does not load: " + r.error().text());
        return std::move(*r);
    }();
    return b;
}

const OJson& seed_json() {
    static const OJson j = OJson::parse(seed_text());
    return j;
}

std::string mutate_seed(const OJson& ops) {
    OJson doc = seed_json();
    doc.patch_inplace(ops);
    return doc.dump();
}

bool has_pointer(const schema::Diagnostics& d, const std::string& pointer) {
    for (const auto& item : d.items())
        if (item.pointer == pointer) return true;
    return false;
}

std::string list_diagnostics(const schema::Diagnostics& d, std::size_t max) {
    std::string out = std::to_string(d.total()) + " diagnostic(s)";
    std::size_t i = 0;
    for (const auto& item : d.items()) {
        if (i++ == max) {
            out += "\n  ...";
            break;
        }
        out += "\n  " + item.pointer + ": " + item.message;
    }
    return out;
}

// ---- comparison -----------------------------------------------------------------------------


std::string show(const schema::JsonValue& v) {
    std::string s = schema::to_ordered_json(v).dump();
    if (s.size() > 200) s = s.substr(0, 200) + "...";
    return s;
}

std::string Diff::text(const schema::Precision& p) {
    return "{weight " + text(p.weight) + ", activation " + text(p.activation) + ", output " +
           (p.output ? "'" + schema::formats_name(*p.output) + "'" : "null") + (p.extras.empty() ? "" : ", +extras") + "}";
}

std::string Diff::text(const schema::EdgeDetail& d) {
    return "{id '" + d.id + "', rows " + text(d.rows) + ", dim " + text(d.dim) + ", dim_value " + std::to_string(d.dim_value) +
           ", bytes_per_token " + text(d.bytes_per_token) + ", requant " + text(d.requant) + "}";
}

std::string Diff::text(const schema::TemplateGroup& g) {
    return "{rule '" + g.rule + "', kernels " + text(g.kernels) + ", where " + text(g.where) + ", numerics '" + g.numerics +
           "', compute " + text(g.compute) + "}";
}

void Diff::add(const std::string& where, const std::string& a, const std::string& b) {
    ++total_;
    if (diffs_.size() < 200) diffs_.push_back(where + ": " + a + " != " + b);
}

std::string Diff::report(std::size_t max) const {
    std::string out = std::to_string(total_) + " difference(s) in " + std::to_string(compared_) + " compared fields";
    for (std::size_t i = 0; i < diffs_.size() && i < max; ++i) out += "\n  " + diffs_[i];
    if (total_ > max) out += "\n  ...";
    return out;
}

// Every record is compared member by member from its table (record_fields.hpp).
void compare(Diff& d, const std::string& at, const schema::Node& a, const schema::Node& b) { compare_record(d, at, a, b); }
void compare(Diff& d, const std::string& at, const schema::Edge& a, const schema::Edge& b) { compare_record(d, at, a, b); }
void compare(Diff& d, const std::string& at, const schema::Group& a, const schema::Group& b) { compare_record(d, at, a, b); }
void compare(Diff& d, const std::string& at, const schema::Layer& a, const schema::Layer& b) { compare_record(d, at, a, b); }
void compare(Diff& d, const std::string& at, const schema::Template& a, const schema::Template& b) {
    d.field(at + "/(name)", a.name, b.name);
    compare_record(d, at, a, b);
}
void compare(Diff& d, const std::string& at, const schema::Collapsed& a, const schema::Collapsed& b) { compare_record(d, at, a, b); }
void compare(Diff& d, const std::string& at, const schema::Explain& a, const schema::Explain& b) { compare_record(d, at, a, b); }
void compare(Diff& d, const std::string& at, const schema::Provenance& a, const schema::Provenance& b) { compare_record(d, at, a, b); }

void compare(Diff& d, const Blueprint& a, const Blueprint& b) {
    compare_record(d, "", a, b);
    d.field("/(collapsed_only)", a.collapsed_only, b.collapsed_only);
}

// ---- processes and files --------------------------------------------------------------------

TempDir::TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kbp-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

bool built_with_sanitizers() {
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

std::string Isolated::describe() const {
    if (timed_out) return "the call did not finish in time (hang)";
    if (signal) return std::string("the call crashed with signal ") + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
    if (!finished) return "the call ended with exit status " + std::to_string(exit_code) + ": " + output;
    return "finished: " + output;
}

Isolated run_isolated(const std::function<std::string()>& call, int timeout_seconds, std::size_t memory_limit_mb) {
    std::fflush(nullptr);
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        ::close(fds[0]);
        // Let a crash end the child plainly (Catch's handlers would report it as a test
        // failure from inside the child).
        for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGILL, SIGBUS, SIGTERM}) std::signal(sig, SIG_DFL);
        // Bound the memory the call may add. RLIMIT_DATA (private writable mappings, Linux
        // 4.7+) is set above what the process already has, so it also works under ASan,
        // whose shadow memory would trip an address-space limit at once.
        std::size_t data_kb = 0;
        if (std::FILE* status = std::fopen("/proc/self/status", "r")) {
            char line[256];
            while (std::fgets(line, sizeof line, status))
                if (std::sscanf(line, "VmData: %zu kB", &data_kb) == 1) break;
            std::fclose(status);
        }
        rlim_t bytes = static_cast<rlim_t>(data_kb) * 1024 + (static_cast<rlim_t>(memory_limit_mb) << 20);
        rlimit limit{bytes, bytes};
        ::setrlimit(RLIMIT_DATA, &limit);
        std::string out;
        int status = 0;
        try {
            out = call();
        } catch (const std::exception& e) {
            out = std::string("exception: ") + e.what();
            status = 3;
        } catch (...) {
            out = "unknown exception";
            status = 3;
        }
        const char* p = out.data();
        std::size_t left = out.size();
        while (left > 0) {
            ssize_t w = ::write(fds[1], p, left);
            if (w <= 0) break;
            p += w;
            left -= static_cast<std::size_t>(w);
        }
        ::close(fds[1]);
        ::_exit(status);
    }
    ::close(fds[1]);
    Isolated result;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
    char buffer[4096];
    while (true) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            result.timed_out = true;
            ::kill(pid, SIGKILL);
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
        if (r < 0) continue;
        if (r == 0) continue;
        ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n <= 0) break;  // EOF: the child closed its end (or exited)
        result.output.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        result.signal = result.timed_out ? 0 : WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        result.exit_code = WEXITSTATUS(status);
        result.finished = !result.timed_out && result.exit_code == 0;
    }
    return result;
}

const Blueprint& glm_plan(const std::string& arm, std::int64_t rows) {
    static std::map<std::pair<std::string, std::int64_t>, Blueprint> plans;
    auto it = plans.find({arm, rows});
    if (it != plans.end()) return it->second;
    planner::PlanRequest r;
    r.config_path = source_dir() + "/samples/glm-5.3-flash/config.json";
    r.arm = arm;
    r.rows = rows;
    r.command = "kbp plan (test)";
    auto p = planner::make_plan(r);
    if (!p) throw std::runtime_error(p.error().text());
    return plans.emplace(std::make_pair(arm, rows), std::move(p->blueprint)).first->second;
}

Blueprint seed_over_layers(std::size_t layers, bool expand) {
    auto b = schema::relayout(seed(), schema::glm_layout(layers), expand);
    if (!b) throw std::runtime_error(b.error().text());
    return std::move(*b);
}

}  // namespace kbp::test
