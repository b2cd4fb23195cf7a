#include "exporters/json_views.hpp"

#include <nlohmann/json.hpp>

#include "exporters/palette.hpp"

namespace kbp::exporters {
namespace {

using J = nlohmann::ordered_json;
using schema::Node;

template <class T> J opt(const std::optional<T>& v) { return v ? J(*v) : J(nullptr); }

J format_or_null(const std::optional<schema::Format>& f) { return f ? J(std::string(f->name())) : J(nullptr); }

J precision_json(const schema::Precision& p) {
    J j = J::object();
    j["weight"] = format_or_null(p.weight);
    j["activation"] = format_or_null(p.activation);
    j["output"] = p.output ? J(schema::formats_name(*p.output)) : J(nullptr);
    return j;
}

J state_json(const Node& n) { return owns_state(n) ? J(schema::state_roles_name(*n.state)) : J(nullptr); }

J op_json(const Node& n) {
    J j = J::object();
    j["id"] = n.id;
    j["op"] = n.op.name();
    j["layer"] = opt(n.layer);
    j["block"] = n.block;
    j["precision"] = precision_json(n.precision);
    j["kernel"] = opt(n.kernel);
    j["family"] = n.family;
    j["compute"] = n.compute ? J(n.compute->name()) : J(nullptr);
    j["where"] = std::string(n.where.name());
    j["group"] = n.group;
    j["inserted"] = n.inserted;
    j["state"] = state_json(n);
    return j;
}

J cluster_ref(const View& v, int index) {
    return index < 0 ? J(nullptr) : J(v.clusters[static_cast<std::size_t>(index)].name);
}

std::string_view cluster_kind_name(ClusterKind k) {
    switch (k) {
        case ClusterKind::layer: return "layer";
        case ClusterKind::block: return "block";
        case ClusterKind::group: return "group";
        case ClusterKind::layer_template: return "template";
    }
    return "layer";
}

J cluster_json(const View& v, const ViewCluster& c) {
    const auto& b = *v.plan;
    J j = J::object();
    j["name"] = c.name;
    j["kind"] = std::string(cluster_kind_name(c.kind));
    j["parent"] = cluster_ref(v, c.parent);
    switch (c.kind) {
        case ClusterKind::layer:
            j["layer"] = opt(c.layer);
            for (const auto& l : b.layers)
                if (c.layer && l.index == *c.layer) {
                    j["template"] = l.template_name;
                    j["layer_kind"] = std::string(l.kind.name());
                }
            break;
        case ClusterKind::block: j["block"] = c.block; break;
        case ClusterKind::group:
            j["group"] = c.group_id;
            j["rule"] = c.group ? J(c.group->rule) : J(nullptr);
            j["kernels"] = c.group ? J(c.group->kernels) : J::array();
            break;
        case ClusterKind::layer_template:
            j["template"] = c.layer_template->name;
            j["placement"] = c.placement;
            j["instances"] = c.instances;
            j["count"] = c.placement == "layers" ? c.instances.size() : std::size_t{1};
            j["blocks"] = c.layer_template->blocks;
            break;
    }
    return j;
}

J node_json(const View& v, const ViewNode& n) {
    const auto& b = *v.plan;
    J j = J::object();
    j["name"] = n.name;
    switch (n.kind) {
        case ViewNodeKind::op: {
            j["kind"] = "op";
            j["cluster"] = cluster_ref(v, n.cluster);
            if (v.kind == ViewKind::collapsed) {
                j["template_op"] = n.local;
                j["first_instance"] = n.op->id;
            }
            J op = op_json(*n.op);
            for (auto it = op.begin(); it != op.end(); ++it)
                if (!(v.kind == ViewKind::collapsed && it.key() == "id")) j[it.key()] = it.value();
            break;
        }
        case ViewNodeKind::group: {
            const auto& g = *n.group;
            j["kind"] = "group";
            j["cluster"] = cluster_ref(v, n.cluster);
            j["group"] = g.id;
            j["rule"] = g.rule;
            j["kernels"] = g.kernels;
            j["where"] = std::string(g.where.name());
            j["compute"] = g.compute ? J(g.compute->name()) : J(nullptr);
            j["layer"] = n.op ? opt(n.op->layer) : J(nullptr);
            j["block"] = n.op ? J(n.op->block) : J(nullptr);
            J ops = J::array();
            int quant = 0, state = 0;
            for (auto m : g.nodes) {
                if (m < 0 || static_cast<std::size_t>(m) >= b.nodes.size()) continue;
                const Node& op = b.nodes[static_cast<std::size_t>(m)];
                J o = J::object();
                o["id"] = op.id;
                o["op"] = op.op.name();
                o["precision"] = precision_json(op.precision);
                o["kernel"] = opt(op.kernel);
                o["family"] = op.family;
                o["inserted"] = op.inserted;
                o["state"] = state_json(op);
                quant += is_quant_point(op);
                state += owns_state(op);
                ops.push_back(std::move(o));
            }
            j["quant_points"] = quant;
            j["state_ops"] = state;
            j["ops"] = std::move(ops);
            break;
        }
        case ViewNodeKind::stub:
            j["kind"] = "stub";
            j["cluster"] = nullptr;
            j["direction"] = n.incoming ? "in" : "out";
            if (v.kind == ViewKind::groups && n.group) {
                j["group"] = n.group->id;
                j["rule"] = n.group->rule;
            } else if (n.op) {
                j["id"] = n.op->id;
            }
            break;
    }
    return j;
}

J edge_json(const View& v, const ViewEdge& e) {
    J j = J::object();
    j["from"] = v.nodes[static_cast<std::size_t>(e.from)].name;
    j["to"] = v.nodes[static_cast<std::size_t>(e.to)].name;
    j["role"] = e.role == EdgeRole::port ? "port" : "data";
    j["tensor"] = e.edge ? J(e.edge->id) : J(nullptr);
    j["format"] = std::string(e.format.name());
    j["bytes_per_token"] = opt(e.bytes_per_token);
    j["readers"] = e.readers;
    j["fused"] = e.fused;
    if (e.edge && schema::requantized(*e.edge)) {
        J r = J::object();
        r["from"] = std::string(e.edge->requant->from.name());
        r["to"] = std::string(e.edge->requant->to.name());
        r["at"] = std::string(e.edge->requant->at.name());
        j["requant"] = std::move(r);
    } else {
        j["requant"] = nullptr;
    }
    if (e.role == EdgeRole::port) {
        j["transitions"] = e.transitions;
        J ins = J::array();
        for (auto p : e.in_ports) ins.push_back(v.nodes[static_cast<std::size_t>(p)].name);
        j["in_ports"] = std::move(ins);
    }
    return j;
}

}  // namespace

Result<std::string> export_view_json(const View& v) {
    const auto& b = *v.plan;
    J j = J::object();
    j["format"] = "kbp-view/v1";
    j["view"] = std::string(view_kind_name(v.kind));
    J filter = J::object();
    filter["layers"] = v.options.layers ? J(*v.options.layers) : J(nullptr);
    filter["block"] = v.options.block.empty() ? J(nullptr) : J(v.options.block);
    j["filter"] = std::move(filter);
    J plan = J::object();
    plan["blueprint_id"] = opt(b.blueprint_id);
    plan["arm"] = {{"mode", std::string(b.arm.mode.name())}, {"rows", b.arm.rows}};
    plan["layers"] = b.layers.size();
    plan["nodes"] = b.nodes.size();
    plan["edges"] = b.edges.size();
    plan["groups"] = b.groups.size();
    j["plan"] = std::move(plan);
    J clusters = J::array();
    for (const auto& c : v.clusters) clusters.push_back(cluster_json(v, c));
    j["clusters"] = std::move(clusters);
    J nodes = J::array();
    for (const auto& n : v.nodes) nodes.push_back(node_json(v, n));
    j["nodes"] = std::move(nodes);
    J edges = J::array();
    for (const auto& e : v.edges) edges.push_back(edge_json(v, e));
    j["edges"] = std::move(edges);
    return j.dump(2) + "\n";
}

}  // namespace kbp::exporters
