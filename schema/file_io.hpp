// Files in and out. Reading names the file in its errors; writing never leaves a half-written
// output: it writes a temporary file beside the target and renames it over the target.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "result.hpp"

namespace kbp {

// The whole file at `path`, or "-" for standard input. Refuses directories.
Result<std::string> read_file(const std::string& path);

// At most the first `bytes` bytes of the regular file at `path` ("" when it cannot be read): to
// tell what a file is before reading all of it.
std::string read_file_head(const std::string& path, std::size_t bytes);

// Writes `content` to `path` atomically; "-" writes to standard output.
//   a file (or none yet)  a temporary file beside it, renamed over it: readers see the old or the
//                         new bytes, never half. The new file keeps the old one's permissions;
//                         a new one gets 0666 less the umask. SIGINT, SIGTERM or SIGHUP meanwhile
//                         removes the temporary file (temp_cleanup.hpp).
//   a symlink             written through: the link stays, its target is replaced as above (a
//                         dangling link's target is created).
//   a character device    written into directly, never replaced (-o /dev/null, -o /dev/stderr);
//   or a FIFO             so are FIFOs. Other special files and folders are refused.
Status write_file_atomic(const std::string& path, std::string_view content);

// The same, for output made a piece at a time (a plan of a million nodes is written without its
// whole text in memory): `produce` hands each piece to the sink it is given, in order, and
// returns the first error (a sink's, or its own). Any error leaves the target untouched.
using OutputSink = std::function<Status(std::string_view)>;
Status write_file_atomic(const std::string& path, const std::function<Status(const OutputSink&)>& produce);

}  // namespace kbp
