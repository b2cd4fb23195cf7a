#include "viewer/model/colouring.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "exporters/palette.hpp"
#include "exporters/text.hpp"

namespace kbp::viewer {
namespace {

constexpr Rgba white = rgba(255, 255, 255);

struct ByteClass {
    std::int64_t below;  // bytes < below
    const char* key;
    Rgba fill;
};
// A sequential scale (ColorBrewer YlOrRd), none in white.
const std::array<ByteClass, 6> byte_classes{{
    {1, "none", rgba(255, 255, 255)},
    {1024, "< 1 KiB", rgba(255, 255, 178)},
    {8 * 1024, "1-8 KiB", rgba(254, 217, 118)},
    {64 * 1024, "8-64 KiB", rgba(254, 178, 76)},
    {512 * 1024, "64-512 KiB", rgba(253, 141, 60)},
    {INT64_MAX, ">= 512 KiB", rgba(240, 59, 32)},
}};

Rgba bound_color(std::string_view bound) {
    if (bound == "memory") return rgba(128, 177, 211);
    if (bound == "compute") return rgba(251, 128, 114);
    if (bound == "launch") return rgba(217, 217, 217);
    if (bound == "host") return rgba(253, 180, 98);
    return rgba(240, 240, 240);
}

}  // namespace

std::optional<ColorMode> parse_color_mode(std::string_view text) {
    for (auto m : all_color_modes)
        if (color_mode_name(m) == text) return m;
    return std::nullopt;
}

std::optional<exporters::ColorBy> palette_mode(ColorMode mode) {
    if (static_cast<std::size_t>(mode) < std::size(exporters::all_color_by)) return static_cast<exporters::ColorBy>(mode);
    return std::nullopt;
}

std::string_view color_mode_name(ColorMode mode) {
    if (auto by = palette_mode(mode)) return exporters::color_by_name(*by);
    switch (mode) {
#define KBP_COLOR_MODE_NAME(mode) \
    case ColorMode::mode: return #mode;
        KBP_VIEWER_COLOR_MODES(KBP_COLOR_MODE_NAME)
#undef KBP_COLOR_MODE_NAME
        default: break;
    }
    return "precision";
}

Rgba diff_color(DiffMark mark) {
    switch (mark) {
        case DiffMark::none: return rgba(238, 238, 238);
        case DiffMark::added: return rgba(102, 194, 102);
        case DiffMark::removed: return rgba(239, 101, 101);
        case DiffMark::changed: return rgba(255, 193, 77);
    }
    return rgba(238, 238, 238);
}

std::int64_t bytes_between_kernels(const Document& doc, std::size_t node) {
    const auto& edges = doc.plan().edges;
    std::int64_t total = 0;
    for (auto e : doc.in_edges(node))
        if (!edges[static_cast<std::size_t>(e)].fused) total += edges[static_cast<std::size_t>(e)].bytes_per_token.value_or(0);
    std::vector<const std::string*> written;
    for (auto e : doc.out_edges(node)) {
        const auto& edge = edges[static_cast<std::size_t>(e)];
        if (edge.fused) continue;
        bool seen = false;
        for (const auto* id : written) seen = seen || *id == edge.id;
        if (seen) continue;
        written.push_back(&edge.id);
        total += edge.bytes_per_token.value_or(0);
    }
    return total;
}

PrecisionGlyph precision_glyph(const schema::Node& n) {
    auto cell = [](const std::optional<schema::Format>& f) { return f ? parse_hex(exporters::format_color(*f).fill) : white; };
    std::optional<schema::Format> out;
    if (n.precision.output && !n.precision.output->empty()) out = n.precision.output->front();
    return {cell(n.precision.weight), cell(n.precision.activation), cell(out)};
}

Colouring::Colouring(const Document& doc, ColorMode mode, const std::vector<DiffMark>& marks) : mode_(mode) {
    const auto& nodes = doc.plan().nodes;
    fills_.assign(nodes.size(), rgba(240, 240, 240));
    auto tally = [&](const std::vector<std::string>& keys, const std::map<std::string, Rgba>& colors, const std::vector<std::string>& order) {
        std::map<std::string, std::int64_t> counts;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            ++counts[keys[i]];
            fills_[i] = colors.at(keys[i]);
        }
        for (const auto& k : order)
            if (counts[k] > 0) legend_.push_back({k, colors.at(k), counts[k]});
    };
    switch (mode) {
#define KBP_COLOR_MODE_CASE(mode, ...) case ColorMode::mode:
        KBP_COLOR_BY(KBP_COLOR_MODE_CASE) {
#undef KBP_COLOR_MODE_CASE
            exporters::ColorBy by = *palette_mode(mode);
            std::vector<const schema::Node*> ops;
            ops.reserve(nodes.size());
            for (const auto& n : nodes) ops.push_back(&n);
            exporters::Palette palette(by, ops);
            meaning_ = std::string(exporters::color_by_meaning(by));
            std::map<std::string, Rgba> colors;
            for (const auto& s : palette.legend()) {
                colors[s.key] = parse_hex(s.fill);
                legend_.push_back({s.key, colors[s.key], s.ops});
            }
            for (std::size_t i = 0; i < nodes.size(); ++i) fills_[i] = colors.count(palette.key(nodes[i])) ? colors[palette.key(nodes[i])] : fills_[i];
            if (mode == ColorMode::precision) meaning_ += "; glyph: weight | activation | output";
            break;
        }
        case ColorMode::bytes: {
            meaning_ = "fill: bytes per token the op moves between kernels";
            std::vector<std::string> keys(nodes.size()), order;
            std::map<std::string, Rgba> colors;
            for (const auto& c : byte_classes) {
                colors[c.key] = c.fill;
                order.push_back(c.key);
            }
            for (std::size_t i = 0; i < nodes.size(); ++i) {
                auto b = bytes_between_kernels(doc, i);
                for (const auto& c : byte_classes)
                    if (b < c.below) {
                        keys[i] = c.key;
                        break;
                    }
            }
            tally(keys, colors, order);
            break;
        }
        case ColorMode::bound: {
            meaning_ = "fill: what bounds the op's kernel (roofline)";
            std::vector<std::string> keys(nodes.size(), "unknown"), order{"memory", "compute", "launch", "host", "unknown"};
            std::map<std::string, Rgba> colors;
            for (const auto& k : order) colors[k] = bound_color(k);
            if (const auto& cost = doc.cost()) {
                meaning_ += " on " + cost->target;
                for (std::size_t i = 0; i < nodes.size(); ++i) {
                    auto g = nodes[i].group;
                    if (g >= 0 && static_cast<std::size_t>(g) < cost->groups.size()) keys[i] = cost->groups[static_cast<std::size_t>(g)].bound;
                    if (!colors.count(keys[i])) keys[i] = "unknown";
                }
            } else {
                note_ = "no roofline: " + (doc.cost_error().empty() ? std::string("the plan names no target") : doc.cost_error());
            }
            tally(keys, colors, order);
            break;
        }
        case ColorMode::diff: {
            meaning_ = "fill: the op in the other plan (matched by id)";
            std::vector<std::string> keys(nodes.size(), "unchanged"), order{"added", "removed", "changed", "unchanged"};
            std::map<std::string, Rgba> colors{{"added", diff_color(DiffMark::added)},
                                               {"removed", diff_color(DiffMark::removed)},
                                               {"changed", diff_color(DiffMark::changed)},
                                               {"unchanged", diff_color(DiffMark::none)}};
            if (marks.size() == nodes.size()) {
                for (std::size_t i = 0; i < nodes.size(); ++i)
                    keys[i] = marks[i] == DiffMark::added     ? "added"
                              : marks[i] == DiffMark::removed ? "removed"
                              : marks[i] == DiffMark::changed ? "changed"
                                                              : "unchanged";
            } else {
                note_ = "open a second plan to compare (File > Compare with)";
            }
            tally(keys, colors, order);
            break;
        }
    }
    shares_.resize(doc.instances().size());
    std::vector<Share> counts;
    for (std::size_t i = 0; i < doc.instances().size(); ++i) {
        counts.clear();
        for (auto n : doc.instances()[i].nodes) {
            Rgba f = fills_[static_cast<std::size_t>(n)];
            auto it = std::find_if(counts.begin(), counts.end(), [&](const Share& s) { return s.fill == f; });
            if (it == counts.end()) counts.push_back({f, 1});
            else ++it->ops;
        }
        std::stable_sort(counts.begin(), counts.end(), [](const Share& a, const Share& b) { return a.ops > b.ops; });
        for (std::size_t k = 0; k < 3 && k < counts.size(); ++k) shares_[i][k] = counts[k];
    }
}

}  // namespace kbp::viewer
