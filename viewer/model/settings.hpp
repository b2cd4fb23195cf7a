// What kbp-view remembers between a person's runs of the window: the plans opened last (File >
// Open recent) and whether a diff is shown side by side. (Not the colour mode: a diff opened later
// should still come up in its own colours.) One small JSON
// file (kbp-view-settings/v1). Headless runs (--screenshot, --dump-state, --bench-frames) neither
// read nor write it, so what they draw depends on their command line alone.
#pragma once

#include <string>
#include <vector>

#include "schema/result.hpp"

namespace kbp::viewer {

struct ViewSettings {
    static constexpr std::size_t max_recent = 10;
    std::vector<std::string> recent;  // plan files (absolute paths), the most recent first
    bool side_by_side = false;

    // `path` to the front of `recent` (once; the oldest falls off past max_recent).
    void remember(const std::string& path);
    bool operator==(const ViewSettings&) const = default;
};

// $KBP_VIEW_SETTINGS, else $XDG_STATE_HOME/kbp/view.json, else $HOME/.local/state/kbp/view.json;
// "" when none of them is set (then nothing is remembered).
std::string settings_path();

// A missing file gives the defaults. A file that is not kbp-view's settings is an error that names
// it and where ("view.json: /recent/2: expected a file name"); the caller keeps the defaults.
Result<ViewSettings> load_settings(const std::string& path);

// Written whole to a temporary file and renamed; the directory is made when it is missing.
Status save_settings(const ViewSettings& settings, const std::string& path);

}  // namespace kbp::viewer
