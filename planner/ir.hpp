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
#include "planner/kernel_records.hpp"
#include "planner/recipe_records.hpp"
#include "planner/target_records.hpp"
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
    schema::Sym dim;       // symbolic ("q_lora"); empty for a quantized copy
    std::int64_t dim_value = 0;
    schema::Sym rows = "n";  // "n", "n*top_k", or "" (a quantized activation: its input's)
    schema::Format format;
    bool in_kernel = false;  // never leaves its kernel (no bytes per token)
};

// A calibrated range of one tensor (ranges.hpp): the whole tensor, and optionally its parts
// when one op packs several members into it (gate|up).
struct TensorRange {
    double min = 0, max = 0;
    std::vector<std::pair<double, double>> parts;
    std::string where;  // "ranges.json: /tensors/l3.mlp.f"
};

// Why a node is what it is: the data that decided it (printed by `kbp why`).
struct Decision {
    // The texts repeat on every layer's copy of an op: interned, they are stored once.
    schema::Sym recipe;              // "recipes/x.json entries[3]: {"match": ...}"
    schema::Sym kernel_row;          // "kernels/x.json: /table/12"
    const Json* kernel_row_json = nullptr;  // the row itself (printed by `kbp why`)
    schema::Sym fusion;              // "fusion/x.json rules[4] glm_...: ..."
    std::vector<std::string> beaten;  // rules that also matched here but come later
    schema::Sym inserted_for;        // act_quant / smooth_mul: the reader that needed it
    std::string moved_from;          // an op a rule across_layers moved into the next layer: its id before
    std::vector<std::string> fraction_bits;  // how each FixedPoint32 F and template argument followed
};

struct IrNode {
    schema::Node node;        // the output fields, filled pass by pass
    schema::Sym local;        // template-local id: "dsa.q_a"
    schema::Sym block;        // block type: "dsa"
    schema::Sym attn;         // the layer's attention block ("kda", "dsa"), "" outside layers
    schema::Sym slot;         // "input" for a layer's first block, "post" for later ones
    const Json* spec = nullptr;  // the op's entry in the architecture (null for inserted nodes)
    bool weighted = false;       // reads a weight (a recipe decides its formats)
    std::vector<TensorRef> inputs;
    std::vector<IrTensor> outputs;
    std::vector<bool> requant_at_reader;  // per input: the reader re-quantizes it
    schema::JsonObject own_point;         // the architecture op's own knobs (joined to any kernel's)
    const FractionRule* fraction_rule = nullptr;  // how its fx32 outputs get F (kernel row or fusion member)
    const std::vector<std::string>* steps_spec = nullptr;  // the kernel row's own steps, if any
    const std::vector<std::string>* inserted_steps = nullptr;  // an inserted node's steps from its recipe (smoothing), if any
    schema::Sym kernel_rule;  // the solo group rule from the kernel table
    std::vector<std::string> kernel_launches;  // a kernel-less row's launches (several kernels)
    // The checkpoint's module names of the weights it reads ("model.layers.3.self_attn.q_proj";
    // '*' for each routed expert), from the architecture's "module": what a quantization_config
    // is matched against and `kbp export quant` names.
    std::vector<std::string> modules;
    Decision why;
};

// The precision a checkpoint declares (import_quant.hpp): where its quantization config is, and
// what it decided for each weighted node.
struct QuantSource {
    const DataFile* file = nullptr;   // the config, or hf_quant_config.json beside it
    std::string pointer;              // "/quantization_config", "/text_config/quantization_config", ...
    const Json* json = nullptr;       // that object
    std::string method;               // "compressed-tensors", "modelopt", "fp8", "awq", ...
    const DataFile* table = nullptr;  // quantizers/<method>.json
    // Where a message points: "config.json: /quantization_config" + `below`.
    std::string at(const std::string& below = "") const { return file->origin + ": " + pointer + below; }
};
struct ImportedFormats {
    schema::Format weight, activation;
    std::string where;  // the entry that decided it: "config.json: /quantization_config/config_groups/group_0"
};

struct Ir {
    PlanRequest request;
    std::shared_ptr<Catalog> catalog;  // owns the data files below
    const DataFile* config = nullptr;  // the config planned: the file's, or its text_config (below)
    // A wrapper's language model (model_types.hpp): the text_config planned in place of the file,
    // owned here; `config_pointer` is where it sits in the file ("/text_config", "" for the file
    // itself) and `module_roots` renames the text model's module names to the wrapper's ("model."
    // -> "model.language_model.").
    std::shared_ptr<const DataFile> text_config;
    std::string config_pointer;
    std::vector<std::pair<std::string, std::string>> module_roots;
    const DataFile* architecture = nullptr;
    const DataFile* recipe = nullptr;
    std::vector<const DataFile*> recipe_parts;
    std::optional<QuantSource> quant;  // the checkpoint's own precision, when it declares one and no recipe was named
    std::vector<std::optional<ImportedFormats>> imported;  // by node index: what `quant` decided (import_precision)
    const DataFile* target = nullptr;
    const DataFile* engine = nullptr;  // whose kernel tables and fusion rules the plan follows
    const DataFile* ranges = nullptr;  // --ranges
    std::map<std::string, TensorRange> tensor_ranges;  // by tensor id
    std::vector<const DataFile*> kernels;
    std::vector<const DataFile*> fusion;
    std::vector<const DataFile*> explain;
    std::vector<const DataFile*> ops;  // what each op is (ops/*.json)
    std::map<std::string, std::string> settings;  // recipe settings after --set
    // What the request left to defaults, as chosen: "target h100 (default of architecture
    // 'llama'), recipe fp8-dynamic (default ...), rows 8 (multi_seq default)"; "" when none.
    std::string defaults_chosen;
    std::vector<std::string> config_defaults_used;  // "num_attention_heads 8": the architecture's config_defaults the config lacked
    std::string inputs_from;  // where the recipe and target were named, for errors: "recipe from --recipe, target from ..."
    std::vector<schema::Symbol> symbols;
    std::int64_t kv_head_replicas = 1;  // --tp a multiple of the kv heads: copies of each (tensor_parallel.hpp)
    schema::JsonObject config_fields;  // the config fields that describe the plan, and "unread": those kbp did not read
    std::vector<std::string> config_unread, config_metadata;  // config_fields_read.hpp
    std::map<std::string, std::vector<std::string>> symbol_fields;  // symbol -> the config fields it reads
    std::int64_t rows = 1;  // the arm's rows per step
    std::vector<schema::Layer> layers;
    std::vector<IrNode> nodes;
    std::vector<schema::Group> groups;
    std::vector<std::string> warnings;

    std::optional<std::int64_t> symbol(std::string_view name) const;
    // The architecture's name as messages give it: its "name", else its file's.
    std::string architecture_name() const;
    // Where a config field is, for errors: "config.json: /num_hidden_layers", or
    // "config.json: /text_config/num_hidden_layers" for a wrapper's. `below` is a JSON pointer's
    // tokens without the leading '/'.
    std::string config_at(const std::string& below) const;
    // A module name of the planned model as the checkpoint names it (module_roots applied).
    std::string module_name(std::string name) const;
    // Every file the plan was made from, in the order its provenance records them: config,
    // architecture, recipe and its parts, target, ranges, kernels, fusion, explain, ops.
    std::vector<const DataFile*> input_files() const;
    // The target's name for an instruction ("mma_fp8" -> "wgmma.mma_async.m64n256k32.e4m3").
    std::optional<std::string> target_instruction(const std::string& key) const;
    // "{kv_cache_dtype}"-style placeholders from settings and symbols, plus `extra`; "{=expr}"
    // is an integer expression over symbols and integer settings ("{=kv_heads*head_dim}").
    std::string fill(std::string text, const std::map<std::string, std::string>& extra = {}) const;
    // The value of an integer expression over symbols and integer-valued settings.
    Result<std::int64_t> eval(std::string_view expr) const;
    // The kernel instance (family, compute, template, steps) named `kernel` in the target's
    // kernel files, with the file that defines it; nullptr when none does.
    const KernelInstance* kernel_instance(const std::string& kernel, const DataFile** file = nullptr) const;
    // Whether `op` reads a weight (its ops-file entry says "weight": true).
    bool has_weight(const schema::Op& op) const;
    // An error at the config field behind `names` (symbols, or expressions over them) that made a
    // size go wrong: the one of largest magnitude (a size too large), or with `smallest` the one
    // nearest zero or below it (a division by zero, a negative size).
    // The config fields the symbols of these expressions read, each once, in order.
    std::vector<std::string> fields_of(const std::vector<std::string>& expressions) const;
    Error config_error(const std::vector<std::string>& names, const std::string& message, bool smallest = false) const;
};

// Bytes of formats: which formats are quantized (need an act_quant from a float producer).
bool is_quantized(const schema::Format& f);
bool is_float(const schema::Format& f);
// A real-valued activation an act_quant can quantize: a float, or FixedPoint32.
bool is_real_valued(const schema::Format& f);

// A node the planner inserts into `reader`'s block right before it (a quantization point):
// "<block>.<name>", marked inserted, with the block, layer, kind and place of the reader.
IrNode inserted_node(const IrNode& reader, const std::string& name, std::string_view op);

// "linear:q" -> "q", "expert_gate_up" -> "gate_up", else the op's name.
std::string role_of(const schema::Op& op);

// Glob match with '*' and '?'; "re:..." is an ECMAScript regex matched whole.
bool name_matches(const std::string& pattern, const std::string& text);

}  // namespace kbp::planner
