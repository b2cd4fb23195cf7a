// Building exporter views in tests: a view that must succeed (the error is shown when not).
#pragma once

#include <catch2/catch.hpp>

#include "exporters/view.hpp"

namespace kbp::test {

inline exporters::View must_view(const schema::Blueprint& b, exporters::ViewOptions o) {
    auto v = exporters::build_view(b, o);
    INFO((v ? std::string() : v.error().text()));
    REQUIRE(v.ok());
    return std::move(*v);
}

}  // namespace kbp::test
