// What changed between two plans: nodes matched by id, groups by their first node, edges by
// tensor and ends; every field that differs with its old and new value; the totals that moved.
//
// The fields compared are the ones the writer writes (schema::written_fields), so a field the
// format gains is compared without a change here. Left out are the positions that shift when an
// op is inserted (a node's `order`, an edge's `from`/`to` indices, group ids) and, instead of the
// raw group id, a node is compared on its group's rule and members; a node also gets the bytes
// per token it reads and writes (`bytes_in`, `bytes_out`). `kbp diff` and the viewer both call
// diff_plans; the output is deterministic: the same two plans give the same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/blueprint.hpp"

namespace kbp::diff {

enum class ChangeKind : std::uint8_t { added, removed, changed };
std::string_view status_name(ChangeKind s);  // "added", "removed", "changed"

struct FieldChange {
    std::string field;   // "precision/weight", "kernel", "group/rule", "bytes_out"
    std::string before;  // compact JSON; "" when the field is absent on that side
    std::string after;
};

struct ItemChange {
    ChangeKind status = ChangeKind::changed;
    std::string key;  // node: its id; group: its first node's id; edge: "tensor: from -> to"
    std::optional<std::int64_t> index_a, index_b;  // its index in each plan's list
    std::vector<FieldChange> fields;  // for a changed item: only the fields that differ
};

struct Total {
    std::string name;  // "launches", "quant_points", "bytes_between_kernels", ...
    std::int64_t before = 0, after = 0;
    bool moved() const { return before != after; }
};

struct PlanDiff {
    std::vector<FieldChange> plan;  // arm mode and rows, symbols
    std::vector<ItemChange> nodes, groups, edges;
    std::vector<Total> totals;  // every total, in a fixed order; moved() tells which changed
    bool equal() const;
};

// The plans must have their flat lists (a collapsed-only plan is expanded first by the caller).
PlanDiff diff_plans(const schema::Blueprint& a, const schema::Blueprint& b);

// Counts of one kind of item by status.
struct Counts {
    std::size_t added = 0, removed = 0, changed = 0;
};
Counts count(const std::vector<ItemChange>& items);

// A field's JSON value as a reader wants it: strings without quotes, "—" when absent.
std::string shown_value(const std::string& json);

// Human-readable report: the totals that moved, then each kind of item, at most `max_items` of
// each listed (0 = all). With `fold`, a change made the same way in several layers is listed once
// with those layers ("~ l*.attn.q  in 36 layers: 0-35", ids relative to the layer: "l*+1.x").
std::string diff_text(const PlanDiff& d, const std::string& name_a, const std::string& name_b,
                      std::size_t max_items = 40, bool fold = true);

// kbp-diff/v1 JSON (diff/kbp-diff-v1.schema.json), pretty, ending in a newline.
std::string diff_json(const PlanDiff& d, const schema::Blueprint& a, const schema::Blueprint& b,
                      const std::string& name_a, const std::string& name_b);

}  // namespace kbp::diff
