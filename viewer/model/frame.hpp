// One frame of the canvas: what is on screen, drawn with as much detail as the zoom can show.
//
// Culling: rows outside the viewport are skipped by a binary search over their (sorted) boxes;
// inside a row each op, box and edge is tested against the viewport. Detail by zoom (pixels per
// world point):
//   labels  (zoom >= 11/12) names, formats and the precision glyph; dashed fused edges with
//                           arrowheads; bytes on the edges that cross kernels (from 0.9) where
//                           they fit; group rules once they reach 11 px (zoom 1);
//   boxes   (>= 0.07)       ops as filled boxes, fused groups and blocks as frames, edges as lines
//                           (their splines from 0.25, else straight), connectors between rows;
//                           each block's name and launches at 11 px where its frame holds them;
//                           each card's fills (its precisions) as a strip under its header.
// No text is drawn smaller than 11 px (min_text_px), and none over another: a label that would
// meet one drawn before it (or an op, for an edge's) is left out.
//   blobs   (below, rows >= 10 px tall) one box per fused group and per lone op, no edges;
//   strips  (rows < 10 px)  rows binned by 3-pixel bands, each band three colour segments sized
//                           by how many of its ops have each colour (counted once per colouring).
// So what a frame submits is bounded by what the screen can show, not by the plan's size.
#pragma once

#include <cstdint>
#include <vector>

#include "viewer/model/camera.hpp"
#include "viewer/model/colouring.hpp"
#include "viewer/model/draw_list.hpp"
#include "viewer/model/scene.hpp"
#include "viewer/model/text_metrics.hpp"

namespace kbp::viewer {

enum class Detail : std::uint8_t { strips, blobs, boxes, labels };
Detail detail_for(double zoom);  // boxes or labels, or blobs when the rows decide
inline constexpr float min_text_px = 11;
inline constexpr double labels_zoom = min_text_px / world::node_font, splines_zoom = 0.25, boxes_zoom = 0.07, edge_text_zoom = 0.9;
inline constexpr float blob_row_pixels = 10, strip_band_pixels = 3;

struct Highlights {
    std::int64_t node = -1, edge = -1, group = -1;  // the selection (flat indices)
    const std::vector<char>* found = nullptr;        // per node: a find result
    const std::vector<DiffMark>* marks = nullptr;    // per node, when a diff is open
};

struct FrameStats {
    Detail detail = Detail::boxes;
    std::size_t rows = 0, nodes = 0, edges = 0, labels = 0, blobs = 0, bands = 0, connectors = 0;
    std::size_t card_strips = 0;  // cards with their fills' strip (fit: the precisions)
};

struct FrameContext {
    const Document& doc;
    const Scene& scene;
    const Colouring& colours;
    const Camera& camera;
    Box viewport;  // screen pixels
    const TextMetrics& metrics;
    Highlights highlights;
    float ui_font = 14;  // pixels: row titles and badges
};

FrameStats build_frame(const FrameContext& f, DrawList& out);

// Where a row's title, badge and detail go on screen (titles keep a fixed size; when the row's
// header is too thin they move to the left of its frame). Rows thinner than a title get their layer
// number in the gutter instead.
struct RowHeader {
    bool visible = false;
    Vec2 title;
    Box badge;  // empty when the row has none
    Vec2 detail;
};
RowHeader row_header(const FrameContext& f, const Row& row);

enum class HitKind : std::uint8_t { none, node, edge, group, row, badge, connector };

struct Hit {
    HitKind kind = HitKind::none;
    std::int32_t row = -1;
    std::int32_t local = -1;     // node: unit-local node; edge: unit edge; group: cluster
    std::int32_t connector = -1;
};
Hit hit_test(const FrameContext& f, Vec2 screen);

}  // namespace kbp::viewer
