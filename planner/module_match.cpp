#include "planner/module_match.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>

#include "planner/ir.hpp"
#include "planner/regex_cache.hpp"

namespace kbp::planner {
namespace {

// The module itself, then each module that encloses it: "a.b.c", "a.b", "a".
std::vector<std::string> self_and_enclosing(const std::string& module) {
    std::vector<std::string> out{module};
    for (auto dot = module.rfind('.'); dot != std::string::npos && dot > 0; dot = module.rfind('.', dot - 1)) out.push_back(module.substr(0, dot));
    return out;
}

}  // namespace

std::string representative_module(std::string_view module) {
    std::string out(module);
    std::replace(out.begin(), out.end(), '*', '0');
    return out;
}

bool equal_or_regex(const std::string& module, const std::string& target) {
    if (target.rfind("re:", 0) != 0) return module == target;
    const auto& compiled = compiled_regex(std::string_view(target).substr(3));
    return compiled.regex && std::regex_search(module, *compiled.regex, std::regex_constants::match_continuous);
}

bool module_matches(const std::string& module, const std::string& entry, std::string_view how) {
    if (how == "substring") return module.find(entry) != std::string::npos;
    for (const auto& name : self_and_enclosing(module))
        if (how == "wildcard" ? name_matches(entry, name) : name == entry) return true;
    return false;
}

LayerSplit split_at_layer(const std::string& name, std::string_view token) {
    // "<anything>.<token>.<i>.<rest>" or "<token>.<i>.<rest>", at the last such place.
    for (std::size_t at = name.rfind(token); at != std::string::npos; at = at == 0 ? std::string::npos : name.rfind(token, at - 1)) {
        const std::size_t dot = at + token.size();
        if ((at > 0 && name[at - 1] != '.') || dot >= name.size() || name[dot] != '.') continue;
        std::size_t end = dot + 1;
        while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
        if (end == dot + 1 || end + 1 >= name.size() || name[end] != '.') continue;
        return {name.substr(0, dot + 1), std::stol(name.substr(dot + 1, end - dot - 1)), name.substr(end + 1)};
    }
    return {name, -1, ""};
}

std::string within_layer(const std::string& module) {
    LayerSplit s = split_at_layer(module);
    return s.layer < 0 ? module : s.suffix;
}

ModuleKind module_kind(const schema::Op& op) {
    using schema::OpId;
    switch (op.kind.id) {
        // The hyper-connection mixes (DeepSeek-V4's hc_attn_fn / hc_ffn_fn with their base and scale)
        // are FP32 parameters the engines' mHC kernels read, not Linear layers with a quant method
        // (vLLM's DeepseekV4DecoderLayer holds them as nn.Parameter): never quantized, as routers.
        case OpId::linear: return op.role.view() == "hc_mix" ? ModuleKind::other : ModuleKind::linear;
        case OpId::expert_gate_up:
        case OpId::expert_down: return ModuleKind::experts;
        case OpId::lm_head: return ModuleKind::lm_head;
        case OpId::router: return ModuleKind::router;
        default: return ModuleKind::other;
    }
}

std::string packed_group(const std::string& module) {
    // vLLM's packed_modules_mapping (LlamaForCausalLM and the families built like it):
    // "qkv_proj": [q_proj, k_proj, v_proj], "gate_up_proj": [gate_proj, up_proj]; a routed
    // experts' gate, up and down projections are one FusedMoE (compressed_tensors_moe.py).
    static const std::array<std::pair<const char*, const char*>, 5> members{{
        {"q_proj", "qkv_proj"}, {"k_proj", "qkv_proj"}, {"v_proj", "qkv_proj"}, {"gate_proj", "gate_up_proj"}, {"up_proj", "gate_up_proj"}}};
    const auto dot = module.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : module.substr(0, dot);
    const std::string last = dot == std::string::npos ? module : module.substr(dot + 1);
    if (auto experts = module.find(".experts."); experts != std::string::npos) return module.substr(0, experts) + ".experts";
    for (const auto& [member, group] : members)
        if (last == member) return parent + "." + group;
    return "";
}

}  // namespace kbp::planner
