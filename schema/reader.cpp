// simdjson DOM -> Blueprint. One pass over each object's members; a member this version
// does not know goes to `extras`. Shape errors are thrown as ShapeError inside this file and
// returned as a Result at the boundary; JSON pointers are built only when an error happens.
#include "reader.hpp"

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <array>
#include <cstring>
#include <span>

#include "file_io.hpp"

namespace kbp::schema {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// Upper bounds that no real plan reaches; beyond them a number is corrupt, not big.
constexpr std::int64_t max_index = (std::int64_t{1} << 31) - 1;  // nodes, edges, groups, layers
constexpr std::int64_t max_rows = std::int64_t{1} << 20;         // rows in one step (a 1M-token prefill)
constexpr std::int64_t max_dim = std::int64_t{1} << 40;          // one tensor's width
constexpr std::int64_t max_bytes = std::int64_t{1} << 48;        // bytes per token
constexpr std::int64_t max_template_value = std::int64_t{1} << 40;  // a kernel template argument

// A JSON pointer, kept as a chain of stack frames and rendered only on error.
struct Path {
    const Path* parent = nullptr;
    std::string_view key;
    std::size_t index = 0;
    bool is_index = false;

    Path operator/(std::string_view k) const { return Path{this, k, 0, false}; }
    Path operator/(std::size_t i) const { return Path{this, {}, i, true}; }

    std::string render() const {
        std::string tail;
        if (parent) {
            tail = parent->render() + "/";
            if (is_index) {
                tail += std::to_string(index);
            } else {
                for (char c : key) {  // RFC 6901 escapes
                    if (c == '~') tail += "~0";
                    else if (c == '/') tail += "~1";
                    else tail += c;
                }
            }
        }
        return tail;
    }
};

struct ShapeError {
    std::string pointer;
    std::string message;
};

[[noreturn]] void fail(const Path& p, std::string message) {
    std::string ptr = p.render();
    throw ShapeError{ptr.empty() ? "/" : ptr, std::move(message)};
}

std::string_view type_name(element_type t) {
    switch (t) {
        case element_type::ARRAY: return "an array";
        case element_type::OBJECT: return "an object";
        case element_type::INT64:
        case element_type::UINT64: return "an integer";
        case element_type::DOUBLE: return "a number";
        case element_type::STRING: return "a string";
        case element_type::BOOL: return "a boolean";
        case element_type::NULL_VALUE: return "null";
    }
    return "a value";
}

[[noreturn]] void wrong_type(element e, const Path& p, std::string_view expected) {
    fail(p, "expected " + std::string(expected) + ", found " + std::string(type_name(e.type())));
}

std::string read_string(element e, const Path& p) {
    std::string_view s;
    if (e.get_string().get(s)) wrong_type(e, p, "a string");
    return std::string(s);
}

std::optional<std::string> read_string_or_null(element e, const Path& p) {
    if (e.is_null()) return std::nullopt;
    return read_string(e, p);
}

bool read_bool(element e, const Path& p) {
    bool b;
    if (e.get_bool().get(b)) wrong_type(e, p, "a boolean");
    return b;
}

std::int64_t read_int(element e, const Path& p, std::int64_t lo, std::int64_t hi) {
    std::int64_t v;
    if (e.type() == element_type::UINT64) fail(p, "number out of range (at most " + std::to_string(hi) + ")");
    if (e.type() == element_type::DOUBLE) {
        double d = e.get_double().value_unsafe();
        fail(p, "expected an integer, found " + std::to_string(d));
    }
    if (e.get_int64().get(v)) wrong_type(e, p, "an integer");
    if (v < lo) fail(p, "number out of range (" + std::to_string(v) + " < " + std::to_string(lo) + ")");
    if (v > hi) fail(p, "number out of range (" + std::to_string(v) + " > " + std::to_string(hi) + ")");
    return v;
}

std::optional<std::int64_t> read_int_or_null(element e, const Path& p, std::int64_t lo, std::int64_t hi) {
    if (e.is_null()) return std::nullopt;
    return read_int(e, p, lo, hi);
}

simdjson::dom::array read_array(element e, const Path& p) {
    simdjson::dom::array a;
    if (e.get_array().get(a)) wrong_type(e, p, "an array");
    return a;
}

simdjson::dom::object read_object(element e, const Path& p) {
    simdjson::dom::object o;
    if (e.get_object().get(o)) wrong_type(e, p, "an object");
    return o;
}

template <class F> void each(element e, const Path& p, F&& f) {
    std::size_t i = 0;
    for (element item : read_array(e, p)) {
        f(item, p / i);
        ++i;
    }
}

// Reads an array of objects straight into `out` (no temporaries: plans have thousands).
template <class T, class F> void read_list(element e, const Path& p, std::vector<T>& out, F&& read_into) {
    auto array = read_array(e, p);
    out.reserve(out.size() + array.size());
    std::size_t i = 0;
    for (element item : array) {
        read_into(out.emplace_back(), item, p / i);
        ++i;
    }
}

std::vector<std::string> read_strings(element e, const Path& p) {
    std::vector<std::string> out;
    each(e, p, [&](element item, const Path& ip) { out.push_back(read_string(item, ip)); });
    return out;
}

std::vector<std::int64_t> read_ints(element e, const Path& p, std::int64_t lo, std::int64_t hi) {
    std::vector<std::int64_t> out;
    each(e, p, [&](element item, const Path& ip) { out.push_back(read_int(item, ip, lo, hi)); });
    return out;
}

JsonValue to_json(element e) {
    switch (e.type()) {
        case element_type::NULL_VALUE: return nullptr;
        case element_type::BOOL: return e.get_bool().value_unsafe();
        case element_type::INT64: return e.get_int64().value_unsafe();
        case element_type::UINT64: return e.get_uint64().value_unsafe();
        case element_type::DOUBLE: return e.get_double().value_unsafe();
        case element_type::STRING: return std::string(e.get_string().value_unsafe());
        case element_type::ARRAY: {
            JsonArray a;
            simdjson::dom::array items = e.get_array().value_unsafe();
            for (element item : items) a.push_back(to_json(item));
            return a;
        }
        case element_type::OBJECT: {
            JsonObject o;
            simdjson::dom::object fields = e.get_object().value_unsafe();
            for (auto field : fields)
                o.emplace_back(std::string(field.key), to_json(field.value));
            return o;
        }
    }
    return nullptr;
}

// Member names are short: a byte loop beats a call to memcmp.
inline bool same_bytes(std::string_view a, std::string_view b) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}

// The members an object may have: a member's slot in `keys`, or -1 for an unknown member.
// Required members are checked after the pass, so one error names the first one missing.
class Members {
public:
    Members(std::span<const std::string_view> keys, std::uint64_t required)
        : keys_(keys), required_(required) {}

    // Members usually come in the format's order, so the search starts after the last match.
    int slot(std::string_view key) {
        const auto n = static_cast<int>(keys_.size());
        for (int step = 0; step < n; ++step) {
            int i = (next_ + step) % n;
            std::string_view k = keys_[i];
            if (k.size() == key.size() && same_bytes(k, key)) {
                if (seen_ & (std::uint64_t{1} << i)) return -2;  // duplicate
                seen_ |= std::uint64_t{1} << i;
                next_ = i + 1 == n ? 0 : i + 1;
                return i;
            }
        }
        return -1;
    }
    bool seen(int i) const { return seen_ & (std::uint64_t{1} << i); }
    void check(const Path& p) const {
        std::uint64_t missing = required_ & ~seen_;
        if (!missing) return;
        int i = 0;
        for (auto k : keys_) {
            if (missing & (std::uint64_t{1} << i)) fail(p, "missing required member '" + std::string(k) + "'");
            ++i;
        }
    }

private:
    std::span<const std::string_view> keys_;
    std::uint64_t required_;
    std::uint64_t seen_ = 0;
    int next_ = 0;
};

constexpr std::uint64_t all(int n) { return (std::uint64_t{1} << n) - 1; }

// Walks an object's members, dispatching known ones to `on` and keeping the rest in `extras`.
template <class F>
void members(element e, const Path& p, Members& m, Extras& extras, F&& on) {
    for (auto field : read_object(e, p)) {
        int s = m.slot(field.key);
        if (s == -2) fail(p / field.key, "duplicate member '" + std::string(field.key) + "'");
        if (s < 0) {
            extras.emplace_back(std::string(field.key), to_json(field.value));
            continue;
        }
        on(s, field.value, p / field.key);
    }
    m.check(p);
}

template <class E> Named<E> read_name(element e, const Path& p) {
    std::string_view s;
    if (e.get_string().get(s)) wrong_type(e, p, "a string");
    if (s.empty()) fail(p, "empty name");
    return Named<E>::parse(s);
}

template <class E> std::optional<Named<E>> read_name_or_null(element e, const Path& p) {
    if (e.is_null()) return std::nullopt;
    return read_name<E>(e, p);
}

std::optional<Format> read_format_or_null(element e, const Path& p) { return read_name_or_null<FormatId>(e, p); }

std::optional<std::vector<Format>> read_formats_or_null(element e, const Path& p) {
    if (e.is_null()) return std::nullopt;
    std::string text = read_string(e, p);
    std::vector<Format> out;
    std::string_view rest = text;
    while (true) {
        auto comma = rest.find(',');
        auto item = rest.substr(0, comma);
        if (item.empty()) fail(p, "empty format name in '" + text + "'");
        out.push_back(Format::parse(item));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return out;
}

Op read_op(element e, const Path& p) {
    std::string text = read_string(e, p);
    if (text.empty()) fail(p, "empty op");
    Op op = Op::parse(text);
    if (op.kind.id == OpId::linear && op.role.empty()) fail(p, "a projection names its role: 'linear:<role>'");
    return op;
}

std::optional<Compute> read_compute_or_null(element e, const Path& p) {
    if (e.is_null()) return std::nullopt;
    std::string text = read_string(e, p);
    if (text.empty()) fail(p, "empty compute kind");
    return Compute::parse(text);
}

std::optional<std::vector<StateRole>> read_state_or_null(element e, const Path& p) {
    if (e.is_null()) return std::nullopt;
    std::string text = read_string(e, p);
    if (text.empty()) fail(p, "empty state role");
    return parse_state_roles(text);
}

JsonValue read_point(element e, const Path& p) {
    if (!e.is_null() && e.type() != element_type::OBJECT) wrong_type(e, p, "an object or null");
    return to_json(e);
}

// {"F_out": 24, "F_in": null}: names in the kernel's order, each an integer or null.
TemplateArgs read_template_args(element e, const Path& p) {
    TemplateArgs out;
    for (auto field : read_object(e, p)) {
        const Path fp = p / field.key;
        if (field.key.empty()) fail(fp, "empty template argument name");
        for (const auto& a : out)
            if (a.name == field.key) fail(fp, "duplicate template argument '" + std::string(field.key) + "'");
        out.push_back({std::string(field.key), read_int_or_null(field.value, fp, -max_template_value, max_template_value)});
    }
    return out;
}

std::optional<TemplateArgs> read_template_args_or_null(element e, const Path& p) {
    if (e.is_null()) return std::nullopt;
    return read_template_args(e, p);
}

Precision read_precision(element e, const Path& p) {
    Precision r;
    static constexpr std::string_view m_keys[] = {"weight", "activation", "output"};
    Members m(m_keys, all(3));
    members(e, p, m, r.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: r.weight = read_format_or_null(v, vp); break;
            case 1: r.activation = read_format_or_null(v, vp); break;
            case 2: r.output = read_formats_or_null(v, vp); break;
        }
    });
    return r;
}

Arm read_arm(element e, const Path& p) {
    Arm a;
    static constexpr std::string_view m_keys[] = {"mode", "rows", "digest"};
    Members m(m_keys, all(2));
    members(e, p, m, a.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: a.mode = read_name<ArmModeId>(v, vp); break;
            case 1: a.rows = read_int(v, vp, 1, max_rows); break;
            case 2: a.digest = read_string_or_null(v, vp); break;
        }
    });
    return a;
}

void read_layer(Layer& l, element e, const Path& p) {
    static constexpr std::string_view m_keys[] = {"index", "kind", "template", "blocks"};
    Members m(m_keys, all(4));
    members(e, p, m, l.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: l.index = read_int(v, vp, 0, max_index); break;
            case 1: l.kind = read_name<LayerKindId>(v, vp); break;
            case 2: l.template_name = read_string(v, vp); break;
            case 3: l.blocks = read_strings(v, vp); break;
        }
    });
}

void read_node(Node& n, element e, const Path& p) {
    // In the format's order; roles, inserted, steps, point, numerics and state may be left out.
    static constexpr std::string_view m_keys[] = {"id",       "order", "layer", "block",    "block_type", "kind",  "op",
                                                  "roles",    "inserted", "precision", "steps", "group", "kernel", "family",
                                                  "point",    "compute", "numerics", "where", "state", "template_args"};
    constexpr std::uint64_t optional = 1u << 7 | 1u << 8 | 1u << 10 | 1u << 14 | 1u << 16 | 1u << 18 | 1u << 19;
    Members m(m_keys, all(20) & ~optional);
    members(e, p, m, n.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: n.id = read_string(v, vp); break;
            case 1: n.order = read_int(v, vp, 0, max_index); break;
            case 2: n.layer = read_int_or_null(v, vp, 0, max_index); break;
            case 3: n.block = read_string(v, vp); break;
            case 4: n.block_type = read_name<BlockTypeId>(v, vp); break;
            case 5: n.kind = read_name_or_null<LayerKindId>(v, vp); break;
            case 6: n.op = read_op(v, vp); break;
            case 7: n.roles = read_strings(v, vp); break;
            case 8: n.inserted = read_bool(v, vp); break;
            case 9: n.precision = read_precision(v, vp); break;
            case 10: n.steps = read_strings(v, vp); break;
            case 11: n.group = read_int(v, vp, 0, max_index); break;
            case 12: n.kernel = read_string_or_null(v, vp); break;
            case 13: n.family = read_string(v, vp); break;
            case 14: n.point = read_point(v, vp); break;
            case 15: n.compute = read_compute_or_null(v, vp); break;
            case 16: n.numerics = read_string(v, vp); break;
            case 17: n.where = read_name<WhereId>(v, vp); break;
            case 18: n.state = read_state_or_null(v, vp); break;
            case 19: n.template_args = read_template_args_or_null(v, vp); break;
        }
    });
}

Requant read_requant(element e, const Path& p) {
    Requant r;
    static constexpr std::string_view m_keys[] = {"from", "to", "at"};
    Members m(m_keys, all(3));
    members(e, p, m, r.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: r.from = read_name<FormatId>(v, vp); break;
            case 1: r.to = read_name<FormatId>(v, vp); break;
            case 2: r.at = read_name<RequantAtId>(v, vp); break;
        }
    });
    return r;
}

std::optional<Requant> read_requant_or_null(element e, const Path& p) {
    if (e.is_null()) return std::nullopt;
    return read_requant(e, p);
}

void read_edge(Edge& d, element e, const Path& p) {
    static constexpr std::string_view m_keys[] = {"id", "from", "to", "format", "rows", "dim", "fused", "dim_value", "bytes_per_token",
               "requant"};
    Members m(m_keys, all(9));
    members(e, p, m, d.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: d.id = read_string(v, vp); break;
            case 1: d.from = read_int(v, vp, 0, max_index); break;
            case 2: d.to = read_int(v, vp, 0, max_index); break;
            case 3: d.format = read_name<FormatId>(v, vp); break;
            case 4: d.rows = read_name_or_null<RowSpaceId>(v, vp); break;
            case 5: d.dim = read_string_or_null(v, vp); break;
            case 6: d.fused = read_bool(v, vp); break;
            case 7: d.dim_value = read_int(v, vp, 0, max_dim); break;
            case 8: d.bytes_per_token = read_int_or_null(v, vp, 0, max_bytes); break;
            case 9: d.requant = read_requant_or_null(v, vp); break;
        }
    });
}

void read_group(Group& g, element e, const Path& p) {
    static constexpr std::string_view m_keys[] = {"id", "rule", "kernels", "where", "numerics", "compute", "nodes"};
    Members m(m_keys, all(7));
    members(e, p, m, g.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: g.id = read_int(v, vp, 0, max_index); break;
            case 1: g.rule = read_string(v, vp); break;
            case 2: g.kernels = read_strings(v, vp); break;
            case 3: g.where = read_name<WhereId>(v, vp); break;
            case 4: g.numerics = read_string(v, vp); break;
            case 5: g.compute = read_compute_or_null(v, vp); break;
            case 6: g.nodes = read_ints(v, vp, 0, max_index); break;
        }
    });
}

void read_template_node(TemplateNode& n, element e, const Path& p) {
    static constexpr std::string_view m_keys[] = {"id", "op", "kind", "block_type", "precision", "kernel", "family", "compute", "where",
               "group", "inserted", "roles", "steps", "point", "numerics", "state", "template_args"};
    Members m(m_keys, all(11));
    members(e, p, m, n.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: n.id = read_string(v, vp); break;
            case 1: n.op = read_op(v, vp); break;
            case 2: n.kind = read_name_or_null<LayerKindId>(v, vp); break;
            case 3: n.block_type = read_name<BlockTypeId>(v, vp); break;
            case 4: n.precision = read_precision(v, vp); break;
            case 5: n.kernel = read_string_or_null(v, vp); break;
            case 6: n.family = read_string(v, vp); break;
            case 7: n.compute = read_compute_or_null(v, vp); break;
            case 8: n.where = read_name<WhereId>(v, vp); break;
            case 9: n.group = read_int(v, vp, 0, max_index); break;
            case 10: n.inserted = read_bool(v, vp); break;
            case 11: n.roles = read_strings(v, vp); break;
            case 12: n.steps = read_strings(v, vp); break;
            case 13: n.point = read_point(v, vp); break;
            case 14: n.numerics = read_string(v, vp); break;
            case 15: n.state = read_state_or_null(v, vp); break;
            case 16: n.template_args = read_template_args_or_null(v, vp); break;
        }
    });
}

// Members 0..n of an edge detail live inline in a template edge or a port's out_tensor.
void read_edge_detail_member(EdgeDetail& d, int s, element v, const Path& vp) {
    switch (s) {
        case 0: d.id = read_string(v, vp); break;
        case 1: d.rows = read_name_or_null<RowSpaceId>(v, vp); break;
        case 2: d.dim = read_string_or_null(v, vp); break;
        case 3: d.dim_value = read_int(v, vp, 0, max_dim); break;
        case 4: d.bytes_per_token = read_int_or_null(v, vp, 0, max_bytes); break;
        case 5: d.requant = read_requant_or_null(v, vp); break;
    }
}

void read_template_edge(TemplateEdge& t, element e, const Path& p) {
    EdgeDetail detail;
    static constexpr std::string_view m_keys[] = {"from", "to", "format", "fused", "id", "rows", "dim", "dim_value", "bytes_per_token",
               "requant"};
    Members m(m_keys, all(4));
    members(e, p, m, t.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: t.from = read_int(v, vp, 0, max_index); break;
            case 1: t.to = read_int(v, vp, 0, max_index); break;
            case 2: t.format = read_name<FormatId>(v, vp); break;
            case 3: t.fused = read_bool(v, vp); break;
            default: read_edge_detail_member(detail, s - 4, v, vp); break;
        }
    });
    if (m.seen(4)) {
        for (int s = 5; s < 10; ++s)
            if (!m.seen(s) && s != 9) fail(p, "an edge with tensor detail needs all of id, rows, dim, dim_value, bytes_per_token");
        t.detail = std::move(detail);
    }
}

EdgeDetail read_out_tensor(element e, const Path& p) {
    EdgeDetail d;
    static constexpr std::string_view m_keys[] = {"id", "rows", "dim", "dim_value", "bytes_per_token", "requant"};
    Members m(m_keys, all(5));
    members(e, p, m, d.extras, [&](int s, element v, const Path& vp) { read_edge_detail_member(d, s, v, vp); });
    return d;
}

Ports read_ports(element e, const Path& p) {
    Ports r;
    static constexpr std::string_view m_keys[] = {"in", "out", "out_tensor"};
    Members m(m_keys, all(2));
    members(e, p, m, r.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: r.in = read_ints(v, vp, 0, max_index); break;
            case 1: r.out = read_ints(v, vp, 0, max_index); break;
            case 2: r.out_tensor = read_out_tensor(v, vp); break;
        }
    });
    return r;
}

TemplateGroup read_template_group(element e, const Path& p) {
    TemplateGroup g;
    static constexpr std::string_view m_keys[] = {"rule", "kernels", "where", "numerics", "compute"};
    Members m(m_keys, all(5));
    members(e, p, m, g.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: g.rule = read_string(v, vp); break;
            case 1: g.kernels = read_strings(v, vp); break;
            case 2: g.where = read_name<WhereId>(v, vp); break;
            case 3: g.numerics = read_string(v, vp); break;
            case 4: g.compute = read_compute_or_null(v, vp); break;
        }
    });
    return g;
}

Template read_template(std::string_view name, element e, const Path& p) {
    Template t;
    t.name = std::string(name);
    static constexpr std::string_view m_keys[] = {"blocks", "nodes", "edges", "ports", "instances", "groups", "instance_values"};
    Members m(m_keys, all(5));
    members(e, p, m, t.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: t.blocks = read_strings(v, vp); break;
            case 1: read_list(v, vp, t.nodes, read_template_node); break;
            case 2: read_list(v, vp, t.edges, read_template_edge); break;
            case 3: t.ports = read_ports(v, vp); break;
            case 4: t.instances = read_ints(v, vp, 0, max_index); break;
            case 5: {
                std::vector<TemplateGroup> groups;
                each(v, vp, [&](element x, const Path& xp) { groups.push_back(read_template_group(x, xp)); });
                t.groups = std::move(groups);
                break;
            }
            case 6: {
                std::vector<std::vector<std::optional<std::int64_t>>> rows;
                each(v, vp, [&](element row, const Path& rp) {
                    auto& values = rows.emplace_back();
                    each(row, rp, [&](element x, const Path& xp) {
                        values.push_back(read_int_or_null(x, xp, -max_template_value, max_template_value));
                    });
                });
                t.instance_values = std::move(rows);
                break;
            }
        }
    });
    return t;
}

Collapsed read_collapsed(element e, const Path& p) {
    Collapsed c;
    static constexpr std::string_view m_keys[] = {"prologue", "layout", "epilogue", "templates"};
    Members m(m_keys, all(4));
    members(e, p, m, c.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: c.prologue = read_strings(v, vp); break;
            case 1: c.layout = read_strings(v, vp); break;
            case 2: c.epilogue = read_strings(v, vp); break;
            case 3:
                for (auto field : read_object(v, vp)) c.templates.push_back(read_template(field.key, field.value, vp / field.key));
                break;
        }
    });
    return c;
}

FamilyDoc read_family(std::string_view name, element e, const Path& p) {
    FamilyDoc f;
    f.name = std::string(name);
    static constexpr std::string_view m_keys[] = {"description", "about", "numerics", "math"};
    Members m(m_keys, all(1));
    members(e, p, m, f.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: f.description = read_string(v, vp); break;
            case 1: f.about = read_string(v, vp); break;
            case 2: f.numerics = read_string(v, vp); break;
            case 3: f.math = read_strings(v, vp); break;
        }
    });
    return f;
}

FormatDoc read_format_doc(std::string_view name, element e, const Path& p) {
    FormatDoc f;
    f.name = std::string(name);
    static constexpr std::string_view m_keys[] = {"title", "description", "math", "encode"};
    Members m(m_keys, all(1));
    members(e, p, m, f.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: f.title = read_string(v, vp); break;
            case 1: f.description = read_string(v, vp); break;
            case 2: f.math = read_strings(v, vp); break;
            case 3: f.encode = read_string_or_null(v, vp); break;
        }
    });
    return f;
}

Explain read_explain(element e, const Path& p) {
    Explain x;
    static constexpr std::string_view m_keys[] = {"families", "formats"};
    Members m(m_keys, all(2));
    members(e, p, m, x.extras, [&](int s, element v, const Path& vp) {
        for (auto field : read_object(v, vp)) {
            if (s == 0) x.families.push_back(read_family(field.key, field.value, vp / field.key));
            else x.formats.push_back(read_format_doc(field.key, field.value, vp / field.key));
        }
    });
    return x;
}

Provenance read_provenance(element e, const Path& p) {
    Provenance r;
    static constexpr std::string_view m_keys[] = {"kind", "engine_commit", "planner_sha256", "planner_built_from", "planner_header",
               "commands", "files"};
    Members m(m_keys, all(1));
    members(e, p, m, r.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0: r.kind = read_string(v, vp); break;
            case 1: r.engine_commit = read_string_or_null(v, vp); break;
            case 2: r.planner_sha256 = read_string_or_null(v, vp); break;
            case 3: r.planner_built_from = read_string_or_null(v, vp); break;
            case 4:
                if (v.type() != element_type::OBJECT) wrong_type(v, vp, "an object");
                r.planner_header = to_json(v);
                break;
            case 5: r.commands = read_strings(v, vp); break;
            case 6:
                each(v, vp, [&](element x, const Path& xp) {
                    FileDigest f;
                    static constexpr std::string_view fm_keys[] = {"path", "sha256"};
                    Members fm(fm_keys, all(2));
                    members(x, xp, fm, f.extras, [&](int fs, element fv, const Path& fp) {
                        (fs == 0 ? f.path : f.sha256) = read_string(fv, fp);
                    });
                    r.files.push_back(std::move(f));
                });
                break;
        }
    });
    return r;
}

std::vector<Symbol> read_symbols(element e, const Path& p) {
    std::vector<Symbol> out;
    for (auto field : read_object(e, p))
        out.push_back(Symbol{std::string(field.key), read_int(field.value, p / field.key, 0, max_dim)});
    return out;
}

Blueprint read_root(element root) {
    Blueprint b;
    Path p;
    static constexpr std::string_view m_keys[] = {"schema", "arm", "layers", "nodes", "edges", "groups", "blueprint_id", "lineage",
               "revision", "exported_by", "symbols", "collapsed", "explain", "provenance", "config_fields"};
    Members m(m_keys, all(3));
    members(root, p, m, b.extras, [&](int s, element v, const Path& vp) {
        switch (s) {
            case 0:
                b.schema = read_string(v, vp);
                if (b.schema != schema_name) {
                    std::string hint = b.schema.rfind("kbp-graph/", 0) == 0 ? " (this kbp reads kbp-graph/v2)" : "";
                    fail(vp, "unknown schema '" + b.schema + "'" + hint);
                }
                break;
            case 1: b.arm = read_arm(v, vp); break;
            case 2: read_list(v, vp, b.layers, read_layer); break;
            case 3: read_list(v, vp, b.nodes, read_node); break;
            case 4: read_list(v, vp, b.edges, read_edge); break;
            case 5: read_list(v, vp, b.groups, read_group); break;
            case 6: b.blueprint_id = read_string_or_null(v, vp); break;
            case 7: b.lineage = read_string_or_null(v, vp); break;
            case 8: b.revision = read_int_or_null(v, vp, 0, max_index); break;
            case 9: b.exported_by = read_string_or_null(v, vp); break;
            case 10: b.symbols = read_symbols(v, vp); break;
            case 11: b.collapsed = read_collapsed(v, vp); break;
            case 12: b.explain = read_explain(v, vp); break;
            case 13: b.provenance = read_provenance(v, vp); break;
            case 14:
                if (v.type() != element_type::OBJECT) wrong_type(v, vp, "an object");
                b.config_fields = to_json(v).object();
                break;
        }
    });
    // The flat lists may be left out when the collapsed form is there (kbp collapse --only).
    bool flat = m.seen(3) || m.seen(4) || m.seen(5);
    if (!flat && m.seen(11)) {
        b.collapsed_only = true;
    } else {
        if (!m.seen(3)) fail(p, "missing required member 'nodes'");
        if (!m.seen(4)) fail(p, "missing required member 'edges'");
        if (!m.seen(5)) fail(p, "missing required member 'groups'");
    }
    return b;
}

// Byte offset of the first invalid UTF-8 sequence, or npos.
std::size_t first_invalid_utf8(std::string_view s) {
    const auto* u = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t i = 0, n = s.size();
    while (i < n) {
        unsigned c = u[i];
        std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        if (len == 0 || i + len > n) return i;
        for (std::size_t k = 1; k < len; ++k)
            if ((u[i + k] & 0xC0) != 0x80) return i;
        if (len == 2 && c < 0xC2) return i;                                      // overlong
        if (len == 3 && c == 0xE0 && u[i + 1] < 0xA0) return i;                  // overlong
        if (len == 3 && c == 0xED && u[i + 1] >= 0xA0) return i;                 // surrogate
        if (len == 4 && (c > 0xF4 || (c == 0xF0 && u[i + 1] < 0x90) || (c == 0xF4 && u[i + 1] >= 0x90))) return i;
        i += len;
    }
    return std::string_view::npos;
}

// simdjson says what is wrong but not where; nlohmann's SAX parser finds the byte.
struct LocateSyntaxError : nlohmann::json_sax<nlohmann::json> {
    std::size_t position = std::string_view::npos;
    std::string message;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t pos, const std::string& last_token, const nlohmann::detail::exception& ex) override {
        position = pos > 0 ? pos - 1 : 0;
        // nlohmann's text: "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
        std::string what = ex.what();
        auto colon = what.find(": ", what.find("column"));
        message = colon == std::string::npos ? what : what.substr(colon + 2);
        if (message.rfind("syntax error while parsing value - ", 0) == 0) message = message.substr(35);
        (void)last_token;
        return false;
    }
};

Error syntax_error(std::string_view json, std::string_view file, simdjson::error_code code) {
    std::string name(file);
    if (json.empty()) return make_error(ErrorCode::invalid_input, name + ":1:1", "empty file");
    std::size_t bad = first_invalid_utf8(json);
    if (bad != std::string_view::npos)
        return make_error(ErrorCode::invalid_input, name + ":" + line_col(json, bad), "invalid UTF-8 byte");
    LocateSyntaxError locate;
    nlohmann::json::sax_parse(json.begin(), json.end(), &locate);
    if (locate.position != std::string_view::npos)
        return make_error(ErrorCode::invalid_input, name + ":" + line_col(json, locate.position), locate.message);
    return make_error(ErrorCode::invalid_input, name, simdjson::error_message(code));
}

}  // namespace

std::string line_col(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return std::to_string(line) + ":" + std::to_string(col);
}

Result<Blueprint> read_blueprint(const std::string& json, std::string_view file) {
    // One parser per thread: it keeps its buffers between documents.
    thread_local simdjson::dom::parser parser;
    element root;
    // simdjson reads SIMDJSON_PADDING bytes past the end; a string with that much spare
    // capacity (read_file leaves it) is parsed in place instead of copied.
    bool copy = json.capacity() - json.size() < simdjson::SIMDJSON_PADDING;
    if (auto code = parser.parse(json.data(), json.size(), copy).get(root)) return syntax_error(json, file, code);
    try {
        return read_root(root);
    } catch (const ShapeError& e) {
        return make_error(ErrorCode::invalid_input, std::string(file) + ": " + e.pointer, e.message);
    }
}

Result<Blueprint> load_blueprint(const std::string& path) {
    auto text = read_file(path);
    if (!text) return text.error();
    return read_blueprint(*text, path == "-" ? "<stdin>" : path);
}

}  // namespace kbp::schema
