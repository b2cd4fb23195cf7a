// Blueprint -> nlohmann::ordered_json -> text. Members in the format's canonical order, then
// whatever extras were read, in their reading order; optional members are left out when absent.
#include "writer.hpp"

#include <nlohmann/json.hpp>

#include "schema/json_convert.hpp"

namespace kbp::schema {
namespace {

using J = nlohmann::ordered_json;

J to_j(const JsonValue& v) { return to_ordered_json(v); }

void put_extras(J& o, const Extras& extras) {
    for (const auto& [k, v] : extras) o[k] = to_j(v);
}

template <class T, class F> J or_null(const std::optional<T>& v, F&& f) {
    return v ? J(f(*v)) : J(nullptr);
}

J str_or_null(const std::optional<std::string>& s) { return s ? J(*s) : J(nullptr); }
J int_or_null(const std::optional<std::int64_t>& i) { return i ? J(*i) : J(nullptr); }
J format_or_null(const std::optional<Format>& f) { return f ? J(std::string(f->name())) : J(nullptr); }
J compute_or_null(const std::optional<Compute>& c) { return c ? J(c->name()) : J(nullptr); }
J state_or_null(const std::optional<std::vector<StateRole>>& s) {
    return s ? J(state_roles_name(*s)) : J(nullptr);
}
J strings(const std::vector<std::string>& v) {
    J a = J::array();
    for (const auto& s : v) a.push_back(s);
    return a;
}
J ints(const std::vector<std::int64_t>& v) {
    J a = J::array();
    for (auto i : v) a.push_back(i);
    return a;
}

J to_j(const Precision& p) {
    J o = J::object();
    o["weight"] = format_or_null(p.weight);
    o["activation"] = format_or_null(p.activation);
    o["output"] = p.output ? J(formats_name(*p.output)) : J(nullptr);
    put_extras(o, p.extras);
    return o;
}

J to_j(const Requant& r) {
    J o = J::object();
    o["from"] = std::string(r.from.name());
    o["to"] = std::string(r.to.name());
    o["at"] = std::string(r.at.name());
    put_extras(o, r.extras);
    return o;
}

J requant_or_null(const std::optional<Requant>& r) { return r ? to_j(*r) : J(nullptr); }
J rows_or_null(const std::optional<RowSpace>& r) { return r ? J(std::string(r->name())) : J(nullptr); }

J to_j(const TemplateArgs& args) {
    J o = J::object();
    for (const auto& a : args) o[a.name] = int_or_null(a.value);
    return o;
}

J to_j(const Node& n) {
    J o = J::object();
    o["id"] = n.id;
    o["order"] = n.order;
    o["layer"] = int_or_null(n.layer);
    o["block"] = n.block;
    o["block_type"] = std::string(n.block_type.name());
    o["kind"] = n.kind ? J(std::string(n.kind->name())) : J(nullptr);
    o["op"] = n.op.name();
    o["roles"] = strings(n.roles);
    o["inserted"] = n.inserted;
    o["precision"] = to_j(n.precision);
    o["steps"] = strings(n.steps);
    o["group"] = n.group;
    o["kernel"] = str_or_null(n.kernel);
    if (n.template_args) o["template_args"] = to_j(*n.template_args);
    o["family"] = n.family;
    o["point"] = to_j(n.point);
    o["compute"] = compute_or_null(n.compute);
    o["numerics"] = n.numerics;
    o["where"] = std::string(n.where.name());
    o["state"] = state_or_null(n.state);
    put_extras(o, n.extras);
    return o;
}

J to_j(const Edge& e) {
    J o = J::object();
    o["id"] = e.id;
    o["from"] = e.from;
    o["to"] = e.to;
    o["format"] = std::string(e.format.name());
    o["rows"] = rows_or_null(e.rows);
    o["dim"] = str_or_null(e.dim);
    o["fused"] = e.fused;
    o["dim_value"] = e.dim_value;
    o["bytes_per_token"] = int_or_null(e.bytes_per_token);
    o["requant"] = requant_or_null(e.requant);
    put_extras(o, e.extras);
    return o;
}

J to_j(const Group& g) {
    J o = J::object();
    o["id"] = g.id;
    o["rule"] = g.rule;
    o["kernels"] = strings(g.kernels);
    o["where"] = std::string(g.where.name());
    o["numerics"] = g.numerics;
    o["compute"] = compute_or_null(g.compute);
    o["nodes"] = ints(g.nodes);
    put_extras(o, g.extras);
    return o;
}

J to_j(const Layer& l) {
    J o = J::object();
    o["index"] = l.index;
    o["kind"] = std::string(l.kind.name());
    o["template"] = l.template_name;
    o["blocks"] = strings(l.blocks);
    put_extras(o, l.extras);
    return o;
}

void put_detail(J& o, const EdgeDetail& d, bool with_id) {
    if (with_id) o["id"] = d.id;
    o["rows"] = rows_or_null(d.rows);
    o["dim"] = str_or_null(d.dim);
    o["dim_value"] = d.dim_value;
    o["bytes_per_token"] = int_or_null(d.bytes_per_token);
    o["requant"] = requant_or_null(d.requant);
    put_extras(o, d.extras);
}

J to_j(const TemplateNode& n) {
    J o = J::object();
    o["id"] = n.id;
    o["op"] = n.op.name();
    o["kind"] = n.kind ? J(std::string(n.kind->name())) : J(nullptr);
    o["block_type"] = std::string(n.block_type.name());
    o["precision"] = to_j(n.precision);
    o["kernel"] = str_or_null(n.kernel);
    if (n.template_args) o["template_args"] = to_j(*n.template_args);
    o["family"] = n.family;
    o["compute"] = compute_or_null(n.compute);
    o["where"] = std::string(n.where.name());
    o["group"] = n.group;
    o["inserted"] = n.inserted;
    if (n.roles) o["roles"] = strings(*n.roles);
    if (n.steps) o["steps"] = strings(*n.steps);
    if (n.point) o["point"] = to_j(*n.point);
    if (n.numerics) o["numerics"] = *n.numerics;
    if (n.state) o["state"] = state_or_null(*n.state);
    put_extras(o, n.extras);
    return o;
}

J to_j(const TemplateEdge& e) {
    J o = J::object();
    o["from"] = e.from;
    o["to"] = e.to;
    o["format"] = std::string(e.format.name());
    o["fused"] = e.fused;
    if (e.detail) put_detail(o, *e.detail, true);
    put_extras(o, e.extras);
    return o;
}

J to_j(const Template& t) {
    J o = J::object();
    o["blocks"] = strings(t.blocks);
    J nodes = J::array();
    for (const auto& n : t.nodes) nodes.push_back(to_j(n));
    o["nodes"] = std::move(nodes);
    J edges = J::array();
    for (const auto& e : t.edges) edges.push_back(to_j(e));
    o["edges"] = std::move(edges);
    J ports = J::object();
    ports["in"] = ints(t.ports.in);
    ports["out"] = ints(t.ports.out);
    if (t.ports.out_tensor) {
        J tensor = J::object();
        put_detail(tensor, *t.ports.out_tensor, true);
        ports["out_tensor"] = std::move(tensor);
    }
    put_extras(ports, t.ports.extras);
    o["ports"] = std::move(ports);
    o["instances"] = ints(t.instances);
    if (t.groups) {
        J groups = J::array();
        for (const auto& g : *t.groups) {
            J go = J::object();
            go["rule"] = g.rule;
            go["kernels"] = strings(g.kernels);
            go["where"] = std::string(g.where.name());
            go["numerics"] = g.numerics;
            go["compute"] = compute_or_null(g.compute);
            put_extras(go, g.extras);
            groups.push_back(std::move(go));
        }
        o["groups"] = std::move(groups);
    }
    if (t.instance_values) {
        J rows = J::array();
        for (const auto& row : *t.instance_values) {
            J values = J::array();
            for (const auto& v : row) values.push_back(int_or_null(v));
            rows.push_back(std::move(values));
        }
        o["instance_values"] = std::move(rows);
    }
    put_extras(o, t.extras);
    return o;
}

J to_j(const Collapsed& c) {
    J o = J::object();
    o["prologue"] = strings(c.prologue);
    o["layout"] = strings(c.layout);
    o["epilogue"] = strings(c.epilogue);
    J templates = J::object();
    for (const auto& t : c.templates) templates[t.name] = to_j(t);
    o["templates"] = std::move(templates);
    put_extras(o, c.extras);
    return o;
}

J to_j(const Explain& x) {
    J families = J::object();
    for (const auto& f : x.families) {
        J o = J::object();
        o["description"] = f.description;
        if (f.about) o["about"] = *f.about;
        if (f.numerics) o["numerics"] = *f.numerics;
        if (f.math) o["math"] = strings(*f.math);
        put_extras(o, f.extras);
        families[f.name] = std::move(o);
    }
    J formats = J::object();
    for (const auto& f : x.formats) {
        J o = J::object();
        o["title"] = f.title;
        o["description"] = f.description;
        o["math"] = strings(f.math);
        o["encode"] = str_or_null(f.encode);
        put_extras(o, f.extras);
        formats[f.name] = std::move(o);
    }
    J o = J::object();
    o["families"] = std::move(families);
    o["formats"] = std::move(formats);
    put_extras(o, x.extras);
    return o;
}

J to_j(const Provenance& p) {
    J o = J::object();
    o["kind"] = p.kind;
    if (p.engine_commit) o["engine_commit"] = *p.engine_commit;
    if (p.planner_sha256) o["planner_sha256"] = *p.planner_sha256;
    if (p.planner_built_from) o["planner_built_from"] = *p.planner_built_from;
    if (!p.planner_header.is_null()) o["planner_header"] = to_j(p.planner_header);
    o["commands"] = strings(p.commands);
    J files = J::array();
    for (const auto& f : p.files) {
        J fo = J::object();
        fo["path"] = f.path;
        fo["sha256"] = f.sha256;
        put_extras(fo, f.extras);
        files.push_back(std::move(fo));
    }
    o["files"] = std::move(files);
    put_extras(o, p.extras);
    return o;
}

template <class T> J list(const std::vector<T>& items) {
    J a = J::array();
    for (const auto& item : items) a.push_back(to_j(item));
    return a;
}

}  // namespace

std::string write_blueprint(const Blueprint& b, const WriteOptions& options) {
    J o = J::object();
    o["schema"] = b.schema;
    if (b.blueprint_id) o["blueprint_id"] = *b.blueprint_id;
    if (b.lineage) o["lineage"] = *b.lineage;
    if (b.revision) o["revision"] = *b.revision;
    if (b.exported_by) o["exported_by"] = *b.exported_by;
    J arm = J::object();
    arm["mode"] = std::string(b.arm.mode.name());
    arm["rows"] = b.arm.rows;
    if (b.arm.digest) arm["digest"] = *b.arm.digest;
    put_extras(arm, b.arm.extras);
    o["arm"] = std::move(arm);
    if (b.symbols) {
        J symbols = J::object();
        for (const auto& s : *b.symbols) symbols[s.name] = s.value;
        o["symbols"] = std::move(symbols);
    }
    if (b.config_fields) o["config_fields"] = to_j(JsonValue(*b.config_fields));
    o["layers"] = list(b.layers);
    if (!b.collapsed_only) {
        o["nodes"] = list(b.nodes);
        o["edges"] = list(b.edges);
        o["groups"] = list(b.groups);
    }
    if (b.collapsed) o["collapsed"] = to_j(*b.collapsed);
    if (b.explain) o["explain"] = to_j(*b.explain);
    if (b.provenance) o["provenance"] = to_j(*b.provenance);
    put_extras(o, b.extras);
    std::string text = options.pretty ? o.dump(2) : o.dump();
    text += '\n';
    return text;
}

namespace {

void flatten(const J& value, const std::string& path, std::vector<WrittenField>& out) {
    if (value.is_object() && !value.empty()) {
        for (const auto& [key, member] : value.items()) flatten(member, path.empty() ? key : path + "/" + key, out);
        return;
    }
    out.push_back({path, value.dump()});
}

template <class T> std::vector<WrittenField> fields_of(const T& item) {
    std::vector<WrittenField> out;
    flatten(to_j(item), "", out);
    return out;
}

}  // namespace

std::vector<WrittenField> written_fields(const Node& node) { return fields_of(node); }
std::vector<WrittenField> written_fields(const Edge& edge) { return fields_of(edge); }
std::vector<WrittenField> written_fields(const Group& group) { return fields_of(group); }

}  // namespace kbp::schema
