#include "tune/units.hpp"

#include <map>

#include "schema/vocabulary.hpp"

namespace kbp::tune {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Whether a node's weight is one a unit decides: projections, experts and the LM head; not a
// router (its scores pick the experts, kept at the base as every quantizer keeps it), not the
// embedding (a gather), not a norm.
bool decided(const schema::Node& n) {
    if (!n.precision.weight) return false;
    switch (n.op.kind.id) {
        case schema::OpId::embed:
        case schema::OpId::router:
            return false;
        default:
            return true;
    }
}

}  // namespace

std::string unit_of_module(const std::string& module) {
    if (auto at = module.find(".experts."); at != std::string::npos) return module.substr(0, at) + ".experts";
    const auto dot = module.rfind('.');
    const std::string parent = dot == std::string::npos ? std::string() : module.substr(0, dot + 1);
    for (const char* merged : {"q_proj", "k_proj", "v_proj"})
        if (ends_with(module, std::string(".") + merged)) return parent + "qkv_proj";
    for (const char* merged : {"gate_proj", "up_proj"})
        if (ends_with(module, std::string(".") + merged)) return parent + "gate_up_proj";
    return module;
}

std::vector<Unit> decision_units(const schema::Blueprint& plan) {
    std::vector<Unit> units;
    if (!plan.modules) return units;
    std::map<std::string, std::size_t> index_of;
    std::map<std::string, const schema::Node*> node_of;
    for (const auto& n : plan.nodes) node_of[n.id] = &n;
    for (const auto& [id, value] : *plan.modules) {
        auto node = node_of.find(id);
        if (node == node_of.end() || !decided(*node->second) || !value.is_array() || value.array().empty() ||
            !value.array().front().is_string())
            continue;
        const std::string name = unit_of_module(value.array().front().string());
        auto [it, added] = index_of.emplace(name, units.size());
        if (added) units.push_back({name, {}, {}, node->second->layer.value_or(-1)});
        Unit& u = units[it->second];
        u.nodes.push_back(id);
        for (const auto& m : value.array())
            if (m.is_string()) u.modules.push_back(m.string());
    }
    return units;
}

}  // namespace kbp::tune
