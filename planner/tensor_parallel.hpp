// Tensor parallelism (kbp plan --tp N), kept apart from the passes it touches:
//   - while the architecture's symbols resolve, a symbol read straight from a config field that
//     tensor parallelism splits (query and key/value heads, the MLP, expert and shared-expert
//     intermediate sizes, linear attention's and Mamba-2's heads, Mamba-2's B/C groups: the list
//     is data, vocabulary/config-fields.json /tensor_parallel, with the engine code it follows) becomes
//     its per-device value, so every node, edge and weight the plan builds is one device's share;
//     a field the devices do not divide is refused, naming it;
//   - the key/value heads alone may also be fewer than the devices, when tp is a multiple of
//     them: each device then holds one kv head, duplicated tp / kv_heads times over the devices,
//     as vLLM, SGLang and TensorRT-LLM replicate them (4 kv heads over --tp 8: one each, two
//     copies of every head); the query heads must still divide;
//   - a target with no interconnect refuses a split;
//   - the built plan records the split (arm.parallel, schema/blueprint.hpp): the interconnect,
//     the kv heads' replication (its member `kv_head_replicas`, when above 1), and one
//     all-reduce per residual add (after o_proj and after down_proj), each of the
//     hidden width times the bytes of the partial sum's format per row.
// tp_cost.hpp prices the all-reduces. With --tp 1 none of this changes a plan.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>
#include <string>

#include <nlohmann/json.hpp>

#include "schema/blueprint.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

struct Ir;

// One per resolve_symbols call: splits symbols as they resolve and keeps the refusal to report
// (a split of the kv heads first: they are the fewest, so they are what a user must change).
class TensorSplit {
public:
    explicit TensorSplit(const Ir& ir);
    // `value` of symbol `name` (its architecture entry `spec`), read from config field `field`
    // ("" when read from an expression), becomes one device's share.
    void split(const std::string& name, const nlohmann::ordered_json& spec, const std::string& field, std::int64_t& value);
    // The refusal, if a field did not divide.
    Status status() const;
    // Copies of each kv head over the devices: tp / kv_heads when tp is a multiple of the kv
    // heads and above them, else 1.
    std::int64_t kv_head_replicas() const { return kv_head_replicas_; }

private:
    // "8 kv heads do not split over 3 devices (--tp 3)"
    std::string not_divided(std::int64_t value, const std::string& what) const;
    struct SplitField {
        std::string field, what;  // "num_key_value_heads", "kv heads" (as a refusal names it)
        bool replicate = false;   // fewer than the devices: one per device, duplicated
    };
    const Ir& ir_;
    std::int64_t tp_ = 1;
    std::vector<SplitField> fields_;  // vocabulary/config-fields.json /tensor_parallel/splits, in refusal order
    std::string vocab_field_;
    std::int64_t vocab_padding_ = 1;
    std::int64_t kv_head_replicas_ = 1;
    std::optional<Error> refused_;
    int refused_rank_ = 99;
};

// The target's interconnect when the request splits the model: refused when it has none.
Status check_interconnect(const Ir& ir);

// Records the split on the plan (b.arm.parallel) from its nodes and edges; nothing at --tp 1.
// `op_reduce_bytes`: per row, what each op with a tp_all_reduce all-reduces of its own (one
// collective each), beside the block outputs' all-reduces record_parallel finds in `b`.
void record_parallel(const Ir& ir, schema::Blueprint& b, const std::vector<std::int64_t>& op_reduce_bytes);

}  // namespace kbp::planner
