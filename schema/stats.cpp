#include "schema/stats.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "schema/numbers.hpp"

namespace kbp::schema {
namespace {

Tally sorted(const std::map<std::string, std::int64_t>& counts) {
    Tally t(counts.begin(), counts.end());
    std::stable_sort(t.begin(), t.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return t;
}

void put_tally(std::string& out, const char* title, const Tally& t) {
    if (t.empty()) return;
    out += "\n";
    out += title;
    out += " (" + std::to_string(t.size()) + ")\n";
    std::size_t width = 0;
    for (const auto& [name, _] : t) width = std::max(width, name.size());
    for (const auto& [name, count] : t) {
        char line[512];
        std::snprintf(line, sizeof line, "  %-*s %8s\n", static_cast<int>(std::min<std::size_t>(width, 440)),
                      name.c_str(), with_commas(count).c_str());
        out += line;
    }
}

}  // namespace

std::string ranges_text(const std::vector<std::int64_t>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i;
        while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
        if (!out.empty()) out += ", ";
        out += v[i] < 0 ? "outside layers" : std::to_string(v[i]);
        if (j > i) out += (j == i + 1 ? ", " : "-") + std::to_string(v[j]);
        i = j + 1;
    }
    return out;
}

Stats compute_stats(const Blueprint& b) {
    Stats s;
    s.mode = std::string(b.arm.mode.name());
    s.rows = b.arm.rows;
    s.layers = static_cast<std::int64_t>(b.layers.size());
    s.nodes = static_cast<std::int64_t>(b.nodes.size());
    s.edges = static_cast<std::int64_t>(b.edges.size());
    s.groups = static_cast<std::int64_t>(b.groups.size());

    std::map<std::string, std::int64_t> kinds, templates, ops, families, computes, rules, quant;
    for (const auto& l : b.layers) {
        ++kinds[std::string(l.kind.name())];
        ++templates[l.template_name];
    }
    std::map<std::string, std::vector<std::int64_t>> state;
    for (const auto& n : b.nodes) {
        ++ops[n.op.name()];
        ++families[n.family];
        ++computes[n.compute ? n.compute->name() : "(none)"];
        if (n.inserted && (n.op.kind.id == OpId::act_quant || n.op.kind.id == OpId::smooth_mul)) {
            ++s.quant_points;
            // FixedPoint32 formats differ tensor by tensor: tally them as one ("fx32").
            std::string from = n.precision.activation ? std::string(format_doc_name(*n.precision.activation)) : "?";
            std::string to = "?";
            if (n.precision.output && !n.precision.output->empty()) {
                to.clear();
                for (const auto& f : *n.precision.output) to += (to.empty() ? "" : ",") + std::string(format_doc_name(f));
            }
            std::string what = n.op.kind.id == OpId::smooth_mul
                                   ? "smoothing x " + (n.precision.weight ? std::string(n.precision.weight->name()) : std::string("?")) + ": "
                                   : "";
            ++quant[what + from + " -> " + to];
        }
        if (n.state)
            for (const auto& role : *n.state) {
                auto& layers = state[std::string(role.state.name()) + ":" + std::string(role.action.name())];
                std::int64_t layer = n.layer.value_or(-1);
                if (layers.empty() || layers.back() != layer) layers.push_back(layer);
            }
    }
    std::map<std::string, std::pair<std::int64_t, std::map<std::string, int>>> custom;  // kernel -> launches, signatures
    for (const auto& g : b.groups) {
        ++rules[g.rule];
        (g.where.id == WhereId::host ? s.host_groups : s.device_groups)++;
        s.launches += launches_of(g);
        std::map<std::string, std::string> seen;  // kernel -> signature, once per launch
        for (auto k : g.nodes)
            if (k >= 0 && static_cast<std::size_t>(k) < b.nodes.size()) {
                const Node& n = b.nodes[k];
                if (n.kernel && n.template_args) seen.emplace(*n.kernel, kernel_signature(*n.kernel, *n.template_args));
            }
        for (const auto& [kernel, signature] : seen) {
            ++custom[kernel].first;
            ++custom[kernel].second[signature];
        }
    }
    for (const auto& [kernel, use] : custom)
        s.custom_ops.push_back({kernel, use.first, static_cast<std::int64_t>(use.second.size())});
    s.memory = compute_memory(b);
    std::map<std::string, FormatTraffic> traffic;
    for (const auto& e : b.edges) {
        auto& t = traffic[std::string(e.format.name())];
        t.format = e.format.name();
        ++t.edges;
        if (requantized(e)) ++s.requant_edges;
        if (e.fused) {
            ++s.fused_edges;
            continue;
        }
        ++t.crossing_edges;
        t.crossing_bytes += e.bytes_per_token.value_or(0);
        s.bytes_between_kernels += e.bytes_per_token.value_or(0);
    }
    s.layers_by_kind = sorted(kinds);
    s.layers_by_template = sorted(templates);
    s.nodes_by_op = sorted(ops);
    s.nodes_by_family = sorted(families);
    s.nodes_by_compute = sorted(computes);
    s.groups_by_rule = sorted(rules);
    s.quant_points_by_format = sorted(quant);
    for (auto& [_, t] : traffic) s.edges_by_format.push_back(t);
    std::stable_sort(s.edges_by_format.begin(), s.edges_by_format.end(),
                     [](const auto& a, const auto& b) { return a.crossing_bytes > b.crossing_bytes; });
    for (auto& [role, layers] : state) {
        std::sort(layers.begin(), layers.end());
        layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
        s.state_roles.push_back({role, layers});
    }
    return s;
}

std::string stats_text(const Stats& s) {
    std::string out;
    out += "arm " + s.mode + ", rows " + std::to_string(s.rows) + "\n";
    out += "  " + with_commas(s.layers) + " layers, " + with_commas(s.nodes) + " nodes, " + with_commas(s.edges) +
           " edges, " + with_commas(s.groups) + " groups (" + with_commas(s.device_groups) + " on the device launching " +
           with_commas(s.launches) + " kernels, " + with_commas(s.host_groups) + " host steps)\n";
    out += "  " + with_commas(s.bytes_between_kernels) + " bytes per token move between kernels (" +
           with_commas(s.edges - s.fused_edges) + " edges; " + with_commas(s.fused_edges) + " fused edges stay inside a kernel)\n";
    out += "  " + with_commas(s.quant_points) + " inserted quantization points, " + with_commas(s.requant_edges) +
           " edges re-quantized\n";
    put_tally(out, "layers by kind", s.layers_by_kind);
    put_tally(out, "layers by template", s.layers_by_template);
    put_tally(out, "nodes by op", s.nodes_by_op);
    put_tally(out, "nodes by family", s.nodes_by_family);
    put_tally(out, "nodes by compute", s.nodes_by_compute);
    put_tally(out, "groups by rule", s.groups_by_rule);
    put_tally(out, "inserted quantization points", s.quant_points_by_format);
    if (!s.edges_by_format.empty()) {
        out += "\nedges by format (" + std::to_string(s.edges_by_format.size()) + ")\n";
        char line[256];
        std::snprintf(line, sizeof line, "  %-12s %8s %10s %16s\n", "format", "edges", "crossing", "bytes/token");
        out += line;
        for (const auto& t : s.edges_by_format) {
            std::snprintf(line, sizeof line, "  %-12s %8s %10s %16s\n", t.format.c_str(), with_commas(t.edges).c_str(),
                          with_commas(t.crossing_edges).c_str(), with_commas(t.crossing_bytes).c_str());
            out += line;
        }
    }
    if (!s.state_roles.empty()) {
        out += "\nstate roles by layer (" + std::to_string(s.state_roles.size()) + ")\n";
        std::size_t width = 0;
        for (const auto& u : s.state_roles) width = std::max(width, u.role.size());
        for (const auto& u : s.state_roles) {
            std::string role = u.role;
            role.resize(width, ' ');
            out += "  " + role + "  " + std::to_string(u.layers.size()) + (u.layers.size() == 1 ? " layer:  " : " layers: ") +
                   ranges_text(u.layers) + "\n";
        }
    }
    if (!s.custom_ops.empty()) {
        out += "\ncustom ops (" + std::to_string(s.custom_ops.size()) + " templated kernels)\n";
        std::size_t width = 0;
        for (const auto& c : s.custom_ops) width = std::max(width, c.kernel.size());
        for (const auto& c : s.custom_ops) {
            std::string k = c.kernel;
            k.resize(width, ' ');
            out += "  " + k + "  " + with_commas(c.launches) + " launches, " + with_commas(c.signatures) + " signatures\n";
        }
    }
    out += memory_text(s.memory);
    return out;
}

std::string stats_json(const Stats& s) {
    using J = nlohmann::ordered_json;
    auto tally = [](const Tally& t) {
        J o = J::object();
        for (const auto& [name, count] : t) o[name] = count;
        return o;
    };
    J o = J::object();
    o["arm"] = {{"mode", s.mode}, {"rows", s.rows}};
    o["totals"] = {{"layers", s.layers},
                   {"nodes", s.nodes},
                   {"edges", s.edges},
                   {"groups", s.groups},
                   {"device_groups", s.device_groups},
                   {"launches", s.launches},
                   {"host_groups", s.host_groups},
                   {"fused_edges", s.fused_edges},
                   {"bytes_per_token_between_kernels", s.bytes_between_kernels},
                   {"quant_points", s.quant_points},
                   {"requant_edges", s.requant_edges}};
    o["layers_by_kind"] = tally(s.layers_by_kind);
    o["layers_by_template"] = tally(s.layers_by_template);
    o["nodes_by_op"] = tally(s.nodes_by_op);
    o["nodes_by_family"] = tally(s.nodes_by_family);
    o["nodes_by_compute"] = tally(s.nodes_by_compute);
    o["groups_by_rule"] = tally(s.groups_by_rule);
    o["quant_points_by_format"] = tally(s.quant_points_by_format);
    J formats = J::object();
    for (const auto& t : s.edges_by_format)
        formats[t.format] = {{"edges", t.edges}, {"crossing_edges", t.crossing_edges}, {"crossing_bytes_per_token", t.crossing_bytes}};
    o["edges_by_format"] = std::move(formats);
    J state = J::object();
    for (const auto& u : s.state_roles) state[u.role] = u.layers;
    o["state_roles"] = std::move(state);
    J custom = J::object();
    for (const auto& c : s.custom_ops) custom[c.kernel] = {{"launches", c.launches}, {"signatures", c.signatures}};
    o["custom_ops"] = std::move(custom);
    const auto& m = s.memory;
    J weights = J::object();
    for (const auto& [f, bytes] : m.weights_by_format) weights[f] = bytes;
    J reserved = J::array();
    for (const auto& [layer, bytes] : m.reserved_by_layer) reserved.push_back({{"layer", layer < 0 ? J(nullptr) : J(layer)}, {"bytes", bytes}});
    o["memory"] = {{"parameters", m.parameters},
                   {"active_parameters", m.active_parameters},
                   {"weight_bytes", m.weight_bytes},
                   {"tied_head_bytes", m.tied_head_bytes},
                   {"weights_by_format", std::move(weights)},
                   {"weights_unsized", m.weights_unsized},
                   {"reserved_bytes", m.reserved_bytes},
                   {"reserved_by_layer", std::move(reserved)},
                   {"largest_tensor", m.largest_tensor},
                   {"largest_tensor_bytes", m.largest_tensor_bytes},
                   {"largest_live_bytes", m.largest_live_bytes},
                   {"largest_live_at", m.largest_live_at},
                   {"unknown_fixed_point", m.unknown_fixed_point}};
    if (m.mtp)
        o["memory"]["mtp"] = {{"layers", m.mtp->layers},
                              {"config_field", m.mtp->config_field},
                              {"parameters", m.mtp->parameters},
                              {"target_parameters", m.mtp->target_parameters},
                              {"with_mtp", m.mtp->target_parameters + m.mtp->parameters},
                              {"draft", m.mtp->draft}};
    return o.dump(2) + "\n";
}

}  // namespace kbp::schema
