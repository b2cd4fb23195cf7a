// Regular expressions compiled once per process, keyed by their text. Compiling a std::regex
// costs far more than matching one, and the same few dozen patterns (recipes' and kernel
// tables' "re:" names, the data schemas' "pattern" keywords) are matched against every node of
// every arm: each is compiled the first time it is asked for, whichever thread asks, and kept.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>

namespace kbp::planner {

struct CompiledRegex {
    std::optional<std::regex> regex;  // nullopt: the text is not an ECMAScript regular expression
    std::string problem;              // then what std::regex said is wrong with it
};

// The compiled form of `text` (without any "re:" prefix). The reference stays valid for the
// life of the process.
const CompiledRegex& compiled_regex(std::string_view text);

}  // namespace kbp::planner
