// Writing a blueprint: canonical member order (the seed's), pretty (2-space indent) or
// compact, always ending in a newline. The same model always gives the same bytes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "blueprint.hpp"
#include "result.hpp"

namespace kbp::schema {

struct WriteOptions {
    bool pretty = true;
};

std::string write_blueprint(const Blueprint& blueprint, const WriteOptions& options = {});
// The same bytes, handed to `sink` a megabyte at a time (to a digest, a file, a socket).
void write_blueprint(const Blueprint& blueprint, const WriteOptions& options, const std::function<void(std::string_view)>& sink);
// The same bytes into `path` (write_file_atomic: "-", devices, links, modes), a megabyte at a time.
Status write_blueprint_file(const std::string& path, const Blueprint& blueprint, const WriteOptions& options = {});

// One member of a written node, edge or group, nested objects flattened: path "precision/weight",
// value its compact JSON ("\"nvfp4/g16\"", "null", "[\"q\"]"). In the writer's order, extras
// last: whatever the writer writes (a field added later too) is listed, so the diff and the
// viewer's inspector, which read these, need no change when the format grows.
struct WrittenField {
    std::string path;
    std::string json;
};
std::vector<WrittenField> written_fields(const Node& node);
std::vector<WrittenField> written_fields(const Edge& edge);
std::vector<WrittenField> written_fields(const Group& group);

}  // namespace kbp::schema
