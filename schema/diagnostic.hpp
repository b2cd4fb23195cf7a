// A problem found in a blueprint: where (a JSON pointer into the document) and what.
#pragma once

#include <string>
#include <vector>

#include "schema/message_text.hpp"

namespace kbp::schema {

struct Diagnostic {
    std::string pointer;  // "/edges/12/bytes_per_token"
    std::string message;
};

// Collects diagnostics up to a cap, counting the rest (a broken file can have thousands). What is
// kept is printable (message_text.hpp): an id's escape sequences or 50 MB never reach a terminal.
class Diagnostics {
public:
    explicit Diagnostics(std::size_t cap = 10000) : cap_(cap) {}
    void add(std::string pointer, std::string message) {
        if (items_.size() < cap_) items_.push_back({printable(pointer), printable(message)});
        ++total_;
    }
    const std::vector<Diagnostic>& items() const { return items_; }
    std::size_t total() const { return total_; }
    bool empty() const { return total_ == 0; }
    bool full() const { return items_.size() >= cap_; }

private:
    std::size_t cap_;
    std::size_t total_ = 0;
    std::vector<Diagnostic> items_;
};

}  // namespace kbp::schema
