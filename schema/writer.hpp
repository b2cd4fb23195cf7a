// Writing a blueprint: canonical member order (the seed's), pretty (2-space indent) or
// compact, always ending in a newline. The same model always gives the same bytes.
#pragma once

#include <string>

#include "blueprint.hpp"

namespace kbp::schema {

struct WriteOptions {
    bool pretty = true;
};

std::string write_blueprint(const Blueprint& blueprint, const WriteOptions& options = {});

}  // namespace kbp::schema
