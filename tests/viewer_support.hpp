// Helpers of the viewer tests: a view model over a plan in memory, settled (loads and layouts
// done), and the documents of the seed and the planner's arms.
#pragma once

#include <memory>

#include "exporters/dot_layout.hpp"
#include "support.hpp"
#include "viewer/model/view_model.hpp"

namespace kbp::test {

// Layouts by dot (as the window) or by the quick placement only.
inline std::unique_ptr<viewer::ViewModel> view_model(bool dot = false) {
    return std::make_unique<viewer::ViewModel>(dot ? viewer::LayoutEngine(exporters::dot_layout) : viewer::LayoutEngine(),
                                               viewer::TextMetrics::approximate());
}

inline std::unique_ptr<viewer::ViewModel> view_of(const schema::Blueprint& plan, bool dot = false, const std::string& name = "plan") {
    auto m = view_model(dot);
    m->open_plan(plan, name);
    m->settle();
    return m;
}

inline const viewer::Box screen{0, 0, 1200, 800};

}  // namespace kbp::test
