// What the inspector says about the selected op, edge or group: every field the file has for it
// (the writer's fields, so a field the format gains appears without a change here), its
// neighbours as links, its group, its family's description, numerics and maths from the plan's
// `explain`, the encodings of its formats, its roofline cost, and its changes in an open diff.
// Plain text in sections; the window draws them and turns links into buttons.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "diff/diff.hpp"
#include "viewer/model/document.hpp"

namespace kbp::viewer {

struct InspectorLine {
    std::string label;  // "kernel", "in", "math"
    std::string value;
    std::int64_t node = -1, edge = -1, group = -1;  // a link, when set
};

struct InspectorSection {
    std::string title;
    std::vector<InspectorLine> lines;
};

// `changes`: the node's (edge's, group's) entry in an open diff, or null.
std::vector<InspectorSection> inspect_node(const Document& doc, std::size_t node, const diff::ItemChange* changes = nullptr);
std::vector<InspectorSection> inspect_edge(const Document& doc, std::size_t edge, const diff::ItemChange* changes = nullptr);
std::vector<InspectorSection> inspect_group(const Document& doc, std::size_t group, const diff::ItemChange* changes = nullptr);

// The sections as text, one "label: value" a line under each title (tests and --dump-state).
std::string inspector_text(const std::vector<InspectorSection>& sections);

}  // namespace kbp::viewer
