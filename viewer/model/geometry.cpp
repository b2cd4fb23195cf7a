#include "viewer/model/geometry.hpp"

#include <cstdio>
#include <string>

namespace kbp::viewer {

Rgba parse_hex(std::string_view hex, std::uint8_t alpha) {
    auto digit = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    if (hex.size() != 7 || hex[0] != '#') return rgba(200, 200, 200, alpha);
    int v[6];
    for (int i = 0; i < 6; ++i)
        if ((v[i] = digit(hex[static_cast<std::size_t>(i) + 1])) < 0) return rgba(200, 200, 200, alpha);
    return rgba(static_cast<std::uint8_t>(v[0] * 16 + v[1]), static_cast<std::uint8_t>(v[2] * 16 + v[3]),
                static_cast<std::uint8_t>(v[4] * 16 + v[5]), alpha);
}

std::string hex_of(Rgba c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff);
    return buf;
}

Rgba with_alpha(Rgba c, std::uint8_t alpha) { return (c & 0x00ffffffu) | static_cast<Rgba>(alpha) << 24; }

}  // namespace kbp::viewer
