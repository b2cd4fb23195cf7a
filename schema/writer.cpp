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
void put(JsonText& w, const FormatList& formats);
void put(JsonText& w, SymList names);
void put(JsonText& w, const TemplateArgs& args);
void put(JsonText& w, const std::vector<Symbol>& symbols);
void put(JsonText& w, const JsonObject& o);

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

void put_extras(JsonText& w, const Extras& extras) {
    for (const auto& [k, v] : extras) member(w, k, v);
}

// ---- records ------------------------------------------------------------------------------

// A list of named records written as an object keyed by their names (Shape::keyed_by_name).
template <class T> void put_by_name(JsonText& w, const std::vector<T>& items) {
    w.begin_object();
    for (const auto& item : items) member(w, item.name, item);
    w.end_object();
}

template <Described T> void put_members(JsonText& w, const T& r);

// One member of a described record by its table entry: left out when its presence says so; a
// Shape::inlined sub-record writes its members (and extras) among the parent's.
template <class T, class F> void put_field(JsonText& w, const T& r, const F& f) {
    const auto& value = r.*(f.member);
    if constexpr (F::shape == Shape::inlined) {
        if (value) put_members(w, *value);
    } else if constexpr (F::shape == Shape::keyed_by_name) {
        w.key(f.json);
        put_by_name(w, value);
    } else {
        if constexpr (is_optional<std::decay_t<decltype(value)>>) {
            if (!always_written(f.presence)) {
                if (value) member(w, f.json, *value);
                return;
            }
        }
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, JsonValue>) {
            if (f.presence == Presence::unless_null && value.is_null()) return;
        }
        member(w, f.json, value);
    }
}

// A described record's members (record_fields.hpp), in the table's order, without braces.
template <Described T> void put_members(JsonText& w, const T& r) {
    for_each_field<T>([&](const auto& f) { put_field(w, r, f); });
    put_extras(w, r.extras);
}

template <Described T> void put(JsonText& w, const T& r) {
    w.begin_object();
    put_members(w, r);
    w.end_object();
}

void put(JsonText& w, const FormatList& formats) { w.string(formats_name(formats)); }
void put(JsonText& w, SymList names) { put(w, names.vector()); }

void put(JsonText& w, const TemplateArgs& args) {
    w.begin_object();
    for (const auto& a : args) member(w, a.name, a.value);
    w.end_object();
}

void put(JsonText& w, const std::vector<Symbol>& symbols) {
    w.begin_object();
    for (const auto& s : symbols) member(w, s.name, s.value);
    w.end_object();
}

void put(JsonText& w, const JsonObject& o) { w.value(JsonValue(o)); }

// Bytes of output per node, measured on the seed (pretty ~780, compact ~480): one reservation
// instead of a dozen doublings of a megabyte-sized string.
std::size_t expected_size(const Blueprint& b, bool pretty) {
    std::size_t records = b.nodes.size() + b.edges.size() + b.groups.size() + 64;
    return records * (pretty ? 640 : 400);
}

// The root by its table; the flat lists are left out of a collapsed-only plan.
void put_blueprint(JsonText& w, const Blueprint& b) {
    w.begin_object();
    std::size_t slot = 0;
    for_each_field<Blueprint>([&](const auto& f) {
        if (!(b.collapsed_only && is_root_flat_list(slot))) put_field(w, b, f);
        ++slot;
    });
    put_extras(w, b.extras);
    w.end_object();
    w.raw("\n");
}

}  // namespace

std::string write_blueprint(const Blueprint& b, const WriteOptions& options) {
    JsonText w(options.pretty, expected_size(b, options.pretty));
    put_blueprint(w, b);
    return w.take();
}

void write_blueprint(const Blueprint& b, const WriteOptions& options, const std::function<void(std::string_view)>& sink) {
    constexpr std::size_t piece = std::size_t{1} << 20;
    JsonText w(options.pretty, std::min(expected_size(b, options.pretty), 2 * piece));
    w.set_sink(sink, piece);
    put_blueprint(w, b);
    sink(w.view());
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
    flatten(J::parse(w.view()), "", out);
    return out;
}

}  // namespace

std::vector<WrittenField> written_fields(const Node& node) { return fields_of(node); }
std::vector<WrittenField> written_fields(const Edge& edge) { return fields_of(edge); }
std::vector<WrittenField> written_fields(const Group& group) { return fields_of(group); }

}  // namespace kbp::schema
