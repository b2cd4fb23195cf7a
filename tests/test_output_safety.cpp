// Output under faults, through the real kbp binary: a kill while writing leaves no temporary file;
// -o onto a device, a FIFO or a symlink writes into it or through it; a replaced file keeps its
// mode; hostile ids (a trailing backslash, 50 MB, escape sequences) give parseable DOT and short,
// inert messages. Each case checks the exit status, stdout and stderr.
#include <catch2/catch.hpp>

#include <graphviz/cgraph.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_runner.hpp"
#include "schema/writer.hpp"
#include "support.hpp"

using namespace kbp;
using test::kbp_run;
using test::quote;
namespace fs = std::filesystem;

extern char** environ;

namespace {

// The temporary files (".NAME.tmp.XXXXXX") in `dir`, which a running kbp may be creating and removing.
std::vector<std::string> leftovers(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().filename().string().find(".tmp.") != std::string::npos) out.push_back(it->path().string());
    return out;
}

mode_t mode_of(const std::string& path) {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_mode;
}

// The seed's templates over `layers` layers, flat (about 16,000 nodes for 400: a write of ~20 MB).
std::string large_plan(const test::TempDir& dir, std::size_t layers) {
    std::string path = dir.file("large.json");
    test::spit(path, schema::write_blueprint(test::seed_over_layers(layers, true)));
    return path;
}

// Starts `kbp ARGS` with its stdout and stderr going to `out` and `err`.
pid_t spawn_kbp(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
    std::vector<char*> argv{const_cast<char*>(KBP_CLI_PATH)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, KBP_CLI_PATH, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE(rc == 0);
    return pid;
}

// Waits up to `limit` for a temporary file of `target` to appear; false when the child ended first.
bool wait_for_temp(const std::string& dir, pid_t pid, std::chrono::milliseconds limit) {
    auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
        if (!leftovers(dir).empty()) return true;
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) return false;  // reaped: the caller must not wait again
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return false;
}

// `kbp fmt ... -o OUT` that worked says nothing: exit 0, stdout and stderr empty.
void expect_quiet_success(const test::Run& r) {
    INFO(test::show(r));
    CHECK(r.exit == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
}

// What `kbp fmt SEED` writes to standard output: what every -o below must receive.
const std::string& formatted_seed() {
    static const std::string text = [] {
        test::TempDir dir;
        auto r = kbp_run(dir, "fmt " + test::seed_arg());
        REQUIRE(r.exit == 0);
        return r.out;
    }();
    return text;
}

}  // namespace

TEST_CASE("output safety: SIGTERM or SIGINT during kbp fmt leaves no temporary file", "[cli][safety]") {
    test::TempDir dir;
    test::TempDir out_dir;
    std::string plan = large_plan(dir, 300);
    std::string out = out_dir.file("out.json");
    auto reference = kbp_run(dir, "fmt " + quote(plan));
    REQUIRE(reference.exit == 0);
    REQUIRE(reference.out.size() > (8u << 20));

    int runs = 20, killed_while_writing = 0, finished = 0;
    for (int i = 0; i < runs; ++i) {
        int sig = i % 2 ? SIGINT : SIGTERM;
        INFO("run " << i << ", signal " << sig);
        pid_t pid = spawn_kbp({"fmt", plan, "-o", out}, dir.file("stdout.txt"), dir.file("stderr.txt"));
        // Most runs are killed while the temporary file is being written (the window a signal
        // used to leave it behind in), a little later each time; every fourth at a fixed delay
        // from the start instead, wherever that falls.
        bool reaped = false;
        if (i % 4 == 3) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10 * i));
        } else {
            bool seen = wait_for_temp(out_dir.path(), pid, std::chrono::seconds(5));
            reaped = !seen;
            if (seen) std::this_thread::sleep_for(std::chrono::microseconds(150 * (i % 8)));
        }
        int status = 0;
        if (!reaped) {
            bool present = !leftovers(out_dir.path()).empty();
            ::kill(pid, sig);
            REQUIRE(::waitpid(pid, &status, 0) == pid);
            if (WIFSIGNALED(status)) {
                // The handler removed the file, then died of the same signal (not an exit code).
                CHECK(WTERMSIG(status) == sig);
                killed_while_writing += present;
            } else {
                CHECK(WEXITSTATUS(status) == 0);  // finished before the signal came
                ++finished;
            }
        } else {
            ++finished;
        }
        CHECK(leftovers(out_dir.path()).empty());
        CHECK(test::slurp(dir.file("stdout.txt")).empty());
        CHECK(test::slurp(dir.file("stderr.txt")).empty());  // a kill is not an error kbp reports
        // The target is either absent or whole: never a prefix of the output.
        if (fs::exists(out)) CHECK(test::slurp(out) == reference.out);
    }
    INFO(killed_while_writing << " of " << runs << " kills landed while the temporary file existed; " << finished << " runs finished");
    // Enough kills must have hit the window for this test to mean anything.
    CHECK(killed_while_writing >= runs / 3);
}

TEST_CASE("output safety: -o onto a character device writes into it and never replaces it", "[cli][safety]") {
    test::TempDir dir;
    // A null device of the test's own (mknod needs root); else the system's /dev/null.
    std::string device = dir.file("null");
    if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) device = "/dev/null";
    auto r = kbp_run(dir, "fmt " + test::seed_arg() + " -o " + quote(device));
    expect_quiet_success(r);
    CHECK(S_ISCHR(mode_of(device)));
    CHECK(leftovers(fs::path(device).parent_path().string()).empty());
}

TEST_CASE("output safety: -o onto a FIFO writes into it", "[cli][safety]") {
    test::TempDir dir;
    std::string fifo = dir.file("pipe");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::string received;
    std::thread reader([&] { received = test::slurp(fifo); });  // opening blocks until kbp opens it
    auto r = kbp_run(dir, "fmt " + test::seed_arg() + " -o " + quote(fifo));
    reader.join();
    expect_quiet_success(r);
    CHECK(received == formatted_seed());
    CHECK(S_ISFIFO(mode_of(fifo)));
    CHECK(leftovers(dir.path()).empty());
}

TEST_CASE("output safety: -o onto a symlink writes through to its target", "[cli][safety]") {
    test::TempDir dir;
    fs::create_directory(dir.file("real"));
    std::string target = dir.file("real/plan.json");
    test::spit(target, "old\n");
    REQUIRE(::chmod(target.c_str(), 0600) == 0);
    fs::create_symlink("real/plan.json", dir.file("link.json"));
    auto r = kbp_run(dir, "fmt " + test::seed_arg() + " -o " + quote(dir.file("link.json")));
    expect_quiet_success(r);
    CHECK(fs::is_symlink(dir.file("link.json")));
    CHECK(fs::read_symlink(dir.file("link.json")) == "real/plan.json");
    CHECK(test::slurp(target) == formatted_seed());
    CHECK((mode_of(target) & 07777) == 0600);
    CHECK(leftovers(dir.path()).empty());
    CHECK(leftovers(dir.file("real")).empty());

    SECTION("a dangling link's target is created") {
        fs::create_symlink("real/new.json", dir.file("dangling.json"));
        auto d = kbp_run(dir, "fmt " + test::seed_arg() + " -o " + quote(dir.file("dangling.json")));
        INFO(test::show(d));
        CHECK(d.exit == 0);
        CHECK(d.err.empty());
        CHECK(fs::is_symlink(dir.file("dangling.json")));
        CHECK(test::slurp(dir.file("real/new.json")) == formatted_seed());
    }
    SECTION("a loop of links is refused, naming the file") {
        fs::create_symlink("loop-b", dir.file("loop-a"));
        fs::create_symlink("loop-a", dir.file("loop-b"));
        auto d = kbp_run(dir, "fmt " + test::seed_arg() + " -o " + quote(dir.file("loop-a")));
        CHECK(d.exit == 3);
        CHECK(d.out.empty());
        CHECK_THAT(d.err, Catch::StartsWith("kbp fmt: error: " + dir.file("loop-a") + ": ") &&
                              Catch::Contains("symbolic links"));
        CHECK(fs::is_symlink(dir.file("loop-a")));
    }
}

TEST_CASE("output safety: a replaced file keeps its mode; a new one follows the umask", "[cli][safety]") {
    test::TempDir dir;
    std::string secret = dir.file("secret.json");
    test::spit(secret, "old\n");
    REQUIRE(::chmod(secret.c_str(), 0600) == 0);
    auto r = kbp_run(dir, "fmt " + test::seed_arg() + " -o " + quote(secret));
    expect_quiet_success(r);
    CHECK(S_ISREG(mode_of(secret)));
    CHECK((mode_of(secret) & 07777) == 0600);
    CHECK(test::slurp(secret) == formatted_seed());

    // A new file: 0666 less the umask, as any program's (the shell sets umask 027 for kbp alone).
    std::string fresh = dir.file("fresh.json"), err = dir.file("err.txt");
    int status = std::system(("umask 027 && " + quote(KBP_CLI_PATH) + " fmt " + test::seed_arg() + " -o " + quote(fresh) +
                              " 2>" + quote(err)).c_str());
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(test::slurp(err).empty());
    CHECK((mode_of(fresh) & 07777) == 0640);
    CHECK(leftovers(dir.path()).empty());
}

namespace {

// The seed with every node id ending in `suffix`, flat only (its views collapse it themselves).
std::string seed_with_id_suffix(const test::TempDir& dir, const std::string& suffix) {
    schema::Blueprint b = test::seed();
    for (auto& n : b.nodes) n.id += suffix;
    b.collapsed.reset();
    b.explain.reset();
    std::string path = dir.file("suffixed.json");
    test::spit(path, schema::write_blueprint(b));
    return path;
}

}  // namespace

TEST_CASE("output safety: ids ending in a backslash or holding quotes and control bytes give DOT that parses", "[cli][safety]") {
    test::TempDir dir;
    for (std::string suffix : {std::string("\\"), std::string("\\\""), std::string("\"\\\n\x1b[0m\\")}) {
        std::string plan = seed_with_id_suffix(dir, suffix);
        auto check = kbp_run(dir, "check " + quote(plan));
        REQUIRE(check.exit == 0);
        for (std::string view : {"flat --layers 3", "groups --layers 3", "collapsed"}) {
            INFO("suffix " << suffix << ", view " << view);
            auto r = kbp_run(dir, "export dot " + quote(plan) + " --view " + view);
            INFO(test::show(r));
            CHECK(r.exit == 0);
            CHECK(r.err.empty());
            CHECK(r.out.find('\x1b') == std::string::npos);  // no raw control byte in the file
            Agraph_t* g = agmemread(r.out.c_str());
            REQUIRE(g != nullptr);
            CHECK(agnnodes(g) > 20);
            // Every op kept its own node: as many distinct names as the unsuffixed plan has.
            auto plain = kbp_run(dir, "export dot " + test::seed_arg() + " --view " + view);
            Agraph_t* p = agmemread(plain.out.c_str());
            REQUIRE(p != nullptr);
            CHECK(agnnodes(g) == agnnodes(p));
            CHECK(agnedges(g) == agnedges(p));
            agclose(p);
            agclose(g);
        }
    }
}

TEST_CASE("output safety: a 50 MB id gives a short message", "[cli][safety]") {
    test::TempDir dir;
    std::string plan = dir.file("long.json");
    test::spit(plan, test::mutate_seed({{{"op", "replace"}, {"path", "/nodes/5/id"}, {"value", std::string(52428800, 'A')}}}));
    auto r = kbp_run(dir, "check " + quote(plan));
    CHECK(r.exit == 2);
    CHECK(r.out.empty());
    CHECK(r.err.size() < 2000);
    INFO(r.err);
    CHECK_THAT(r.err, Catch::Contains(plan + ": /nodes/5/id: id 'AAAA") && Catch::Contains("A…(52,428,800 bytes)'"));
}

TEST_CASE("output safety: escape sequences in input reach stderr escaped", "[cli][safety]") {
    test::TempDir dir;
    std::string plan = dir.file("esc.json");
    test::spit(plan, test::mutate_seed({{{"op", "replace"}, {"path", "/nodes/5/id"}, {"value", "x\x1b[31mRED\x1b]0;title\x07\r"}}}));
    auto r = kbp_run(dir, "check " + quote(plan));
    CHECK(r.exit == 2);
    CHECK(r.out.empty());
    INFO(r.err);
    CHECK_THAT(r.err, Catch::Contains("id 'x\\x1b[31mRED\\x1b]0;title\\x07\\x0d'"));
    CHECK(std::none_of(r.err.begin(), r.err.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 && c != '\n'; }));
}

TEST_CASE("output safety: a PNG too large for cairo is refused with its size and the cuts this plan has", "[cli][safety]") {
    test::TempDir dir;
    std::string plan = dir.file("llama.json"), png = dir.file("groups.png");
    auto planned = kbp_run(dir, "plan " + quote(test::source_dir() + "/samples/llama-3.1-8b/config.json") + " -o " + quote(plan));
    REQUIRE(planned.exit == 0);
    // 32 layers of groups, one above the other: ~47,000 px tall at 96 dpi.
    auto r = kbp_run(dir, "render " + quote(plan) + " --view groups -o " + quote(png));
    INFO(test::show(r));
    CHECK(r.exit == 4);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::StartsWith("kbp render: error: " + plan + ": the picture would be ") &&
                          Catch::Contains(" px, past the 32,767 px a PNG side can have") && Catch::Contains("--view collapsed") &&
                          Catch::Contains("--layers") && Catch::Contains("--block attn") && Catch::Contains("SVG"));
    CHECK(r.err.find("dsa") == std::string::npos);  // GLM's block, which a Llama plan does not have
    CHECK(r.err.find("too large for cairo") == std::string::npos);  // Graphviz's own warning never shows
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(png));
    CHECK(leftovers(dir.path()).empty());
    // The same view as SVG has no such limit; a cut of it fits a PNG.
    expect_quiet_success(kbp_run(dir, "render " + quote(plan) + " --view groups -o " + quote(dir.file("groups.svg"))));
    expect_quiet_success(kbp_run(dir, "render " + quote(plan) + " --view groups --layers 3-7 -o " + quote(png)));
    CHECK(fs::file_size(png) > 1000);
}

TEST_CASE("output safety: check and collapse agree on a layer whose edges out carry two tensor names", "[cli][safety]") {
    // The seed, flat only, with one of the edges from layer 5's out node into layer 6 renamed:
    // the collapsed form records one tensor per layer boundary, so kbp collapse cannot take it.
    const auto& seed = test::seed();
    std::size_t renamed = 0;
    int crossing = 0;
    for (std::size_t i = 0; i < seed.edges.size() && !renamed; ++i) {
        const auto& e = seed.edges[i];
        if (seed.nodes[static_cast<std::size_t>(e.from)].layer == 5 && seed.nodes[static_cast<std::size_t>(e.to)].layer == 6 &&
            ++crossing == 2)
            renamed = i;
    }
    REQUIRE(renamed > 0);
    test::TempDir dir;
    std::string plan = dir.file("renamed.json");
    std::string pointer = "/edges/" + std::to_string(renamed) + "/id";
    test::spit(plan, test::mutate_seed({{{"op", "remove"}, {"path", "/collapsed"}},
                                        {{"op", "replace"}, {"path", pointer}, {"value", "l5.moe.renamed"}}}));
    auto check = kbp_run(dir, "check " + quote(plan));
    INFO(test::show(check));
    CHECK(check.exit == 2);
    CHECK(check.out.empty());
    CHECK(check.err == "kbp check: error: " + plan + ": " + pointer + ": tensor 'l5.moe.renamed' leaves layer 5, but /edges/" +
                           std::to_string(renamed - 1) + " names the tensor its producer sends out of it 'l5.moe.y' (one tensor leaves a layer or block from each node)\n");
    auto collapse = kbp_run(dir, "collapse " + quote(plan) + " -o " + quote(dir.file("c.json")));
    INFO(test::show(collapse));
    CHECK(collapse.exit == 2);
    CHECK(collapse.out.empty());
    CHECK_THAT(collapse.err, Catch::StartsWith("kbp collapse: error: " + plan + ": " + pointer + ": tensor 'l5.moe.renamed' leaves layer 5"));
    CHECK_FALSE(fs::exists(dir.file("c.json")));
}
