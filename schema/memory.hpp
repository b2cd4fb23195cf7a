// What a plan keeps in memory: its weights (stored, by format), the state it reserves
// (a GPNPU attention op's persistent KV region, `point.reserved_ext`), and the activations
// that are live at once. Facts of the plan alone; `kbp stats` prints them and the cost
// (planner/cost.hpp) sets them against a target's memories.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schema/blueprint.hpp"

namespace kbp::schema {

// How a node's weight is shaped, from its input and output widths.
enum class WeightKind : std::uint8_t {
    none,
    matrix,   // a projection: n x k (linear, lm_head, router, latent attention)
    experts,  // `matrices` routed experts of n x k each
    vector,   // one value per channel (a smoothing vector)
    table,    // a lookup table read one row per token (the embedding): matrices = rows in the table
};

struct WeightUse {
    WeightKind kind = WeightKind::none;
    std::int64_t k = 0, n = 0;          // input and output widths
    std::int64_t matrices = 1;          // experts, or table rows
    std::int64_t bytes_per_matrix = 0;  // one matrix, vector, or one table row
    std::int64_t stored_bytes = 0;      // all of it
};

// A model figure the plan gives: its `symbols`' value, else the width of an edge whose width is
// that one name (a plan another planner wrote lists no symbols, but its logits edge is `vocab`
// wide and its router's output `experts`).
std::optional<std::int64_t> plan_value(const Blueprint& b, std::string_view name);

// The figures a plan's weights need beyond their edges, found once (plan_value scans the edges).
struct PlanFigures {
    std::optional<std::int64_t> vocab, experts, top_k;
};
PlanFigures plan_figures(const Blueprint& b);

// `figures`: plan_figures(b), for a caller that asks of many nodes; without them an embedding or
// expert node looks its figure up itself.
WeightUse weight_use(const Blueprint& b, const Node& n, const Edge* in, const Edge* out, const PlanFigures* figures = nullptr);

// The first edge into each node (integer ids left out) and out of it, by node index: the
// widths weight_use shapes a node's weight from.
struct NodeEdges {
    std::vector<const Edge*> first_in, first_out;
};
NodeEdges first_edges(const Blueprint& b);

// Tied embeddings (tie_word_embeddings): the LM head's matrix is the embedding table, one set of
// parameters whatever format each op reads it in (`shared_parameters`). It is stored once only
// when the head reads the table's own storage, the same format and the same elements
// (`stored_once`): a head in another format (lm_head_dtype fp8 beside a bf16 table) makes the
// engine keep a second, converted tensor.
struct TiedEmbedding {
    const Node* table = nullptr;
    const Node* head = nullptr;
    bool shared_parameters = false;
    bool stored_once = false;
};
TiedEmbedding tied_embedding(const Blueprint& b, const NodeEdges& edges, const PlanFigures& figures);

struct MemoryReport {
    std::vector<std::pair<std::string, std::int64_t>> weights_by_format;  // stored bytes, largest first
    std::int64_t weight_bytes = 0;     // stored: every weight once (a tied LM head's table once)
    std::int64_t weights_unsized = 0;  // weighted nodes whose shape the plan does not give
    // A tied LM head that reads the embedding's own storage (tie_word_embeddings, the same format
    // and shape): its bytes, which weight_bytes leaves out as the table holds them. The bytes
    // read per step (the cost) still count both reads: one row gathered, the whole table streamed.
    std::int64_t tied_head_bytes = 0;
    // Parameters as a model card counts them: every weight element (all experts), biases, norm
    // scales, attention sinks (point.sinks), the embedding table (once when tied to the LM head).
    // Active: what one token reads of them — top_k routed experts, one row of the embedding table
    // (all of it when the tied head streams it), everything else; never more than the parameters.
    std::int64_t parameters = 0, active_parameters = 0;
    std::int64_t layer_parameters = 0;  // of them, the layers' (not the prologue's and epilogue's)
    // The multi-token-prediction layers the plan records (Blueprint::mtp), when it has them.
    std::optional<Mtp> mtp;
    // Reserved persistent state (point.reserved_ext), per layer in layer order.
    std::vector<std::pair<std::int64_t, std::int64_t>> reserved_by_layer;
    std::int64_t reserved_bytes = 0;
    std::string largest_tensor;         // the widest activation of one step (bytes/token x rows)
    std::int64_t largest_tensor_bytes = 0;
    std::string largest_live_at;        // the node before which the most activation bytes are live
    std::int64_t largest_live_bytes = 0;
    // FixedPoint32 decisions still open: nodes with fx32/f? formats or null template arguments.
    std::vector<std::string> unknown_fixed_point;
};

MemoryReport compute_memory(const Blueprint& b);
std::string memory_text(const MemoryReport& m);
// One line of memory_text: "671.0B + 11.7B MTP (1 layer, num_nextn_predict_layers) = 682.7B".
std::string mtp_text(const Mtp& mtp);

}  // namespace kbp::schema
