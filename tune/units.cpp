#include "tune/units.hpp"

#include <algorithm>
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

// Units whose nodes one kernel group runs are one unit: the engine launches them together, so
// a format for one alone would change a fused group that several units share, and the search's
// sum over units would no longer be the plan's time (the seed's GB10 engine runs a KDA layer's
// q, k, v, f_a, b and g_a projections as one NVFP4 GEMV). Merged in plan order, named by their
// names joined: "model.layers.0.self_attn.qkv_proj + model.layers.0.self_attn.f_a_proj + ...".
std::vector<Unit> merged_by_launch(const std::vector<const schema::Blueprint*>& plans, std::vector<Unit> units) {
    std::map<std::string, std::size_t> unit_of_node;
    for (std::size_t u = 0; u < units.size(); ++u)
        for (const auto& id : units[u].nodes) unit_of_node[id] = u;
    std::vector<std::size_t> parent(units.size());
    for (std::size_t u = 0; u < units.size(); ++u) parent[u] = u;
    auto root = [&](std::size_t u) {
        while (parent[u] != u) u = parent[u] = parent[parent[u]];
        return u;
    };
    for (const schema::Blueprint* plan : plans) {
        std::vector<std::size_t> first_unit_of_group(plan->groups.size(), units.size());
        for (const auto& n : plan->nodes) {
            auto it = unit_of_node.find(n.id);
            if (it == unit_of_node.end() || n.group < 0 || n.group >= static_cast<std::int64_t>(plan->groups.size())) continue;
            std::size_t& first = first_unit_of_group[static_cast<std::size_t>(n.group)];
            if (first == units.size()) first = it->second;
            else if (root(first) != root(it->second)) parent[std::max(root(first), root(it->second))] = std::min(root(first), root(it->second));
        }
    }
    std::vector<Unit> merged;
    std::map<std::size_t, std::size_t> index_of_root;
    for (std::size_t u = 0; u < units.size(); ++u) {
        auto [it, added] = index_of_root.emplace(root(u), merged.size());
        if (added) {
            merged.push_back(std::move(units[u]));
            continue;
        }
        Unit& into = merged[it->second];
        into.name += " + " + units[u].name;
        into.nodes.insert(into.nodes.end(), units[u].nodes.begin(), units[u].nodes.end());
        into.modules.insert(into.modules.end(), units[u].modules.begin(), units[u].modules.end());
    }
    return merged;
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

std::vector<Unit> decision_units(const schema::Blueprint& plan, const std::vector<const schema::Blueprint*>& option_plans) {
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
    std::vector<const schema::Blueprint*> plans = option_plans;
    if (plans.empty()) plans.push_back(&plan);
    return merged_by_launch(plans, std::move(units));
}

}  // namespace kbp::tune
