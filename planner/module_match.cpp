#include "planner/module_match.hpp"

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
    for (auto at = out.find('*'); at != std::string::npos; at = out.find('*', at)) out.replace(at, 1, "0");
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

std::string within_layer(const std::string& module) {
    // "<anything>.layers.<i>." is the layer's prefix in every family kbp names (model.layers,
    // backbone.layers).
    for (std::size_t at = module.find("layers."); at != std::string::npos; at = module.find("layers.", at + 1)) {
        if (at > 0 && module[at - 1] != '.') continue;
        std::size_t digits = at + 7, end = digits;
        while (end < module.size() && std::isdigit(static_cast<unsigned char>(module[end]))) ++end;
        if (end > digits && end < module.size() && module[end] == '.') return module.substr(end + 1);
    }
    return module;
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
