// One description per record: every member of a blueprint record, in the format's canonical
// order, with its JSON name, its C++ member, whether the format requires it and, for integers,
// the range a sane plan stays in. The reader's dispatch and required-member check (reader.cpp),
// the writer (writer.cpp), the tests' field-by-field comparison (tests/support.cpp) and the
// table-vs-Schema test (tests/test_record_fields.cpp) are all expanded from these tables, so a
// field is added in one line here (plus its meaning in kbp-graph-v2.schema.json).
//
// Why a constexpr tuple of member pointers rather than X-macros or a reflection library:
// the JSON type of a member follows from its C++ type (std::string -> string, std::optional<T>
// -> T or null, Named<E> -> a name, a described record -> an object), so one entry needs only
// what the type cannot say (name, presence, range, shape); member pointers keep the compiler
// checking that the member exists and has that type; and a tuple is walked with a fold over its
// elements, which inlines to the same code as the hand-written reader and writer had, with no
// macro names leaking into every includer and no dependency. Each user supplies its own
// per-type action (simdjson in the reader, JsonText in the writer, Diff in the tests), so this
// header includes only the model.
//
// Every record of the blueprint has a table, the document root (Blueprint) included. Where a
// record's JSON is not "one object, one member per field", the table says so per field with a
// Shape (a list written as an object keyed by its items' names; a sub-record whose members are
// written inline in the parent) or a Presence (written only when not null). Two rules of the
// root are not about one member and stay small hooks beside the reader and writer: the schema
// string must be kbp-graph/v2, and nodes, edges and groups (root_flat_lists below) are left out
// together when the file holds only the collapsed form (Blueprint::collapsed_only).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "schema/blueprint.hpp"

namespace kbp::schema {

// Upper bounds that no real plan reaches; beyond them a number is corrupt, not big.
inline constexpr std::int64_t max_index = (std::int64_t{1} << 31) - 1;  // nodes, edges, groups, layers
inline constexpr std::int64_t max_rows = std::int64_t{1} << 20;         // rows in one step (a 1M-token prefill)
inline constexpr std::int64_t max_dim = std::int64_t{1} << 40;          // one tensor's width
inline constexpr std::int64_t max_bytes = std::int64_t{1} << 48;        // bytes per token
inline constexpr std::int64_t max_template_value = std::int64_t{1} << 40;  // a kernel template argument

// How a member is present. A member left out when reading keeps its default: the member's
// initializer in blueprint.hpp (0, false, empty, null), which is the table's default column.
enum class Presence {
    required,   // in the Schema's `required`; a record without it is refused
    lenient,    // in the Schema's `required` and always written, but read as its default when
                // absent (files from before the member existed)
    defaulted,  // not in the Schema's `required`; always written; its default when absent
    optional,   // a std::optional member: may be absent, written only when it holds a value
    optional_or_null,  // as optional, and null reads as absent too
    // Not in `required`; a JsonValue member whose null means "absent" (Provenance's
    // planner_header): written only when not null, and in a file it is an object, never null.
    // Its own presence because the C++ type (JsonValue, null by default) cannot say it.
    unless_null,
};

// Members the Schema lists in its `required`.
constexpr bool schema_required(Presence p) { return p == Presence::required || p == Presence::lenient; }
// Members written whatever their value.
constexpr bool always_written(Presence p) {
    return p != Presence::optional && p != Presence::optional_or_null && p != Presence::unless_null;
}

// How a member's value stands in its record's JSON object. A template parameter of Field, not a
// data member, so that the reader, writer and comparison choose their code with `if constexpr`
// (the shapes need different code, and the plain one, every node's and edge's, gains nothing).
enum class Shape {
    plain,  // "json": the value
    // A std::vector of described records that each have a `name`, written as an object keyed by
    // those names in the list's order (collapsed.templates, explain.families, explain.formats).
    // The C++ type (a vector) would say "array"; the JSON object keeps the names unique.
    keyed_by_name,
    // A std::optional of a described record whose members are written inline among the parent's
    // (a template edge's tensor detail). The sub-record is present when its first member is; it
    // then needs all its required members. `json` only names the sub-record in messages and in
    // the comparison ("tensor detail"): the record's own members are the JSON names.
    inlined,
};

// One member of a record. For integers (and lists of them) lo..hi bounds the value.
template <class Record, class Member, Shape S = Shape::plain> struct Field {
    std::string_view json;
    Member Record::*member;
    Presence presence = Presence::required;
    std::int64_t lo = 0;
    std::int64_t hi = 0;

    using record_type = Record;
    using member_type = Member;
    static constexpr Shape shape = S;
};

template <class Record, class Member>
constexpr Field<Record, Member> field(std::string_view json, Member Record::*member, Presence presence = Presence::required,
                                      std::int64_t lo = 0, std::int64_t hi = 0) {
    return {json, member, presence, lo, hi};
}

// A list of named records written as an object keyed by their names (Shape::keyed_by_name).
template <class Record, class Item>
constexpr Field<Record, std::vector<Item>, Shape::keyed_by_name> keyed_by_name(std::string_view json, std::vector<Item> Record::*member,
                                                                              Presence presence = Presence::required) {
    return {json, member, presence, 0, 0};
}

// An optional sub-record whose members are written inline in the parent (Shape::inlined).
template <class Record, class Sub>
constexpr Field<Record, std::optional<Sub>, Shape::inlined> inlined(std::string_view label, std::optional<Sub> Record::*member) {
    return {label, member, Presence::optional, 0, 0};
}

// The table of a record: `record_fields<T>` is a tuple of Field<T, ...>. Records without one
// are not described (see above).
template <class T> inline constexpr auto record_fields = nullptr;
template <class T> concept Described = !std::is_same_v<std::decay_t<decltype(record_fields<T>)>, std::nullptr_t>;

// Calls f(field) for every field of T's table, in order.
template <class T, class F> constexpr void for_each_field(F&& f) {
    std::apply([&](const auto&... fields) { (f(fields), ...); }, record_fields<T>);
}

// Calls f(field, std::integral_constant<std::size_t, I>{}) for every field of T's table, in order:
// each call knows its field's slot I at compile time (the reader keeps a memo per field by it).
template <class T, class F> constexpr void for_each_field_at(F&& f) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (f(std::get<I>(record_fields<T>), std::integral_constant<std::size_t, I>{}), ...);
    }(std::make_index_sequence<std::tuple_size_v<std::decay_t<decltype(record_fields<T>)>>>{});
}

// Calls f(field) for the field at `index` (the reader's dispatch from a member's slot).
template <class T, class F> constexpr void with_field(std::size_t index, F&& f) {
    std::size_t i = 0;
    std::apply([&](const auto&... fields) { ((i++ == index ? f(fields) : void()), ...); }, record_fields<T>);
}

template <class T> constexpr std::size_t field_count() { return std::tuple_size_v<std::decay_t<decltype(record_fields<T>)>>; }

// The slot of the field named `json` in T's table (a compile error when there is none).
template <class T> consteval std::size_t field_index(std::string_view json) {
    std::size_t i = 0, found = field_count<T>();
    for_each_field<T>([&](const auto& f) {
        if (f.json == json) found = i;
        ++i;
    });
    if (found == field_count<T>()) throw "no such field";
    return found;
}

// Whether T's table has a Shape::inlined field (its JSON members are then more than its fields).
template <class T> constexpr bool has_inlined() {
    bool any = false;
    for_each_field<T>([&](const auto& f) { any = any || std::decay_t<decltype(f)>::shape == Shape::inlined; });
    return any;
}

// ---- the tables ------------------------------------------------------------------------------

template <> inline constexpr auto record_fields<Precision> = std::tuple{
    field("weight", &Precision::weight),
    field("activation", &Precision::activation),
    field("output", &Precision::output),
};

template <> inline constexpr auto record_fields<Requant> = std::tuple{
    field("from", &Requant::from),
    field("to", &Requant::to),
    field("at", &Requant::at),
};

template <> inline constexpr auto record_fields<Arm> = std::tuple{
    field("mode", &Arm::mode),
    field("rows", &Arm::rows, Presence::required, 1, max_rows),
    field("digest", &Arm::digest, Presence::optional_or_null),
    field("parallel", &Arm::parallel, Presence::optional),
};

template <> inline constexpr auto record_fields<Mtp> = std::tuple{
    field("layers", &Mtp::layers, Presence::required, 1, max_index),
    field("config_field", &Mtp::config_field),
    field("parameters", &Mtp::parameters, Presence::required, 0, max_bytes),
    field("target_parameters", &Mtp::target_parameters, Presence::required, 0, max_bytes),
    field("draft", &Mtp::draft),
};

template <> inline constexpr auto record_fields<Parallel> = std::tuple{
    field("tp", &Parallel::tp, Presence::required, 1, 1024),
    field("interconnect", &Parallel::interconnect),
    field("bandwidth_mbps", &Parallel::bandwidth_mbps, Presence::required, 1, max_bytes),
    field("latency_ns", &Parallel::latency_ns, Presence::required, 0, max_bytes),
    field("all_reduces_per_step", &Parallel::all_reduces_per_step, Presence::required, 0, max_index),
    field("all_reduce_bytes_per_token", &Parallel::all_reduce_bytes_per_token, Presence::required, 0, max_bytes),
    field("all_reduce_bytes_per_step", &Parallel::all_reduce_bytes_per_step, Presence::required, 0, max_bytes),
    field("gathers_per_step", &Parallel::gathers_per_step, Presence::defaulted, 0, max_index),
    field("gather_bytes_per_step", &Parallel::gather_bytes_per_step, Presence::defaulted, 0, max_bytes),
    field("kv_head_replicas", &Parallel::kv_head_replicas, Presence::optional, 2, 1024),
};

template <> inline constexpr auto record_fields<Layer> = std::tuple{
    field("index", &Layer::index, Presence::required, 0, max_index),
    field("kind", &Layer::kind),
    field("template", &Layer::template_name),
    field("blocks", &Layer::blocks),
};

template <> inline constexpr auto record_fields<Node> = std::tuple{
    field("id", &Node::id),
    field("order", &Node::order, Presence::required, 0, max_index),
    field("layer", &Node::layer, Presence::required, 0, max_index),
    field("block", &Node::block),
    field("block_type", &Node::block_type),
    field("kind", &Node::kind),
    field("op", &Node::op),
    field("roles", &Node::roles, Presence::lenient),
    field("inserted", &Node::inserted, Presence::lenient),
    field("precision", &Node::precision),
    field("steps", &Node::steps, Presence::lenient),
    field("group", &Node::group, Presence::required, 0, max_index),
    field("kernel", &Node::kernel),
    field("template_args", &Node::template_args, Presence::optional_or_null, -max_template_value, max_template_value),
    field("family", &Node::family),
    field("point", &Node::point, Presence::lenient),
    field("compute", &Node::compute),
    field("numerics", &Node::numerics, Presence::lenient),
    field("where", &Node::where),
    field("state", &Node::state, Presence::lenient),
};

template <> inline constexpr auto record_fields<Edge> = std::tuple{
    field("id", &Edge::id),
    field("from", &Edge::from, Presence::required, 0, max_index),
    field("to", &Edge::to, Presence::required, 0, max_index),
    field("format", &Edge::format),
    field("rows", &Edge::rows),
    field("dim", &Edge::dim),
    field("fused", &Edge::fused),
    field("dim_value", &Edge::dim_value, Presence::required, 0, max_dim),
    field("bytes_per_token", &Edge::bytes_per_token, Presence::required, 0, max_bytes),
    field("requant", &Edge::requant, Presence::lenient),
};

template <> inline constexpr auto record_fields<Group> = std::tuple{
    field("id", &Group::id, Presence::required, 0, max_index),
    field("rule", &Group::rule),
    field("kernels", &Group::kernels),
    field("where", &Group::where),
    field("numerics", &Group::numerics),
    field("compute", &Group::compute),
    field("nodes", &Group::nodes, Presence::required, 0, max_index),
};

template <> inline constexpr auto record_fields<TemplateNode> = std::tuple{
    field("id", &TemplateNode::id),
    field("op", &TemplateNode::op),
    field("kind", &TemplateNode::kind),
    field("block_type", &TemplateNode::block_type),
    field("precision", &TemplateNode::precision),
    field("kernel", &TemplateNode::kernel),
    field("template_args", &TemplateNode::template_args, Presence::optional_or_null, -max_template_value, max_template_value),
    field("family", &TemplateNode::family),
    field("compute", &TemplateNode::compute),
    field("where", &TemplateNode::where),
    field("group", &TemplateNode::group, Presence::required, 0, max_index),
    field("inserted", &TemplateNode::inserted),
    field("roles", &TemplateNode::roles, Presence::optional),
    field("steps", &TemplateNode::steps, Presence::optional),
    field("point", &TemplateNode::point, Presence::optional),
    field("numerics", &TemplateNode::numerics, Presence::optional),
    field("state", &TemplateNode::state, Presence::optional),
};

// A template edge's tensor: inline in the edge, or a port's out_tensor.
template <> inline constexpr auto record_fields<EdgeDetail> = std::tuple{
    field("id", &EdgeDetail::id),
    field("rows", &EdgeDetail::rows),
    field("dim", &EdgeDetail::dim),
    field("dim_value", &EdgeDetail::dim_value, Presence::required, 0, max_dim),
    field("bytes_per_token", &EdgeDetail::bytes_per_token, Presence::required, 0, max_bytes),
    field("requant", &EdgeDetail::requant, Presence::lenient),
};

// The tensor detail's members stand inline among the edge's own.
template <> inline constexpr auto record_fields<TemplateEdge> = std::tuple{
    field("from", &TemplateEdge::from, Presence::required, 0, max_index),
    field("to", &TemplateEdge::to, Presence::required, 0, max_index),
    field("format", &TemplateEdge::format),
    field("fused", &TemplateEdge::fused),
    inlined("tensor detail", &TemplateEdge::detail),
};

template <> inline constexpr auto record_fields<TemplateGroup> = std::tuple{
    field("rule", &TemplateGroup::rule),
    field("kernels", &TemplateGroup::kernels),
    field("where", &TemplateGroup::where),
    field("numerics", &TemplateGroup::numerics),
    field("compute", &TemplateGroup::compute),
};

template <> inline constexpr auto record_fields<Ports> = std::tuple{
    field("in", &Ports::in, Presence::required, 0, max_index),
    field("out", &Ports::out, Presence::required, 0, max_index),
    field("out_tensor", &Ports::out_tensor, Presence::optional),
    field("out_tensors", &Ports::out_tensors, Presence::optional),
};

template <> inline constexpr auto record_fields<FileDigest> = std::tuple{
    field("path", &FileDigest::path),
    field("sha256", &FileDigest::sha256),
};

// explain.families and explain.formats: objects keyed by the family's or format's name.
template <> inline constexpr auto record_fields<FamilyDoc> = std::tuple{
    field("description", &FamilyDoc::description),
    field("about", &FamilyDoc::about, Presence::optional),
    field("numerics", &FamilyDoc::numerics, Presence::optional),
    field("math", &FamilyDoc::math, Presence::optional),
};

template <> inline constexpr auto record_fields<FormatDoc> = std::tuple{
    field("title", &FormatDoc::title),
    field("description", &FormatDoc::description, Presence::lenient),
    field("math", &FormatDoc::math, Presence::defaulted),
    field("encode", &FormatDoc::encode, Presence::defaulted),
};

// collapsed.templates: an object keyed by the template's name.
template <> inline constexpr auto record_fields<Template> = std::tuple{
    field("blocks", &Template::blocks),
    field("nodes", &Template::nodes),
    field("edges", &Template::edges),
    field("ports", &Template::ports),
    field("instances", &Template::instances, Presence::required, 0, max_index),
    field("groups", &Template::groups, Presence::optional),
    field("instance_values", &Template::instance_values, Presence::optional, -max_template_value, max_template_value),
};

template <> inline constexpr auto record_fields<Collapsed> = std::tuple{
    field("prologue", &Collapsed::prologue),
    field("layout", &Collapsed::layout),
    field("epilogue", &Collapsed::epilogue),
    keyed_by_name("templates", &Collapsed::templates),
};

// Both required: the reader has always refused an explain without either (the Schema said
// nothing until the table check compared them).
template <> inline constexpr auto record_fields<Explain> = std::tuple{
    keyed_by_name("families", &Explain::families),
    keyed_by_name("formats", &Explain::formats),
};

template <> inline constexpr auto record_fields<Provenance> = std::tuple{
    field("kind", &Provenance::kind),
    field("engine_commit", &Provenance::engine_commit, Presence::optional_or_null),
    field("planner_sha256", &Provenance::planner_sha256, Presence::optional_or_null),
    field("planner_built_from", &Provenance::planner_built_from, Presence::optional_or_null),
    field("planner_header", &Provenance::planner_header, Presence::unless_null),
    field("commands", &Provenance::commands, Presence::defaulted),
    field("files", &Provenance::files, Presence::defaulted),
};

// The document root. `symbols` is an object of name -> value (0..max_dim); `config_fields` the
// model config's own object, kept as it is.
template <> inline constexpr auto record_fields<Blueprint> = std::tuple{
    field("schema", &Blueprint::schema),
    field("blueprint_id", &Blueprint::blueprint_id, Presence::optional_or_null),
    field("lineage", &Blueprint::lineage, Presence::optional_or_null),
    field("revision", &Blueprint::revision, Presence::optional_or_null, 0, max_index),
    field("exported_by", &Blueprint::exported_by, Presence::optional_or_null),
    field("arm", &Blueprint::arm),
    field("symbols", &Blueprint::symbols, Presence::optional, 0, max_dim),
    field("config_fields", &Blueprint::config_fields, Presence::optional),
    field("node_costs", &Blueprint::node_costs, Presence::optional),
    field("modules", &Blueprint::modules, Presence::optional),
    field("mtp", &Blueprint::mtp, Presence::optional),
    field("layers", &Blueprint::layers),
    field("nodes", &Blueprint::nodes),
    field("edges", &Blueprint::edges),
    field("groups", &Blueprint::groups),
    field("collapsed", &Blueprint::collapsed, Presence::optional),
    field("explain", &Blueprint::explain, Presence::optional),
    field("provenance", &Blueprint::provenance, Presence::optional),
};

// The root's one rule across members: these three are required (the Schema says so) unless the
// file holds only the collapsed form, which leaves all three out (kbp collapse --only); the
// reader then sets Blueprint::collapsed_only, and the writer leaves them out when it is set.
inline constexpr std::size_t root_flat_lists[] = {field_index<Blueprint>("nodes"), field_index<Blueprint>("edges"),
                                                  field_index<Blueprint>("groups")};
constexpr bool is_root_flat_list(std::size_t slot) {
    for (std::size_t s : root_flat_lists)
        if (s == slot) return true;
    return false;
}

}  // namespace kbp::schema
