// kbp's error type (schema/result.hpp): every code's exit status, context gained on the way up,
// and a Result that cannot be read on its wrong side or dropped unnoticed.
#include <catch2/catch.hpp>

#include <csignal>
#include <set>
#include <string>
#include <type_traits>

#include <sys/wait.h>
#include <unistd.h>

#include "schema/result.hpp"

using namespace kbp;

namespace {

// A helper that knows only where in its document a problem is, not which file it is reading.
Status check_layer_kind(int i, bool ok) {
    if (ok) return Ok{};
    return make_error(ErrorCode::invalid_input, "/layer_types/" + std::to_string(i), "expected a layer kind name");
}

// Its caller, which knows the file.
Status check_config(const std::string& file, int bad) {
    for (int i = 0; i < 8; ++i)
        if (auto s = check_layer_kind(i, i != bad).context(file); !s) return s;
    return Ok{};
}

// How `misuse` ends in a child process: the signal that stopped it and what it wrote on stderr.
struct Death {
    int signal = 0;
    std::string err;
};

template <class F> Death misuse_output(F misuse) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // The child dies of the misuse: without Catch's handler reporting it as a failed test.
        std::signal(SIGABRT, SIG_DFL);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        int v = misuse();
        _exit(v == 12345 ? 1 : 0);  // not reached when the misuse aborts
    }
    close(fds[1]);
    Death d;
    char buf[512];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) d.err.append(buf, static_cast<std::size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) d.signal = WTERMSIG(status);
    return d;
}

}  // namespace

TEST_CASE("result: every error code has its documented exit status", "[result]") {
    // The statuses the README and `kbp --help` promise.
    CHECK(exit_code(ErrorCode::usage) == 1);
    CHECK(exit_code(ErrorCode::invalid_input) == 2);
    CHECK(exit_code(ErrorCode::output) == 3);
    CHECK(exit_code(ErrorCode::unsupported) == 4);
    CHECK(exit_code(ErrorCode::internal) == 70);
    // Distinct, and none is success.
    std::set<int> seen;
    for (auto c : {ErrorCode::usage, ErrorCode::invalid_input, ErrorCode::output, ErrorCode::unsupported, ErrorCode::internal}) {
        CHECK(exit_code(c) != 0);
        CHECK(seen.insert(exit_code(c)).second);
    }
    static_assert(exit_code(ErrorCode::internal) == 70, "the mapping is usable at compile time");
}

TEST_CASE("result: a caller adds the file before a helper's JSON pointer", "[result]") {
    auto s = check_config("config.json", 7);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::invalid_input);
    CHECK(s.error().where == "config.json: /layer_types/7");
    CHECK(s.error().text() == "config.json: /layer_types/7: expected a layer kind name");
    CHECK(check_config("config.json", -1).ok());  // a value passes through untouched

    // Context chains outward, each caller adding what it knows.
    Error e = make_error(ErrorCode::unsupported, "/arms", "decode only").with_context("targets/x.json").with_context("--target");
    CHECK(e.text() == "--target: targets/x.json: /arms: decode only");
    CHECK(e.code == ErrorCode::unsupported);
    // An error with no place gets the context as its place; an empty context adds nothing.
    CHECK(make_error(ErrorCode::output, "", "disk full").with_context("out.json").text() == "out.json: disk full");
    CHECK(make_error(ErrorCode::output, "a", "b").with_context("").text() == "a: b");
    // at() reports an error where a name was given instead of where it was looked up.
    Error moved = make_error(ErrorCode::invalid_input, "fp9", "no recipes file 'fp9'").at("--recipe");
    CHECK(moved.text() == "--recipe: no recipes file 'fp9'");
}

TEST_CASE("result: a Result gives its value or its error, never both", "[result]") {
    Result<int> v = 3;
    REQUIRE(v.ok());
    CHECK(*v == 3);
    CHECK(v.value() == 3);
    const Result<std::string> c = std::string("abc");
    CHECK(c->size() == 3);  // const access
    Result<int> e = make_error(ErrorCode::usage, "--rows", "takes a whole number");
    CHECK_FALSE(e.ok());
    CHECK_FALSE(static_cast<bool>(e));
    CHECK(e.error().text() == "--rows: takes a whole number");
    STATIC_REQUIRE(std::is_same_v<decltype(std::move(e).context("x")), Result<int>>);
}

TEST_CASE("result: reading the wrong side of a Result aborts with the hidden error", "[result]") {
    // A bug in kbp, never input: the process stops with the error's text on stderr instead of
    // throwing bad_variant_access (which main would report without the error it hid).
    auto died = misuse_output([] {
        Result<int> e = make_error(ErrorCode::invalid_input, "config.json: /layer_types/7", "expected a layer kind name");
        return *e;
    });
    CHECK(died.signal == SIGABRT);
    CHECK_THAT(died.err, Catch::Contains("value() of an error: config.json: /layer_types/7: expected a layer kind name"));
    auto died2 = misuse_output([] {
        Result<int> v = 1;
        return static_cast<int>(v.error().message.size());
    });
    CHECK(died2.signal == SIGABRT);
    CHECK_THAT(died2.err, Catch::Contains("error() of a value"));
    // Dropping a Result is refused at compile time when warnings are errors: see
    // tests/compile_fail/discarded_result.cpp and its two ctest cases.
}
