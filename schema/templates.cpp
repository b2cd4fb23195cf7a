// Expansion walks prologue, layout and epilogue, placing each template's nodes, edges and
// groups after the previous instance's and joining an instance's `out` port to every `in`
// port of the next. Collapse is the inverse: it cuts the flat lists into per-layer segments
// (prologue and epilogue by block), turns each into a template candidate, and requires every
// later layer of a template to match the first one exactly.
#include "schema/templates.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include "schema/spelling_memo.hpp"

namespace kbp::schema {
namespace {

// Visits every instance value of a template in walk order (see templates.hpp): fixed-point
// formats through on_format, template arguments through on_arg.
template <class T, class OnFormat, class OnArg> void walk_instance_values(T& t, OnFormat&& on_format, OnArg&& on_arg) {
    auto format = [&](auto& f) {
        if (f.id == FormatId::fx32) on_format(f);
    };
    auto requant = [&](auto& r) {
        if (!r) return;
        format(r->from);
        format(r->to);
    };
    for (auto& n : t.nodes) {
        if (n.precision.weight) format(*n.precision.weight);
        if (n.precision.activation) format(*n.precision.activation);
        if (n.precision.output) {
            if constexpr (std::is_const_v<T>) {
                for (const auto& f : *n.precision.output) format(f);
            } else {  // an interned list is rebuilt, not changed in place
                std::vector<Format> formats = n.precision.output->vector();
                for (auto& f : formats) format(f);
                *n.precision.output = FormatList(formats);
            }
        }
        if (n.template_args)
            for (auto& a : *n.template_args) on_arg(a.value);
    }
    for (auto& e : t.edges) {
        format(e.format);
        if (e.detail) requant(e.detail->requant);
    }
    if (t.ports.out_tensor) requant(t.ports.out_tensor->requant);
    if (t.ports.out_tensors)
        for (auto& d : *t.ports.out_tensors) requant(d.requant);
}

// The tensor a template's out port `k` (its k-th out node) hands on, if the collapse recorded it.
const EdgeDetail* out_detail(const Ports& ports, std::size_t k) {
    if (ports.out_tensors) return k < ports.out_tensors->size() ? &(*ports.out_tensors)[k] : nullptr;
    return ports.out_tensor ? &*ports.out_tensor : nullptr;
}

struct Instance {
    const Template* t = nullptr;
    std::shared_ptr<const Template> values;  // the template with this instance's own values
    std::optional<std::int64_t> layer;
    std::string prefix;   // "l3." for layers, "" for prologue and epilogue
    std::string pointer;  // where the instance is named: /collapsed/layout/3
};

std::string layer_prefix(std::int64_t layer) { return "l" + std::to_string(layer) + "."; }

std::string block_of(std::string_view local_id) {
    auto dot = local_id.find('.');
    return std::string(dot == std::string_view::npos ? local_id : local_id.substr(0, dot));
}

// The tensor fields a template's detail carries, under the instance's prefix.
void fill_tensor(Edge& e, const EdgeDetail& d, const std::string& prefix) {
    e.id = prefix + d.id;
    e.rows = d.rows;
    e.dim = d.dim;
    e.dim_value = d.dim_value;
    e.bytes_per_token = d.bytes_per_token;
    e.requant = d.requant;
}

Result<std::vector<Instance>> instances_of(const Blueprint& b) {
    const Collapsed& c = *b.collapsed;
    std::vector<Instance> out;
    auto add = [&](const std::string& name, std::optional<std::int64_t> layer, std::string ptr) -> Status {
        const Template* t = c.find(name);
        if (!t) return make_error(ErrorCode::invalid_input, ptr, "unknown template '" + name + "'");
        Instance inst{t, nullptr, layer, layer ? layer_prefix(*layer) : "", std::move(ptr)};
        if (t->instance_values && layer) {
            auto at = std::find(t->instances.begin(), t->instances.end(), *layer);
            std::string where = "/collapsed/templates/" + t->name + "/instance_values";
            if (at == t->instances.end())
                return make_error(ErrorCode::invalid_input, inst.pointer, "layer " + std::to_string(*layer) + " is not an instance of template '" + name + "'");
            auto row = static_cast<std::size_t>(at - t->instances.begin());
            if (row >= t->instance_values->size())
                return make_error(ErrorCode::invalid_input, where, "no row for instance " + std::to_string(row) + " (layer " + std::to_string(*layer) + ")");
            const auto& values = (*t->instance_values)[row];
            std::size_t slots = instance_values_of(*t).size();
            if (values.size() != slots)
                return make_error(ErrorCode::invalid_input, where + "/" + std::to_string(row),
                                  std::to_string(values.size()) + " values, but the template has " + std::to_string(slots) + " instance values");
            auto own = std::make_shared<Template>(*t);
            set_instance_values(*own, values);
            inst.values = own;
            inst.t = own.get();
        }
        out.push_back(std::move(inst));
        return Ok{};
    };
    for (std::size_t i = 0; i < c.prologue.size(); ++i)
        if (auto s = add(c.prologue[i], std::nullopt, "/collapsed/prologue/" + std::to_string(i)); !s) return s.error();
    for (std::size_t i = 0; i < c.layout.size(); ++i)
        if (auto s = add(c.layout[i], static_cast<std::int64_t>(i), "/collapsed/layout/" + std::to_string(i)); !s)
            return s.error();
    for (std::size_t i = 0; i < c.epilogue.size(); ++i)
        if (auto s = add(c.epilogue[i], std::nullopt, "/collapsed/epilogue/" + std::to_string(i)); !s) return s.error();
    return out;
}

Status check_template(const Template& t, const std::string& ptr) {
    auto n = static_cast<std::int64_t>(t.nodes.size());
    for (std::size_t i = 0; i < t.edges.size(); ++i) {
        const auto& e = t.edges[i];
        if (e.from >= n || e.to >= n)
            return make_error(ErrorCode::invalid_input, ptr + "/edges/" + std::to_string(i),
                              "edge references node " + std::to_string(std::max(e.from, e.to)) + " of a " +
                                  std::to_string(n) + "-node template");
    }
    for (auto* list : {&t.ports.in, &t.ports.out})
        for (std::size_t i = 0; i < list->size(); ++i)
            if ((*list)[i] >= n)
                return make_error(ErrorCode::invalid_input,
                                  ptr + "/ports/" + (list == &t.ports.in ? "in/" : "out/") + std::to_string(i),
                                  "port names node " + std::to_string((*list)[i]) + " of a " + std::to_string(n) +
                                      "-node template");
    // Template-local groups number the template's own launches: never more than its nodes.
    for (std::size_t i = 0; i < t.nodes.size(); ++i)
        if (t.nodes[i].group < 0 || t.nodes[i].group >= n)
            return make_error(ErrorCode::invalid_input, ptr + "/nodes/" + std::to_string(i) + "/group",
                              "group " + std::to_string(t.nodes[i].group) + " in a " + std::to_string(n) + "-node template");
    if (t.instance_values && t.instance_values->size() != t.instances.size())
        return make_error(ErrorCode::invalid_input, ptr + "/instance_values",
                          std::to_string(t.instance_values->size()) + " rows for " + std::to_string(t.instances.size()) + " instances");
    if (t.groups)
        for (std::size_t i = 0; i < t.nodes.size(); ++i)
            if (t.nodes[i].group >= static_cast<std::int64_t>(t.groups->size()))
                return make_error(ErrorCode::invalid_input, ptr + "/nodes/" + std::to_string(i) + "/group",
                                  "group " + std::to_string(t.nodes[i].group) + " has no entry in the template's groups");
    return Ok{};
}

Result<FlatLists> expand(const Blueprint& b) {
    if (!b.collapsed) return make_error(ErrorCode::invalid_input, "/collapsed", "the blueprint has no collapsed form");
    auto instances = instances_of(b);
    if (!instances) return instances.error();

    FlatLists out;
    std::int64_t group_base = 0;
    const Instance* prev = nullptr;
    std::int64_t prev_base = 0;
    std::vector<std::pair<Edge, const TemplateEdge*>> edges;  // nullptr: a port edge

    // Reserved, and each template checked once: a million-op plan's 25,862 instances of five
    // templates expand without regrowing a list (the viewer draws a big plan's first frame from
    // this expansion).
    {
        std::size_t nodes = 0, edge_count = 0, groups = 0;
        const Template* before = nullptr;
        for (const Instance& inst : *instances) {
            nodes += inst.t->nodes.size();
            std::int64_t local = 0;  // a template's groups: never more than its nodes (check_template)
            for (const auto& tn : inst.t->nodes) local = std::max(local, tn.group + 1);
            groups += std::min(static_cast<std::size_t>(local), inst.t->nodes.size());
            edge_count += inst.t->edges.size() + (before ? before->ports.out.size() * inst.t->ports.in.size() : 0);
            before = inst.t;
        }
        out.nodes.reserve(nodes);
        edges.reserve(edge_count);
        out.edges.reserve(edge_count);
        out.groups.reserve(groups);
    }
    std::vector<const Template*> checked;

    for (const Instance& inst : *instances) {
        const Template& t = *inst.t;
        if (std::find(checked.begin(), checked.end(), &t) == checked.end()) {
            if (auto s = check_template(t, "/collapsed/templates/" + t.name); !s) return s.error();
            checked.push_back(&t);
        }
        auto node_base = static_cast<std::int64_t>(out.nodes.size());
        std::int64_t group_count = 0;
        for (const auto& tn : t.nodes) {
            Node n;
            n.id = inst.prefix + tn.id;
            n.order = static_cast<std::int64_t>(out.nodes.size());
            n.layer = inst.layer;
            n.block = inst.prefix + block_of(tn.id);
            n.block_type = tn.block_type;
            n.kind = tn.kind;
            n.op = tn.op;
            n.roles = tn.roles ? *tn.roles : (tn.op.kind.id == OpId::linear ? SymList{tn.op.role} : SymList{});
            n.inserted = tn.inserted;
            n.precision = tn.precision;
            n.group = group_base + tn.group;
            n.kernel = tn.kernel;
            n.template_args = tn.template_args;
            n.family = tn.family;
            n.compute = tn.compute;
            n.where = tn.where;
            if (tn.steps) n.steps = *tn.steps; else out.complete = false;
            if (tn.point) n.point = *tn.point; else out.complete = false;
            if (tn.numerics) n.numerics = *tn.numerics; else out.complete = false;
            if (tn.state) n.state = *tn.state; else out.complete = false;
            group_count = std::max(group_count, tn.group + 1);
            out.nodes.push_back(std::move(n));
        }
        if (prev) {
            const Template& pt = *prev->t;
            for (std::size_t k = 0; k < pt.ports.out.size(); ++k)
                for (auto i : t.ports.in) {
                    const auto o = pt.ports.out[k];
                    const EdgeDetail* detail = out_detail(pt.ports, k);
                    Edge e;
                    e.from = prev_base + o;
                    e.to = node_base + i;
                    const auto& producer = out.nodes[e.from];
                    if (producer.precision.output && !producer.precision.output->empty())
                        e.format = producer.precision.output->front();
                    if (detail) fill_tensor(e, *detail, prev->prefix);
                    else out.complete = false;
                    edges.push_back({std::move(e), nullptr});
                }
        }
        for (const auto& te : t.edges) {
            Edge e;
            e.from = node_base + te.from;
            e.to = node_base + te.to;
            e.format = te.format;
            e.fused = te.fused;
            if (te.detail) fill_tensor(e, *te.detail, inst.prefix);
            else out.complete = false;
            edges.push_back({std::move(e), &te});
        }
        for (std::int64_t g = 0; g < group_count; ++g) {
            Group group;
            group.id = group_base + g;
            for (std::size_t j = 0; j < t.nodes.size(); ++j)
                if (t.nodes[j].group == g) group.nodes.push_back(node_base + static_cast<std::int64_t>(j));
            if (!group.nodes.empty()) group.where = out.nodes[group.nodes.front()].where;
            const TemplateGroup* tg = t.groups ? &(*t.groups)[g] : nullptr;
            if (tg) {
                group.rule = tg->rule;
                group.kernels = tg->kernels;
                group.where = tg->where;
                group.numerics = tg->numerics;
                group.compute = tg->compute;
            } else {
                out.complete = false;
            }
            out.groups.push_back(std::move(group));
        }
        group_base += group_count;
        prev = &inst;
        prev_base = node_base;
    }
    // A port edge leaves the previous instance's last node after its internal edges, and
    // flat edges are ordered by producer: a stable sort by `from` restores the flat order (of
    // the edges' indices: an Edge is large to move, and the edges are mostly in order already).
    std::vector<std::uint32_t> order(edges.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
    auto by_from = [&](std::uint32_t a, std::uint32_t b) { return edges[a].first.from < edges[b].first.from; };
    if (!std::is_sorted(order.begin(), order.end(), by_from)) std::stable_sort(order.begin(), order.end(), by_from);
    for (auto i : order) {
        auto& [e, te] = edges[i];
        e.fused = te ? te->fused : out.nodes[e.from].group == out.nodes[e.to].group;
        out.edges.push_back(std::move(e));
    }
    return out;
}

}  // namespace

std::vector<std::optional<std::int64_t>> instance_values_of(const Template& t) {
    std::vector<std::optional<std::int64_t>> out;
    walk_instance_values(
        t,
        [&](const Format& f) {
            int bits = fx32_fraction_bits(f);
            out.push_back(bits < 0 ? std::nullopt : std::optional<std::int64_t>(bits));
        },
        [&](const std::optional<std::int64_t>& v) { out.push_back(v); });
    return out;
}

void set_instance_values(Template& t, const std::vector<std::optional<std::int64_t>>& values) {
    std::size_t i = 0;
    walk_instance_values(
        t, [&](Format& f) { f = fx32_format(i < values.size() && values[i] ? static_cast<int>(*values[i]) : -1), ++i; },
        [&](std::optional<std::int64_t>& v) { v = i < values.size() ? values[i] : std::nullopt, ++i; });
}

Result<FlatLists> expand_templates(const Blueprint& b) { return expand(b); }

namespace {

// Compared inline (same_spelling): the check runs for every node's id and block and every
// edge's tensor, and a call to memcmp for each short name costs more than the compare.
bool is_prefixed(std::string_view full, std::string_view prefix, std::string_view local) {
    return full.size() == prefix.size() + local.size() && same_spelling(full.substr(0, prefix.size()), prefix) &&
           same_spelling(full.substr(prefix.size()), local);
}

bool roles_match(SymList roles, const TemplateNode& tn) {
    if (tn.roles) return roles == *tn.roles;
    if (tn.op.kind.id == OpId::linear) return roles.size() == 1 && roles[0] == tn.op.role;
    return roles.empty();
}

bool detail_matches(const Edge& a, const EdgeDetail& d, std::string_view prefix) {
    return is_prefixed(a.id, prefix, d.id) && a.rows == d.rows && a.dim == d.dim && a.dim_value == d.dim_value &&
           a.bytes_per_token == d.bytes_per_token && a.requant == d.requant;
}

// One edge the collapsed form implies, without materializing the flat edge.
struct ExpectedEdge {
    std::int64_t from, to;
    const TemplateEdge* te;      // nullptr for a port edge
    const EdgeDetail* detail;    // nullptr when the template has no tensor detail
    const std::string* prefix;   // of the instance that owns the tensor
};

}  // namespace

// Compares the flat lists with the templates in place: a plan has thousands of nodes, and
// materializing the expansion just to compare it would cost more than reading the file.
void check_expansion(const Blueprint& b, Diagnostics& out) {
    auto instances = instances_of(b);
    if (!instances) {
        out.add(instances.error().where, instances.error().message);
        return;
    }
    std::size_t node_count = 0, edge_count = 0, group_count = 0;
    const Template* prev = nullptr;
    for (const Instance& inst : *instances) {
        const Template& t = *inst.t;
        if (auto s = check_template(t, "/collapsed/templates/" + t.name); !s) {
            out.add(s.error().where, s.error().message);
            return;
        }
        node_count += t.nodes.size();
        edge_count += t.edges.size() + (prev ? prev->ports.out.size() * t.ports.in.size() : 0);
        std::int64_t groups = 0;
        for (const auto& tn : t.nodes) groups = std::max(groups, tn.group + 1);
        group_count += static_cast<std::size_t>(groups);
        prev = &t;
    }
    auto count = [&](const char* what, std::size_t expanded, std::size_t actual) {
        if (expanded != actual)
            out.add(std::string("/") + what, "the collapsed form expands to " + std::to_string(expanded) + " " + what +
                                                 ", the flat list has " + std::to_string(actual));
        return expanded == actual;
    };
    bool same_nodes = count("nodes", node_count, b.nodes.size());
    bool same_edges = count("edges", edge_count, b.edges.size());
    bool same_groups = count("groups", group_count, b.groups.size());
    if (!same_nodes) return;  // nothing lines up

    auto mismatch = [&](const char* list, std::size_t i, const char* field, const std::string& note) {
        out.add("/" + std::string(list) + "/" + std::to_string(i) + "/" + field,
                "differs from the collapsed form's expansion" + (note.empty() ? "" : " (" + note + ")"));
    };
    std::vector<ExpectedEdge> edges;
    edges.reserve(edge_count);
    std::vector<std::size_t> members_seen;  // per group of an instance: its members met so far
    std::vector<char> members_same;         // and whether each was the flat group's next node
    std::size_t i = 0, g = 0;
    std::int64_t group_base = 0, prev_base = 0;
    const Instance* prev_inst = nullptr;
    for (const Instance& inst : *instances) {
        const Template& t = *inst.t;
        const auto node_base = static_cast<std::int64_t>(i);
        std::int64_t groups = 0;
        for (const auto& tn : t.nodes) {
            const Node& a = b.nodes[i];
            groups = std::max(groups, tn.group + 1);
            auto note = [&] { return "template '" + t.name + "' node '" + tn.id + "'"; };
            if (!is_prefixed(a.id, inst.prefix, tn.id)) mismatch("nodes", i, "id", "expected '" + inst.prefix + tn.id + "'");
            if (a.layer != inst.layer) mismatch("nodes", i, "layer", note());
            if (!is_prefixed(a.block, inst.prefix, block_of(tn.id)))
                mismatch("nodes", i, "block", "expected '" + inst.prefix + block_of(tn.id) + "'");
            if (!(a.block_type == tn.block_type)) mismatch("nodes", i, "block_type", note());
            if (a.kind != tn.kind) mismatch("nodes", i, "kind", note());
            if (!(a.op == tn.op)) mismatch("nodes", i, "op", note() + ": " + tn.op.name());
            if (!roles_match(a.roles, tn)) mismatch("nodes", i, "roles", note());
            if (a.inserted != tn.inserted) mismatch("nodes", i, "inserted", note());
            if (!(a.precision == tn.precision)) mismatch("nodes", i, "precision", note());
            if (a.group != group_base + tn.group)
                mismatch("nodes", i, "group", note() + ", expected group " + std::to_string(group_base + tn.group));
            if (a.kernel != tn.kernel) mismatch("nodes", i, "kernel", note());
            if (a.template_args != tn.template_args) mismatch("nodes", i, "template_args", note());
            if (a.family != tn.family) mismatch("nodes", i, "family", note());
            if (a.compute != tn.compute) mismatch("nodes", i, "compute", note());
            if (!(a.where == tn.where)) mismatch("nodes", i, "where", note());
            if (tn.steps && a.steps != *tn.steps) mismatch("nodes", i, "steps", note());
            if (tn.point && !(a.point == *tn.point)) mismatch("nodes", i, "point", note());
            if (tn.numerics && a.numerics != *tn.numerics) mismatch("nodes", i, "numerics", note());
            if (tn.state && a.state != *tn.state) mismatch("nodes", i, "state", note());
            ++i;
        }
        if (prev_inst) {
            const Template& pt = *prev_inst->t;
            for (std::size_t k = 0; k < pt.ports.out.size(); ++k)
                for (auto in : t.ports.in)
                    edges.push_back({prev_base + pt.ports.out[k], node_base + in, nullptr, out_detail(pt.ports, k), &prev_inst->prefix});
        }
        for (const auto& te : t.edges)
            edges.push_back({node_base + te.from, node_base + te.to, &te, te.detail ? &*te.detail : nullptr, &inst.prefix});
        if (same_groups) {
            // One pass over the template's nodes deals each to its group's next member slot
            // (a pass per group made this check a fifth of the validator).
            members_seen.assign(static_cast<std::size_t>(groups), 0);
            members_same.assign(static_cast<std::size_t>(groups), 1);
            for (std::size_t j = 0; j < t.nodes.size(); ++j) {
                const auto k = static_cast<std::size_t>(t.nodes[j].group);
                const Group& a = b.groups[g + k];
                std::size_t& member = members_seen[k];
                members_same[k] &= member < a.nodes.size() && a.nodes[member] == node_base + static_cast<std::int64_t>(j);
                ++member;
            }
            for (std::int64_t k = 0; k < groups; ++k, ++g) {
                const Group& a = b.groups[g];
                const TemplateGroup* tg = t.groups ? &(*t.groups)[k] : nullptr;
                const auto ks = static_cast<std::size_t>(k);
                if (!members_same[ks] || members_seen[ks] != a.nodes.size())
                    mismatch("groups", g, "nodes", "template '" + t.name + "' group " + std::to_string(k));
                if (tg) {
                    if (!(a.where == tg->where)) mismatch("groups", g, "where", "");
                    if (a.rule != tg->rule) mismatch("groups", g, "rule", "expected '" + tg->rule + "'");
                    if (a.kernels != tg->kernels) mismatch("groups", g, "kernels", "");
                    if (a.numerics != tg->numerics) mismatch("groups", g, "numerics", "");
                    if (a.compute != tg->compute) mismatch("groups", g, "compute", "");
                }
            }
        }
        group_base += groups;
        prev_base = node_base;
        prev_inst = &inst;
        if (out.full()) return;
    }
    if (!same_edges) return;
    auto by_producer = [](const ExpectedEdge& x, const ExpectedEdge& y) { return x.from < y.from; };
    if (!std::is_sorted(edges.begin(), edges.end(), by_producer)) std::stable_sort(edges.begin(), edges.end(), by_producer);
    for (std::size_t k = 0; k < edges.size() && !out.full(); ++k) {
        const Edge& a = b.edges[k];
        const ExpectedEdge& e = edges[k];
        if (a.from != e.from || a.to != e.to) {
            out.add("/edges/" + std::to_string(k), "the collapsed form's expansion has edge " + std::to_string(e.from) + "->" +
                                                       std::to_string(e.to) + " here, the flat list " + std::to_string(a.from) +
                                                       "->" + std::to_string(a.to));
            continue;
        }
        if (e.te) {
            if (!(a.format == e.te->format)) mismatch("edges", k, "format", "expected " + std::string(e.te->format.name()));
            if (a.fused != e.te->fused) mismatch("edges", k, "fused", "");
        } else if (a.fused != (b.nodes[a.from].group == b.nodes[a.to].group)) {
            mismatch("edges", k, "fused", "");
        }
        if (e.detail && !detail_matches(a, *e.detail, *e.prefix))
            mismatch("edges", k, "id", "the tensor differs from template detail '" + e.detail->id + "'");
    }
}

namespace {

struct Segment {
    std::int64_t begin = 0, end = 0;  // node range
    std::optional<std::int64_t> layer;
    std::string name;  // template name
    std::string prefix;
};

std::string strip(const std::string& id, const std::string& prefix) {
    return id.compare(0, prefix.size(), prefix) == 0 ? id.substr(prefix.size()) : id;
}

EdgeDetail detail_of(const Edge& e, const std::string& prefix) {
    return EdgeDetail{strip(e.id, prefix), e.rows, e.dim, e.dim_value, e.bytes_per_token, e.requant, {}};
}

Error collapse_error(std::string where, std::string message) {
    return make_error(ErrorCode::invalid_input, std::move(where), "cannot collapse: " + std::move(message));
}

}  // namespace

Result<Collapsed> collapse_layers(const Blueprint& b, const CollapseOptions& options) {
    const auto n = static_cast<std::int64_t>(b.nodes.size());
    // Cut the node list into segments: prologue blocks, one per layer, epilogue blocks.
    std::vector<Segment> segments;
    std::int64_t i = 0;
    auto add_block_segments = [&](auto stop) {
        while (i < n && !stop(b.nodes[i])) {
            Segment s{i, i, std::nullopt, b.nodes[i].block, ""};
            while (i < n && !stop(b.nodes[i]) && b.nodes[i].block == s.name) ++i;
            s.end = i;
            segments.push_back(s);
        }
    };
    add_block_segments([](const Node& node) { return node.layer.has_value(); });
    std::size_t prologue_count = segments.size();
    for (const auto& layer : b.layers) {
        if (i >= n || b.nodes[i].layer != layer.index)
            return collapse_error("/layers/" + std::to_string(layer.index),
                                  "layer " + std::to_string(layer.index) + "'s nodes do not follow the previous layer's");
        Segment s{i, i, layer.index, layer.template_name, layer_prefix(layer.index)};
        while (i < n && b.nodes[i].layer == layer.index) ++i;
        s.end = i;
        segments.push_back(s);
    }
    std::size_t layer_end = segments.size();
    add_block_segments([](const Node& node) { return node.layer.has_value(); });
    if (i != n) return collapse_error("/nodes/" + std::to_string(i), "layer nodes are not contiguous");

    std::vector<std::size_t> segment_of(b.nodes.size());
    for (std::size_t s = 0; s < segments.size(); ++s)
        for (auto k = segments[s].begin; k < segments[s].end; ++k) segment_of[k] = s;

    // Edges by segment: inside, or crossing from segment s to s + 1 only.
    std::vector<std::vector<const Edge*>> inside(segments.size()), leaving(segments.size());
    for (std::size_t k = 0; k < b.edges.size(); ++k) {
        const Edge& e = b.edges[k];
        if (e.from < 0 || e.to < 0 || e.from >= n || e.to >= n)
            return collapse_error("/edges/" + std::to_string(k), "edge references a missing node");
        auto sf = segment_of[e.from], st = segment_of[e.to];
        if (sf == st) inside[sf].push_back(&e);
        else if (st == sf + 1) leaving[sf].push_back(&e);
        else
            return collapse_error("/edges/" + std::to_string(k), "edge '" + e.id + "' skips from " + b.nodes[e.from].id +
                                                                   " over a layer to " + b.nodes[e.to].id);
    }

    Collapsed c;
    std::map<std::string, std::size_t> index_of;  // template name -> position in c.templates
    std::map<std::string, std::int64_t> first_layer;
    std::map<std::string, std::vector<std::vector<std::optional<std::int64_t>>>> instance_rows;
    for (std::size_t s = 0; s < segments.size(); ++s) {
        const Segment& seg = segments[s];
        Template t;
        t.name = seg.name;
        const std::int64_t g0 = b.nodes[seg.begin].group;
        if (seg.layer) {
            for (const auto& block : b.layers[*seg.layer].blocks) t.blocks.push_back(strip(block, seg.prefix));
        } else {
            t.blocks.push_back(seg.name);
        }
        for (auto k = seg.begin; k < seg.end; ++k) {
            const Node& node = b.nodes[k];
            if (node.group < g0)
                return collapse_error("/nodes/" + std::to_string(k) + "/group", "groups run backwards in " + node.id);
            TemplateNode tn;
            tn.id = strip(node.id, seg.prefix);
            tn.op = node.op;
            tn.kind = node.kind;
            tn.block_type = node.block_type;
            tn.precision = node.precision;
            tn.kernel = node.kernel;
            tn.template_args = node.template_args;
            tn.family = node.family;
            tn.compute = node.compute;
            tn.where = node.where;
            tn.group = node.group - g0;
            tn.inserted = node.inserted;
            if (options.detail) {
                tn.roles = node.roles;
                tn.steps = node.steps;
                tn.point = node.point;
                tn.numerics = node.numerics;
                tn.state = node.state;
            }
            t.nodes.push_back(std::move(tn));
        }
        for (const Edge* e : inside[s]) {
            TemplateEdge te{e->from - seg.begin, e->to - seg.begin, e->format, e->fused, std::nullopt, {}};
            if (options.detail) te.detail = detail_of(*e, seg.prefix);
            t.edges.push_back(std::move(te));
        }
        if (s > 0) {
            for (const Edge* e : leaving[s - 1]) {
                auto local = e->to - seg.begin;
                if (std::find(t.ports.in.begin(), t.ports.in.end(), local) == t.ports.in.end()) t.ports.in.push_back(local);
            }
        }
        std::map<std::int64_t, EdgeDetail> sent;  // out node -> the tensor it hands on
        for (const Edge* e : leaving[s]) {
            auto local = e->from - seg.begin;
            if (std::find(t.ports.out.begin(), t.ports.out.end(), local) == t.ports.out.end()) t.ports.out.push_back(local);
            if (options.detail) sent.try_emplace(local, detail_of(*e, seg.prefix));
        }
        std::sort(t.ports.out.begin(), t.ports.out.end());
        if (options.detail && !sent.empty()) {
            // One tensor out of the layer: out_tensor, as the seed writes it; several: one per out node.
            const bool one = std::all_of(sent.begin(), sent.end(), [&](const auto& kv) { return kv.second == sent.begin()->second; });
            if (one) {
                t.ports.out_tensor = sent.begin()->second;
            } else {
                t.ports.out_tensors.emplace();
                for (auto o : t.ports.out) t.ports.out_tensors->push_back(sent.at(o));
            }
        }
        if (options.detail) {
            std::vector<TemplateGroup> groups;
            std::int64_t count = 0;
            for (const auto& tn : t.nodes) count = std::max(count, tn.group + 1);
            for (std::int64_t g = 0; g < count; ++g) {
                auto gi = static_cast<std::size_t>(g0 + g);
                if (gi >= b.groups.size())
                    return collapse_error("/groups", "node group " + std::to_string(gi) + " does not exist");
                const Group& group = b.groups[gi];
                groups.push_back({group.rule, group.kernels, group.where, group.numerics, group.compute, {}});
            }
            t.groups = std::move(groups);
        }

        std::string where = seg.layer ? "/layers/" + std::to_string(*seg.layer) : "/nodes/" + std::to_string(seg.begin);
        auto values = instance_values_of(t);
        auto found = index_of.find(t.name);
        if (found == index_of.end()) {
            if (seg.layer) {
                t.instances.push_back(*seg.layer);
                first_layer[t.name] = *seg.layer;
                instance_rows[t.name].push_back(std::move(values));
            }
            index_of[t.name] = c.templates.size();
            c.templates.push_back(std::move(t));
        } else {
            Template& known = c.templates[found->second];
            // Instances may differ in their instance values only: compare with those blanked.
            Template a = known, candidate = t;
            a.instances.clear();
            set_instance_values(a, std::vector<std::optional<std::int64_t>>(values.size()));
            set_instance_values(candidate, std::vector<std::optional<std::int64_t>>(values.size()));
            bool same = instance_values_of(known).size() == values.size() && a == candidate;
            if (!same) {
                std::string detail;
                if (known.nodes.size() != t.nodes.size()) {
                    detail = std::to_string(t.nodes.size()) + " nodes instead of " + std::to_string(known.nodes.size());
                } else {
                    for (std::size_t k = 0; k < t.nodes.size(); ++k)
                        if (!(a.nodes[k] == candidate.nodes[k])) {
                            detail = "node '" + t.nodes[k].id + "' differs";
                            break;
                        }
                    if (detail.empty()) detail = "edges, ports or groups differ";
                }
                std::string first = first_layer.count(t.name) ? " (first seen at layer " + std::to_string(first_layer[t.name]) + ")" : "";
                return collapse_error(where, "does not match template '" + t.name + "'" + first + ": " + detail);
            }
            if (seg.layer) {
                known.instances.push_back(*seg.layer);
                instance_rows[t.name].push_back(std::move(values));
            }
        }
        if (s < prologue_count) c.prologue.push_back(seg.name);
        else if (s < layer_end) c.layout.push_back(seg.name);
        else c.epilogue.push_back(seg.name);
    }
    // Instance values are written only where some instance's differ from the first one's.
    for (auto& t : c.templates) {
        const auto& rows = instance_rows[t.name];
        if (rows.size() > 1 && std::any_of(rows.begin(), rows.end(), [&](const auto& r) { return r != rows.front(); }))
            t.instance_values = rows;
    }
    return c;
}

}  // namespace kbp::schema
