// Files in and out. Reading names the file in its errors; writing never leaves a half-written
// output: it writes a temporary file beside the target and renames it over the target.
#pragma once

#include <string>
#include <string_view>

#include "result.hpp"

namespace kbp {

// The whole file at `path`, or "-" for standard input. Refuses directories.
Result<std::string> read_file(const std::string& path);

// Writes `content` to `path` atomically; "-" writes to standard output.
Status write_file_atomic(const std::string& path, std::string_view content);

}  // namespace kbp
