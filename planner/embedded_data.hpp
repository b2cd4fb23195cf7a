// The planner's data files, compiled into the binary (see embed.cmake).
#pragma once

#include <string_view>
#include <vector>

namespace kbp::planner {

struct EmbeddedFile {
    std::string_view path;  // relative to planner/data, e.g. "recipes/glm-5.3-flash-nvfp4.json"
    std::string_view text;
};

const std::vector<EmbeddedFile>& embedded_files();

}  // namespace kbp::planner
