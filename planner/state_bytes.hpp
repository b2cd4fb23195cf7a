// The bytes of persistent state (KV and latent caches, recurrent and conv state, indexer keys)
// an op of a plan reads and writes in one step, and the bytes of it the op's caches hold at the
// context length, and its FLOPs beyond a weight's GEMM, as the data describes them: the
// `state_bytes` (`state_held`, `flops`) of the op in its architecture file, else those of its op
// in the ops files (ops/*.json). Each
// is an integer expression over the plan's symbols (or, for a plan that lists none, those its
// edges' widths name alone) and the names below, so the cost knows no model's symbols: a
// sliding window or a sparse reader says min(context, window) itself.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/catalog.hpp"
#include "schema/blueprint.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

// The step's and the node's values a state_bytes expression may name besides the symbols.
struct StateValues {
    std::int64_t context = 0;       // tokens already in each sequence's cache
    std::int64_t rows = 1;          // rows of the step
    std::int64_t sequences = 1;     // sequences whose state the step touches
    std::string cache_dtype;        // the node's "cache <dtype>" step (a kv_cache_dtype value), "" without one:
                                    // cache_bytes is its format's bytes (settings_types.hpp), 2 (bf16) without one
    std::int64_t width = 0;         // its first input's width
    std::int64_t in_width = 0;      // its inputs' widths
    std::int64_t cached_width = 0;  // what one cached token holds: the inputs of the block's writer of the state it reads
    std::int64_t window = 0;        // tokens the node's layer keeps: min(context, sliding_window) on a sliding_attention layer, else context
    std::int64_t sliding_window = 0;  // that window on a sliding_attention layer (0: the layer keeps every token)
};

// "context", "rows", "sequences", "cache_bytes", "width", "in_width", "cached_width", "window".
std::span<const std::string_view> state_value_names();

// The names a recorded node cost (the plan's `node_costs`) may use: "context", "rows", "sequences".
std::span<const std::string_view> node_cost_names();

// A node's edges, in and out, indexed by node (the order of the plan's edge list).
struct Wiring {
    std::vector<std::vector<const schema::Edge*>> in, out;
};
Wiring wire(const schema::Blueprint& b);

// The values of node `i` of `b` a state_bytes expression may name, at the step's context,
// rows and sequences: the cache dtype of its "cache <dtype>" step, the widths from its edges,
// what one cached token holds from the block's writer of the state it reads, its layer's window.
StateValues state_values(const schema::Blueprint& b, const Wiring& wiring, std::size_t i, std::int64_t context, std::int64_t rows,
                         std::int64_t sequences);

class StateBytes {
public:
    // The descriptions for `plan`: the architecture its provenance names (or, when it names
    // none, the one whose blocks it follows) and every ops file of the catalog. The catalog
    // must outlive this.
    StateBytes(const schema::Blueprint& plan, const Catalog& catalog);

    // Bytes node `n` reads and writes in one step: 0 when no description covers it; an error
    // when its expression names what the plan lacks (a plan written without its symbols).
    // `held`: the bytes of state node `n`'s caches hold (what must fit in memory beside the weights);
    // `flops`: the arithmetic of an op beyond its weight's GEMM (attention's scores and sums).
    enum Measure { moved, held, flops };
    Result<std::int64_t> of(const schema::Node& n, const StateValues& values, Measure measure = moved) const;
    // The same expression with every name but context, rows and sequences replaced by its value
    // at `values` (window by min(context, W) on a sliding layer): what the plan records in
    // `node_costs`. "" when no description covers the node.
    Result<std::string> recorded(const schema::Node& n, const StateValues& values, Measure measure) const;
    // The data's key of a measure in architecture and ops files, and in the plan's `node_costs`.
    static const char* key(Measure measure);
    // How the descriptions were found when not from the architecture the plan names, or "".
    const std::string& note() const { return note_; }

private:
    const nlohmann::ordered_json* spec(const schema::Node& n, Measure measure) const;
    std::optional<std::int64_t> value(std::string_view name, const StateValues& v) const;
    // An error when `text` names cache_bytes and the node's cache dtype is none kbp knows.
    Status cache_known(const std::string& text, const StateValues& v) const;
    const schema::Blueprint& plan_;
    const Catalog& catalog_;
    const nlohmann::ordered_json* blocks_ = nullptr;            // the architecture's blocks
    std::map<std::string, const nlohmann::ordered_json*> ops_;  // op -> its ops-file entry
    std::map<std::string, std::int64_t> edge_symbols_;  // symbols the edges' widths name alone
    std::string note_;
};

// Writes `b.node_costs` (schema/blueprint.hpp): for each node the data describes, its state
// bytes, held bytes and FLOPs as expressions over context, rows and sequences alone, so the
// cost reads the plan alone. A node whose expression names what the plan lacks is left out.
void record_node_costs(schema::Blueprint& b, const Catalog& catalog);

// The value of a recorded node cost at `context`, `rows` and `sequences`.
Result<std::int64_t> eval_node_cost(std::string_view expression, std::int64_t context, std::int64_t rows, std::int64_t sequences);

}  // namespace kbp::planner
