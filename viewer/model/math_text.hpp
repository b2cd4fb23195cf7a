// The explain texts' maths (planner/data/explain/*.json: TeX in `math`, `$...$` in prose) as
// Unicode a person reads in the inspector: Greek letters and operators as their characters (σ, ∈,
// ≤, ⌈x⌉), \mathbb{R} as ℝ, sub- and superscripts as Unicode ones where every character has one
// (x_{tk} → xₜₖ, ℝ^{128} → ℝ¹²⁸) and else as an index or a power in brackets (k_{p,c} → k[p,c],
// e^{g+a} → e^(g+a)), fractions as a/b, accents as combining marks (x̂), matrices inline
// ((a, b; c, d)), and cases and aligned rows one per line, lined up under their brace. The
// window's fonts carry these ranges (viewer/app/window.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kbp::viewer {

struct MathText {
    std::vector<std::string> lines;      // one, or one per row of a cases / aligned block
    std::vector<std::string> unknown;    // TeX commands it does not know, kept as their name
};

// A TeX formula (no $ delimiters).
MathText math_text(std::string_view tex);

// Prose with inline maths between single $ signs; a block of rows inside becomes "row; row".
MathText prose_text(std::string_view text);

}  // namespace kbp::viewer
