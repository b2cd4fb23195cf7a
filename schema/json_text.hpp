// JSON text streamed straight into a string: the writer's output without a tree in between.
//
// The bytes are those nlohmann::json::dump() gives (the format kbp has always written, kept by
// tests/golden/): compact, or pretty with an indent of 2 and "key": value; empty containers as
// {} and []; strings escaped as nlohmann does without ensure_ascii (\" \\ \b \f \n \r \t, other
// control bytes as \u00xx, everything else verbatim); integers in decimal; doubles in
// nlohmann's shortest round-trip form ("0.1", "1.0", "1e+100", "-0.0").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/json_value.hpp"

namespace kbp::schema {

class JsonText {
public:
    explicit JsonText(bool pretty, std::size_t capacity = 0);

    void begin_object();
    void end_object();
    void begin_array();
    void end_array();
    void key(std::string_view name);  // inside an object, before its value

    void string(std::string_view s);
    void integer(std::int64_t i);
    void unsigned_integer(std::uint64_t u);
    void number(double d);
    void boolean(bool b);
    void null();
    void value(const JsonValue& v);  // any open value (point, extras), recursively
    void raw(std::string_view bytes);  // verbatim, outside the JSON grammar (the final newline)

    // The text so far; whole once every container is closed (less what drain() handed on).
    std::string_view view() const { return {out_.data(), used_}; }
    // The text so far as a string; the writer starts anew.
    std::string take();
    // Between records the writer calls drain(): once the text holds `threshold` bytes it goes to
    // the sink set here and the text starts anew, so a big document never sits in memory whole.
    void set_sink(std::function<void(std::string_view)> sink, std::size_t threshold) {
        sink_ = std::move(sink);
        threshold_ = threshold;
    }
    void drain() {
        if (sink_ && used_ >= threshold_) {
            sink_(view());
            used_ = 0;
        }
    }

private:
    // n writable bytes at the end of the text (used_ moves on only when they are written): the
    // writer stores bytes through a pointer instead of a std::string append per token, which
    // was most of its time.
    char* room(std::size_t n) {
        if (used_ + n > out_.size()) grow(n);
        return out_.data() + used_;
    }
    void grow(std::size_t n);
    void put(char c) { *room(1) = c; ++used_; }
    void put(std::string_view bytes);
    void quoted(std::string_view s);  // s as a JSON string literal
    void before_value();  // the separator and indent an array element needs
    void open(char bracket);
    void close(char bracket);
    void newline_indent(std::size_t depth);

    std::string out_;  // its size is the room made so far; the text is the first used_ bytes
    std::size_t used_ = 0;
    bool pretty_;
    bool after_key_ = false;        // the next value follows "key": on the same line
    std::vector<char> has_items_;  // one per open container: has it a member yet?
    std::function<void(std::string_view)> sink_;
    std::size_t threshold_ = 0;
};

}  // namespace kbp::schema
