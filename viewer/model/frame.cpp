#include "viewer/model/frame.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "exporters/palette.hpp"
#include "exporters/text.hpp"

namespace kbp::viewer {
namespace {

constexpr Rgba ink = rgba(40, 40, 40);
constexpr Rgba faint_ink = rgba(110, 110, 110);
constexpr Rgba row_fill = rgba(251, 251, 252);
constexpr Rgba row_line = rgba(175, 175, 185);
constexpr Rgba folded_fill = rgba(247, 244, 250);
constexpr Rgba block_fill = rgba(243, 243, 243);
constexpr Rgba block_line = rgba(200, 200, 200);
constexpr Rgba group_line = rgba(80, 80, 80);
constexpr Rgba select_color = rgba(255, 128, 0);
constexpr Rgba found_color = rgba(222, 0, 222);
constexpr Rgba glyph_line = rgba(150, 150, 150);

Rgba from_hex(std::string_view hex) { return parse_hex(hex); }
const Rgba quant_color = from_hex(exporters::quant_color);
const Rgba state_color = from_hex(exporters::state_color);
const Rgba fused_color = with_alpha(from_hex(exporters::fused_color), 220);
const Rgba port_color = from_hex(exporters::port_color);
const Rgba connector_color = with_alpha(port_color, 170);  // see-through: they cross whole layers

float line_px(const std::optional<std::int64_t>& bytes, double zoom) {
    double px = exporters::edge_pen_width(bytes) * zoom;
    return static_cast<float>(std::clamp(std::round(px), 1.0, 8.0));
}

DiffMark stronger(DiffMark a, DiffMark b) { return static_cast<int>(b) > static_cast<int>(a) ? b : a; }

// What a row shows for one of its ops: the fill, and whether it is found or marked by the diff
// in any instance the row stands for.
struct OpLook {
    Rgba fill;
    bool found;
    DiffMark mark;
};

class RowPainter {
public:
    RowPainter(const FrameContext& f, DrawList& out, FrameStats& stats) : f_(f), out_(out), stats_(stats) {
        z_ = f.camera.zoom;
        visible_ = f.camera.visible_world(f.viewport).grown(static_cast<float>(8 / z_));
        if (f.highlights.node >= 0 && static_cast<std::size_t>(f.highlights.node) < f.doc.plan().nodes.size())
            selected_ = f.scene.place_of_node(static_cast<std::size_t>(f.highlights.node));
    }

    Box screen(const Box& world) const { return f_.camera.to_screen(world, f_.viewport); }
    Vec2 screen(Vec2 p) const { return f_.camera.to_screen(p.x, p.y, f_.viewport); }
    const Box& visible() const { return visible_; }

    OpLook look(const Row& row, std::size_t local) const {
        const auto& instances = f_.doc.instances();
        const Instance& rep = instances[static_cast<std::size_t>(row.instances.front())];
        auto flat = static_cast<std::size_t>(rep.nodes[local]);
        OpLook l{f_.colours.fill(flat), false, DiffMark::none};
        const auto* found = f_.highlights.found;
        const auto* marks = f_.highlights.marks;
        if (!found && !marks) return l;
        for (auto i : row.instances) {
            auto n = static_cast<std::size_t>(instances[static_cast<std::size_t>(i)].nodes[local]);
            if (found && n < found->size() && (*found)[n]) l.found = true;
            if (marks && n < marks->size()) l.mark = stronger(l.mark, (*marks)[n]);
        }
        if (f_.colours.mode() == ColorMode::diff && marks) l.fill = diff_color(l.mark);
        return l;
    }

    void frame(const Row& row, bool outline) {
        Box s = screen(row.box);
        out_.fill_rect(s, row.folded ? folded_fill : row_fill);
        if (outline) out_.rect(s, row.folded ? port_color : row_line, row.folded ? 2.0f : 1.0f);
    }

    void clusters(std::int32_t r, const Row& row, bool titles) {
        const UnitGeometry& g = f_.scene.unit(row);
        for (int pass = 0; pass < 2; ++pass)
            for (std::size_t c = 0; c < g.shape.clusters.size(); ++c) {
                const auto& sc = g.shape.clusters[c];
                if (sc.group != (pass == 1)) continue;
                Box wb = f_.scene.cluster_box(r, c);
                if (!wb.overlaps(visible_)) continue;
                Box sb = screen(wb);
                if (sc.group) {
                    out_.fill_rect(sb, rgba(255, 255, 255));
                    bool selected = f_.highlights.group >= 0 && group_of(row, c) == f_.highlights.group;
                    out_.rect(sb, selected ? select_color : group_line, selected ? 3.0f : 1.0f);
                } else {
                    out_.fill_rect(sb, block_fill);
                    out_.rect(sb, block_line, 1.0f);
                }
                if (sc.group) {
                    // The group's id in the plan, then its rule, once it is big enough to read.
                    if (!titles || world::group_title * z_ < min_text_px) continue;
                    std::string t = f_.metrics.fit("g" + std::to_string(group_of(row, c)) + " " + sc.title, world::group_title, wb.width() - 8);
                    Vec2 at{sb.x0 + static_cast<float>(4 * z_), sb.y0 + static_cast<float>(2 * z_)};
                    put_text(at, static_cast<float>(world::group_title * z_), faint_ink, t);
                }
            }
    }

    // Block titles after the ops: a group's white box or an op must not cover a block's pill.
    void block_titles(std::int32_t r, const Row& row) {
        const UnitGeometry& g = f_.scene.unit(row);
        for (std::size_t c = 0; c < g.shape.clusters.size(); ++c) {
            const auto& sc = g.shape.clusters[c];
            Box wb = f_.scene.cluster_box(r, c);
            if (!sc.group && wb.overlaps(visible_)) block_title(sc, wb, screen(wb));
        }
    }

    // A block's name and the kernels it launches: at the block's scale once that reaches 11 px,
    // else at 11 px on a pill in its corner where the frame holds it (fit: what each card is).
    void block_title(const ShapeCluster& sc, const Box& wb, const Box& sb) {
        std::string full = sc.title + " · " + std::to_string(sc.launches) + (sc.launches == 1 ? " launch" : " launches");
        if (world::block_title * z_ >= min_text_px) {
            std::string t = f_.metrics.fit(full, world::block_title, wb.width() - 8);
            put_text({sb.x0 + static_cast<float>(4 * z_), sb.y0 + static_cast<float>(2 * z_)}, static_cast<float>(world::block_title * z_), ink, t);
            return;
        }
        const float line = min_text_px * f_.metrics.line_height;
        if (sb.height() < line + 4) return;
        for (const std::string& t : {full, sc.title + " · " + std::to_string(sc.launches), sc.title}) {
            float w = f_.metrics.width(t, min_text_px);
            if (w + 6 > sb.width()) continue;
            Box pill{sb.x0 + 1, sb.y0 + 1, sb.x0 + w + 7, sb.y0 + line + 3};
            if (!free(pill)) return;
            out_.fill_rect(pill, rgba(255, 255, 255, 225), 3);
            put_text({pill.x0 + 3, pill.y0 + 1}, min_text_px, ink, t);
            return;
        }
    }

    // Text where no text was put before it in this frame; false (and nothing drawn) otherwise.
    bool put_text(Vec2 at, float size, Rgba color, const std::string& text, bool must_be_free = false) {
        Box b{at.x, at.y, at.x + f_.metrics.width(text, size), at.y + size * f_.metrics.line_height};
        if (must_be_free && !free(b)) return false;
        out_.text(at, size, color, text);
        taken_.push_back(b);
        ++stats_.labels;
        return true;
    }

    bool free(const Box& b) const {
        for (const auto& t : taken_)
            if (t.overlaps(b)) return false;
        return true;
    }

    std::int64_t group_of(const Row& row, std::size_t cluster) const {
        const auto& sc = f_.scene.unit(row).shape.clusters[cluster];
        if (!sc.group) return -1;
        const Instance& rep = f_.doc.instances()[static_cast<std::size_t>(row.instances.front())];
        return f_.doc.plan().nodes[static_cast<std::size_t>(rep.nodes[static_cast<std::size_t>(sc.first_node)])].group;
    }

    void edges(std::int32_t r, const Row& row, bool labels) {
        const UnitGeometry& g = f_.scene.unit(row);
        op_boxes_.clear();
        if (labels)
            for (std::size_t i = 0; i < g.layout.nodes.size(); ++i) {
                Box wb = f_.scene.node_box({r, static_cast<std::int32_t>(i)});
                if (wb.overlaps(visible_)) op_boxes_.push_back(screen(wb));
            }
        const Unit& unit = f_.doc.units()[static_cast<std::size_t>(row.unit)];
        const Instance& rep = f_.doc.instances()[static_cast<std::size_t>(row.instances.front())];
        const auto& plan = f_.doc.plan();
        for (std::size_t k = 0; k < unit.edges.size() && k < g.layout.edges.size(); ++k) {
            const auto& ue = unit.edges[k];
            Box span = f_.scene.node_box({r, ue.from});
            span.include(f_.scene.node_box({r, ue.to}));
            if (!span.overlaps(visible_)) continue;
            const auto& pts = g.layout.edges[k];
            if (pts.size() < 2) continue;
            const auto& e = plan.edges[static_cast<std::size_t>(rep.edges[k])];
            bool selected = f_.highlights.edge >= 0 && is_selected_edge(row, k);
            Rgba color = e.fused ? fused_color : parse_hex(exporters::format_color(e.format).stroke);
            float px = e.fused ? 1.0f : line_px(e.bytes_per_token, z_);
            points_.clear();
            if (z_ < splines_zoom) {
                points_.push_back(screen(Vec2{pts.front().x + row.origin.x, pts.front().y + row.origin.y}));
                points_.push_back(screen(Vec2{pts.back().x + row.origin.x, pts.back().y + row.origin.y}));
            } else {
                for (const auto& p : pts) points_.push_back(screen(Vec2{p.x + row.origin.x, p.y + row.origin.y}));
            }
            bool arrow = labels && k < g.layout.edge_arrow.size() && g.layout.edge_arrow[k] && points_.size() >= 3;
            std::size_t body = arrow ? points_.size() - 1 : points_.size();
            if (e.fused && labels) dashed(points_.data(), body, color, px);
            else out_.polyline(points_.data(), body, color, px);
            if (arrow) arrowhead(points_[points_.size() - 2], points_.back(), color, px);
            if (selected) out_.polyline(points_.data(), points_.size(), with_alpha(select_color, 200), px + 3);
            ++stats_.edges;
            if (labels && !e.fused && z_ >= edge_text_zoom && e.bytes_per_token) {
                // Beside the edge's middle, only where it meets no op and no text.
                Vec2 mid = points_[points_.size() / 2];
                float size = std::max(min_text_px, static_cast<float>(9 * z_));
                std::string t = std::string(e.format.name()) + " " + exporters::bytes_text(*e.bytes_per_token);
                Box b{mid.x + 4, mid.y - size / 2, mid.x + 4 + f_.metrics.width(t, size), mid.y + size * (f_.metrics.line_height - 0.5f)};
                bool clear = true;
                for (const auto& op : op_boxes_) clear = clear && !op.overlaps(b);
                if (clear) put_text({b.x0, b.y0}, size, color, t, true);
            }
        }
    }

    bool is_selected_edge(const Row& row, std::size_t k) const {
        for (auto i : row.instances)
            if (f_.doc.instances()[static_cast<std::size_t>(i)].edges[k] == f_.highlights.edge) return true;
        return false;
    }

    void nodes(std::int32_t r, const Row& row, bool labels) {
        const UnitGeometry& g = f_.scene.unit(row);
        const Instance& rep = f_.doc.instances()[static_cast<std::size_t>(row.instances.front())];
        const auto& plan = f_.doc.plan();
        for (std::size_t i = 0; i < g.layout.nodes.size(); ++i) {
            Box wb = f_.scene.node_box({r, static_cast<std::int32_t>(i)});
            if (!wb.overlaps(visible_)) continue;
            Box sb = screen(wb);
            const schema::Node& n = plan.nodes[static_cast<std::size_t>(rep.nodes[i])];
            OpLook l = look(row, i);
            bool quant = exporters::is_quant_point(n), state = exporters::owns_state(n);
            if (quant) {
                float cut = std::min(sb.height() / 2, sb.width() / 4);
                float my = (sb.y0 + sb.y1) / 2;
                std::array<Vec2, 6> hex{{{sb.x0, my}, {sb.x0 + cut, sb.y0}, {sb.x1 - cut, sb.y0}, {sb.x1, my}, {sb.x1 - cut, sb.y1}, {sb.x0 + cut, sb.y1}}};
                out_.fill_poly(hex.data(), hex.size(), l.fill);
                out_.polyline(hex.data(), hex.size(), quant_color, 2, true);
            } else {
                out_.fill_rect(sb, l.fill, labels ? static_cast<float>(3 * z_) : 0);
                out_.rect(sb, state ? state_color : ink, state ? 2.0f : 1.0f, labels ? static_cast<float>(3 * z_) : 0);
                if (state && labels) out_.fill_rect({sb.x0, sb.y0, sb.x1, sb.y0 + static_cast<float>(3 * z_)}, state_color);
            }
            if (l.mark != DiffMark::none && f_.colours.mode() != ColorMode::diff)
                out_.fill_rect({sb.x0 - 5, sb.y0, sb.x0 - 1, sb.y1}, diff_color(l.mark));
            if (l.found) out_.rect(sb.grown(3), found_color, 2);
            if (selected_.row == r && selected_.local == static_cast<std::int32_t>(i)) out_.rect(sb.grown(4), select_color, 3);
            ++stats_.nodes;
            if (labels) label(g, i, sb, n);
        }
    }

    void label(const UnitGeometry& g, std::size_t i, const Box& sb, const schema::Node& n) {
        float size = static_cast<float>(world::node_font * z_);
        float line = size * f_.metrics.line_height;
        float x = sb.x0 + static_cast<float>(world::node_pad_x * z_), y = sb.y0 + static_cast<float>(world::node_pad_y * z_);
        const auto& lines = g.shape.lines[i];
        // The precision glyph: weight | activation | output.
        auto glyph = precision_glyph(n);
        float cell = static_cast<float>(world::glyph_cell * z_), top = y + line * 0.12f, bottom = y + line * 0.85f;
        Rgba cells[3] = {glyph.weight, glyph.activation, glyph.output};
        for (int c = 0; c < 3; ++c) {
            Box b{x + c * cell, top, x + (c + 1) * cell, bottom};
            out_.fill_rect(b, cells[c]);
        }
        out_.rect({x, top, x + 3 * cell, bottom}, glyph_line, 1);
        for (std::size_t l = 0; l < lines.size(); ++l) {
            float lx = l == 0 ? x + 3 * cell + static_cast<float>(world::glyph_gap * z_) : x;
            put_text({lx, y + line * static_cast<float>(l)}, size, l == 2 ? state_color : ink, lines[l]);
        }
    }

    void blobs(std::int32_t r, const Row& row) {
        const UnitGeometry& g = f_.scene.unit(row);
        std::vector<char> done(g.shape.clusters.size(), 0);
        for (std::size_t i = 0; i < g.layout.nodes.size(); ++i) {
            int c = g.shape.graph.nodes[i].cluster;
            OpLook l = look(row, i);
            if (c >= 0 && g.shape.clusters[static_cast<std::size_t>(c)].group) {
                if (done[static_cast<std::size_t>(c)]) continue;
                done[static_cast<std::size_t>(c)] = 1;
                out_.fill_rect(screen(f_.scene.cluster_box(r, static_cast<std::size_t>(c))), l.fill);
            } else {
                out_.fill_rect(screen(f_.scene.node_box({r, static_cast<std::int32_t>(i)})), l.fill);
            }
            ++stats_.blobs;
        }
    }

    // A card's fills (at the default colouring, its ops' formats) as a thin strip along the foot of
    // its header band, each fill as wide as its share of the card's ops, most first: what a card
    // is made of while its ops are too small to read. Only while the title stands left of the card.
    void card_strip(const Row& row) {
        Box s = screen(row.box);
        const float band = static_cast<float>(world::row_header * z_);
        if (band >= f_.ui_font + 6 || band < 4) return;
        const float h = std::clamp(band - 2, 3.0f, 6.0f);
        Box strip{s.x0 + 2, s.y0 + band - h - 1, s.x1 - 2, s.y0 + band - 1};
        if (!strip.overlaps(f_.viewport) || strip.width() < 6) return;
        const auto& shares = f_.colours.card_shares(static_cast<std::size_t>(row.instances.front()));
        float total = 0;
        for (const auto& sh : shares) total += static_cast<float>(sh.ops);
        if (total <= 0) return;
        float x = strip.x0;
        for (const auto& sh : shares) {
            float w = strip.width() * static_cast<float>(sh.ops) / total;
            out_.fill_rect({x, strip.y0, x + w, strip.y1}, sh.fill);
            x += w;
        }
        out_.rect(strip, glyph_line, 1);
        ++stats_.card_strips;
    }

    // Strips: rows too thin to show their ops, binned into bands of a few pixels.
    void strip(const Row& row, float sy0, float sy1) {
        Box s = screen(row.box);
        int band = static_cast<int>(std::floor(sy0 / strip_band_pixels));
        if ((band != band_ || row.column != band_column_) && !band_colors_.empty()) flush_band();
        band_ = band;
        band_column_ = row.column;
        band_box_ = band_colors_.empty() ? Box{s.x0, sy0, s.x1, sy1} : Box{std::min(band_box_.x0, s.x0), band_box_.y0,
                                                                           std::max(band_box_.x1, s.x1), std::max(band_box_.y1, sy1)};
        for (const auto& share : f_.colours.shares(static_cast<std::size_t>(row.instances.front()))) {
            if (share.ops == 0) continue;
            auto it = std::find_if(band_colors_.begin(), band_colors_.end(), [&](const auto& p) { return p.first == share.fill; });
            if (it == band_colors_.end()) band_colors_.push_back({share.fill, share.ops});
            else it->second += share.ops;
        }
    }

    void flush_band() {
        if (band_colors_.empty()) return;
        std::stable_sort(band_colors_.begin(), band_colors_.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        band_colors_.resize(std::min<std::size_t>(band_colors_.size(), 3));
        float total = 0;
        for (const auto& [c, n] : band_colors_) total += static_cast<float>(n);
        float x = band_box_.x0;
        float y1 = std::max(band_box_.y1, band_box_.y0 + 1);
        for (const auto& [c, n] : band_colors_) {
            float w = band_box_.width() * static_cast<float>(n) / total;
            out_.fill_rect({x, band_box_.y0, x + w, y1}, c);
            x += w;
        }
        ++stats_.bands;
        band_colors_.clear();
    }

    void connectors(bool labels, std::size_t first_row, std::size_t last_row) {
        const auto& cs = f_.scene.connectors();
        const auto& plan = f_.doc.plan();
        for (std::size_t k : f_.scene.connectors_near(first_row, last_row)) {
            const auto& c = cs[k];
            auto path = f_.scene.connector_path(c, k);
            Box span{path[0].x, path[0].y, path[0].x, path[0].y};
            for (const auto& p : path) span.include({p.x, p.y, p.x, p.y});
            if (!span.overlaps(visible_)) continue;
            points_.clear();
            for (const auto& p : path) points_.push_back(screen(p));
            const auto& e = plan.edges[static_cast<std::size_t>(c.edge)];
            float px = std::min(3.0f, line_px(e.bytes_per_token, z_));
            out_.polyline(points_.data(), points_.size(), connector_color, px);
            if (labels && points_.size() >= 3) arrowhead(points_[points_.size() - 2], points_.back(), connector_color, px);
            if (labels && c.count > 1 && points_.size() >= 4) {
                Vec2 mid{points_[2].x, (points_[2].y + points_[3].y) / 2};  // beside the gutter's run
                put_text({mid.x + 4, mid.y + 2}, std::max(min_text_px, static_cast<float>(9 * z_)), port_color, "× " + std::to_string(c.count), true);
            }
            ++stats_.connectors;
        }
    }

    void header(const Row& row) {
        RowHeader h = row_header(f_, row);
        if (!h.visible) return;
        out_.text(h.title, f_.ui_font, ink, row.title);
        if (h.badge.width() > 0) {
            out_.fill_rect(h.badge, row.folded ? port_color : rgba(150, 150, 150), h.badge.height() / 2);
            out_.text({h.badge.x0 + 7, h.badge.y0 + 1}, f_.ui_font * 0.9f, rgba(255, 255, 255), row.badge);
        }
        if (h.detail.x > 0 && !row.detail.empty()) {
            Box s = screen(row.box);
            float room = s.x1 - h.detail.x - 8;
            std::string d = f_.metrics.fit(row.detail, f_.ui_font * 0.85f, room);
            out_.text(h.detail, f_.ui_font * 0.85f, faint_ink, d);
        }
        if (!f_.scene.unit(row).final) {
            Box s = screen(row.box);
            out_.text({s.x1 - 90, s.y0 + 4}, f_.ui_font * 0.8f, faint_ink, "laying out…");
        }
    }

    void gutter_label(const Row& row, float sy0) {
        const Instance& first = f_.doc.instances()[static_cast<std::size_t>(row.instances.front())];
        if (row.column != gutter_column_) next_gutter_y_ = -1e30f, gutter_column_ = row.column;
        if (!first.layer || sy0 < next_gutter_y_) return;
        std::string t = std::to_string(*first.layer);
        Box s = screen(row.box);
        float w = f_.metrics.width(t, f_.ui_font * 0.8f);
        out_.text({s.x0 - w - 8, sy0}, f_.ui_font * 0.8f, faint_ink, t);
        next_gutter_y_ = sy0 + f_.ui_font + 4;
    }

private:
    const FrameContext& f_;
    DrawList& out_;
    FrameStats& stats_;
    double z_ = 1;
    Box visible_;
    Place selected_;
    std::vector<Vec2> points_, dash_;
    int band_ = INT32_MIN;
    std::int32_t band_column_ = -1;
    std::int32_t gutter_column_ = -1;
    Box band_box_;
    std::vector<std::pair<Rgba, int>> band_colors_;
    float next_gutter_y_ = -1e30f;
    std::vector<Box> taken_;     // the frame's texts so far (screen), none drawn over another
    std::vector<Box> op_boxes_;  // the row's ops on screen, while its edges are drawn

    void dashed(const Vec2* p, std::size_t n, Rgba color, float px) {
        constexpr float dash = 5, gap = 4;
        float phase = 0;  // distance along the current dash pattern
        for (std::size_t i = 0; i + 1 < n; ++i) {
            float dx = p[i + 1].x - p[i].x, dy = p[i + 1].y - p[i].y;
            float len = std::sqrt(dx * dx + dy * dy);
            float at = 0;
            while (at < len) {
                float in_pattern = std::fmod(phase + at, dash + gap);
                float step = in_pattern < dash ? std::min(dash - in_pattern, len - at) : std::min(dash + gap - in_pattern, len - at);
                if (in_pattern < dash && step > 0.3f) {
                    float t0 = at / len, t1 = (at + step) / len;
                    out_.line({p[i].x + dx * t0, p[i].y + dy * t0}, {p[i].x + dx * t1, p[i].y + dy * t1}, color, px);
                }
                at += std::max(step, 0.01f);
            }
            phase = std::fmod(phase + len, dash + gap);
        }
    }

    void arrowhead(Vec2 from, Vec2 tip, Rgba color, float px) {
        float dx = tip.x - from.x, dy = tip.y - from.y;
        float len = std::sqrt(dx * dx + dy * dy);
        if (len < 0.5f) return;
        float size = std::clamp(static_cast<float>(7 * z_), 3.0f, 14.0f) + px;
        float ux = dx / len, uy = dy / len;
        Vec2 base{tip.x - ux * size, tip.y - uy * size};
        std::array<Vec2, 3> tri{{tip, {base.x - uy * size * 0.45f, base.y + ux * size * 0.45f}, {base.x + uy * size * 0.45f, base.y - ux * size * 0.45f}}};
        out_.line(from, base, color, px);
        out_.fill_poly(tri.data(), tri.size(), color);
    }
};

}  // namespace

Detail detail_for(double zoom) {
    if (zoom >= labels_zoom) return Detail::labels;
    if (zoom >= boxes_zoom) return Detail::boxes;
    return Detail::blobs;
}

RowHeader row_header(const FrameContext& f, const Row& row) {
    RowHeader h;
    Box s = f.camera.to_screen(row.box, f.viewport);
    if (s.height() < f.ui_font + 6) return h;  // thinner rows get a layer number in the gutter
    h.visible = true;
    float band = static_cast<float>(world::row_header * f.camera.zoom);
    float title_w = f.metrics.width(row.title, f.ui_font);
    float badge_w = row.badge.empty() ? 0 : f.metrics.width(row.badge, f.ui_font * 0.9f) + 14;
    float badge_h = f.ui_font + 3;
    if (band >= f.ui_font + 6) {
        // Inside the header band: title, badge, detail.
        float y = s.y0 + (band - f.ui_font) / 2;
        h.title = {s.x0 + 8, y};
        float x = h.title.x + title_w + 8;
        if (badge_w > 0) {
            h.badge = {x, y - 2, x + badge_w, y - 2 + badge_h};
            x += badge_w + 8;
        }
        h.detail = {x, y + 1};
    } else {
        // In the gutter left of the frame, on one line: badge, title.
        h.title = {s.x0 - 10 - title_w, s.y0};
        if (badge_w > 0) h.badge = {h.title.x - 8 - badge_w, s.y0 - 1, h.title.x - 8, s.y0 - 1 + badge_h};
        h.detail = {-1, -1};
    }
    return h;
}

FrameStats build_frame(const FrameContext& f, DrawList& out) {
    FrameStats stats;
    RowPainter paint(f, out, stats);
    const double z = f.camera.zoom;
    stats.detail = detail_for(z);
    const auto& rows = f.scene.rows();
    const auto shown = f.scene.rows_in(paint.visible());
    bool fine = z >= boxes_zoom, labels = z >= labels_zoom;
    for (std::size_t r : shown) {
        const Row& row = rows[r];
        Box s = paint.screen(row.box);
        ++stats.rows;
        if (fine) {
            paint.frame(row, true);
            paint.clusters(static_cast<std::int32_t>(r), row, labels);
            paint.edges(static_cast<std::int32_t>(r), row, labels);
            paint.nodes(static_cast<std::int32_t>(r), row, labels);
            paint.block_titles(static_cast<std::int32_t>(r), row);
            if (!labels) paint.card_strip(row);
        } else if (s.height() >= blob_row_pixels) {
            stats.detail = Detail::blobs;
            paint.frame(row, true);
            paint.blobs(static_cast<std::int32_t>(r), row);
            paint.card_strip(row);
        } else {
            stats.detail = std::min(stats.detail, Detail::strips);
            paint.strip(row, std::max(s.y0, f.viewport.y0), std::min(s.y1, f.viewport.y1));
        }
    }
    paint.flush_band();
    if (fine && !shown.empty()) paint.connectors(labels, shown.front(), shown.back() + 1);
    for (auto r : shown) {
        const Row& row = rows[r];
        Box s = paint.screen(row.box);
        if (row_header(f, row).visible) paint.header(row);
        else paint.gutter_label(row, std::max(s.y0, f.viewport.y0));
    }
    return stats;
}

namespace {

float distance_to(const std::vector<Vec2>& line, Vec2 p) {
    float best = 1e30f;
    for (std::size_t i = 0; i + 1 < line.size(); ++i) {
        Vec2 a = line[i], b = line[i + 1];
        float dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy;
        float t = len2 > 0 ? std::clamp(((p.x - a.x) * dx + (p.y - a.y) * dy) / len2, 0.0f, 1.0f) : 0;
        float ex = a.x + t * dx - p.x, ey = a.y + t * dy - p.y;
        best = std::min(best, std::sqrt(ex * ex + ey * ey));
    }
    return best;
}

}  // namespace

Hit hit_test(const FrameContext& f, Vec2 screen) {
    Hit hit;
    const auto& rows = f.scene.rows();
    Box vis = f.camera.visible_world(f.viewport);
    const auto visible = f.scene.rows_in(vis);
    for (std::size_t r : visible) {
        RowHeader h = row_header(f, rows[r]);
        if (h.visible && h.badge.width() > 0 && h.badge.contains(screen)) return {HitKind::badge, static_cast<std::int32_t>(r), -1, -1};
    }
    Vec2 w = f.camera.to_world(screen, f.viewport);
    const float slack = static_cast<float>(4 / f.camera.zoom);
    const auto near = f.scene.rows_in({w.x - slack, w.y - slack, w.x + slack, w.y + slack});
    const bool fine = f.camera.zoom >= boxes_zoom;
    for (std::size_t r : near) {
        if (!fine) break;
        const Row& row = rows[r];
        const auto& g = f.scene.unit(row);
        auto ri = static_cast<std::int32_t>(r);
        for (std::size_t i = 0; i < g.layout.nodes.size(); ++i)
            if (f.scene.node_box({ri, static_cast<std::int32_t>(i)}).contains(w)) return {HitKind::node, ri, static_cast<std::int32_t>(i), -1};
        for (std::size_t k = 0; k < g.layout.edges.size(); ++k) {
            std::vector<Vec2> line;
            for (const auto& p : g.layout.edges[k]) line.push_back({p.x + row.origin.x, p.y + row.origin.y});
            if (distance_to(line, w) <= slack) return {HitKind::edge, ri, static_cast<std::int32_t>(k), -1};
        }
        for (std::size_t c = g.shape.clusters.size(); c-- > 0;)
            if (g.shape.clusters[c].group && f.scene.cluster_box(ri, c).contains(w)) return {HitKind::group, ri, static_cast<std::int32_t>(c), -1};
    }
    if (fine && !visible.empty()) {
        const auto& cs = f.scene.connectors();
        for (std::size_t k : f.scene.connectors_near(visible.front(), visible.back() + 1))
            if (distance_to(f.scene.connector_path(cs[k], k), w) <= slack) return {HitKind::connector, -1, -1, static_cast<std::int32_t>(k)};
    }
    for (std::size_t r : near)
        if (rows[r].box.contains(w)) return {HitKind::row, static_cast<std::int32_t>(r), -1, -1};
    return hit;
}

}  // namespace kbp::viewer
