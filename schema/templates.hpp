// The collapsed form: layer templates plus a layout, and its flat expansion.
//
// A blueprint repeats the same few layer shapes tens of times; `collapsed` stores each shape
// once (template-local node indices and groups) with the list of layers it serves. Expanding
// the templates over prologue + layout + epilogue must give back the flat nodes, edges and
// groups. The seed's templates carry only part of each node (op, formats, kernel, group ...);
// kbp's own collapse also writes roles, steps, point, numerics, state, edge tensors and group
// rules, so that its collapsed form expands to the complete flat lists.
#pragma once

#include <vector>

#include "schema/blueprint.hpp"
#include "schema/diagnostic.hpp"
#include "schema/result.hpp"

namespace kbp::schema {

// A template's instance values (Template::instance_values): in walk order, every fixed-point
// format's fractional bits (null for "fx32/f?") in the nodes' precision (weight, activation,
// outputs) and template arguments, then the edges' formats and requant formats, then the
// out port's requant. Layers of one shape that differ only in these numbers share a template.
std::vector<std::optional<std::int64_t>> instance_values_of(const Template& t);
// Sets those numbers from `values` (which must have instance_values_of(t).size() entries).
void set_instance_values(Template& t, const std::vector<std::optional<std::int64_t>>& values);

struct FlatLists {
    std::vector<Node> nodes;
    std::vector<Edge> edges;
    std::vector<Group> groups;
    bool complete = true;  // every field came from the templates (kbp's lossless collapse)
};

// Expands `b.collapsed` over its layout. Errors name the template member that is wrong.
Result<FlatLists> expand_templates(const Blueprint& b);

// Adds to `out` every place where the expansion of `b.collapsed` disagrees with b's flat
// lists, on the fields the templates carry.
void check_expansion(const Blueprint& b, Diagnostics& out);

struct CollapseOptions {
    bool detail = true;  // write the fields that make the collapsed form lossless
};

// Builds the collapsed form from b's flat lists and layers. Fails when a layer's nodes are
// not contiguous, an instance differs from its template, or an edge skips a layer.
Result<Collapsed> collapse_layers(const Blueprint& b, const CollapseOptions& options = {});

}  // namespace kbp::schema
