// kbp-view's command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schema/result.hpp"
#include "viewer/model/colouring.hpp"

namespace kbp::viewer::app {

struct Options {
    std::vector<std::string> plans;            // PLAN [PLAN2]
    std::optional<ColorMode> color;
    std::optional<std::string> expand;         // "all" or a layer list
    std::optional<std::string> select;         // a node id
    std::optional<std::string> find;           // a find query
    std::optional<std::string> panel;          // inspector, find, overview, diff, help
    std::optional<std::string> side;           // "a" or "b": which plan the canvas shows; "both": side by side
    std::optional<std::string> screenshot;     // OUT.png
    std::optional<std::string> dump_state;     // FILE (JSON)
    std::optional<double> zoom;                // pixels per point, centred on the selection or the plan
    int frames = 3;
    int width = 1600, height = 1000;
    int bench_frames = 0;
    std::optional<std::size_t> bench_layers;   // replace the plan by a synthetic one of N layers
    bool dot = true;                           // lay out with dot (else the quick layout only)
    bool first_frame = false;                  // --screenshot / --dump-state before a big plan's lists are read
    bool help = false, version = false;
};

inline constexpr const char* usage_text =
    "usage: kbp-view [PLAN [PLAN2]] [--diff PLAN2] [--color MODE] [--expand all|LAYERS] [--select ID]\n"
    "                [--find QUERY] [--panel inspector|find|overview|diff|help] [--side a|b|both]\n"
    "                [--zoom Z] [--screenshot OUT.png [--frames N] [--size WxH]] [--dump-state FILE]\n"
    "                [--first-frame] [--bench-frames N [--bench-layers N]] [--quick-layout]\n\n"
    "The desktop viewer of kbp plans (kbp-graph/v2): the plan top to bottom, in as many columns as the\n"
    "window's width holds at fit, layers folded into their\n"
    "templates ('kda+moe x 31', click the badge to expand), fused groups as boxes with their rule,\n"
    "edges as wide as their bytes per token, quantization points (red hexagons) and state-owning ops\n"
    "(blue) marked as in the SVGs. With two plans (PLAN2 or --diff) their differences are coloured and\n"
    "listed. Open more files from the File menu or by dropping them on the window; a file that changes\n"
    "on disk is reloaded. The window remembers the plans opened last (File > Open recent) and side by\n"
    "side in $XDG_STATE_HOME/kbp/view.json (~/.local/state/kbp/view.json; KBP_VIEW_SETTINGS names\n"
    "another file); runs with --screenshot, --dump-state or --bench-frames neither read nor write it.\n\n"
    "  --color MODE       precision (default; a glyph shows weight | activation | output), family,\n"
    "                     compute, where, state, bytes, bound (roofline, when the target is known), diff\n"
    "  --expand           all, or layers to show on their own: 3, 3-7, 0-2,9\n"
    "  --select ID        select an op (l3.dsa.q_a) and centre on it; the inspector shows it\n"
    "  --side S           the plan the canvas shows: a, b, or both side by side (b's pane follows a's\n"
    "                     pan, zoom, folds and selection)\n"
    "  --zoom Z           start at Z pixels per point (1 = labels full size), centred on the selection\n"
    "  --screenshot FILE  render headless (under Xvfb: xvfb-run -a kbp-view ...) and write a PNG:\n"
    "                     after loads and layouts finish, N more frames (--frames, default 3) at\n"
    "                     --size (default 1600x1000)\n"
    "  --dump-state FILE  write what the window shows (legend, inspector text, errors, diff counts) as JSON\n"
    "  --first-frame      take the screenshot or state once the folded view is drawn and laid out, before\n"
    "                     a big plan's flat lists are read and indexed (the status bar's progress bar at 0%)\n"
    "  --bench-frames N   print frame-time statistics and vertex counts at several zoom levels;\n"
    "                     --bench-layers N replaces the plan by its templates over N layers\n"
    "  --quick-layout     do not run dot (boxes placed by rank only)\n\n"
    "Keys: / find, n / N next / previous result, f fit, e expand or fold all, d show the other plan,\n"
    "s both plans side by side, c next colour, Esc clear selection; wheel zooms at the cursor, drag pans, click selects.\n"
    "Exit: 0 ok, 1 usage error, 3 screenshot or state not written, 4 no display or OpenGL.\n";

Result<Options> parse_options(int argc, char** argv);

}  // namespace kbp::viewer::app
