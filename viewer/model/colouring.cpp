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
// A sequential scale (ColorBrewer YlOrRd), none in white. Without a roofline, the bytes an op moves
// between kernels per token: activations only.
const std::array<ByteClass, 6> activation_classes{{
    {1, "none", rgba(255, 255, 255)},
    {1024, "< 1 KiB", rgba(255, 255, 178)},
    {8 * 1024, "1-8 KiB", rgba(254, 217, 118)},
    {64 * 1024, "8-64 KiB", rgba(254, 178, 76)},
    {512 * 1024, "64-512 KiB", rgba(253, 141, 60)},
    {INT64_MAX, ">= 512 KiB", rgba(240, 59, 32)},
}};
// With one, all the bytes the op's kernel moves in a step: weights, activations and state. A
// decode step's norm moves tens of KiB, a projection MiBs, the routed experts' GEMV tens of MiB.
constexpr std::int64_t MiB = 1024 * 1024;
const std::array<ByteClass, 6> kernel_classes{{
    {1, "none", rgba(255, 255, 255)},
    {64 * 1024, "< 64 KiB", rgba(255, 255, 178)},
    {MiB, "64 KiB-1 MiB", rgba(254, 217, 118)},
    {16 * MiB, "1-16 MiB", rgba(254, 178, 76)},
    {64 * MiB, "16-64 MiB", rgba(253, 141, 60)},
    {INT64_MAX, ">= 64 MiB", rgba(240, 59, 32)},
}};

// The bounds, each a hue in three strengths by the share of the step's time its kernels take
// (time_tiers): the kernels that take the first half of the time darkest, the last fifth palest
// (ColorBrewer Blues, Reds, Greys, Oranges), so the few kernels a step waits on stand out from the
// many that cost little, whatever bounds them.
struct BoundHue {
    const char* bound;
    std::array<Rgba, 3> fills;  // heavy, middle, light
};
const std::array<BoundHue, 4> bound_hues{{
    {"memory", {rgba(107, 174, 214), rgba(198, 219, 239), rgba(239, 245, 251)}},
    {"compute", {rgba(251, 106, 74), rgba(252, 187, 161), rgba(254, 240, 234)}},
    {"launch", {rgba(150, 150, 150), rgba(217, 217, 217), rgba(247, 247, 247)}},
    {"host", {rgba(253, 141, 60), rgba(253, 208, 162), rgba(255, 245, 235)}},
}};
constexpr std::array<const char*, 3> time_tiers{"top 50 % of time", "next 30 %", "last 20 %"};
constexpr Rgba unknown_fill = rgba(240, 240, 240);

// Each group's tier (0 heavy, 1 middle, 2 light): groups by time, most first; those that reach
// half the summed time are heavy, the next to 80 % middle, the rest light.
std::vector<int> time_tier_of_groups(const std::vector<planner::GroupCost>& groups) {
    std::vector<std::size_t> order(groups.size());
    double total = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        order[g] = g;
        total += groups[g].time_us;
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return groups[a].time_us > groups[b].time_us; });
    std::vector<int> tier(groups.size(), 2);
    double before = 0;  // time of the groups ahead of this one
    for (auto g : order) {
        tier[g] = before < 0.5 * total ? 0 : before < 0.8 * total ? 1 : 2;
        before += groups[g].time_us;
    }
    return tier;
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

std::optional<double> kernel_bytes(const Document& doc, std::size_t node) {
    const auto& cost = doc.cost();
    auto g = doc.plan().nodes[node].group;
    if (!cost || g < 0 || static_cast<std::size_t>(g) >= cost->groups.size()) return std::nullopt;
    const auto& c = cost->groups[static_cast<std::size_t>(g)];
    return c.weight_bytes + c.activation_bytes + c.state_bytes;
}

PrecisionGlyph precision_glyph(const schema::Node& n) {
    auto cell = [](const std::optional<schema::Format>& f) { return f ? parse_hex(exporters::format_color(*f).fill) : white; };
    std::optional<schema::Format> out;
    if (n.precision.output && !n.precision.output->empty()) out = n.precision.output->front();
    return {cell(n.precision.weight), cell(n.precision.activation), cell(out)};
}

namespace {

// The ops of each unit's first instance, in plan order: every key the palette gives appears there
// first (a later instance repeats its unit's first).
std::vector<const schema::Node*> first_instances_ops(const Document& doc) {
    std::vector<const schema::Node*> ops;
    for (std::size_t i = 0; i < doc.instances().size(); ++i) {
        const Instance& inst = doc.instances()[i];
        if (doc.units()[static_cast<std::size_t>(inst.unit)].instances.front() != static_cast<std::int32_t>(i)) continue;
        for (auto n : inst.nodes) ops.push_back(&doc.plan().nodes[static_cast<std::size_t>(n)]);
    }
    return ops;
}

}  // namespace

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
            // The palette's keys read only what an instance shares with its unit's others (the
            // op's formats, family, compute, where, state): each unit's first instance is
            // coloured and its fills given to the rest, so a million ops cost their units' few.
            exporters::ColorBy by = *palette_mode(mode);
            exporters::Palette palette(by, first_instances_ops(doc));
            meaning_ = std::string(exporters::color_by_meaning(by));
            std::map<std::string, std::size_t> entry;
            for (const auto& s : palette.legend()) {
                entry[s.key] = legend_.size();
                legend_.push_back({s.key, parse_hex(s.fill), 0});
            }
            for (const auto& u : doc.units()) {
                const auto& first = doc.instances()[static_cast<std::size_t>(u.instances.front())].nodes;
                for (std::size_t k = 0; k < first.size(); ++k) {
                    auto& e = legend_[entry.at(palette.key(nodes[static_cast<std::size_t>(first[k])]))];
                    for (auto i : u.instances) fills_[static_cast<std::size_t>(doc.instances()[static_cast<std::size_t>(i)].nodes[k])] = e.fill;
                    e.ops += static_cast<std::int64_t>(u.instances.size());
                }
            }
            if (mode == ColorMode::precision) meaning_ += "; glyph: weight | activation | output";
            break;
        }
        case ColorMode::bytes: {
            const auto& cost = doc.cost();
            const auto& classes = cost ? kernel_classes : activation_classes;
            std::vector<std::string> keys(nodes.size()), order;
            std::map<std::string, Rgba> colors;
            for (const auto& c : classes) {
                colors[c.key] = c.fill;
                order.push_back(c.key);
            }
            auto class_of = [&](double bytes) {
                for (const auto& c : classes)
                    if (bytes < static_cast<double>(c.below)) return std::string(c.key);
                return std::string(classes.back().key);
            };
            if (cost) {
                meaning_ = "fill: bytes the op's kernel moves per step on " + cost->target + " (weights, activations, state)";
                for (std::size_t i = 0; i < nodes.size(); ++i) keys[i] = class_of(kernel_bytes(doc, i).value_or(0));
            } else {
                meaning_ = "fill: bytes per token the op moves between kernels";
                note_ = "activations only (no roofline: " + (doc.cost_error().empty() ? std::string("the plan names no target") : doc.cost_error()) + ")";
                for (std::size_t i = 0; i < nodes.size(); ++i) keys[i] = class_of(static_cast<double>(bytes_between_kernels(doc, i)));
            }
            tally(keys, colors, order);
            break;
        }
        case ColorMode::bound: {
            meaning_ = "fill: what bounds the op's kernel (hue) and the share of the step's time it takes (darker: more)";
            std::vector<std::string> keys(nodes.size(), "unknown"), order;
            std::map<std::string, Rgba> colors{{"unknown", unknown_fill}};
            for (const auto& h : bound_hues)
                for (std::size_t t = 0; t < time_tiers.size(); ++t) {
                    std::string key = std::string(h.bound) + " · " + time_tiers[t];
                    colors[key] = h.fills[t];
                    order.push_back(key);
                }
            order.push_back("unknown");
            if (const auto& cost = doc.cost()) {
                meaning_ += " on " + cost->target;
                auto tiers = time_tier_of_groups(cost->groups);
                for (std::size_t i = 0; i < nodes.size(); ++i) {
                    auto g = nodes[i].group;
                    if (g < 0 || static_cast<std::size_t>(g) >= cost->groups.size()) continue;
                    std::string key = cost->groups[static_cast<std::size_t>(g)].bound + " · " + time_tiers[static_cast<std::size_t>(tiers[static_cast<std::size_t>(g)])];
                    if (colors.count(key)) keys[i] = key;
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
    card_shares_.resize(doc.instances().size());
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
        card_shares_[i] = counts;
    }
}

}  // namespace kbp::viewer
