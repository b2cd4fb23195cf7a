// The one filter every message kbp prints about its input goes through (Error::text and
// Diagnostics::add call it): the input's own bytes (ids, names, paths) reach a terminal only as
// text that cannot drive it and that stays one line of sensible length.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kbp {

// The longest quoted value (or stretch between quotes) a message shows in full: long enough for
// two file paths and a command between them, short enough that a 50 MB id is one line.
inline constexpr std::size_t max_shown_value_bytes = 1024;

// `text` safe to print: control characters (ESC, BEL, CR, newline, DEL, and the C1 controls
// U+0080-U+009F) and bytes that are not UTF-8 appear as \x1b, \xff, \u009b; and every stretch
// between quote marks (' or ") longer than max_shown_value_bytes keeps its first
// `max_shown_value_bytes / 2` bytes and ends in "…(52,428,800 bytes)", its whole length.
// Text that needs neither comes back unchanged.
std::string printable(std::string_view text);

}  // namespace kbp
