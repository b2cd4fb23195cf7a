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
    std::int64_t cache_bytes = 2;   // bytes per cached value (the node's "cache <dtype>" step)
    std::int64_t width = 0;         // its first input's width
    std::int64_t in_width = 0;      // its inputs' widths
    std::int64_t cached_width = 0;  // what one cached token holds: the inputs of the block's writer of the state it reads
    std::int64_t window = 0;        // tokens the node's layer keeps: min(context, sliding_window) on a sliding_attention layer, else context
};

// "context", "rows", "sequences", "cache_bytes", "width", "in_width", "cached_width", "window".
std::span<const std::string_view> state_value_names();

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
    // How the descriptions were found when not from the architecture the plan names, or "".
    const std::string& note() const { return note_; }

private:
    const schema::Blueprint& plan_;
    const nlohmann::ordered_json* blocks_ = nullptr;            // the architecture's blocks
    std::map<std::string, const nlohmann::ordered_json*> ops_;  // op -> its ops-file entry
    std::map<std::string, std::int64_t> edge_symbols_;  // symbols the edges' widths name alone
    std::string note_;
};

}  // namespace kbp::planner
