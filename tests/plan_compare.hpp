// Comparing two plans node by node, for the tests of a checkpoint's own precision (import) and of
// handing it on (export quant): the node of an id, its formats as text, and whether two plans lay
// every node out alike.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "schema/blueprint.hpp"

namespace kbp::test {

inline const schema::Node& node(const schema::Blueprint& b, const std::string& id) {
    for (const auto& n : b.nodes)
        if (n.id == id) return n;
    FAIL("no node " << id);
    return b.nodes.front();
}

// "fp8/channel x fp8/token": weights x activations, '-' for none.
inline std::string formats(const schema::Blueprint& b, const std::string& id) {
    const auto& p = node(b, id).precision;
    return std::string(p.weight ? p.weight->name() : "-") + " x " + std::string(p.activation ? p.activation->name() : "-");
}

// Every node's formats, kernel, steps and group the same, and every edge: the same layout.
inline void same_layout(const schema::Blueprint& a, const schema::Blueprint& b) {
    REQUIRE(a.nodes.size() == b.nodes.size());
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        INFO(a.nodes[i].id);
        CHECK(a.nodes[i].id == b.nodes[i].id);
        CHECK(a.nodes[i].precision == b.nodes[i].precision);
        CHECK(a.nodes[i].kernel == b.nodes[i].kernel);
        CHECK(a.nodes[i].steps == b.nodes[i].steps);
        CHECK(a.nodes[i].group == b.nodes[i].group);
    }
    CHECK(a.edges == b.edges);
}

}  // namespace kbp::test
