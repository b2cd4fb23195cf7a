// An architecture may extend another ("extends": "llama") and say only what differs: qwen3 is
// llama with q/k norms. The merged file is what the passes read and what the schema checks; the
// files it was merged from are inputs of every plan it makes (provenance), after the recipe.
//
// How a child merges onto its parent (docs/architectures.md, the schema's "extends"):
// - name, description, model_types and extends are the child's own, never inherited;
// - the keyed members (symbols, limits, blocks, config_defaults) merge by key: the parent's
//   entries the child does not name, in the parent's order, then the child's in its own order
//   (a child's symbol reads any inherited one; an inherited symbol that reads one the child
//   redefines is refused: the child restates it too); a null entry removes the parent's;
// - any other member the child gives (layers, prologue, epilogue, checks, describes, defaults,
//   module_prefix) replaces the parent's whole.
#pragma once

#include <map>
#include <string>

#include "planner/catalog.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

// Merges every architecture of `files` (by "kind/name", as the catalog keeps them) that extends
// another onto it, parents first. An unknown parent or a cycle is refused at the child's /extends.
Status resolve_extends(std::map<std::string, DataFile>& files);

// Merges one architecture read by path onto its parent in `catalog` (already resolved).
Status resolve_extends(DataFile& file, Catalog& catalog);

}  // namespace kbp::planner
