// The planner's working form of a plan: nodes in execution order with their input tensors
// resolved to (producer, output slot), plus each decision and the data row that made it.
// Passes fill it in turn (see plan.cpp); build_blueprint.cpp turns it into a kbp-graph/v2 plan.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/catalog.hpp"
#include "planner/plan.hpp"
#include "schema/blueprint.hpp"

namespace kbp::planner {

using Json = nlohmann::ordered_json;

struct TensorRef {
    int node = -1;  // producer index
    int slot = 0;   // producer output slot
};

struct IrTensor {
    std::string id;        // full name: "l3.dsa.qa"
    std::string dim;       // symbolic ("q_lora"); empty for a quantized copy
    std::int64_t dim_value = 0;
    std::string rows = "n";  // "n", "n*top_k", or "" (a quantized activation: its input's)
    schema::Format format;
    bool in_kernel = false;  // never leaves its kernel (no bytes per token)
};

// Why a node is what it is: the data that decided it (printed by `kbp why`).
struct Decision {
    std::string recipe;              // "recipes/x.json entries[3]: {"match": ...}"
    std::string kernel_row;          // "kernels/x.json: /table/12"
    const Json* kernel_row_json = nullptr;  // the row itself (printed by `kbp why`)
    std::string fusion;              // "fusion/x.json rules[4] glm_...: ..."
    std::vector<std::string> beaten;  // rules that also matched here but come later
    std::string inserted_for;        // act_quant: the reader that needed it
};

struct IrNode {
    schema::Node node;        // the output fields, filled pass by pass
    std::string local;        // template-local id: "dsa.q_a"
    std::string block;        // block type: "dsa"
    std::string attn;         // the layer's attention block ("kda", "dsa"), "" outside layers
    std::string slot;         // "input" for a layer's first block, "post" for later ones
    const Json* spec = nullptr;  // the op's entry in the architecture (null for inserted nodes)
    bool weighted = false;       // reads a weight (a recipe decides its formats)
    std::vector<TensorRef> inputs;
    std::vector<IrTensor> outputs;
    std::vector<bool> requant_at_reader;  // per input: the reader re-quantizes it
    std::string kernel_rule;  // the solo group rule from the kernel table
    std::vector<std::string> kernel_launches;  // a kernel-less row's launches (several kernels)
    Decision why;
};

struct Ir {
    PlanRequest request;
    std::shared_ptr<Catalog> catalog;  // owns the data files below
    const DataFile* config = nullptr;
    const DataFile* architecture = nullptr;
    const DataFile* recipe = nullptr;
    std::vector<const DataFile*> recipe_parts;
    const DataFile* target = nullptr;
    std::vector<const DataFile*> kernels;
    std::vector<const DataFile*> fusion;
    std::vector<const DataFile*> explain;
    std::map<std::string, std::string> settings;  // recipe settings after --set
    std::vector<schema::Symbol> symbols;
    std::int64_t rows = 1;  // the arm's rows per step
    std::vector<schema::Layer> layers;
    std::vector<IrNode> nodes;
    std::vector<schema::Group> groups;
    std::vector<std::string> warnings;

    std::optional<std::int64_t> symbol(std::string_view name) const;
    // The target's name for an instruction ("mma_fp8" -> "wgmma.mma_async.m64n256k32.e4m3").
    std::optional<std::string> target_instruction(const std::string& key) const;
    // "{kv_cache_dtype}"-style placeholders from settings and symbols, plus `extra`.
    std::string fill(std::string text, const std::map<std::string, std::string>& extra = {}) const;
};

// Bytes of formats: which formats are quantized (need an act_quant from a float producer).
bool is_quantized(const schema::Format& f);
bool is_float(const schema::Format& f);

// "linear:q" -> "q", "expert_gate_up" -> "gate_up", else the op's name.
std::string role_of(const schema::Op& op);

// Glob match with '*' and '?'; "re:..." is an ECMAScript regex matched whole.
bool name_matches(const std::string& pattern, const std::string& text);

}  // namespace kbp::planner
