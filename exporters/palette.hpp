// Colours of a view and the legend that explains them.
//
// `--color` picks what an op's fill shows:
//   precision  the narrowest number format the op reads or writes (weight, activation or
//              output): where 4-bit and 8-bit formats are used stands out at a glance;
//   family     the kernel family serving the op;
//   compute    what executes it (cuda_core, memory, tensor_core:<mma>, ...);
//   where      device or host;
//   state      the state roles it plays (conv:update, latent:write, ...), white when none.
// Formats have fixed colours (one table, by width: 4-bit reds, 8-bit ambers, 16-bit greens,
// 32-bit blues and greys) shared by node fills and edge strokes; other keys take the categorical
// colours (category_fills) in order of first appearance in the plan, so a plan is always coloured
// the same way.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schema/blueprint.hpp"

namespace kbp::exporters {

// The modes, listed once: X(mode, meaning). The viewer's colour modes start with these.
#define KBP_COLOR_BY(X)                                                  \
    X(precision, "fill: narrowest format the op reads or writes")        \
    X(family, "fill: kernel family")                                     \
    X(compute, "fill: what executes the op")                             \
    X(where, "fill: where the op runs")                                  \
    X(state, "fill: state roles the op plays")

#define KBP_COLOR_BY_ENUMERATOR(mode, meaning) mode,
enum class ColorBy : std::uint8_t { KBP_COLOR_BY(KBP_COLOR_BY_ENUMERATOR) };
inline constexpr ColorBy all_color_by[] = {
#define KBP_COLOR_BY_VALUE(mode, meaning) ColorBy::mode,
    KBP_COLOR_BY(KBP_COLOR_BY_VALUE)
#undef KBP_COLOR_BY_VALUE
};

std::optional<ColorBy> parse_color_by(std::string_view text);
std::string_view color_by_name(ColorBy by);
// "precision, family, compute, where, state": the modes, for help and refusals.
std::string color_by_names();
// What the fill means, for the legend: "narrowest format read or written".
std::string_view color_by_meaning(ColorBy by);

struct FormatColor {
    std::string_view fill;    // light, for node fills and legend swatches
    std::string_view stroke;  // dark, for edges
};
FormatColor format_color(const schema::Format& f);
// Bits per element of a format (4, 8, 16, 32); 64 for a format kbp does not know.
int format_bits(const schema::Format& f);

// Marks that stand out in every mode.
inline constexpr std::string_view quant_color = "#c62828";  // inserted quantization point
inline constexpr std::string_view state_color = "#1565c0";  // op owning state
inline constexpr std::string_view fused_color = "#9e9e9e";  // an edge that stays in its kernel
inline constexpr std::string_view port_color = "#6a3d9a";   // a port edge between templates

struct Swatch {
    std::string key;   // "nvfp4/g16", "wxay", "tensor_core:mma.sync...", "device", "none"
    std::string fill;
    std::int64_t ops = 0;  // ops of the view with this key
};

class Palette {
public:
    // Colours for `ops` (the view's ops in plan order).
    Palette(ColorBy by, const std::vector<const schema::Node*>& ops);

    ColorBy by() const { return by_; }
    std::string key(const schema::Node& n) const;
    const std::string& fill(const schema::Node& n) const;
    const std::vector<Swatch>& legend() const { return legend_; }  // legend order

private:
    ColorBy by_;
    std::vector<Swatch> legend_;
    std::map<std::string, std::size_t> index_;  // key -> legend entry (lookup only)
    std::string missing_ = "#eeeeee";
};

// An edge's stroke width (points) for its bytes per token: 0.8 for a few bytes, growing with
// log2 of the bytes, at most 6; 1 when unknown. The SVG and the viewer draw with it.
// The fills of open-ended keys, in the order keys take them (scripts/palette.py made them: apart
// under normal vision and red-green colour blindness); the 25th key takes the first again.
std::span<const std::string_view> category_fills();

double edge_pen_width(const std::optional<std::int64_t>& bytes_per_token);

// True when the op is an act_quant the planner inserted (a quantization point).
bool is_quant_point(const schema::Node& n);
// True when the op owns state (its `state` names roles).
bool owns_state(const schema::Node& n);

}  // namespace kbp::exporters
