#include "viewer/app/window.hpp"

#include <GLFW/glfw3.h>
#include <GL/gl.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <stb_image_write.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace kbp::viewer::app {
namespace {

std::string& glfw_error() {
    static std::string message;
    return message;
}

void on_glfw_error(int, const char* text) { glfw_error() = text ? text : "unknown GLFW error"; }

constexpr const char* ui_fonts[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"};

// Latin, Greek (the maths), dashes and ellipsis, arrows, mathematical operators, the middle dot;
// and what the explain texts' maths are drawn with (viewer/model/math_text.hpp): modifier letters
// and combining accents, phonetic super- and subscripts, spaces, primes, super- and subscripts,
// combining arrows, letterlike symbols (ℝ), floor and ceiling, angle brackets, subscript j and V.
constexpr ImWchar glyph_ranges[] = {0x0020, 0x00FF, 0x02B0, 0x036F, 0x0370, 0x03FF, 0x1D2C, 0x1DBF, 0x2000, 0x209F,
                                    0x20D7, 0x20D7, 0x2100, 0x214F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0x2300, 0x230B,
                                    0x27E8, 0x27E9, 0x2C7C, 0x2C7D, 0};

}  // namespace

namespace {
std::atomic<bool> window_live{false};  // GLFW is initialised and a window open: wake() may post
}  // namespace

Result<std::unique_ptr<Window>> Window::open(int width, int height, const std::string& title, bool vsync) {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit())
        return make_error(ErrorCode::unsupported, "", "cannot open a window: " + glfw_error() + " (no display? run under xvfb-run -a)");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    glfwWindowHint(GLFW_SAMPLES, 0);
    std::unique_ptr<Window> w(new Window());
    w->window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
    if (!w->window_) {
        glfwTerminate();
        return make_error(ErrorCode::unsupported, "", "cannot create an OpenGL 3 window: " + glfw_error());
    }
    glfwMakeContextCurrent(w->window_);
    glfwSwapInterval(vsync ? 1 : 0);
    glfwSetWindowUserPointer(w->window_, w.get());
    glfwSetDropCallback(w->window_, on_drop);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is the program's, not a file's
    ImGui::StyleColorsLight();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 0;
    style.FrameRounding = 3;
    style.WindowBorderSize = 1;
    w->load_fonts();
    ImGui_ImplGlfw_InitForOpenGL(w->window_, true);
    ImGui_ImplOpenGL3_Init("#version 130");
    w->imgui_ = true;
    window_live = true;
    return w;
}

Window::~Window() {
    window_live = false;
    if (imgui_) {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext();
    }
    if (window_) glfwDestroyWindow(window_);
    glfwTerminate();
}

void Window::load_fonts() {
    ImGuiIO& io = ImGui::GetIO();
    for (const char* path : ui_fonts) {
        if (!std::filesystem::exists(path)) continue;
        ui_font_ = io.Fonts->AddFontFromFileTTF(path, 15.0f, nullptr, glyph_ranges);
        // The canvas draws text at every zoom from one atlas: baked large so that it stays sharp
        // when drawn big; drawn small it is minified.
        canvas_font_ = io.Fonts->AddFontFromFileTTF(path, 26.0f, nullptr, glyph_ranges);
        break;
    }
    if (!ui_font_) {
        ui_font_ = io.Fonts->AddFontDefault();
        canvas_font_ = ui_font_;
    }
    io.Fonts->Build();
    // The layout measures text with the canvas font's advances.
    metrics_.reference_size = canvas_font_->FontSize;
    for (int c = 32; c < 127; ++c) {
        const ImFontGlyph* g = canvas_font_->FindGlyph(static_cast<ImWchar>(c));
        metrics_.advance[static_cast<std::size_t>(c - 32)] = g ? g->AdvanceX : canvas_font_->FallbackAdvanceX;
    }
    const ImFontGlyph* wide = canvas_font_->FindGlyph(static_cast<ImWchar>(0x2192));
    metrics_.other_advance = wide ? wide->AdvanceX : canvas_font_->FallbackAdvanceX;
    metrics_.line_height = 1.2f;
}

bool Window::should_close() const { return glfwWindowShouldClose(window_); }
void Window::close() { glfwSetWindowShouldClose(window_, 1); }
void Window::set_title(const std::string& title) { glfwSetWindowTitle(window_, title.c_str()); }

void Window::poll(double timeout) {
    if (timeout > 0) glfwWaitEventsTimeout(timeout);
    else glfwPollEvents();
}

void Window::wake() {
    if (window_live.load()) glfwPostEmptyEvent();
}

void Window::new_frame() {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
}

void Window::end_frame() { ImGui::Render(); }

void Window::size(int& width, int& height) const { glfwGetWindowSize(window_, &width, &height); }

void Window::draw_gl() {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    glViewport(0, 0, w, h);
    glClearColor(1, 1, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::finish_gl() { glFinish(); }

Status Window::write_png(const std::string& path) const {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    std::vector<unsigned char> pixels(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    // OpenGL's rows run bottom to top; a PNG's top to bottom.
    const std::size_t stride = static_cast<std::size_t>(w) * 4;
    for (int y = 0; y < h / 2; ++y)
        std::swap_ranges(pixels.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(y) * stride),
                         pixels.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(y + 1) * stride),
                         pixels.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(h - 1 - y) * stride));
    for (std::size_t i = 3; i < pixels.size(); i += 4) pixels[i] = 255;
    std::string tmp = path + ".tmp." + std::to_string(getpid());
    if (!stbi_write_png(tmp.c_str(), w, h, 4, pixels.data(), static_cast<int>(stride))) {
        std::remove(tmp.c_str());
        return make_error(ErrorCode::output, path, "cannot write the screenshot");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        return make_error(ErrorCode::output, path, ec.message());
    }
    return Ok{};
}

void Window::swap() { glfwSwapBuffers(window_); }

std::vector<std::string> Window::take_drops() {
    std::vector<std::string> out = std::move(drops_);
    drops_.clear();
    return out;
}

void Window::on_drop(GLFWwindow* w, int count, const char** paths) {
    auto* self = static_cast<Window*>(glfwGetWindowUserPointer(w));
    for (int i = 0; i < count; ++i) self->drops_.push_back(paths[i]);
}

}  // namespace kbp::viewer::app
