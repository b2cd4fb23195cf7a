// The window's panels over the view model: menu bar, canvas (draws the model's primitives and
// forwards the mouse), side panel (inspector, find, overview, diff, help), legend, problems,
// status bar, open dialog, keyboard shortcuts. Nothing here decides what the plan looks like.
#pragma once

#include <string>
#include <vector>

#include "viewer/model/view_model.hpp"

struct ImFont;

namespace kbp::viewer::app {

enum class Panel : int { inspector, find, overview, diff, help };

struct FrameFigures {
    std::size_t canvas_vertices = 0;  // what the canvas added to ImGui's draw lists
    double model_ms = 0;              // the view model's part of the frame (building the primitives)
};

class Ui {
public:
    // `interactive`: a person is at the window (tooltips follow the mouse); not for screenshots.
    Ui(ImFont* ui_font, ImFont* canvas_font, bool interactive)
        : ui_font_(ui_font), canvas_font_(canvas_font), interactive_(interactive) {}

    // Lays out and draws one frame of panels over `model` (between ImGui::NewFrame and Render).
    FrameFigures draw(ViewModel& model, float width, float height);
    void show_panel(Panel p) { panel_ = p, select_tab_ = true; }
    void set_find_text(const std::string& q) { query_ = q; }
    // The recent plans File > Open recent lists (the app's settings; null: no such menu).
    void set_recent(const std::vector<std::string>* recent) { recent_ = recent; }
    bool quit_requested() const { return quit_; }
    const FrameStats& last_stats() const { return stats_; }
    double status_ms = 0;  // the previous frame's time, for the status bar

private:
    ImFont* ui_font_;
    ImFont* canvas_font_;
    bool interactive_;
    float legend_height_ = 120;  // measured each frame; the canvas ends above the legend
    Panel panel_ = Panel::inspector;
    bool select_tab_ = false;
    bool focus_find_ = false;
    bool help_open_ = false;
    bool open_dialog_ = false;
    bool quit_ = false;
    std::string query_, layers_, block_;
    std::string open_path_;
    const std::vector<std::string>* recent_ = nullptr;
    FrameStats stats_;
    DrawList draw_list_;
    bool dragging_ = false;

    void menu(ViewModel& model);
    FrameFigures canvas(ViewModel& model, float x, float y, float w, float h);
    void legend(const ViewModel& model, float x, float y, float width);
    void side_panel(ViewModel& model, float x, float y, float w, float h);
    void inspector(ViewModel& model);
    void find_panel(ViewModel& model);
    void overview(ViewModel& model);
    void diff_panel(ViewModel& model);
    void help();
    void problems(ViewModel& model, float width);
    void status(const ViewModel& model, float y, float width, const FrameFigures& figures);
    void open_dialog(ViewModel& model);
    void keys(ViewModel& model);
};

}  // namespace kbp::viewer::app
