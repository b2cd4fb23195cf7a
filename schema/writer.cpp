// Blueprint -> text, streamed (json_text.hpp): no tree in between, so writing costs about what
// reading does. Members in the format's canonical order (the records' tables in
// record_fields.hpp), then whatever extras were read, in their reading order; optional members
// are left out when absent.
#include "writer.hpp"

#include <nlohmann/json.hpp>

#include "schema/file_io.hpp"
#include "schema/json_text.hpp"
#include "schema/record_fields.hpp"

namespace kbp::schema {
namespace {

// ---- values --------------------------------------------------------------------------------

void put(JsonText& w, const std::string& s) { w.string(s); }
void put(JsonText& w, std::string_view s) { w.string(s); }
void put(JsonText& w, std::int64_t i) { w.integer(i); }
void put(JsonText& w, bool b) { w.boolean(b); }
void put(JsonText& w, Sym s) { w.string(s.view()); }
void put(JsonText& w, const JsonValue& v) { w.value(v); }
void put(JsonText& w, const Op& op) { w.string(op.name()); }
void put(JsonText& w, const Compute& c) { w.string(c.name()); }
void put(JsonText& w, const std::vector<StateRole>& roles) { w.string(state_roles_name(roles)); }
template <class Id> void put(JsonText& w, const Named<Id>& n) { w.string(n.name()); }

template <class T> constexpr bool is_optional = false;
template <class T> constexpr bool is_optional<std::optional<T>> = true;

// The records, declared before the templates below so that their lookup finds them.
template <Described T> void put(JsonText& w, const T& r);
void put(JsonText& w, const std::vector<Format>& formats);
void put(JsonText& w, const TemplateArgs& args);
void put(JsonText& w, const TemplateEdge& e);
void put(JsonText& w, const Template& t);
void put(JsonText& w, const Collapsed& c);
void put(JsonText& w, const Explain& x);
void put(JsonText& w, const Provenance& p);
void put(JsonText& w, const std::vector<Symbol>& symbols);

template <class T> void put(JsonText& w, const std::optional<T>& v);

template <class T> void put(JsonText& w, const std::vector<T>& items) {
    w.begin_array();
    for (const auto& item : items) {
        put(w, item);
        w.drain();
    }
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

// ---- records ------------------------------------------------------------------------------

// A described record's members (record_fields.hpp), in the table's order, without braces: a
// template edge writes its tensor detail's members inline.
template <Described T> void put_members(JsonText& w, const T& r) {
    for_each_field<T>([&](const auto& f) {
        const auto& value = r.*(f.member);
        if constexpr (is_optional<std::decay_t<decltype(value)>>) {
            if (!always_written(f.presence)) {
                if (value) member(w, f.json, *value);
                return;
            }
        }
        member(w, f.json, value);
    });
    put_extras(w, r.extras);
}

template <Described T> void put(JsonText& w, const T& r) {
    w.begin_object();
    put_members(w, r);
    w.end_object();
}

void put(JsonText& w, const std::vector<Format>& formats) { w.string(formats_name(formats)); }

void put(JsonText& w, const TemplateArgs& args) {
    w.begin_object();
    for (const auto& a : args) member(w, a.name, a.value);
    w.end_object();
}

void put(JsonText& w, const TemplateEdge& e) {
    w.begin_object();
    member(w, "from", e.from);
    member(w, "to", e.to);
    member(w, "format", e.format);
    member(w, "fused", e.fused);
    if (e.detail) put_members(w, *e.detail);
    put_extras(w, e.extras);
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

// A list of named records written as an object keyed by their names.
template <class T> void put_by_name(JsonText& w, const std::vector<T>& items) {
    w.begin_object();
    for (const auto& item : items) member(w, item.name, item);
    w.end_object();
}

void put(JsonText& w, const Collapsed& c) {
    w.begin_object();
    member(w, "prologue", c.prologue);
    member(w, "layout", c.layout);
    member(w, "epilogue", c.epilogue);
    w.key("templates");
    put_by_name(w, c.templates);
    put_extras(w, c.extras);
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

void put_blueprint(JsonText& w, const Blueprint& b) {
    w.begin_object();
    member(w, "schema", b.schema);
    member_if(w, "blueprint_id", b.blueprint_id);
    member_if(w, "lineage", b.lineage);
    member_if(w, "revision", b.revision);
    member_if(w, "exported_by", b.exported_by);
    member(w, "arm", b.arm);
    member_if(w, "symbols", b.symbols);
    if (b.config_fields) member(w, "config_fields", JsonValue(*b.config_fields));
    if (b.node_costs) member(w, "node_costs", JsonValue(*b.node_costs));
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
}

}  // namespace

std::string write_blueprint(const Blueprint& b, const WriteOptions& options) {
    JsonText w(options.pretty, expected_size(b, options.pretty));
    put_blueprint(w, b);
    return std::move(w.text());
}

void write_blueprint(const Blueprint& b, const WriteOptions& options, const std::function<void(std::string_view)>& sink) {
    constexpr std::size_t piece = std::size_t{1} << 20;
    JsonText w(options.pretty, std::min(expected_size(b, options.pretty), 2 * piece));
    w.set_sink(sink, piece);
    put_blueprint(w, b);
    sink(w.text());
}

Status write_blueprint_file(const std::string& path, const Blueprint& b, const WriteOptions& options) {
    return write_file_atomic(path, [&](const OutputSink& sink) -> Status {
        std::optional<Error> failed;  // the first write that failed; later pieces are dropped
        write_blueprint(b, options, [&](std::string_view text) {
            if (!failed)
                if (auto s = sink(text); !s) failed = s.error();
        });
        if (failed) return *failed;
        return Ok{};
    });
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
