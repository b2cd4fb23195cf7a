// The window: GLFW, an OpenGL 3 context, Dear ImGui with its GLFW and OpenGL 3 backends, the
// fonts (DejaVu Sans when installed, else ImGui's own), dropped files, and reading the frame back
// for screenshots. Only this file and the other app/ files include GL or ImGui headers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schema/result.hpp"
#include "viewer/model/text_metrics.hpp"

struct GLFWwindow;
struct ImFont;

namespace kbp::viewer::app {

class Window {
public:
    // Fails (ErrorCode::unsupported) without a display or OpenGL 3.
    static Result<std::unique_ptr<Window>> open(int width, int height, const std::string& title, bool vsync);
    ~Window();
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    bool should_close() const;
    void size(int& width, int& height) const;
    void close();
    void set_title(const std::string& title);
    // Waits for input (at most `timeout` seconds; 0 = only what is queued).
    void poll(double timeout);
    // Ends a poll's wait now; any thread may call it (a plan that finished loading), also before
    // the window is open or after it closed (then it does nothing).
    static void wake();
    void new_frame();      // ImGui's frame begins
    void end_frame();      // ImGui::Render: the draw data is final (CPU work ends here)
    void draw_gl();        // the OpenGL draw of the draw data
    void finish_gl();      // waits for the GPU (for timing)
    // Writes the back buffer as a PNG (to a temporary file renamed over `path`). Call after
    // draw_gl() and before swap().
    Status write_png(const std::string& path) const;
    void swap();
    std::vector<std::string> take_drops();

    ImFont* ui_font() const { return ui_font_; }
    ImFont* canvas_font() const { return canvas_font_; }
    const TextMetrics& metrics() const { return metrics_; }

private:
    Window() = default;
    GLFWwindow* window_ = nullptr;
    ImFont* ui_font_ = nullptr;
    ImFont* canvas_font_ = nullptr;
    TextMetrics metrics_;
    std::vector<std::string> drops_;
    bool imgui_ = false;

    static void on_drop(GLFWwindow* w, int count, const char** paths);
    void load_fonts();
};

}  // namespace kbp::viewer::app
