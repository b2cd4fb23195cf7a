// Files in and out: atomic writes that leave nothing half-written, and reads that name the file.
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>

#include <sys/resource.h>
#include <sys/stat.h>

#include "schema/file_io.hpp"
#include "schema/reader.hpp"
#include "support.hpp"

using namespace kbp;
namespace fs = std::filesystem;

namespace {
std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}
}  // namespace

TEST_CASE("file_io: write_file_atomic writes the bytes and leaves no temporary file", "[file_io]") {
    test::TempDir dir;
    std::string path = dir.file("out.json");
    std::string content = std::string("{\"a\": 1}\n") + std::string(1, '\0') + "\xff\xfe tail";
    auto s = write_file_atomic(path, content);
    REQUIRE(s.ok());
    CHECK(test::slurp(path) == content);
    CHECK(entries(dir.path()) == std::vector<std::string>{"out.json"});
    // A new file gets 0666 less the umask, as any program's files do (0644 under umask 022).
    mode_t umask_now = ::umask(0);
    ::umask(umask_now);
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == (0666 & ~umask_now));

    SECTION("an empty content gives an empty file") {
        REQUIRE(write_file_atomic(path, "").ok());
        CHECK(test::slurp(path).empty());
        CHECK(entries(dir.path()) == std::vector<std::string>{"out.json"});
    }
    SECTION("a large content") {
        std::string big(3 << 20, 'x');
        REQUIRE(write_file_atomic(path, big).ok());
        CHECK(test::slurp(path) == big);
    }
    SECTION("a relative path lands in the current folder") {
        auto cwd = fs::current_path();
        fs::current_path(dir.path());
        auto r = write_file_atomic("relative.txt", "r");
        fs::current_path(cwd);
        REQUIRE(r.ok());
        CHECK(test::slurp(dir.file("relative.txt")) == "r");
        CHECK(entries(dir.path()) == std::vector<std::string>{"out.json", "relative.txt"});
    }
}

TEST_CASE("file_io: write_file_atomic replaces the target by rename", "[file_io]") {
    test::TempDir dir;
    std::string path = dir.file("plan.json");
    test::spit(path, "old content\n");
    struct stat before {};
    REQUIRE(::stat(path.c_str(), &before) == 0);
    // A reader that opened the old file keeps seeing the old bytes: the file was replaced, not
    // truncated and rewritten in place.
    std::ifstream reader(path, std::ios::binary);
    REQUIRE(reader.good());

    REQUIRE(write_file_atomic(path, "new content, longer than the old one\n").ok());
    CHECK(test::slurp(path) == "new content, longer than the old one\n");
    std::string seen((std::istreambuf_iterator<char>(reader)), std::istreambuf_iterator<char>());
    CHECK(seen == "old content\n");
    struct stat after {};
    REQUIRE(::stat(path.c_str(), &after) == 0);
    CHECK(after.st_ino != before.st_ino);
    CHECK(entries(dir.path()) == std::vector<std::string>{"plan.json"});
}

TEST_CASE("file_io: write_file_atomic fails cleanly", "[file_io]") {
    test::TempDir dir;
    SECTION("the folder does not exist") {
        std::string path = dir.file("no/such/folder/out.json");
        auto s = write_file_atomic(path, "content");
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().code == ErrorCode::output);
        CHECK(s.error().where == path);
        CHECK_FALSE(s.error().message.empty());
        CHECK_FALSE(fs::exists(dir.file("no")));
        CHECK(entries(dir.path()).empty());
    }
    SECTION("the target is a folder") {
        fs::create_directory(dir.file("sub"));
        test::spit(dir.file("sub/inside.txt"), "keep");
        auto s = write_file_atomic(dir.file("sub"), "content");
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().where == dir.file("sub"));
        CHECK(fs::is_directory(dir.file("sub")));
        CHECK(test::slurp(dir.file("sub/inside.txt")) == "keep");
        CHECK(entries(dir.path()) == std::vector<std::string>{"sub"});
    }
    SECTION("the disk fills up midway: no partial target, no temporary file, the old file intact") {
        std::string path = dir.file("out.json");
        test::spit(path, "previous\n");
        // A file size limit makes write() fail after 4 KB; run in a child so the limit stays there.
        auto run = test::run_isolated([path] {
            std::signal(SIGXFSZ, SIG_IGN);
            rlimit limit{4096, 4096};
            ::setrlimit(RLIMIT_FSIZE, &limit);
            auto s = write_file_atomic(path, std::string(1 << 20, 'y'));
            return s.ok() ? std::string("ok") : "error " + s.error().text();
        });
        INFO(run.describe());
        REQUIRE(run.finished);
        CHECK_THAT(run.output, Catch::StartsWith("error " + path));
        CHECK(test::slurp(path) == "previous\n");
        CHECK(entries(dir.path()) == std::vector<std::string>{"out.json"});
    }
}

TEST_CASE("file_io: read_file", "[file_io]") {
    test::TempDir dir;
    SECTION("returns the exact bytes") {
        std::string bytes = std::string("a\0b\xc3\x28\n", 6);
        test::spit(dir.file("x.bin"), bytes);
        auto r = read_file(dir.file("x.bin"));
        REQUIRE(r.ok());
        CHECK(*r == bytes);
    }
    SECTION("an empty file") {
        test::spit(dir.file("empty"), "");
        auto r = read_file(dir.file("empty"));
        REQUIRE(r.ok());
        CHECK(r->empty());
    }
    SECTION("a directory fails with a message naming it") {
        auto r = read_file(dir.path());
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::invalid_input);
        CHECK(r.error().where == dir.path());
        CHECK_THAT(r.error().text(), Catch::StartsWith(dir.path()));
        CHECK_THAT(r.error().message, Catch::Contains("directory"));
    }
    SECTION("a missing file fails with a message naming it") {
        auto r = read_file(dir.file("missing.json"));
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().where == dir.file("missing.json"));
        CHECK_FALSE(r.error().message.empty());
    }
    SECTION("load_blueprint passes the file's errors on") {
        auto r = schema::load_blueprint(dir.path());
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().where == dir.path());
        CHECK_THAT(r.error().message, Catch::Contains("directory"));
    }
}
