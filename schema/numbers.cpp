#include "schema/numbers.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace kbp::schema {

std::string with_commas(std::int64_t v) {
    std::string digits = std::to_string(v < 0 ? -v : v), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return v < 0 ? "-" + out : out;
}

std::string megabytes(double bytes) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
    return buf;
}

std::string mebibytes(double bytes) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
    return buf;
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::optional<double> parse_number(std::string_view text) {
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<double> parse_bytes(std::string_view text) {
    for (auto [suffix, factor] : {std::pair{std::string_view("GiB"), 1073741824.0}, {"MiB", 1048576.0}, {"GB", 1e9}, {"MB", 1e6}, {"B", 1.0}})
        if (text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix) {
            auto v = parse_number(text.substr(0, text.size() - suffix.size()));
            if (!v) return std::nullopt;
            return *v * factor;
        }
    return parse_number(text);
}

}  // namespace kbp::schema
