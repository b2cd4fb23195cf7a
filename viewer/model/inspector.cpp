#include "viewer/model/inspector.hpp"

#include <set>

#include "exporters/text.hpp"
#include "schema/writer.hpp"
#include "viewer/model/math_text.hpp"

namespace kbp::viewer {
namespace {

using schema::Blueprint;

InspectorSection fields_section(std::string title, const std::vector<schema::WrittenField>& fields) {
    InspectorSection s{std::move(title), {}};
    for (const auto& f : fields) s.lines.push_back({f.path, diff::shown_value(f.json)});
    return s;
}

std::string edge_summary(const schema::Edge& e) {
    std::string t = e.id + "  " + std::string(e.format.name());
    if (e.bytes_per_token) t += ", " + exporters::bytes_text(*e.bytes_per_token) + "/token";
    t += e.fused ? ", fused" : ", crosses kernels";
    if (schema::requantized(e)) t += ", requant " + std::string(e.requant->from.name()) + "→" + std::string(e.requant->to.name());
    return t;
}

void add_group(std::vector<InspectorSection>& out, const Document& doc, std::size_t g) {
    const auto& b = doc.plan();
    const auto& group = b.groups[g];
    InspectorSection s{"group g" + std::to_string(group.id) + " · " + group.rule, {}};
    s.lines.push_back({"rule", group.rule, -1, -1, static_cast<std::int64_t>(g)});
    for (const auto& k : group.kernels) s.lines.push_back({"kernel", k});
    s.lines.push_back({"where", std::string(group.where.name())});
    if (group.compute) s.lines.push_back({"compute", group.compute->name()});
    for (auto m : group.nodes)
        if (m >= 0 && static_cast<std::size_t>(m) < b.nodes.size())
            s.lines.push_back({"op", b.nodes[static_cast<std::size_t>(m)].id, m});
    if (const auto& cost = doc.cost(); cost && g < cost->groups.size()) {
        const auto& c = cost->groups[g];
        char line[200];
        std::snprintf(line, sizeof line, "%.2f us, %s-bound (weights %.2f MB, activations %.3f MB, state %.3f MB, %.3f GFLOP)", c.time_us,
                      c.bound.c_str(), c.weight_bytes / 1e6, c.activation_bytes / 1e6, c.state_bytes / 1e6, c.flops / 1e9);
        s.lines.push_back({"roofline on " + cost->target, line});
    }
    out.push_back(std::move(s));
}

// The explain texts' TeX as Unicode (math_text.hpp): a formula's rows (cases) one line each.
std::string prose(const std::string& text) { return prose_text(text).lines.front(); }

void add_math(InspectorSection& s, const std::string& tex) {
    auto m = math_text(tex);
    for (std::size_t i = 0; i < m.lines.size(); ++i) s.lines.push_back({i == 0 ? "math" : "", m.lines[i]});
}

void add_family(std::vector<InspectorSection>& out, const Blueprint& b, const std::string& family) {
    if (!b.explain) return;
    for (const auto& f : b.explain->families) {
        if (f.name != family) continue;
        InspectorSection s{"family " + f.name, {}};
        s.lines.push_back({"description", prose(f.description)});
        if (f.about) s.lines.push_back({"about", prose(*f.about)});
        if (f.numerics) s.lines.push_back({"numerics", prose(*f.numerics)});
        if (f.math)
            for (const auto& m : *f.math) add_math(s, m);
        out.push_back(std::move(s));
    }
}

void add_formats(std::vector<InspectorSection>& out, const Blueprint& b, const std::vector<schema::Format>& formats) {
    if (!b.explain) return;
    std::set<std::string> shown;
    for (const auto& fmt : formats) {
        std::string name(fmt.name());
        if (!shown.insert(name).second) continue;
        for (const auto& f : b.explain->formats) {
            if (f.name != name) continue;
            InspectorSection s{"format " + f.name + " · " + f.title, {}};
            s.lines.push_back({"description", prose(f.description)});
            for (const auto& m : f.math) add_math(s, m);
            if (f.encode) {
                auto m = math_text(*f.encode);  // a formula, as `math`
                for (std::size_t i = 0; i < m.lines.size(); ++i) s.lines.push_back({i == 0 ? "encode" : "", m.lines[i]});
            }
            out.push_back(std::move(s));
        }
    }
}

void add_changes(std::vector<InspectorSection>& out, const diff::ItemChange* changes) {
    if (!changes) return;
    InspectorSection s{"diff: " + std::string(diff::status_name(changes->status)), {}};
    for (const auto& f : changes->fields) s.lines.push_back({f.field, diff::shown_value(f.before) + " → " + diff::shown_value(f.after)});
    out.push_back(std::move(s));
}

}  // namespace

std::vector<InspectorSection> inspect_node(const Document& doc, std::size_t node, const diff::ItemChange* changes) {
    const Blueprint& b = doc.plan();
    const auto& n = b.nodes[node];
    std::vector<InspectorSection> out;
    add_changes(out, changes);
    auto fields = fields_section("op " + n.id, schema::written_fields(n));
    for (auto& l : fields.lines)
        if (l.label == "group") l.group = n.group;
    out.push_back(std::move(fields));

    InspectorSection links{"neighbours", {}};
    for (auto e : doc.in_edges(node)) {
        const auto& edge = b.edges[static_cast<std::size_t>(e)];
        links.lines.push_back({"from " + b.nodes[static_cast<std::size_t>(edge.from)].id, edge_summary(edge), edge.from, e});
    }
    for (auto e : doc.out_edges(node)) {
        const auto& edge = b.edges[static_cast<std::size_t>(e)];
        links.lines.push_back({"to " + b.nodes[static_cast<std::size_t>(edge.to)].id, edge_summary(edge), edge.to, e});
    }
    out.push_back(std::move(links));
    if (n.group >= 0 && static_cast<std::size_t>(n.group) < b.groups.size()) add_group(out, doc, static_cast<std::size_t>(n.group));
    add_family(out, b, n.family);
    std::vector<schema::Format> formats;
    if (n.precision.weight) formats.push_back(*n.precision.weight);
    if (n.precision.activation) formats.push_back(*n.precision.activation);
    if (n.precision.output) formats.insert(formats.end(), n.precision.output->begin(), n.precision.output->end());
    add_formats(out, b, formats);
    return out;
}

std::vector<InspectorSection> inspect_edge(const Document& doc, std::size_t edge, const diff::ItemChange* changes) {
    const Blueprint& b = doc.plan();
    const auto& e = b.edges[edge];
    std::vector<InspectorSection> out;
    add_changes(out, changes);
    auto fields = fields_section("edge " + e.id, schema::written_fields(e));
    for (auto& l : fields.lines) {
        if (l.label == "from" && e.from >= 0 && static_cast<std::size_t>(e.from) < b.nodes.size()) {
            l.value = b.nodes[static_cast<std::size_t>(e.from)].id;
            l.node = e.from;
        }
        if (l.label == "to" && e.to >= 0 && static_cast<std::size_t>(e.to) < b.nodes.size()) {
            l.value = b.nodes[static_cast<std::size_t>(e.to)].id;
            l.node = e.to;
        }
    }
    out.push_back(std::move(fields));
    std::vector<schema::Format> formats{e.format};
    if (schema::requantized(e)) formats.push_back(e.requant->to);
    add_formats(out, b, formats);
    return out;
}

std::vector<InspectorSection> inspect_group(const Document& doc, std::size_t group, const diff::ItemChange* changes) {
    std::vector<InspectorSection> out;
    add_changes(out, changes);
    add_group(out, doc, group);
    out.push_back(fields_section("fields", schema::written_fields(doc.plan().groups[group])));
    return out;
}

std::string inspector_text(const std::vector<InspectorSection>& sections) {
    std::string out;
    for (const auto& s : sections) {
        out += "[" + s.title + "]\n";
        for (const auto& l : s.lines) out += l.label + ": " + l.value + "\n";
    }
    return out;
}

}  // namespace kbp::viewer
