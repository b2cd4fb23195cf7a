#include "exporters/model_explorer.hpp"

#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "exporters/text.hpp"

namespace kbp::exporters {
namespace {

using J = nlohmann::ordered_json;
using schema::Node;

// A namespace component: no '/', which separates levels.
std::string component(std::string text) {
    for (auto& c : text)
        if (c == '/') c = '_';
    return text;
}

std::string cluster_component(const ViewCluster& c) {
    switch (c.kind) {
        case ClusterKind::layer: {
            std::string name = "l";  // appended: GCC 12 warns wrongly about "l" + to_string (-Wrestrict)
            name += std::to_string(*c.layer);
            return name;
        }
        case ClusterKind::block: {
            auto dot = c.block.rfind('.');
            return component(dot == std::string::npos ? c.block : c.block.substr(dot + 1));
        }
        case ClusterKind::group:
        {
            std::string name = "g";
            name += std::to_string(c.group_id);
            if (c.group) name += " " + c.group->rule;
            return component(name);
        }
        case ClusterKind::layer_template: return component(c.layer_template->name);
    }
    return "";
}

J kv(const std::string& key, const std::string& value) { return J{{"key", key}, {"value", value}}; }

}  // namespace

Result<std::string> export_model_explorer(const View& v, const ModelExplorerOptions& o) {
    if (v.kind != ViewKind::flat)
        return make_error(ErrorCode::usage, "", "Model Explorer graphs are written from the flat view");
    const auto& b = *v.plan;

    // Namespace path of every cluster.
    std::vector<std::string> path(v.clusters.size());
    for (std::size_t i = 0; i < v.clusters.size(); ++i) {
        const auto& c = v.clusters[i];
        std::string part = cluster_component(c);
        path[i] = c.parent < 0 ? part : path[static_cast<std::size_t>(c.parent)] + "/" + part;
    }

    std::vector<const Node*> ops;
    for (const auto& n : v.nodes)
        if (n.kind == ViewNodeKind::op) ops.push_back(n.op);
    Palette palette(o.color, ops);

    // Per view node: output tensors (in order of first use) and incoming edges.
    std::vector<std::vector<const ViewEdge*>> in(v.nodes.size()), out(v.nodes.size());
    for (const auto& e : v.edges) {
        out[static_cast<std::size_t>(e.from)].push_back(&e);
        in[static_cast<std::size_t>(e.to)].push_back(&e);
    }
    std::vector<std::vector<std::string>> outputs(v.nodes.size());  // tensor ids
    auto output_index = [&](std::size_t node, const ViewEdge& e) {
        std::string tensor = e.edge ? e.edge->id : "";
        auto& list = outputs[node];
        for (std::size_t i = 0; i < list.size(); ++i)
            if (list[i] == tensor) return i;
        list.push_back(tensor);
        return list.size() - 1;
    };
    for (std::size_t i = 0; i < v.nodes.size(); ++i)
        for (const auto* e : out[i]) output_index(i, *e);

    J nodes = J::array();
    for (std::size_t i = 0; i < v.nodes.size(); ++i) {
        const ViewNode& vn = v.nodes[i];
        J node = J::object();
        node["id"] = vn.name;
        J attrs = J::array();
        if (vn.kind == ViewNodeKind::op) {
            const Node& n = *vn.op;
            node["label"] = local_name(n);
            node["namespace"] = vn.cluster < 0 ? "" : path[static_cast<std::size_t>(vn.cluster)];
            attrs.push_back(kv("op", n.op.name()));
            attrs.push_back(kv("precision", precision_signature(n)));
            attrs.push_back(kv("weight", n.precision.weight ? std::string(n.precision.weight->name()) : "none"));
            attrs.push_back(kv("activation", n.precision.activation ? std::string(n.precision.activation->name()) : "none"));
            attrs.push_back(kv("output", n.precision.output ? schema::formats_name(*n.precision.output) : "none"));
            attrs.push_back(kv("kernel", n.kernel.value_or("none")));
            attrs.push_back(kv("family", n.family));
            attrs.push_back(kv("compute", n.compute ? n.compute->name() : "none"));
            attrs.push_back(kv("where", std::string(n.where.name())));
            attrs.push_back(kv("group", std::to_string(n.group)));
            if (n.group >= 0 && static_cast<std::size_t>(n.group) < b.groups.size())
                attrs.push_back(kv("rule", b.groups[static_cast<std::size_t>(n.group)].rule));
            attrs.push_back(kv("state", owns_state(n) ? schema::state_roles_name(*n.state) : "none"));
            attrs.push_back(kv("inserted", n.inserted ? "true (quantization point)" : "false"));
            std::string steps;
            for (const auto& s : n.steps) steps += (steps.empty() ? "" : "; ") + s;
            if (!steps.empty()) attrs.push_back(kv("steps", steps));
            std::int64_t bytes_in = 0, bytes_out = 0;
            for (const auto* e : in[i])
                if (!e->fused && e->bytes_per_token) bytes_in += *e->bytes_per_token;
            // A tensor read by several ops is one output, written once: counted once, not per reader.
            std::set<std::string> written;
            for (const auto* e : out[i])
                if (!e->fused && e->bytes_per_token && written.insert(e->edge ? e->edge->id : std::to_string(written.size())).second)
                    bytes_out += *e->bytes_per_token;
            attrs.push_back(kv("bytes_in_per_token", grouped(bytes_in)));
            attrs.push_back(kv("bytes_out_per_token", grouped(bytes_out)));
            J style = J::object();
            style["backgroundColor"] = palette.fill(n);
            if (owns_state(n)) style["borderColor"] = std::string(state_color);
            else if (is_quant_point(n)) style["borderColor"] = std::string(quant_color);
            node["style"] = std::move(style);
        } else {
            node["label"] = (vn.incoming ? "from " : "to ") + vn.name;
            node["namespace"] = "";
            attrs.push_back(kv("outside the cut", vn.name));
        }
        node["attrs"] = std::move(attrs);

        J incoming = J::array(), inputs = J::array();
        for (std::size_t k = 0; k < in[i].size(); ++k) {
            const ViewEdge& e = *in[i][k];
            auto from = static_cast<std::size_t>(e.from);
            incoming.push_back({{"sourceNodeId", v.nodes[from].name},
                                {"sourceNodeOutputId", std::to_string(output_index(from, e))},
                                {"targetNodeInputId", std::to_string(k)}});
            J a = J::array();
            a.push_back(kv("__tensor_tag", e.edge ? e.edge->id : ""));
            a.push_back(kv("format", std::string(e.format.name())));
            if (e.edge && schema::requantized(*e.edge))
                a.push_back(kv("requant", std::string(e.edge->requant->from.name()) + " -> " +
                                              std::string(e.edge->requant->to.name()) + " at " +
                                              std::string(e.edge->requant->at.name())));
            a.push_back(kv("fused", e.fused ? "true (stays inside the kernel)" : "false"));
            inputs.push_back({{"id", std::to_string(k)}, {"attrs", std::move(a)}});
        }
        node["incomingEdges"] = std::move(incoming);
        node["inputsMetadata"] = std::move(inputs);

        J outs = J::array();
        for (std::size_t k = 0; k < outputs[i].size(); ++k) {
            const ViewEdge* first = nullptr;
            for (const auto* e : out[i])
                if ((e->edge ? e->edge->id : "") == outputs[i][k]) {
                    first = e;
                    break;
                }
            J a = J::array();
            a.push_back(kv("__tensor_tag", outputs[i][k]));
            if (first) {
                a.push_back(kv("format", std::string(first->format.name())));
                // Model Explorer's edge labels and attribute tables read a tensor's `shape`: the
                // step's rows by its width.
                if (first->edge && first->edge->dim_value > 0)
                    a.push_back(kv("shape", "[" + std::to_string(b.arm.rows) + ", " + std::to_string(first->edge->dim_value) + "]"));
                if (first->edge && first->edge->dim)
                    a.push_back(kv("dim", *first->edge->dim + " = " + std::to_string(first->edge->dim_value)));
                if (first->edge && first->edge->rows) a.push_back(kv("rows", std::string(first->edge->rows->name())));
                if (first->bytes_per_token) a.push_back(kv("bytes_per_token", grouped(*first->bytes_per_token)));
            }
            outs.push_back({{"id", std::to_string(k)}, {"attrs", std::move(a)}});
        }
        node["outputsMetadata"] = std::move(outs);
        nodes.push_back(std::move(node));
    }

    // Attributes of the namespaces (and of the graph, under "").
    J groups = J::object();
    J top = J::object();
    top["blueprint_id"] = b.blueprint_id.value_or("");
    top["arm"] = std::string(b.arm.mode.name()) + ", rows " + std::to_string(b.arm.rows);
    top["ops"] = grouped(static_cast<std::int64_t>(b.nodes.size()));
    if (auto f = v.filter_text(); !f.empty()) top["cut"] = f;
    groups[""] = std::move(top);
    for (std::size_t i = 0; i < v.clusters.size(); ++i) {
        const auto& c = v.clusters[i];
        J a = J::object();
        switch (c.kind) {
            case ClusterKind::layer:
                for (const auto& l : b.layers)
                    if (l.index == *c.layer) {
                        a["template"] = l.template_name;
                        a["kind"] = std::string(l.kind.name());
                    }
                break;
            case ClusterKind::block: a["block"] = c.block; break;
            case ClusterKind::group:
                if (c.group) {
                    a["rule"] = c.group->rule;
                    std::string kernels;
                    for (const auto& k : c.group->kernels) kernels += (kernels.empty() ? "" : ", ") + k;
                    a["kernels"] = kernels.empty() ? "none" : kernels;
                    a["where"] = std::string(c.group->where.name());
                    a["ops"] = std::to_string(c.group->nodes.size());
                }
                break;
            case ClusterKind::layer_template: break;
        }
        groups[path[i]] = std::move(a);
    }

    J graph = J::object();
    graph["id"] = std::string(b.arm.mode.name()) + " rows " + std::to_string(b.arm.rows) +
                  (v.filter_text().empty() ? "" : " (" + v.filter_text() + ")");
    graph["nodes"] = std::move(nodes);
    graph["groupNodeAttributes"] = std::move(groups);
    J collection = J::object();
    collection["label"] = o.label;
    collection["graphs"] = J::array({std::move(graph)});
    return collection.dump(1) + "\n";
}

}  // namespace kbp::exporters
