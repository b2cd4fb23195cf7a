// kbp's one error type. Library code returns Result<T>; only a program's main prints, and turns
// the error's code into an exit status (exit_code, below: the one place that mapping is made).
//
// Every error names where it happened: `where` is "FILE:LINE:COL" for a JSON syntax or
// encoding error, "FILE: /json/pointer" for a value that is wrong, or just "FILE" for a file
// that cannot be read. Errors gain context on the way up, never lose it: a helper that knows
// only a JSON pointer returns an error at "/layer_types/7", and its caller, which knows the
// file, adds it — `check(...).context("config.json")` gives "config.json: /layer_types/7: ...".
//
// A Result cannot be misused silently: Result, Status and Error are [[nodiscard]] (an ignored
// one is a compiler warning), and reading the value of an error, or the error of a value, is a
// bug in kbp that prints the error it hid and aborts, rather than throwing bad_variant_access.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "schema/message_text.hpp"

namespace kbp {

// What went wrong, as a program reports it; exit_code() maps each to the process's exit
// status. The values are not exit codes: compare codes, never cast them.
enum class ErrorCode {
    // The command line is wrong: an unknown option or subcommand, a missing argument, a flag's
    // value of the wrong kind (--rows x, --catalog naming no folder, --arm unknown).
    usage,
    // An input is not what it claims to be: JSON that does not parse, a blueprint, model config,
    // data file or ranges file that breaks its schema or its rules, a name that names nothing.
    invalid_input,
    // An output could not be written: a folder missing, no permission, a full disk.
    output,
    // Valid input kbp cannot serve: a model_type no architecture plans, a target with no kernel
    // for the model or the arm, a figure a target file leaves unknown.
    unsupported,
    // A bug in kbp: one of its own invariants broke (an exception reached main). Never input.
    internal,
};

// The exit status a program reports for `code`. kbp and kbp-view both use it; `kbp diff`
// alone follows diff(1) instead (cli/cmd_diff.cpp says how).
constexpr int exit_code(ErrorCode code) {
    switch (code) {
        case ErrorCode::usage: return 1;
        case ErrorCode::invalid_input: return 2;
        case ErrorCode::output: return 3;
        case ErrorCode::unsupported: return 4;
        case ErrorCode::internal: return 70;  // sysexits.h's EX_SOFTWARE
    }
    return 70;  // not reached: every code is above
}

struct [[nodiscard]] Error {
    ErrorCode code = ErrorCode::invalid_input;
    std::string where;    // "samples/x.json: /nodes/12/op" or "x.json:3:17"
    std::string message;  // "unknown op 'matmull' (did you mean 'matmul'?)"

    // "where: message" as printed: the input's bytes in it made safe to show (message_text.hpp).
    std::string text() const { return where.empty() ? printable(message) : printable(where) + ": " + printable(message); }

    // The same error seen from a caller that knows more of where it is: `context` goes before
    // `where` ("config.json" + "/layer_types/7" -> "config.json: /layer_types/7"), or becomes
    // the where of an error that had none. Code and message are kept.
    Error with_context(std::string_view context) const& { return Error(*this).with_context(context); }
    Error with_context(std::string_view context) && {
        if (!context.empty()) where = where.empty() ? std::string(context) : std::string(context) + ": " + where;
        return std::move(*this);
    }
    // The same error reported at `place` instead: a name a lookup did not find, shown where the
    // name was given (a flag, a config's hint) rather than where it was looked up.
    Error at(std::string place) const {
        Error e = *this;
        e.where = std::move(place);
        return e;
    }
};

namespace detail {
// Reading the wrong side of a Result: print what was hidden and stop (a bug, never input).
[[noreturn]] inline void result_misused(const char* what, const std::string& detail) {
    std::fprintf(stderr, "kbp: internal error: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
    std::abort();
}
}  // namespace detail

template <class T> class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::move(value)) {}
    Result(Error error) : v_(std::move(error)) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    // The value; on an error, a bug: aborts naming the error (check ok() first).
    T& value() {
        if (T* v = std::get_if<0>(&v_)) return *v;
        detail::result_misused("value() of an error", std::get<1>(v_).text());
    }
    const T& value() const {
        if (const T* v = std::get_if<0>(&v_)) return *v;
        detail::result_misused("value() of an error", std::get<1>(v_).text());
    }
    T& operator*() { return value(); }
    const T& operator*() const { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    // The error; on a value, a bug: aborts.
    const Error& error() const {
        if (const Error* e = std::get_if<1>(&v_)) return *e;
        detail::result_misused("error() of a value", "");
    }

    // A value passes through; an error gains `context` before its where (Error::with_context).
    Result context(std::string_view context) && {
        if (Error* e = std::get_if<1>(&v_)) *e = std::move(*e).with_context(context);
        return std::move(*this);
    }

private:
    std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

inline Error make_error(ErrorCode code, std::string where, std::string message) {
    return Error{code, std::move(where), std::move(message)};
}

}  // namespace kbp
