// What an op's fill shows, and the legend that says so. The modes the SVGs know come from the
// exporters' palette (KBP_COLOR_BY: the same colours in the SVG and the window); the viewer adds three:
//   bytes  all the bytes the op's kernel (its group) moves in a step on the plan's target: weights,
//          activations and state (the roofline's), in six classes from none to 64 MiB and more;
//          without a known target, the activation bytes per token it moves between kernels;
//   bound  what limits the op's kernel on the plan's target (roofline: memory, compute, launch
//          overhead, host) as a hue, darker for the kernels that take more of the step's time
//          (the first half of it, the next 30 %, the last 20 %), when kbp knows the target;
//   diff   with two plans: added, removed, changed, unchanged (a node matched by id).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporters/palette.hpp"
#include "viewer/model/document.hpp"
#include "viewer/model/geometry.hpp"

namespace kbp::viewer {

// The palette's modes first (the same values as exporters::ColorBy), then the viewer's own.
#define KBP_VIEWER_COLOR_MODES(X) X(bytes) X(bound) X(diff)

#define KBP_COLOR_MODE_ENUMERATOR(mode, ...) mode,
enum class ColorMode : std::uint8_t { KBP_COLOR_BY(KBP_COLOR_MODE_ENUMERATOR) KBP_VIEWER_COLOR_MODES(KBP_COLOR_MODE_ENUMERATOR) };
#define KBP_COLOR_MODE_VALUE(mode, ...) ColorMode::mode,
inline constexpr ColorMode all_color_modes[] = {KBP_COLOR_BY(KBP_COLOR_MODE_VALUE) KBP_VIEWER_COLOR_MODES(KBP_COLOR_MODE_VALUE)};
#undef KBP_COLOR_MODE_VALUE
#undef KBP_COLOR_MODE_ENUMERATOR

// The palette's mode a colour mode is, or nothing for the viewer's own.
std::optional<exporters::ColorBy> palette_mode(ColorMode mode);
std::optional<ColorMode> parse_color_mode(std::string_view text);
std::string_view color_mode_name(ColorMode mode);

// A node's place in a diff.
enum class DiffMark : std::uint8_t { none, added, removed, changed };
Rgba diff_color(DiffMark mark);

struct LegendEntry {
    std::string key;  // "nvfp4/g16", "memory", "added", "1-8 KiB"
    Rgba fill = 0;
    std::int64_t ops = 0;
};

class Colouring {
public:
    // `marks`: one per node of `doc` (diff mode only; empty otherwise).
    Colouring(const Document& doc, ColorMode mode, const std::vector<DiffMark>& marks = {});

    ColorMode mode() const { return mode_; }
    Rgba fill(std::size_t node) const { return fills_[node]; }
    const std::vector<LegendEntry>& legend() const { return legend_; }
    const std::string& meaning() const { return meaning_; }  // "fill: narrowest format the op reads or writes"
    const std::string& note() const { return note_; }        // why a mode shows nothing ("no target known")
    // An instance's three most common fills with their counts, most first: what a row too thin to
    // show its ops is drawn with (made once per colouring, so thin rows cost one lookup each).
    struct Share {
        Rgba fill = 0;
        std::int32_t ops = 0;
    };
    const std::array<Share, 3>& shares(std::size_t instance) const { return shares_[instance]; }
    // All of an instance's fills with their counts, most first (a card's strip at fit).
    const std::vector<Share>& card_shares(std::size_t instance) const { return card_shares_[instance]; }

private:
    ColorMode mode_;
    std::vector<Rgba> fills_;
    std::vector<LegendEntry> legend_;
    std::string meaning_, note_;
    std::vector<std::array<Share, 3>> shares_;
    std::vector<std::vector<Share>> card_shares_;
};

// Bytes per token an op moves between kernels: its non-fused inputs, and each non-fused output
// tensor once.
std::int64_t bytes_between_kernels(const Document& doc, std::size_t node);

// The bytes the op's kernel (its group) moves in a step: weights, activations and state, as the
// roofline counts them; nothing without a roofline.
std::optional<double> kernel_bytes(const Document& doc, std::size_t node);

// The three cells of the precision glyph: weight, activation and (first) output format colours;
// white for a format the op does not have.
struct PrecisionGlyph {
    Rgba weight, activation, output;
};
PrecisionGlyph precision_glyph(const schema::Node& n);

}  // namespace kbp::viewer
