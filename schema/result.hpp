// kbp's one error type. Library code returns Result<T>; only the CLI prints.
//
// Every error names where it happened: `where` is "FILE:LINE:COL" for a JSON syntax or
// encoding error, "FILE: /json/pointer" for a value that is wrong, or just "FILE" for a file
// that cannot be read. Errors gain context on the way up (with_context), never lose it.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace kbp {

enum class ErrorCode {
    usage = 1,          // bad command line (exit 1)
    invalid_input = 2,  // the input is not a valid blueprint / config (exit 2)
    output = 3,         // an output could not be written (exit 3)
    unsupported = 4,    // valid input the tool cannot serve (exit 4)
};

struct Error {
    ErrorCode code = ErrorCode::invalid_input;
    std::string where;    // "samples/x.json: /nodes/12/op" or "x.json:3:17"
    std::string message;  // "unknown op 'matmull' (did you mean 'matmul'?)"

    std::string text() const { return where.empty() ? message : where + ": " + message; }
};

template <class T> class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::move(value)) {}
    Result(Error error) : v_(std::move(error)) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<0>(v_); }
    const T& value() const { return std::get<0>(v_); }
    T& operator*() { return value(); }
    T* operator->() { return &value(); }
    const Error& error() const { return std::get<1>(v_); }

private:
    std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

inline Error make_error(ErrorCode code, std::string where, std::string message) {
    return Error{code, std::move(where), std::move(message)};
}

}  // namespace kbp
