// Building exporter views in tests: a view that must succeed (the error is shown when not).
#pragma once

#include <catch2/catch.hpp>

#include <stb_image.h>

#include <string>
#include <string_view>
#include <vector>

#include "exporters/view.hpp"

namespace kbp::test {

inline exporters::View must_view(const schema::Blueprint& b, exporters::ViewOptions o) {
    auto v = exporters::build_view(b, o);
    INFO((v ? std::string() : v.error().text()));
    REQUIRE(v.ok());
    return std::move(*v);
}

// A decoded PNG (stb_image), RGBA.
struct Image {
    int width = 0, height = 0;
    std::vector<unsigned char> rgba;
    // Pixels of exactly the colour "#rrggbb", fully opaque.
    std::size_t pixels_of(std::string_view hex) const {
        auto channel = [&](int at) { return static_cast<unsigned char>(std::stoi(std::string(hex.substr(at, 2)), nullptr, 16)); };
        unsigned char r = channel(1), g = channel(3), b = channel(5);
        std::size_t n = 0;
        for (std::size_t i = 0; i + 3 < rgba.size(); i += 4)
            n += rgba[i] == r && rgba[i + 1] == g && rgba[i + 2] == b && rgba[i + 3] == 255;
        return n;
    }
};

inline Image decode_png(const std::string& png) {
    Image im;
    int channels = 0;
    unsigned char* data = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()), static_cast<int>(png.size()),
                                                &im.width, &im.height, &channels, 4);
    INFO((data ? "" : stbi_failure_reason()));
    REQUIRE(data != nullptr);
    im.rgba.assign(data, data + static_cast<std::size_t>(im.width) * static_cast<std::size_t>(im.height) * 4);
    stbi_image_free(data);
    return im;
}

}  // namespace kbp::test
