#include "exporters/palette.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <string>

namespace kbp::exporters {

using schema::FormatId;

std::optional<ColorBy> parse_color_by(std::string_view text) {
    for (auto by : all_color_by)
        if (color_by_name(by) == text) return by;
    return std::nullopt;
}

std::string_view color_by_name(ColorBy by) {
    switch (by) {
#define KBP_COLOR_BY_NAME(mode, meaning) \
    case ColorBy::mode: return #mode;
        KBP_COLOR_BY(KBP_COLOR_BY_NAME)
#undef KBP_COLOR_BY_NAME
    }
    return "precision";
}

std::string_view color_by_meaning(ColorBy by) {
    switch (by) {
#define KBP_COLOR_BY_MEANING(mode, meaning) \
    case ColorBy::mode: return meaning;
        KBP_COLOR_BY(KBP_COLOR_BY_MEANING)
#undef KBP_COLOR_BY_MEANING
    }
    return "";
}

std::string color_by_names() {
    std::string out;
    for (auto by : all_color_by) out += (out.empty() ? "" : ", ") + std::string(color_by_name(by));
    return out;
}

namespace {

struct FormatRow {
    FormatId id;
    int bits;
    FormatColor color;
};

// By width, then by how the format is scaled; the legend lists formats in this order. The int8
// violets are darker than the f32 blue (L* 64-75 against 90) so that the two stay apart in
// red-green colour blindness too (at least 11 CIEDE2000; the paler violets before came within 0.2).
constexpr std::array<FormatRow, std::size(schema::known_formats)> format_rows{{
    {FormatId::nvfp4_g16, 4, {"#f4aaa6", "#c0392b"}},
    {FormatId::mxfp4_g32, 4, {"#f7c4a0", "#d35400"}},
    {FormatId::int4_b128, 4, {"#f6c1d8", "#ad1457"}},
    {FormatId::int4_g128, 4, {"#f9cfe0", "#c2185b"}},
    {FormatId::int4_g128z, 4, {"#f3b6cf", "#880e4f"}},
    {FormatId::int4_g32, 4, {"#fbd9e6", "#d81b60"}},
    {FormatId::int4_g32z, 4, {"#efa9c4", "#6d0a3c"}},
    {FormatId::nf4_b64, 4, {"#f9d3c4", "#bf360c"}},
    {FormatId::nf4_b64dq, 4, {"#f5c2ae", "#8c2a08"}},
    {FormatId::fp8_token, 8, {"#fde3a0", "#b7791f"}},
    {FormatId::fp8_channel, 8, {"#fff1a8", "#8d7a00"}},
    {FormatId::fp8_tensor, 8, {"#f8dfc0", "#a0522d"}},
    {FormatId::fp8_b128, 8, {"#fbe8b0", "#9a6b00"}},
    {FormatId::fp8_g128, 8, {"#fde9b8", "#a86b12"}},
    {FormatId::int8_token, 8, {"#b89ae0", "#6a3d9a"}},
    {FormatId::int8_channel, 8, {"#c3a9e6", "#7e57c2"}},
    {FormatId::int8_static, 8, {"#c5b0e6", "#8e6bbf"}},
    {FormatId::int8_b32, 8, {"#a98fd4", "#5b3f8c"}},
    {FormatId::i8, 8, {"#bcaad2", "#5e4b7a"}},
    {FormatId::bf16, 16, {"#cdebc9", "#2e7d32"}},
    {FormatId::f16, 16, {"#cdeceb", "#00796b"}},
    {FormatId::f32, 32, {"#d3e2f6", "#1f5fa8"}},
    {FormatId::i32, 32, {"#e2e2e2", "#616161"}},
    {FormatId::fx32, 32, {"#e6dccf", "#6d4c41"}},
}};

// A format added to schema/vocabulary.hpp without a row here would be drawn as unknown.
constexpr bool colours_every_format() {
    for (auto id : schema::known_formats) {
        int rows = 0;
        for (const auto& r : format_rows) rows += r.id == id;
        if (rows != 1) return false;
    }
    return format_rows.size() == std::size(schema::known_formats);
}
static_assert(colours_every_format(),
              "exporters/palette.cpp format_rows must give every format of schema/vocabulary.hpp (KBP_FORMATS) one colour");

constexpr FormatColor unknown_format{"#eeeeee", "#757575"};

// Fills for open-ended keys (kernel families, compute, state roles), made by scripts/palette.py:
// Paul Tol's "light" scheme extended by Glasbey's method so that any two of them differ by at least
// 5 CIEDE2000 under normal vision, protanopia and deuteranopia (the pastels before came as close as
// 1.2); L* 60-92, so dark labels stay readable. tests/test_viewer_colours.cpp holds the distances.
constexpr std::array<std::string_view, 24> categories{
    "#77aadd", "#ee8866", "#eedd88", "#ffaabb", "#99ddff", "#44bb99", "#bbcc33", "#aaaa00",
    "#cc77aa", "#eeddbb", "#ee7788", "#dd99bb", "#0099ee", "#ddccdd", "#ddbb88", "#889944",
    "#ccbbdd", "#bbeeff", "#33ccff", "#55aa99", "#aaddcc", "#eeaa66", "#889977", "#ddeeaa",
};

const FormatRow* row_of(const schema::Format& f) {
    for (const auto& r : format_rows)
        if (r.id == f.id) return &r;
    return nullptr;
}

// The narrowest format among the op's weight, activation and outputs (ties: in that order).
std::optional<schema::Format> narrowest(const schema::Node& n) {
    std::optional<schema::Format> best;
    auto consider = [&](const schema::Format& f) {
        if (!best || format_bits(f) < format_bits(*best)) best = f;
    };
    if (n.precision.weight) consider(*n.precision.weight);
    if (n.precision.activation) consider(*n.precision.activation);
    if (n.precision.output)
        for (const auto& f : *n.precision.output) consider(f);
    return best;
}

}  // namespace

std::span<const std::string_view> category_fills() { return categories; }

FormatColor format_color(const schema::Format& f) {
    const FormatRow* r = row_of(f);
    return r ? r->color : unknown_format;
}

int format_bits(const schema::Format& f) {
    const FormatRow* r = row_of(f);
    return r ? r->bits : 64;
}

double edge_pen_width(const std::optional<std::int64_t>& bytes) {
    if (!bytes || *bytes <= 0) return 1.0;
    double w = 0.8 + 0.45 * std::log2(static_cast<double>(*bytes) / 256.0);
    return std::clamp(w, 0.8, 6.0);
}

bool is_quant_point(const schema::Node& n) { return n.inserted; }

bool owns_state(const schema::Node& n) { return n.state && !n.state->empty(); }

std::string Palette::key(const schema::Node& n) const {
    switch (by_) {
        case ColorBy::precision: {
            // FixedPoint32 is one colour whatever its fractional bits: one legend entry.
            auto f = narrowest(n);
            return f ? std::string(schema::format_doc_name(*f)) : "none";
        }
        case ColorBy::family: return n.family.empty() ? "none" : n.family;
        case ColorBy::compute: return n.compute ? n.compute->name() : "none";
        case ColorBy::where: return n.where.name().empty() ? "none" : std::string(n.where.name());
        case ColorBy::state: return owns_state(n) ? schema::state_roles_name(*n.state) : "none";
    }
    return "none";
}

Palette::Palette(ColorBy by, const std::vector<const schema::Node*>& ops) : by_(by) {
    // Count keys in order of first appearance.
    for (const auto* n : ops) {
        std::string k = key(*n);
        auto [it, fresh] = index_.try_emplace(k, legend_.size());
        if (fresh) legend_.push_back({k, "", 0});
        ++legend_[it->second].ops;
    }
    if (by_ == ColorBy::precision) {
        // Formats in table order (narrowest first), unknown formats and "none" last.
        auto format_of = [](const std::string& key) { return schema::Format::parse(key == "fx32" ? "fx32/f?" : key); };
        auto rank = [&](const Swatch& s) {
            auto f = format_of(s.key);
            for (std::size_t i = 0; i < format_rows.size(); ++i)
                if (format_rows[i].id == f.id) return static_cast<int>(i);
            return s.key == "none" ? 1000 : 999;
        };
        std::stable_sort(legend_.begin(), legend_.end(), [&](const Swatch& a, const Swatch& b) { return rank(a) < rank(b); });
        for (auto& s : legend_) s.fill = s.key == "none" ? "#ffffff" : std::string(format_color(format_of(s.key)).fill);
    } else {
        std::size_t next = 0;
        for (auto& s : legend_) {
            if (s.key == "none") {
                s.fill = by_ == ColorBy::state ? "#ffffff" : "#f0f0f0";
                continue;
            }
            if (by_ == ColorBy::where && s.key == "device") s.fill = "#d3e2f6";
            else if (by_ == ColorBy::where && s.key == "host") s.fill = "#fde0c5";
            else s.fill = std::string(categories[next++ % categories.size()]);
        }
        // "none" last.
        std::stable_partition(legend_.begin(), legend_.end(), [](const Swatch& s) { return s.key != "none"; });
    }
    index_.clear();
    for (std::size_t i = 0; i < legend_.size(); ++i) index_[legend_[i].key] = i;
}

const std::string& Palette::fill(const schema::Node& n) const {
    auto it = index_.find(key(n));
    return it == index_.end() ? missing_ : legend_[it->second].fill;
}

}  // namespace kbp::exporters
