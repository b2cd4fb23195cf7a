// Blueprint -> text, streamed (json_text.hpp): no tree in between, so writing costs about what
// reading does. Members in the format's canonical order, then whatever extras were read, in
// their reading order; optional members are left out when absent.
#include "writer.hpp"

#include <nlohmann/json.hpp>

#include "schema/json_text.hpp"

namespace kbp::schema {
namespace {

// ---- values --------------------------------------------------------------------------------

void put(JsonText& w, const std::string& s) { w.string(s); }
void put(JsonText& w, std::string_view s) { w.string(s); }
void put(JsonText& w, std::int64_t i) { w.integer(i); }
void put(JsonText& w, bool b) { w.boolean(b); }
void put(JsonText& w, const JsonValue& v) { w.value(v); }
void put(JsonText& w, const Op& op) { w.string(op.name()); }
void put(JsonText& w, const Compute& c) { w.string(c.name()); }
void put(JsonText& w, const std::vector<StateRole>& roles) { w.string(state_roles_name(roles)); }
template <class Id> void put(JsonText& w, const Named<Id>& n) { w.string(n.name()); }

// The records, declared before the templates below so that their lookup finds them.
void put(JsonText& w, const Precision& p);
void put(JsonText& w, const Requant& r);
void put(JsonText& w, const TemplateArgs& args);
void put(JsonText& w, const Node& n);
void put(JsonText& w, const Edge& e);
void put(JsonText& w, const Group& g);
void put(JsonText& w, const Layer& l);
void put(JsonText& w, const TemplateNode& n);
void put(JsonText& w, const TemplateEdge& e);
void put(JsonText& w, const TemplateGroup& g);
void put(JsonText& w, const Ports& p);
void put(JsonText& w, const Template& t);
void put(JsonText& w, const Collapsed& c);
void put(JsonText& w, const FamilyDoc& f);
void put(JsonText& w, const FormatDoc& f);
void put(JsonText& w, const Explain& x);
void put(JsonText& w, const FileDigest& f);
void put(JsonText& w, const Provenance& p);
void put(JsonText& w, const Arm& a);
void put(JsonText& w, const std::vector<Symbol>& symbols);

template <class T> void put(JsonText& w, const std::optional<T>& v);

template <class T> void put(JsonText& w, const std::vector<T>& items) {
    w.begin_array();
    for (const auto& item : items) put(w, item);
    w.end_array();
}

template <class T> void put(JsonText& w, const std::optional<T>& v) {
    if (v)
        put(w, *v);
    else
        w.null();
}

// "key": value
template <class T> void member(JsonText& w, std::string_view key, const T& value) {
    w.key(key);
    put(w, value);
}

// "key": value, only when present
template <class T> void member_if(JsonText& w, std::string_view key, const std::optional<T>& value) {
    if (value) member(w, key, *value);
}

void put_extras(JsonText& w, const Extras& extras) {
    for (const auto& [k, v] : extras) member(w, k, v);
}

// ---- records -------------------------------------------------------------------------------

void put(JsonText& w, const Precision& p) {
    w.begin_object();
    member(w, "weight", p.weight);
    member(w, "activation", p.activation);
    w.key("output");
    if (p.output)
        w.string(formats_name(*p.output));
    else
        w.null();
    put_extras(w, p.extras);
    w.end_object();
}

void put(JsonText& w, const Requant& r) {
    w.begin_object();
    member(w, "from", r.from);
    member(w, "to", r.to);
    member(w, "at", r.at);
    put_extras(w, r.extras);
    w.end_object();
}

void put(JsonText& w, const TemplateArgs& args) {
    w.begin_object();
    for (const auto& a : args) member(w, a.name, a.value);
    w.end_object();
}

void put(JsonText& w, const Node& n) {
    w.begin_object();
    member(w, "id", n.id);
    member(w, "order", n.order);
    member(w, "layer", n.layer);
    member(w, "block", n.block);
    member(w, "block_type", n.block_type);
    member(w, "kind", n.kind);
    member(w, "op", n.op);
    member(w, "roles", n.roles);
    member(w, "inserted", n.inserted);
    member(w, "precision", n.precision);
    member(w, "steps", n.steps);
    member(w, "group", n.group);
    member(w, "kernel", n.kernel);
    member_if(w, "template_args", n.template_args);
    member(w, "family", n.family);
    member(w, "point", n.point);
    member(w, "compute", n.compute);
    member(w, "numerics", n.numerics);
    member(w, "where", n.where);
    member(w, "state", n.state);
    put_extras(w, n.extras);
    w.end_object();
}

void put(JsonText& w, const Edge& e) {
    w.begin_object();
    member(w, "id", e.id);
    member(w, "from", e.from);
    member(w, "to", e.to);
    member(w, "format", e.format);
    member(w, "rows", e.rows);
    member(w, "dim", e.dim);
    member(w, "fused", e.fused);
    member(w, "dim_value", e.dim_value);
    member(w, "bytes_per_token", e.bytes_per_token);
    member(w, "requant", e.requant);
    put_extras(w, e.extras);
    w.end_object();
}

void put(JsonText& w, const Group& g) {
    w.begin_object();
    member(w, "id", g.id);
    member(w, "rule", g.rule);
    member(w, "kernels", g.kernels);
    member(w, "where", g.where);
    member(w, "numerics", g.numerics);
    member(w, "compute", g.compute);
    member(w, "nodes", g.nodes);
    put_extras(w, g.extras);
    w.end_object();
}

void put(JsonText& w, const Layer& l) {
    w.begin_object();
    member(w, "index", l.index);
    member(w, "kind", l.kind);
    member(w, "template", l.template_name);
    member(w, "blocks", l.blocks);
    put_extras(w, l.extras);
    w.end_object();
}

// An edge detail's members, inline in the object being written.
void put_detail_members(JsonText& w, const EdgeDetail& d) {
    member(w, "id", d.id);
    member(w, "rows", d.rows);
    member(w, "dim", d.dim);
    member(w, "dim_value", d.dim_value);
    member(w, "bytes_per_token", d.bytes_per_token);
    member(w, "requant", d.requant);
    put_extras(w, d.extras);
}

void put(JsonText& w, const TemplateNode& n) {
    w.begin_object();
    member(w, "id", n.id);
    member(w, "op", n.op);
    member(w, "kind", n.kind);
    member(w, "block_type", n.block_type);
    member(w, "precision", n.precision);
    member(w, "kernel", n.kernel);
    member_if(w, "template_args", n.template_args);
    member(w, "family", n.family);
    member(w, "compute", n.compute);
    member(w, "where", n.where);
    member(w, "group", n.group);
    member(w, "inserted", n.inserted);
    member_if(w, "roles", n.roles);
    member_if(w, "steps", n.steps);
    member_if(w, "point", n.point);
    member_if(w, "numerics", n.numerics);
    member_if(w, "state", n.state);
    put_extras(w, n.extras);
    w.end_object();
}

void put(JsonText& w, const TemplateEdge& e) {
    w.begin_object();
    member(w, "from", e.from);
    member(w, "to", e.to);
    member(w, "format", e.format);
    member(w, "fused", e.fused);
    if (e.detail) put_detail_members(w, *e.detail);
    put_extras(w, e.extras);
    w.end_object();
}

void put(JsonText& w, const TemplateGroup& g) {
    w.begin_object();
    member(w, "rule", g.rule);
    member(w, "kernels", g.kernels);
    member(w, "where", g.where);
    member(w, "numerics", g.numerics);
    member(w, "compute", g.compute);
    put_extras(w, g.extras);
    w.end_object();
}

void put(JsonText& w, const Ports& p) {
    w.begin_object();
    member(w, "in", p.in);
    member(w, "out", p.out);
    if (p.out_tensor) {
        w.key("out_tensor");
        w.begin_object();
        put_detail_members(w, *p.out_tensor);
        w.end_object();
    }
    put_extras(w, p.extras);
    w.end_object();
}

void put(JsonText& w, const Template& t) {
    w.begin_object();
    member(w, "blocks", t.blocks);
    member(w, "nodes", t.nodes);
    member(w, "edges", t.edges);
    member(w, "ports", t.ports);
    member(w, "instances", t.instances);
    member_if(w, "groups", t.groups);
    member_if(w, "instance_values", t.instance_values);
    put_extras(w, t.extras);
    w.end_object();
}

void put(JsonText& w, const Collapsed& c) {
    w.begin_object();
    member(w, "prologue", c.prologue);
    member(w, "layout", c.layout);
    member(w, "epilogue", c.epilogue);
    w.key("templates");
    w.begin_object();
    for (const auto& t : c.templates) member(w, t.name, t);
    w.end_object();
    put_extras(w, c.extras);
    w.end_object();
}

void put(JsonText& w, const FamilyDoc& f) {
    w.begin_object();
    member(w, "description", f.description);
    member_if(w, "about", f.about);
    member_if(w, "numerics", f.numerics);
    member_if(w, "math", f.math);
    put_extras(w, f.extras);
    w.end_object();
}

void put(JsonText& w, const FormatDoc& f) {
    w.begin_object();
    member(w, "title", f.title);
    member(w, "description", f.description);
    member(w, "math", f.math);
    member(w, "encode", f.encode);
    put_extras(w, f.extras);
    w.end_object();
}

// A list of named records written as an object keyed by their names.
template <class T> void put_by_name(JsonText& w, const std::vector<T>& items) {
    w.begin_object();
    for (const auto& item : items) member(w, item.name, item);
    w.end_object();
}

void put(JsonText& w, const Explain& x) {
    w.begin_object();
    w.key("families");
    put_by_name(w, x.families);
    w.key("formats");
    put_by_name(w, x.formats);
    put_extras(w, x.extras);
    w.end_object();
}

void put(JsonText& w, const FileDigest& f) {
    w.begin_object();
    member(w, "path", f.path);
    member(w, "sha256", f.sha256);
    put_extras(w, f.extras);
    w.end_object();
}

void put(JsonText& w, const Provenance& p) {
    w.begin_object();
    member(w, "kind", p.kind);
    member_if(w, "engine_commit", p.engine_commit);
    member_if(w, "planner_sha256", p.planner_sha256);
    member_if(w, "planner_built_from", p.planner_built_from);
    if (!p.planner_header.is_null()) member(w, "planner_header", p.planner_header);
    member(w, "commands", p.commands);
    member(w, "files", p.files);
    put_extras(w, p.extras);
    w.end_object();
}

void put(JsonText& w, const Arm& a) {
    w.begin_object();
    member(w, "mode", a.mode);
    member(w, "rows", a.rows);
    member_if(w, "digest", a.digest);
    put_extras(w, a.extras);
    w.end_object();
}

void put(JsonText& w, const std::vector<Symbol>& symbols) {
    w.begin_object();
    for (const auto& s : symbols) member(w, s.name, s.value);
    w.end_object();
}

// Bytes of output per node, measured on the seed (pretty ~780, compact ~480): one reservation
// instead of a dozen doublings of a megabyte-sized string.
std::size_t expected_size(const Blueprint& b, bool pretty) {
    std::size_t records = b.nodes.size() + b.edges.size() + b.groups.size() + 64;
    return records * (pretty ? 640 : 400);
}

}  // namespace

std::string write_blueprint(const Blueprint& b, const WriteOptions& options) {
    JsonText w(options.pretty, expected_size(b, options.pretty));
    w.begin_object();
    member(w, "schema", b.schema);
    member_if(w, "blueprint_id", b.blueprint_id);
    member_if(w, "lineage", b.lineage);
    member_if(w, "revision", b.revision);
    member_if(w, "exported_by", b.exported_by);
    member(w, "arm", b.arm);
    member_if(w, "symbols", b.symbols);
    if (b.config_fields) member(w, "config_fields", JsonValue(*b.config_fields));
    member(w, "layers", b.layers);
    if (!b.collapsed_only) {
        member(w, "nodes", b.nodes);
        member(w, "edges", b.edges);
        member(w, "groups", b.groups);
    }
    member_if(w, "collapsed", b.collapsed);
    member_if(w, "explain", b.explain);
    member_if(w, "provenance", b.provenance);
    put_extras(w, b.extras);
    w.end_object();
    w.text() += '\n';
    return std::move(w.text());
}

namespace {

using J = nlohmann::ordered_json;

void flatten(const J& value, const std::string& path, std::vector<WrittenField>& out) {
    if (value.is_object() && !value.empty()) {
        for (const auto& [key, member] : value.items()) flatten(member, path.empty() ? key : path + "/" + key, out);
        return;
    }
    out.push_back({path, value.dump()});
}

// The record as written (compact), read back as a tree to walk its members: the diff and the
// inspector see exactly the writer's members and values.
template <class T> std::vector<WrittenField> fields_of(const T& item) {
    JsonText w(false);
    put(w, item);
    std::vector<WrittenField> out;
    flatten(J::parse(w.text()), "", out);
    return out;
}

}  // namespace

std::vector<WrittenField> written_fields(const Node& node) { return fields_of(node); }
std::vector<WrittenField> written_fields(const Edge& edge) { return fields_of(edge); }
std::vector<WrittenField> written_fields(const Group& group) { return fields_of(group); }

}  // namespace kbp::schema
