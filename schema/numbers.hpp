// Numbers as people read them in kbp's reports: "41,943,040", "41.9 MB", "40.0 MiB"; and as
// they write them on a command line: "4.8", "40GB".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kbp::schema {

std::string with_commas(std::int64_t v);  // 41943040 -> "41,943,040"
std::string megabytes(double bytes);      // decimal: "41.9 MB"
std::string mebibytes(double bytes);      // binary: "40.0 MiB"
std::string fixed(double v, int decimals);  // fixed(2.345, 1) -> "2.3" (printf's %.*f: the same text on every run)

// The whole of `text` as a finite decimal number ("4.8", "1e3"), else nullopt.
std::optional<double> parse_number(std::string_view text);
// A size in bytes: "40GB", "512MB" (decimal), "38GiB", "1MiB" (binary), "2048B" or "2048".
std::optional<double> parse_bytes(std::string_view text);

}  // namespace kbp::schema
