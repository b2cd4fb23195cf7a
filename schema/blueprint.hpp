// The in-memory kbp-graph/v2 blueprint: one plan of a model's inference as kernels.
//
// Every other part of kbp (planner, exporters, viewer, CLI) reads and writes this model; it
// depends on nothing of theirs. Field names follow the JSON format; nullable JSON fields are
// std::optional; closed vocabularies are Named<> enums (names.hpp); members a newer planner
// added that this version does not know are kept in `extras` and written back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schema/interned_list.hpp"
#include "schema/json_value.hpp"
#include "schema/names.hpp"
#include "schema/sym.hpp"

namespace kbp::schema {

inline constexpr std::string_view schema_name = "kbp-graph/v2";

// An op: a name from OpId; projections carry a role ("linear:q" = {linear, "q"}).
struct Op {
    Named<OpId> kind;
    Sym role;  // only for OpId::linear

    static Op parse(std::string_view text);
    std::string name() const;
    bool operator==(const Op&) const = default;
};

// What executes a node: {tensor_core, "mma.sync.m16n8k32.e4m3"}, {memory, ""}, ...
struct Compute {
    Named<ComputeId> kind;
    Sym unit;  // the instruction or unit after ':' (tensor_core, pe_array)

    static Compute parse(std::string_view text);
    std::string name() const;
    bool operator==(const Compute&) const = default;
};

// One state role a node plays: "conv:update", "latent:read", ...
struct StateRole {
    StateName state;
    StateAction action;
    bool operator==(const StateRole&) const = default;
};
// "index:write,tail:update" <-> two roles.
std::vector<StateRole> parse_state_roles(std::string_view text);
std::string state_roles_name(const std::vector<StateRole>& roles);

// Formats a node reads and writes. A multi-output op lists one output format per output.
struct Precision {
    std::optional<Format> weight;
    std::optional<Format> activation;
    std::optional<FormatList> output;  // "bf16,f32,f32" -> three formats
    Extras extras;
    bool operator==(const Precision&) const = default;
};
std::string formats_name(const std::vector<Format>& formats);  // joined with ','

// One template argument of a node's kernel (a GPNPU custom op such as
// nn_custom::w4a16NBitsMatMul<F_out, F_in>): its name and value; null when the planner could not
// decide it (a fractional-bit count without a calibrated range).
struct TemplateArg {
    Sym name;
    std::optional<std::int64_t> value;
    bool operator==(const TemplateArg&) const = default;
};
using TemplateArgs = std::vector<TemplateArg>;
// "nn_custom::w4a16NBitsMatMul<24, 31>" ("?" for an unknown value).
std::string kernel_signature(const std::string& kernel, const TemplateArgs& args);

// Tensor parallelism (kbp plan --tp N): the plan is one device's share of the model, its heads
// and MLP / expert widths divided by tp, and each step all-reduces the partial sums of the
// projections back into the hidden width over the target's interconnect.
struct Parallel {
    std::int64_t tp = 1;                     // devices the model is split over
    std::string interconnect;                // the target's link ("NVLink 4")
    std::int64_t bandwidth_mbps = 0;         // MB/s one device sends at once
    std::int64_t latency_ns = 0;             // charged per all-reduce beyond its bytes
    std::int64_t all_reduces_per_step = 0;   // after o_proj and down_proj: two per layer
    std::int64_t all_reduce_bytes_per_token = 0;  // one all-reduce, one row: hidden x bytes of its format
    std::int64_t all_reduce_bytes_per_step = 0;   // all of them, all rows
    // The logits gathered from the devices' vocabulary slices to the one that samples: vocab x
    // rows x the logits' bytes a step (absent in plans made before kbp split the vocabulary).
    std::int64_t gathers_per_step = 0;
    std::int64_t gather_bytes_per_step = 0;
    // Fewer kv heads than devices (--tp a multiple of them): each device holds one, so each is
    // held this many times over. Absent when the kv heads divide.
    std::optional<std::int64_t> kv_head_replicas;
    Extras extras;
    bool operator==(const Parallel&) const = default;
};

// The multi-token-prediction layers a checkpoint carries after its last layer (DeepSeek-V3's
// num_nextn_predict_layers): what the engines' speculative decoding runs as the draft model. A
// plan of the target records their parameters beside its own (the Hub's totals count both:
// DeepSeek-V3's 685B is 671B and the MTP module); the draft arm's plan is one MTP layer with the
// target's embedding and LM head, and records the target's parameters.
struct Mtp {
    std::int64_t layers = 0;             // how many the config gives
    std::string config_field;            // the field that says so ("num_nextn_predict_layers")
    std::int64_t parameters = 0;         // all of them, less the embedding and LM head they share
    std::int64_t target_parameters = 0;  // the target model's, as its plan counts them
    bool draft = false;                  // this plan is the draft step (one MTP layer)
    Extras extras;
    bool operator==(const Mtp&) const = default;
};

struct Arm {
    ArmMode mode;
    std::int64_t rows = 1;
    std::optional<std::string> digest;
    std::optional<Parallel> parallel;  // absent: one device
    Extras extras;
    bool operator==(const Arm&) const = default;
};

struct Layer {
    std::int64_t index = 0;
    LayerKind kind;
    std::string template_name;  // JSON "template"
    std::vector<std::string> blocks;
    Extras extras;
    bool operator==(const Layer&) const = default;
};

struct Node {
    std::string id;  // "l3.dsa.q_a": layer prefix, block, local name
    std::int64_t order = 0;
    std::optional<std::int64_t> layer;
    Sym block;  // "l3.dsa" or "embed"
    Sym block_type;  // the architecture's block name ("dsa", "moe", "embed"): an open vocabulary
    std::optional<LayerKind> kind;
    Op op;
    SymList roles;
    bool inserted = false;  // an act_quant the planner added
    Precision precision;
    SymList steps;  // "act bf16", "weight nvfp4/g16->bf16", ...
    std::int64_t group = 0;
    std::optional<Sym> kernel;  // "namespace::entry"
    std::optional<TemplateArgs> template_args;  // the kernel's template arguments (GPNPU custom ops)
    Sym family;
    JsonValue point;  // null or an object of the family's knobs
    std::optional<Compute> compute;
    Sym numerics;
    WhereName where;
    std::optional<std::vector<StateRole>> state;
    Extras extras;
    bool operator==(const Node&) const = default;
};

// A re-quantization on an edge: the tensor changes format at the producer or the reader.
struct Requant {
    Format from;
    Format to;
    RequantAt at;
    Extras extras;
    bool operator==(const Requant&) const = default;
};

struct Edge {
    std::string id;  // the tensor's name; one tensor read by k nodes gives k edges
    std::int64_t from = 0;
    std::int64_t to = 0;
    Format format;
    std::optional<RowSpace> rows;  // null for a quantized activation (inherits its input's)
    std::optional<Sym> dim;  // symbolic: "hc*hidden"
    bool fused = false;              // both ends in one group: the tensor never leaves the kernel
    std::int64_t dim_value = 0;
    std::optional<std::int64_t> bytes_per_token;
    std::optional<Requant> requant;
    Extras extras;
    bool operator==(const Edge&) const = default;
};

// Whether an edge's tensor is re-quantized: it carries a requant that starts from a value format.
// Integer ids (i32: the top-k expert ids an expert GEMM reads) are indices the kernel looks up
// with, not values it quantizes: the seed's GLM plan records them as requant i32 -> nvfp4/g16 at
// the reader, and kbp reproduces that field, but `kbp stats`, DOT and the views neither count nor
// label such an edge as a re-quantization.
inline bool requantized(const Edge& e) { return e.requant && e.requant->from.id != FormatId::i32; }

// One kernel launch (or host step): a contiguous run of nodes fused by a named rule.
struct Group {
    std::int64_t id = 0;
    Sym rule;
    SymList kernels;
    WhereName where;
    Sym numerics;
    std::optional<Compute> compute;
    std::vector<std::int64_t> nodes;
    Extras extras;
    bool operator==(const Group&) const = default;
};

// The kernels a group launches: every kernel it lists (kbp-graph/v2: `kernels` lists each kernel
// the group launches, one launch each), none for a host step. What the cost charges a launch
// overhead for and what `kbp stats` and `kbp diff` count as launches.
inline std::int64_t launches_of(const Group& g) {
    return g.where.id == WhereId::host ? 0 : static_cast<std::int64_t>(g.kernels.size());
}

// A node of a layer template: the layer-independent fields. kbp's own collapse also writes
// roles, steps, point, numerics and state so that expansion is lossless; the seed lacks them.
struct TemplateNode {
    std::string id;  // "dsa.q_a"
    Op op;
    std::optional<LayerKind> kind;
    Sym block_type;  // the architecture's block name ("dsa", "moe", "embed"): an open vocabulary
    Precision precision;
    std::optional<Sym> kernel;
    std::optional<TemplateArgs> template_args;  // an instance's own values: Template::instance_values
    Sym family;
    std::optional<Compute> compute;
    WhereName where;
    std::int64_t group = 0;  // local to the template
    bool inserted = false;
    // Lossless detail (optional in the format).
    std::optional<SymList> roles;
    std::optional<SymList> steps;
    std::optional<JsonValue> point;
    std::optional<Sym> numerics;
    std::optional<std::optional<std::vector<StateRole>>> state;  // absent / null / roles
    Extras extras;
    bool operator==(const TemplateNode&) const = default;
};

// The tensor-level detail of a template edge (kbp's lossless collapse writes it).
struct EdgeDetail {
    std::string id;  // the tensor name without the layer prefix ("dsa.q_a" for l3.dsa.q_a)
    std::optional<RowSpace> rows;
    std::optional<Sym> dim;
    std::int64_t dim_value = 0;
    std::optional<std::int64_t> bytes_per_token;
    std::optional<Requant> requant;
    Extras extras;  // unknown members of a port's out_tensor (a template edge keeps its own)
    bool operator==(const EdgeDetail&) const = default;
};

struct TemplateEdge {
    std::int64_t from = 0;  // template-local node indices
    std::int64_t to = 0;
    Format format;
    bool fused = false;
    std::optional<EdgeDetail> detail;  // JSON: the detail's fields inline
    Extras extras;
    bool operator==(const TemplateEdge&) const = default;
};

// The layer-independent part of a group (kbp's lossless collapse writes it).
struct TemplateGroup {
    Sym rule;
    SymList kernels;
    WhereName where;
    Sym numerics;
    std::optional<Compute> compute;
    Extras extras;
    bool operator==(const TemplateGroup&) const = default;
};

struct Ports {
    std::vector<std::int64_t> in;   // nodes that read the previous instance's out port
    std::vector<std::int64_t> out;  // the node whose output the next instance reads
    std::optional<EdgeDetail> out_tensor;  // the tensor leaving `out` (lossless collapse)
    // When the out nodes send different tensors (a layer handing on its output and the residual
    // stream): the tensor leaving each, in `out`'s order, in place of out_tensor.
    std::optional<std::vector<EdgeDetail>> out_tensors;
    Extras extras;
    bool operator==(const Ports&) const = default;
};

struct Template {
    std::string name;  // "dsa+moe"
    std::vector<std::string> blocks;
    std::vector<TemplateNode> nodes;
    std::vector<TemplateEdge> edges;
    Ports ports;
    std::vector<std::int64_t> instances;  // layer indices (empty for prologue/epilogue)
    std::optional<std::vector<TemplateGroup>> groups;
    // Layers of one shape may differ in numbers only: a GPNPU plan gives every layer its own
    // fixed-point fractional bits and custom-op template arguments. These are the template's
    // "instance values" (see instance_slots in templates.hpp), one row per instance in
    // `instances` order; the nodes and edges above hold the first instance's values. Absent
    // when every instance has the same values.
    std::optional<std::vector<std::vector<std::optional<std::int64_t>>>> instance_values;
    Extras extras;
    bool operator==(const Template&) const = default;
};

struct Collapsed {
    std::vector<std::string> prologue;  // template names before the first layer
    std::vector<std::string> layout;    // one template name per layer
    std::vector<std::string> epilogue;
    std::vector<Template> templates;  // in file order
    Extras extras;
    const Template* find(std::string_view name) const;
    bool operator==(const Collapsed&) const = default;
};

struct FamilyDoc {
    std::string name;
    std::string description;
    std::optional<std::string> about;
    std::optional<std::string> numerics;
    std::optional<std::vector<std::string>> math;  // LaTeX
    Extras extras;
    bool operator==(const FamilyDoc&) const = default;
};

struct FormatDoc {
    std::string name;
    std::string title;
    std::string description;
    std::vector<std::string> math;
    std::optional<std::string> encode;  // null for formats that are not encoded (f32, i32)
    Extras extras;
    bool operator==(const FormatDoc&) const = default;
};

struct Explain {
    std::vector<FamilyDoc> families;
    std::vector<FormatDoc> formats;
    Extras extras;
    bool operator==(const Explain&) const = default;
};

struct FileDigest {
    std::string path;
    std::string sha256;
    Extras extras;
    bool operator==(const FileDigest&) const = default;
};

struct Provenance {
    std::string kind;  // "preview", "kbp"
    std::optional<std::string> engine_commit;
    std::optional<std::string> planner_sha256;
    std::optional<std::string> planner_built_from;
    JsonValue planner_header;  // an object of the planner's settings, or null when absent
    std::vector<std::string> commands;
    std::vector<FileDigest> files;
    Extras extras;  // kbp writes kbp_version here
    bool operator==(const Provenance&) const = default;
};

// Symbol values for the arm (hidden 4096, top_k 8, ...). kbp's planner writes them; the
// seed lacks them, and then the validator infers what it needs (top_k) from the edges.
struct Symbol {
    std::string name;
    std::int64_t value = 0;
    bool operator==(const Symbol&) const = default;
};

struct Blueprint {
    std::string schema{schema_name};
    std::optional<std::string> blueprint_id;
    std::optional<std::string> lineage;
    std::optional<std::int64_t> revision;
    std::optional<std::string> exported_by;
    Arm arm;
    std::optional<std::vector<Symbol>> symbols;
    // The model config's fields that describe the plan without shaping it (rope scaling, tied
    // embeddings, logit soft-caps, attention sinks, the sliding window), as the config has them.
    std::optional<JsonObject> config_fields;
    // What the cost needs of a node beyond its edges, keyed by node id: "state_bytes" (persistent
    // state it reads and writes in one step), "state_held" (what its caches hold), "flops"
    // (arithmetic beyond a weight's GEMM), each an integer expression over `context`, `rows` and
    // `sequences` alone (the model's figures already in it). kbp's planner writes them from its
    // architecture and ops data, so the cost reads a plan alone (planner/cost.hpp).
    std::optional<JsonObject> node_costs;
    // The checkpoint's own names for what a node computes, keyed by node id: the Hugging Face
    // modules whose weights it reads ("l3.attn.q": ["model.layers.3.self_attn.q_proj"]; a fused
    // gate|up names both; routed experts "model.layers.3.mlp.experts.*.gate_proj", '*' for each
    // expert). What `kbp export quant` writes and a quantization_config is matched against.
    std::optional<JsonObject> modules;
    std::optional<Mtp> mtp;
    std::vector<Layer> layers;
    std::vector<Node> nodes;
    std::vector<Edge> edges;
    std::vector<Group> groups;
    std::optional<Collapsed> collapsed;
    std::optional<Explain> explain;
    std::optional<Provenance> provenance;
    Extras extras;
    // The file holds only the collapsed form (no nodes/edges/groups); `kbp expand` fills them.
    bool collapsed_only = false;

    std::optional<std::int64_t> symbol(std::string_view name) const;
    // A config field the plan records (config_fields), or null.
    const JsonValue* config_field(std::string_view name) const;
    bool operator==(const Blueprint&) const = default;
};

}  // namespace kbp::schema
