#include "viewer/app/ui.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "exporters/palette.hpp"
#include "exporters/text.hpp"

namespace kbp::viewer::app {
namespace {

constexpr float side_width = 430;
constexpr float status_height = 24;
constexpr ImGuiWindowFlags fixed = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings;

ImVec4 colour(Rgba c) { return ImGui::ColorConvertU32ToFloat4(c); }
const ImVec4 grey{0.42f, 0.42f, 0.45f, 1};

void swatch(Rgba fill, float size = 13) {
    ImVec2 p = ImGui::GetCursorScreenPos();
    auto* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, {p.x + size, p.y + size}, fill);
    dl->AddRect(p, {p.x + size, p.y + size}, IM_COL32(120, 120, 120, 255));
    ImGui::Dummy({size, size});
}

std::string mb(double bytes) {
    char buf[32];
    if (bytes >= 1e6) std::snprintf(buf, sizeof buf, "%.2f MB", bytes / 1e6);
    else std::snprintf(buf, sizeof buf, "%.1f KB", bytes / 1e3);
    return buf;
}

const char* status_mark(diff::ChangeKind k) {
    switch (k) {
        case diff::ChangeKind::added: return "+";
        case diff::ChangeKind::removed: return "-";
        case diff::ChangeKind::changed: return "~";
    }
    return "~";
}

Rgba status_colour(diff::ChangeKind k) {
    return diff_color(k == diff::ChangeKind::added ? DiffMark::added : k == diff::ChangeKind::removed ? DiffMark::removed : DiffMark::changed);
}

// `text` cut to `width` pixels of the current font, "…" ending what was cut.
std::string ellipsized(const std::string& text, float width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
    std::size_t keep = text.size();
    while (keep > 0) {
        do --keep;
        while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80);  // whole UTF-8 characters
        std::string cut = text.substr(0, keep) + "…";
        if (ImGui::CalcTextSize(cut.c_str()).x <= width) return cut;
    }
    return "…";
}

constexpr float value_column = 130;  // the inspector's values start here, their labels before

}  // namespace

FrameFigures Ui::draw(ViewModel& model, float width, float height) {
    ImGui::PushFont(ui_font_);
    menu(model);
    float top = ImGui::GetFrameHeight();
    float canvas_w = width - side_width;
    float body_h = height - top - status_height;
    FrameFigures figures = canvas(model, 0, top, canvas_w, std::max(100.0f, body_h - legend_height_));
    legend(model, 0, top + body_h, canvas_w);
    side_panel(model, canvas_w, top, side_width, body_h);
    problems(model, canvas_w);
    status(model, height - status_height, width, figures);
    if (open_dialog_) {
        ImGui::OpenPopup("Open a plan");
        open_dialog_ = false;
    }
    open_dialog(model);
    if (help_open_) {
        ImGui::SetNextWindowPos({canvas_w / 2, height / 2}, ImGuiCond_Appearing, {0.5f, 0.5f});
        if (ImGui::Begin("Keyboard and mouse", &help_open_, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) help();
        ImGui::End();
    }
    keys(model);
    ImGui::PopFont();
    return figures;
}

// ---- menu --------------------------------------------------------------------------------------

void Ui::menu(ViewModel& model) {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open…", "Ctrl+O")) open_dialog_ = true;
        if (ImGui::MenuItem("Compare with…", nullptr, false, model.document(0) != nullptr)) open_dialog_ = true;
        if (recent_) {
            // Open recent opens as plan a; Compare with recent as plan b, beside the open one.
            for (int side = 0; side < 2; ++side) {
                const char* title = side == 0 ? "Open recent" : "Compare with recent";
                if (ImGui::BeginMenu(title, !recent_->empty() && (side == 0 || model.document(0) != nullptr))) {
                    for (std::size_t i = 0; i < recent_->size(); ++i) {
                        ImGui::PushID(static_cast<int>(i));
                        if (ImGui::MenuItem((*recent_)[i].c_str())) model.open((*recent_)[i], side);
                        ImGui::PopID();
                    }
                    ImGui::EndMenu();
                }
            }
        }
        if (ImGui::MenuItem("Close the second plan", nullptr, false, model.document(1) != nullptr)) model.close_second();
        if (ImGui::MenuItem("Reload changed files")) model.reload_changed();
        ImGui::Separator();
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit_ = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        if (ImGui::MenuItem("Fit to window", "F")) model.fit();
        if (ImGui::MenuItem("Expand all layers", "E", false, !model.all_expanded())) model.expand_all();
        if (ImGui::MenuItem("Fold layers into templates", "E", false, model.all_expanded() || true)) model.fold_all();
        ImGui::Separator();
        if (ImGui::MenuItem("Show plan a", nullptr, model.shown_side() == 0, model.document(0) != nullptr)) model.show_side(0);
        if (ImGui::MenuItem("Show plan b", "D", model.shown_side() == 1, model.document(1) != nullptr)) model.show_side(1);
        if (ImGui::MenuItem("Both side by side", "S", model.side_by_side(), model.document(1) != nullptr))
            model.set_side_by_side(!model.side_by_side());
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Colour by")) {
        for (auto m : all_color_modes) {
            std::string name(color_mode_name(m));
            if (ImGui::MenuItem(name.c_str(), nullptr, model.color_mode() == m)) model.set_color_mode(m);
        }
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        if (ImGui::MenuItem("Keyboard and mouse", "H")) help_open_ = true;
        ImGui::EndMenu();
    }
    ImGui::EndMainMenuBar();
}

// ---- canvas ------------------------------------------------------------------------------------

FrameFigures Ui::canvas(ViewModel& model, float x, float y, float w, float h) {
    FrameFigures figures;
    ImGui::SetNextWindowPos({x, y});
    ImGui::SetNextWindowSize({w, h});
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, {0, 0});
    ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(255, 255, 255, 255));
    ImGui::Begin("canvas", nullptr, fixed | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoBringToFrontOnFocus);
    ImGui::PopStyleColor();
    ImGui::PopStyleVar();
    Box viewport{x, y, x + w, y + h};
    ImGui::SetCursorScreenPos({x, y});
    ImGui::InvisibleButton("canvas input", {std::max(w, 1.0f), std::max(h, 1.0f)});
    bool hovered = ImGui::IsItemHovered();
    ImGuiIO& io = ImGui::GetIO();
    Vec2 mouse{io.MousePos.x, io.MousePos.y};
    if (hovered && io.MouseWheel != 0) model.zoom_at(mouse, std::pow(1.18, io.MouseWheel));
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 3)) {
        model.pan(io.MouseDelta.x, io.MouseDelta.y);
        dragging_ = true;
    }
    if (ImGui::IsItemDeactivated()) {
        if (!dragging_) model.click(mouse);
        dragging_ = false;
    }
    if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) model.double_click(mouse);

    auto t0 = std::chrono::steady_clock::now();
    stats_ = model.frame(viewport, draw_list_);
    figures.model_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    ImDrawList* dl = ImGui::GetWindowDrawList();
    int before = dl->VtxBuffer.Size;
    dl->PushClipRect({x, y}, {x + w, y + h}, true);
    for (const auto& p : draw_list_.prims()) {
        switch (p.kind) {
            case PrimKind::fill_rect: dl->AddRectFilled({p.box.x0, p.box.y0}, {p.box.x1, p.box.y1}, p.color, p.rounding); break;
            case PrimKind::rect: dl->AddRect({p.box.x0, p.box.y0}, {p.box.x1, p.box.y1}, p.color, p.rounding, 0, p.size); break;
            case PrimKind::line: dl->AddLine({p.box.x0, p.box.y0}, {p.box.x1, p.box.y1}, p.color, p.size); break;
            case PrimKind::polyline:
                dl->AddPolyline(reinterpret_cast<const ImVec2*>(draw_list_.points(p)), static_cast<int>(p.count), p.color,
                                p.closed ? ImDrawFlags_Closed : 0, p.size);
                break;
            case PrimKind::fill_poly:
                dl->AddConvexPolyFilled(reinterpret_cast<const ImVec2*>(draw_list_.points(p)), static_cast<int>(p.count), p.color);
                break;
            case PrimKind::text: {
                auto t = draw_list_.text_of(p);
                dl->AddText(canvas_font_, p.size, {p.box.x0, p.box.y0}, p.color, t.data(), t.data() + t.size());
                break;
            }
            case PrimKind::clip:  // a pane of the canvas (side by side): within the canvas
                dl->PopClipRect();
                dl->PushClipRect({std::max(x, p.box.x0), std::max(y, p.box.y0)}, {std::min(x + w, p.box.x1), std::min(y + h, p.box.y1)}, true);
                break;
        }
    }
    if (!model.document(model.shown_side())) {
        const char* hint = model.loading() ? "loading…" : "Open a plan: File > Open, or drop a .plan.json here";
        ImVec2 size = ImGui::CalcTextSize(hint);
        dl->AddText({x + (w - size.x) / 2, y + (h - size.y) / 2}, IM_COL32(110, 110, 110, 255), hint);
    }
    dl->PopClipRect();
    figures.canvas_vertices = static_cast<std::size_t>(dl->VtxBuffer.Size - before);
    if (interactive_ && hovered && !ImGui::IsItemActive()) {
        std::string tip = model.tooltip(mouse);
        if (!tip.empty()) ImGui::SetTooltip("%s", tip.c_str());
    }
    ImGui::End();
    return figures;
}

void Ui::legend(const ViewModel& model, float x, float bottom, float width) {
    const Colouring* c = model.colouring();
    ImGui::SetNextWindowPos({x, bottom}, ImGuiCond_Always, {0, 1});
    ImGui::SetNextWindowSize({width, 0});
    ImGui::Begin("legend", nullptr, fixed | ImGuiWindowFlags_NoScrollbar);
    if (!c) {
        ImGui::TextColored(grey, "legend: open a plan");
        legend_height_ = ImGui::GetWindowHeight();
        ImGui::End();
        return;
    }
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    // Items flow left to right and wrap at the window's edge.
    bool first = true;
    auto flow = [&](float item_width) {
        if (!first) {
            ImGui::SameLine(0, 16);
            if (ImGui::GetCursorScreenPos().x + item_width > right) ImGui::NewLine();
        }
        first = false;
    };
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(grey, "%s", c->meaning().c_str());
    ImGui::PopTextWrapPos();
    if (c->mode() == ColorMode::precision) {
        ImGui::SameLine(0, 16);
        ImVec2 p = ImGui::GetCursorScreenPos();
        auto* dl = ImGui::GetWindowDrawList();
        const char* cells[] = {"W", "A", "O"};
        for (int i = 0; i < 3; ++i) {
            ImVec2 a{p.x + static_cast<float>(i) * 16, p.y + 1};
            dl->AddRect(a, {a.x + 15, a.y + 15}, IM_COL32(150, 150, 150, 255));
            dl->AddText({a.x + 3, a.y}, IM_COL32(80, 80, 80, 255), cells[i]);
        }
        ImGui::Dummy({50, 16});
    }
    std::size_t shown = 0;
    const auto entries = model.legend();
    for (const auto& e : entries) {
        std::string text = e.key + " (" + exporters::grouped(e.ops) + ")";
        flow(18 + ImGui::CalcTextSize(text.c_str()).x);
        swatch(e.fill);
        ImGui::SameLine(0, 4);
        ImGui::TextUnformatted(text.c_str());
        if (++shown == 30 && entries.size() > 30) {
            flow(80);
            ImGui::TextColored(grey, "… %zu more", entries.size() - 30);
            break;
        }
    }
    if (!c->note().empty()) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(grey, "%s", c->note().c_str());
        ImGui::PopTextWrapPos();
    }
    // The marks that hold in every mode, as in the SVGs.
    first = true;
    auto mark = [&](Rgba col, const char* text) {
        flow(ImGui::CalcTextSize(text).x);
        ImGui::TextColored(colour(col), "%s", text);
    };
    mark(parse_hex(exporters::quant_color), "red hexagon: inserted quantization point");
    mark(parse_hex(exporters::state_color), "blue frame: owns state");
    mark(rgba(40, 40, 40), "solid edge: crosses kernels (colour = format, width = bytes per token)");
    mark(parse_hex(exporters::fused_color), "dashed grey: fused, stays in its kernel");
    mark(rgba(80, 80, 80), "box: fused group (g<id> rule)");
    mark(parse_hex(exporters::port_color), "purple: tensor to another row; × N: folded layers");
    mark(rgba(40, 40, 40), "block · N: its name and the kernels it launches");
    if (model.plan_diff() && c->mode() != ColorMode::diff) {
        flow(300);
        ImGui::TextUnformatted("bar left of an op:");
        for (auto m : {DiffMark::added, DiffMark::removed, DiffMark::changed}) {
            ImGui::SameLine();
            swatch(diff_color(m));
            ImGui::SameLine(0, 4);
            ImGui::TextUnformatted(m == DiffMark::added ? "added" : m == DiffMark::removed ? "removed" : "changed");
        }
    }
    legend_height_ = ImGui::GetWindowHeight();
    ImGui::End();
}

// ---- side panel --------------------------------------------------------------------------------

void Ui::side_panel(ViewModel& model, float x, float y, float w, float h) {
    ImGui::SetNextWindowPos({x, y});
    ImGui::SetNextWindowSize({w, h});
    ImGui::Begin("side", nullptr, fixed);
    if (ImGui::BeginTabBar("panels")) {
        struct Tab {
            const char* name;
            Panel panel;
        };
        for (const Tab& t : {Tab{"Inspector", Panel::inspector}, Tab{"Find", Panel::find}, Tab{"Overview", Panel::overview},
                             Tab{"Diff", Panel::diff}, Tab{"Help", Panel::help}}) {
            ImGuiTabItemFlags flags = select_tab_ && panel_ == t.panel ? ImGuiTabItemFlags_SetSelected : 0;
            if (ImGui::BeginTabItem(t.name, nullptr, flags)) {
                if (!select_tab_) panel_ = t.panel;
                ImGui::BeginChild("panel body");
                switch (t.panel) {
                    case Panel::inspector: inspector(model); break;
                    case Panel::find: find_panel(model); break;
                    case Panel::overview: overview(model); break;
                    case Panel::diff: diff_panel(model); break;
                    case Panel::help: help(); break;
                }
                ImGui::EndChild();
                ImGui::EndTabItem();
            }
        }
        select_tab_ = false;
        ImGui::EndTabBar();
    }
    ImGui::End();
}

void Ui::inspector(ViewModel& model) {
    const auto& sections = model.inspector();
    if (sections.empty()) {
        ImGui::TextWrapped("Click an op, an edge or a fused group's box to inspect it; its neighbours are links. "
                           "Find (/) searches by id, op, kernel, family, rule or format.");
        return;
    }
    int index = 0;
    for (const auto& s : sections) {
        ImGui::PushID(index++);
        bool open_default = index <= 4;
        if (ImGui::CollapsingHeader(s.title.c_str(), open_default ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
            int line = 0;
            for (const auto& l : s.lines) {
                ImGui::PushID(line++);
                ImGui::TextColored(grey, "%s", l.label.c_str());
                // A label wider than its column puts the value on the next line, indented.
                if (ImGui::CalcTextSize(l.label.c_str()).x <= value_column - 8) ImGui::SameLine(value_column);
                else ImGui::SetCursorPosX(ImGui::GetCursorPosX() + value_column);
                if (l.node >= 0 || l.edge >= 0 || l.group >= 0) {
                    // A link cut to the panel's width, with an ellipsis; the whole of it in a tooltip.
                    float room = ImGui::GetContentRegionAvail().x - 2 * ImGui::GetStyle().FramePadding.x;
                    std::string shown = ellipsized(l.value, room);
                    bool clicked = ImGui::SmallButton(shown.c_str());
                    if (shown != l.value && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", l.value.c_str());
                    if (clicked) {
                        if (l.node >= 0) model.select({SelectionKind::node, l.node}, true);
                        else if (l.group >= 0) model.select({SelectionKind::group, l.group}, true);
                        else model.select({SelectionKind::edge, l.edge}, true);
                    }
                } else {
                    ImGui::PushTextWrapPos(0);
                    ImGui::TextUnformatted(l.value.c_str());
                    ImGui::PopTextWrapPos();
                }
                ImGui::PopID();
            }
        }
        ImGui::PopID();
    }
    std::string why = model.why_text();
    if (!why.empty() && ImGui::CollapsingHeader("kbp why", ImGuiTreeNodeFlags_DefaultOpen)) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextUnformatted(why.c_str());
        ImGui::PopTextWrapPos();
    }
}

void Ui::find_panel(ViewModel& model) {
    bool changed = false;
    if (focus_find_) {
        ImGui::SetKeyboardFocusHere();
        focus_find_ = false;
    }
    ImGui::SetNextItemWidth(-1);
    changed |= ImGui::InputTextWithHint("##query", "id, op, kernel:, family:, rule:, format: …", &query_);
    ImGui::SetNextItemWidth(140);
    changed |= ImGui::InputTextWithHint("layers", "all, 3-7, 0-2,9", &layers_);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(110);
    if (ImGui::BeginCombo("block", block_.empty() ? "all" : block_.c_str())) {
        std::set<std::string> types;
        if (const auto* d = model.document(model.shown_side()))
            for (const auto& n : d->plan().nodes) types.insert(std::string(n.block_type.view()));
        if (ImGui::Selectable("all", block_.empty())) block_.clear(), changed = true;
        for (const auto& t : types)
            if (ImGui::Selectable(t.c_str(), block_ == t)) block_ = t, changed = true;
        ImGui::EndCombo();
    }
    if (changed) model.find({query_, layers_, block_});
    const auto& r = model.find_result();
    if (!r.error.empty()) {
        ImGui::TextColored({0.8f, 0.1f, 0.1f, 1}, "%s", r.error.c_str());
        return;
    }
    ImGui::Text("%zu results", r.nodes.size());
    ImGui::SameLine();
    if (ImGui::SmallButton("previous (N)")) model.find_next(-1);
    ImGui::SameLine();
    if (ImGui::SmallButton("next (n)")) model.find_next(1);
    const Document* doc = model.document(model.shown_side());
    if (!doc) return;
    ImGui::BeginChild("results");
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(r.nodes.size()));
    while (clipper.Step())
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const auto& n = doc->plan().nodes[static_cast<std::size_t>(r.nodes[static_cast<std::size_t>(i)])];
            ImGui::PushID(i);
            std::string text = n.id + "   " + n.op.name() + "   " + exporters::precision_signature(n.precision);
            if (ImGui::Selectable(text.c_str(), model.find_cursor() == i)) model.jump_to_result(static_cast<std::size_t>(i));
            ImGui::PopID();
        }
    ImGui::EndChild();
}

void Ui::overview(ViewModel& model) {
    const Budget* b = model.budget();
    if (!b) {
        ImGui::TextUnformatted("No plan is open.");
        return;
    }
    if (ImGui::CollapsingHeader("counts", ImGuiTreeNodeFlags_DefaultOpen)) {
        ImGui::Text("%s ops, %s edges", exporters::grouped(b->nodes).c_str(), exporters::grouped(b->edges).c_str());
        ImGui::Text("%s groups: %s kernel launches, %s host steps", exporters::grouped(b->groups).c_str(),
                    exporters::grouped(b->launches).c_str(), exporters::grouped(b->host_steps).c_str());
        ImGui::Text("%s quantization points, %s re-quantized edges", exporters::grouped(b->quant_points).c_str(),
                    exporters::grouped(b->requant_edges).c_str());
        if (b->step_us)
            ImGui::Text("roofline on %s: %.1f us per step, %.1f tokens/s", b->target.c_str(), *b->step_us, *b->tokens_per_s);
    }
    if (ImGui::CollapsingHeader("bytes per step", ImGuiTreeNodeFlags_DefaultOpen)) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(grey, "%s", b->note.c_str());
        ImGui::PopTextWrapPos();
        ImGui::Text("weights %s · activations %s · state %s", mb(b->total.weight).c_str(), mb(b->total.activation).c_str(),
                    mb(b->total.state).c_str());
        double most = 1;
        for (const auto& r : b->by_format) most = std::max(most, r.weight + r.activation);
        if (ImGui::BeginTable("by format", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
            ImGui::TableSetupColumn("format");
            ImGui::TableSetupColumn("weights");
            ImGui::TableSetupColumn("activations");
            ImGui::TableHeadersRow();
            for (const auto& r : b->by_format) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                swatch(parse_hex(exporters::format_color(schema::Format::parse(r.key)).fill));
                ImGui::SameLine();
                ImGui::TextUnformatted(r.key.c_str());
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(r.weight > 0 ? mb(r.weight).c_str() : "");
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(r.activation > 0 ? mb(r.activation).c_str() : "");
            }
            ImGui::EndTable();
        }
        if (ImGui::TreeNode("by layer")) {
            double top = 1;
            for (const auto& r : b->by_layer) top = std::max(top, r.weight + r.activation + r.state);
            ImGuiListClipper clipper;
            clipper.Begin(static_cast<int>(b->by_layer.size()));
            while (clipper.Step())
                for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
                    const auto& r = b->by_layer[static_cast<std::size_t>(i)];
                    ImGui::Text("%-10s", r.key.c_str());
                    ImGui::SameLine(90);
                    ImVec2 p = ImGui::GetCursorScreenPos();
                    float full = 200;
                    float ww = static_cast<float>(r.weight / top) * full, wa = static_cast<float>(r.activation / top) * full,
                          ws = static_cast<float>(r.state / top) * full;
                    auto* dl = ImGui::GetWindowDrawList();
                    dl->AddRectFilled({p.x, p.y + 3}, {p.x + ww, p.y + 13}, IM_COL32(244, 170, 166, 255));
                    dl->AddRectFilled({p.x + ww, p.y + 3}, {p.x + ww + wa, p.y + 13}, IM_COL32(205, 235, 201, 255));
                    dl->AddRectFilled({p.x + ww + wa, p.y + 3}, {p.x + ww + wa + ws, p.y + 13}, IM_COL32(211, 226, 246, 255));
                    ImGui::Dummy({full, 14});
                    ImGui::SameLine();
                    ImGui::TextColored(grey, "%s", mb(r.weight + r.activation + r.state).c_str());
                }
            ImGui::TextColored(grey, "red weights, green activations, blue state");
            ImGui::TreePop();
        }
        if (!b->time_by_family.empty() && ImGui::TreeNode("time by kernel family")) {
            for (std::size_t i = 0; i < std::min<std::size_t>(12, b->time_by_family.size()); ++i)
                ImGui::Text("%-28s %9.1f us", b->time_by_family[i].first.c_str(), b->time_by_family[i].second);
            ImGui::TreePop();
        }
    }
    if (ImGui::CollapsingHeader("layer × op formats", ImGuiTreeNodeFlags_DefaultOpen)) {
        const Heatmap* h = model.heatmap();
        const Document* doc = model.document(model.shown_side());
        if (!h || !doc || h->layers.empty()) {
            ImGui::TextUnformatted("The plan has no layers.");
            return;
        }
        std::size_t odd = 0;
        for (char d : h->row_differs) odd += d != 0;
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(grey, "%zu layers × %zu ops, coloured by precision; %zu layers differ from the rest (red)", h->layers.size(),
                           h->columns.size(), odd);
        ImGui::PopTextWrapPos();
        const float cell = 6, label = 34;
        ImGui::BeginChild("heatmap", {0, std::min(420.0f, cell * static_cast<float>(h->layers.size()) + 30)}, true,
                          ImGuiWindowFlags_HorizontalScrollbar);
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(h->layers.size()), cell);
        auto* dl = ImGui::GetWindowDrawList();
        ImVec2 mouse = ImGui::GetIO().MousePos;
        while (clipper.Step())
            for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
                ImVec2 p = ImGui::GetCursorScreenPos();
                auto ri = static_cast<std::size_t>(r);
                if (r % 5 == 0) dl->AddText(nullptr, 10, {p.x, p.y - 2}, IM_COL32(100, 100, 100, 255), std::to_string(h->layers[ri]).c_str());
                if (h->row_differs[ri]) dl->AddRectFilled({p.x + label - 6, p.y}, {p.x + label - 2, p.y + cell}, IM_COL32(200, 30, 30, 255));
                for (std::size_t c = 0; c < h->columns.size(); ++c) {
                    auto n = h->cell(ri, c);
                    if (n < 0) continue;
                    const auto& node = doc->plan().nodes[static_cast<std::size_t>(n)];
                    ImVec2 a{p.x + label + static_cast<float>(c) * cell, p.y}, z{a.x + cell - 1, a.y + cell - 1};
                    dl->AddRectFilled(a, z, h->colours[ri * h->columns.size() + c]);
                    if (h->differs[ri * h->columns.size() + c]) dl->AddRect(a, z, IM_COL32(200, 30, 30, 255));
                    if (mouse.x >= a.x && mouse.x < z.x + 1 && mouse.y >= a.y && mouse.y < z.y + 1 && ImGui::IsWindowHovered()) {
                        ImGui::SetTooltip("%s\n%s  %s", node.id.c_str(), h->columns[c].c_str(), exporters::precision_signature(node.precision).c_str());
                        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) model.select({SelectionKind::node, n}, true);
                    }
                }
                ImGui::Dummy({label + cell * static_cast<float>(h->columns.size()), cell});
            }
        ImGui::EndChild();
    }
}

void Ui::diff_panel(ViewModel& model) {
    const Document* a = model.document(0);
    const Document* b = model.document(1);
    if (!a || !b) {
        ImGui::TextWrapped("Open a second plan to compare: File > Compare with…, drop a second file, or start with "
                           "kbp-view A B (for example the decode plan and kbp plan … --arm multi_seq --rows 64).");
        if (a && ImGui::Button("Compare with…")) open_dialog_ = true;
        return;
    }
    const diff::PlanDiff* d = model.plan_diff();
    ImGui::Text("a: %s (%s, %lld row%s)", a->path().c_str(), std::string(a->plan().arm.mode.name()).c_str(),
                static_cast<long long>(a->plan().arm.rows), a->plan().arm.rows == 1 ? "" : "s");
    ImGui::Text("b: %s (%s, %lld row%s)", b->path().c_str(), std::string(b->plan().arm.mode.name()).c_str(),
                static_cast<long long>(b->plan().arm.rows), b->plan().arm.rows == 1 ? "" : "s");
    int side = model.shown_side();
    if (ImGui::RadioButton("show a", side == 0)) model.show_side(0);
    ImGui::SameLine();
    if (ImGui::RadioButton("show b (d)", side == 1)) model.show_side(1);
    ImGui::SameLine();
    bool both = model.side_by_side();
    if (ImGui::Checkbox("side by side (s)", &both)) model.set_side_by_side(both);
    if (!d) return;
    if (d->equal()) {
        ImGui::TextUnformatted("The plans are equal.");
        return;
    }
    if (ImGui::CollapsingHeader("totals that moved", ImGuiTreeNodeFlags_DefaultOpen))
        for (const auto& t : d->totals)
            if (t.moved())
                ImGui::Text("%-24s %12s → %-12s", t.name.c_str(), exporters::grouped(t.before).c_str(), exporters::grouped(t.after).c_str());
    auto list = [&](const char* title, const std::vector<diff::ItemChange>& items) {
        auto c = diff::count(items);
        std::string header = std::string(title) + ": " + std::to_string(c.added) + " added, " + std::to_string(c.removed) + " removed, " +
                             std::to_string(c.changed) + " changed###" + title;
        if (!ImGui::CollapsingHeader(header.c_str(), std::string(title) == "nodes" ? ImGuiTreeNodeFlags_DefaultOpen : 0)) return;
        ImGui::PushID(title);
        ImGui::BeginChild("items", {0, 260}, true);
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(items.size()));
        while (clipper.Step())
            for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
                const auto& item = items[static_cast<std::size_t>(i)];
                ImGui::PushID(i);
                ImGui::TextColored(colour(status_colour(item.status)), "%s", status_mark(item.status));
                ImGui::SameLine();
                std::string text = item.key;
                for (const auto& f : item.fields) text += "   " + f.field + ": " + diff::shown_value(f.before) + " → " + diff::shown_value(f.after);
                if (ImGui::Selectable(text.c_str())) model.jump_to_change(item);
                if (ImGui::IsItemHovered() && !item.fields.empty()) {
                    std::string tip;
                    for (const auto& f : item.fields) tip += f.field + ": " + diff::shown_value(f.before) + " → " + diff::shown_value(f.after) + "\n";
                    ImGui::SetTooltip("%s", tip.c_str());
                }
                ImGui::PopID();
            }
        ImGui::EndChild();
        ImGui::PopID();
    };
    list("nodes", d->nodes);
    list("groups", d->groups);
    list("edges", d->edges);
}

void Ui::help() {
    struct Key {
        const char* key;
        const char* what;
    };
    static const Key keys[] = {
        {"/", "find (by id, op, kernel, family, rule, format)"},
        {"n, N", "next, previous find result"},
        {"f", "fit the plan to the window"},
        {"e", "expand every layer, or fold them all back"},
        {"d", "show the other plan of a diff"},
        {"s", "both plans of a diff side by side"},
        {"c", "next colour mode"},
        {"Esc", "clear the selection"},
        {"wheel", "zoom at the cursor"},
        {"drag", "pan"},
        {"click", "select an op, edge or fused group; a × N badge expands, 'fold' folds"},
        {"double-click", "zoom to a row"},
        {"Ctrl+O", "open a plan; drop files on the window to open them"},
    };
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_SizingFixedFit)) {
        for (const auto& k : keys) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(k.key);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(k.what);
        }
        ImGui::EndTable();
    }
}

void Ui::problems(ViewModel& model, float width) {
    bool any = false;
    for (const auto& e : model.errors()) any = any || !e.dismissed;
    if (!any) return;
    ImGui::SetNextWindowPos({width / 2, 60}, ImGuiCond_Always, {0.5f, 0});
    ImGui::SetNextWindowSizeConstraints({420, 0}, {width - 40, 420});
    ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(255, 243, 243, 250));
    ImGui::Begin("Problems", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse);
    ImGui::PopStyleColor();
    for (const auto& e : model.errors()) {
        if (e.dismissed) continue;
        ImGui::TextColored({0.75f, 0.05f, 0.05f, 1}, "%s", e.failure.message.c_str());
        for (std::size_t i = 0; i < std::min<std::size_t>(e.failure.problems.size(), 12); ++i)
            ImGui::BulletText("%s", e.failure.problems[i].c_str());
        if (e.failure.problems.size() > 12) ImGui::TextColored(grey, "… %zu more ('kbp check' lists them)", e.failure.problems.size() - 12);
    }
    ImGui::TextColored(grey, model.document(0) ? "What was open stays open." : "Nothing else is open.");
    if (ImGui::Button("Dismiss")) model.dismiss_errors();
    ImGui::End();
}

void Ui::status(const ViewModel& model, float y, float width, const FrameFigures& figures) {
    ImGui::SetNextWindowPos({0, y});
    ImGui::SetNextWindowSize({width, status_height});
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, {8, 3});
    ImGui::Begin("status", nullptr, fixed | ImGuiWindowFlags_NoScrollbar);
    ImGui::PopStyleVar();
    const Document* d = model.document(model.shown_side());
    if (d) {
        static const char* details[] = {"strips", "blobs", "boxes", "labels"};
        // The frame's time only for a person at the window: a screenshot is the same bytes at
        // every run (scripts/pictures.sh makes the docs' pictures with it).
        char timing[32] = "";
        if (interactive_) std::snprintf(timing, sizeof timing, "  ·  %.1f ms", status_ms);
        ImGui::Text("%s  ·  %s, %lld row%s  ·  %s ops in %zu layers  ·  zoom %.3f (%s)  ·  %zu canvas vertices%s",
                    d->path().c_str(), std::string(d->plan().arm.mode.name()).c_str(), static_cast<long long>(d->plan().arm.rows),
                    d->plan().arm.rows == 1 ? "" : "s",
                    exporters::grouped(static_cast<std::int64_t>(d->plan().nodes.size())).c_str(), d->plan().layers.size(),
                    model.scene() ? const_cast<ViewModel&>(model).camera().zoom : 0.0, details[static_cast<int>(stats_.detail)],
                    figures.canvas_vertices, timing);
        // A large plan's folded view is drawn while its flat lists are still read and indexed
        // and its cost worked out: find, select and the inspector wait for them.
        if (!d->complete()) {
            ImGui::SameLine();
            char label[48];
            std::snprintf(label, sizeof label, "%s %.0f%%", d->stage(), 100 * d->completion());
            ImGui::ProgressBar(static_cast<float>(d->completion()), {std::max(120.0f, ImGui::GetContentRegionAvail().x), 0}, label);
        }
    } else {
        ImGui::TextUnformatted(model.loading() ? "loading…" : "no plan open");
    }
    ImGui::End();
}

void Ui::open_dialog(ViewModel& model) {
    ImGui::SetNextWindowSize({560, 0});
    if (!ImGui::BeginPopupModal("Open a plan", nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
    ImGui::SetNextItemWidth(-1);
    ImGui::InputTextWithHint("##path", "path to a .plan.json", &open_path_);
    std::error_code ec;
    std::filesystem::path dir = open_path_.empty() ? std::filesystem::current_path(ec) : std::filesystem::path(open_path_).parent_path();
    if (dir.empty()) dir = std::filesystem::current_path(ec);
    ImGui::TextColored(grey, "%s", dir.string().c_str());
    ImGui::BeginChild("files", {0, 220}, true);
    std::vector<std::filesystem::path> entries;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.is_directory(ec) || e.path().extension() == ".json") entries.push_back(e.path());
    std::sort(entries.begin(), entries.end());
    if (ImGui::Selectable("..")) open_path_ = (dir.parent_path() / "").string();
    for (const auto& p : entries) {
        bool is_dir = std::filesystem::is_directory(p, ec);
        std::string name = p.filename().string() + (is_dir ? "/" : "");
        if (ImGui::Selectable(name.c_str())) open_path_ = is_dir ? (p / "").string() : p.string();
    }
    ImGui::EndChild();
    if (ImGui::Button("Open")) {
        model.open(open_path_, 0);
        ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Compare with the open plan")) {
        model.open(open_path_, 1);
        ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
}

void Ui::keys(ViewModel& model) {
    ImGuiIO& io = ImGui::GetIO();
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_O)) open_dialog_ = true;
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Q)) quit_ = true;
    if (io.WantTextInput || io.KeyCtrl) {
        if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE)) ImGui::SetWindowFocus(nullptr);
        return;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_SLASH)) {
        show_panel(Panel::find);
        focus_find_ = true;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_N)) model.find_next(io.KeyShift ? -1 : 1);
    if (ImGui::IsKeyPressed(GLFW_KEY_F)) model.fit();
    if (ImGui::IsKeyPressed(GLFW_KEY_E)) {
        if (model.all_expanded()) model.fold_all();
        else model.expand_all();
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_D) && model.document(1)) model.show_side(1 - model.shown_side());
    if (ImGui::IsKeyPressed(GLFW_KEY_S) && model.document(1)) model.set_side_by_side(!model.side_by_side());
    if (ImGui::IsKeyPressed(GLFW_KEY_C)) {
        auto m = static_cast<std::size_t>(model.color_mode());
        model.set_color_mode(all_color_modes[(m + 1) % std::size(all_color_modes)]);
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_H) || ImGui::IsKeyPressed(GLFW_KEY_F1)) help_open_ = !help_open_;
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE)) model.select({});
}

}  // namespace kbp::viewer::app
