// kbp tune's decision units: the modules an engine loads, quantizes and launches as one, so one
// format choice covers them all. Named as vLLM names its fused modules: a layer's q, k and v one
// unit (QKVParallelLinear, "qkv_proj"), gate and up one (MergedColumnParallelLinear,
// "gate_up_proj"; a shared expert's too), a layer's routed experts one (FusedMoE, "experts": one
// scheme for all of them, compressed_tensors_moe.py), every other projection (o_proj, down_proj,
// MLA's q_a_proj, Mamba's in_proj, lm_head) its own; and units the plan's engine launches in one
// kernel group are one (a GB10 engine's one GEMV over a KDA layer's six input projections).
// Routers, norms and the embedding are no unit: they stay as the base recipe has them.
#pragma once

#include <string>
#include <vector>

#include "schema/blueprint.hpp"

namespace kbp::tune {

struct Unit {
    std::string name;                  // "model.layers.3.self_attn.qkv_proj"
    std::vector<std::string> nodes;    // plan node ids, in plan order
    std::vector<std::string> modules;  // the checkpoint's module names they read
    std::int64_t layer = -1;           // -1 outside the layers (lm_head)
};

// The unit a module belongs to: "model.layers.3.self_attn.k_proj" -> "...self_attn.qkv_proj",
// "model.layers.3.mlp.experts.*.down_proj" -> "model.layers.3.mlp.experts".
std::string unit_of_module(const std::string& module);

// The decision units of a plan made by kbp (its `modules` map), in plan order, merged where one
// of `option_plans` (the plans of every option, the base's included; none: `plan` alone) runs
// nodes of several in one kernel group.
std::vector<Unit> decision_units(const schema::Blueprint& plan, const std::vector<const schema::Blueprint*>& option_plans = {});

}  // namespace kbp::tune
