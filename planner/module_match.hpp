// How quantization configs name modules, matched as the engines match them. A module name is
// the checkpoint's ("model.layers.3.self_attn.q_proj"); routed experts are named with '*' for
// the expert index in a plan, and matched as expert 0, the one vLLM resolves a fused MoE's scheme
// from (compressed_tensors_moe.py: layer_name + ".0.gate_proj").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "schema/blueprint.hpp"

namespace kbp::planner {

// The name a config's patterns are matched against: '*' (every expert) read as expert 0.
std::string representative_module(std::string_view module);

// compressed-tensors' targets and ignore entries (vLLM compressed_tensors/utils.py
// _is_equal_or_regex_match): equal, or "re:<pattern>" re.match-ed (anchored at the start only).
bool equal_or_regex(const std::string& module, const std::string& target);

// How an exclusion list of the HF-native methods matches (quantizers/*.json "exclude.match"):
// "name": equal to the module or an enclosing module ("model.layers.0.self_attn" covers its
// q_proj); "substring": contained in the name (AWQ's modules_to_not_convert); "wildcard": '*'
// any run of characters, matching the whole name or an enclosing module's (ModelOpt's
// exclude_modules, gpt-oss's modules_to_not_convert).
bool module_matches(const std::string& module, const std::string& entry, std::string_view how);

// A module name split at its layer: "model.layers." 3 "self_attn.q_proj"; layer -1 (and the
// whole name as the prefix) outside the layers. `token` is the layers' container: "layers" in
// Hugging Face names (model.layers, backbone.layers), "blk" in GGUF's.
struct LayerSplit {
    std::string prefix;
    long layer = -1;
    std::string suffix;
};
LayerSplit split_at_layer(const std::string& name, std::string_view token = "layers");

// The module's name inside its layer ("self_attn.q_proj" of "model.layers.3.self_attn.q_proj"),
// or the whole name outside the layers.
std::string within_layer(const std::string& module);

// What a weighted op is to the quantizers: the engines quantize Linear layers (projections,
// routed experts, the LM head); a router is a Linear they build without a quant method; the
// rest (embeddings, latent attention's absorbed up-projections) is not quantized.
enum class ModuleKind { linear, experts, lm_head, router, other };
ModuleKind module_kind(const schema::Op& op);

// The group of modules an engine loads as one (vLLM's packed_modules_mapping: q/k/v as
// qkv_proj, gate/up as gate_up_proj; a layer's routed experts as one FusedMoE): modules in one
// group must share a scheme. "" for a module no engine packs with others.
std::string packed_group(const std::string& module);

}  // namespace kbp::planner
