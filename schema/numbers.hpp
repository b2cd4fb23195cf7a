// Numbers as people read them in kbp's reports: "41,943,040", "41.9 MB", "40.0 MiB".
#pragma once

#include <cstdint>
#include <string>

namespace kbp::schema {

std::string with_commas(std::int64_t v);  // 41943040 -> "41,943,040"
std::string megabytes(double bytes);      // decimal: "41.9 MB"
std::string mebibytes(double bytes);      // binary: "40.0 MiB"
std::string fixed(double v, int decimals);  // fixed(2.345, 1) -> "2.3" (printf's %.*f: the same text on every run)

}  // namespace kbp::schema
