// A plan as Google Model Explorer graph JSON (`kbp export model-explorer`), so it opens in that
// web viewer (its JSON loader accepts a GraphCollection: {label, graphs[]}).
//
// One graph of the flat view (after any --layers / --block cut). Each op is a node whose
// namespace is its place in the model, layer/block/group ("l3/dsa/g52 glm_w8a8_dsa_proj_in_split4";
// a group of a single op adds no level), so the viewer folds layers, blocks and kernel groups;
// its attributes are op, precision (weight, activation, output), kernel, family, compute, where,
// group, rule, state, inserted, steps and the bytes per token it reads from and writes to other
// kernels; each output tensor's format, width and bytes per token are output metadata. Node
// fill follows --color; quantization points and state-owning ops get red and blue borders.
// Group attributes (rule, kernels; a layer's template and kind) are groupNodeAttributes.
#pragma once

#include <string>

#include "exporters/palette.hpp"
#include "exporters/view.hpp"
#include "schema/result.hpp"

namespace kbp::exporters {

struct ModelExplorerOptions {
    ColorBy color = ColorBy::precision;
    std::string label = "kbp";  // the collection's label (the viewer shows it with the file name)
};

// Pretty-printed JSON ending in a newline. The view must be a flat view.
Result<std::string> export_model_explorer(const View& view, const ModelExplorerOptions& options = {});

}  // namespace kbp::exporters
