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
// what the type cannot say (name, presence, range); member pointers keep the compiler checking
// that the member exists and has that type; and a tuple is walked with a fold over its
// elements, which inlines to the same code as the hand-written reader and writer had, with no
// macro names leaking into every includer and no dependency. Each user supplies its own
// per-type action (simdjson in the reader, JsonText in the writer, Diff in the tests), so this
// header includes only the model.
//
// Records whose JSON shape is not "one object, one member per field" keep hand-written code
// beside their table users: a template edge (its tensor detail inline), a template, the
// collapsed form, the explain maps and the document root (records keyed by name, the
// collapsed-only rule, the schema check).
#pragma once

#include <cstdint>
#include <string_view>
#include <tuple>

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
};

// Members the Schema lists in its `required`.
constexpr bool schema_required(Presence p) { return p == Presence::required || p == Presence::lenient; }
// Members written whatever their value.
constexpr bool always_written(Presence p) { return p != Presence::optional && p != Presence::optional_or_null; }

// One member of a record. For integers (and lists of them) lo..hi bounds the value.
template <class Record, class Member> struct Field {
    std::string_view json;
    Member Record::*member;
    Presence presence = Presence::required;
    std::int64_t lo = 0;
    std::int64_t hi = 0;

    using record_type = Record;
    using member_type = Member;
};

template <class Record, class Member>
constexpr Field<Record, Member> field(std::string_view json, Member Record::*member, Presence presence = Presence::required,
                                      std::int64_t lo = 0, std::int64_t hi = 0) {
    return {json, member, presence, lo, hi};
}

// The table of a record: `record_fields<T>` is a tuple of Field<T, ...>. Records without one
// are not described (see above).
template <class T> inline constexpr auto record_fields = nullptr;
template <class T> concept Described = !std::is_same_v<std::decay_t<decltype(record_fields<T>)>, std::nullptr_t>;

// Calls f(field) for every field of T's table, in order.
template <class T, class F> constexpr void for_each_field(F&& f) {
    std::apply([&](const auto&... fields) { (f(fields), ...); }, record_fields<T>);
}

// Calls f(field) for the field at `index` (the reader's dispatch from a member's slot).
template <class T, class F> constexpr void with_field(std::size_t index, F&& f) {
    std::size_t i = 0;
    std::apply([&](const auto&... fields) { ((i++ == index ? f(fields) : void()), ...); }, record_fields<T>);
}

template <class T> constexpr std::size_t field_count() { return std::tuple_size_v<std::decay_t<decltype(record_fields<T>)>>; }

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

template <> inline constexpr auto record_fields<Parallel> = std::tuple{
    field("tp", &Parallel::tp, Presence::required, 1, 1024),
    field("interconnect", &Parallel::interconnect),
    field("bandwidth_mbps", &Parallel::bandwidth_mbps, Presence::required, 1, max_bytes),
    field("latency_ns", &Parallel::latency_ns, Presence::required, 0, max_bytes),
    field("all_reduces_per_step", &Parallel::all_reduces_per_step, Presence::required, 0, max_index),
    field("all_reduce_bytes_per_token", &Parallel::all_reduce_bytes_per_token, Presence::required, 0, max_bytes),
    field("all_reduce_bytes_per_step", &Parallel::all_reduce_bytes_per_step, Presence::required, 0, max_bytes),
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

}  // namespace kbp::schema
