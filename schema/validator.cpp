#include "schema/validator.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_set>

#include "schema/bytes.hpp"
#include "schema/spelling_memo.hpp"
#include "schema/templates.hpp"

namespace kbp::schema {
namespace {

// The first index of each id, for the duplicate check: open addressing over the ids' own
// storage, with no allocation per id (a std::unordered_map allocates a node for each of a
// plan's thousands). Ids are short and differ at their ends ("l3.attn.q" / "l4.attn.q"): the
// spelling hash reads two words where std::hash reads every byte.
class FirstIndex {
public:
    explicit FirstIndex(std::size_t count) {
        std::size_t size = 16;
        while (size < 2 * count) size *= 2;
        slots_.assign(size, 0);
    }
    // The index recorded for `id` before, or records `index` and returns it.
    std::size_t emplace(std::string_view id, std::size_t index, const std::vector<Node>& nodes) {
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = spelling_hash(id) & mask;; i = (i + 1) & mask) {
            if (slots_[i] == 0) {
                slots_[i] = static_cast<std::uint32_t>(index + 1);
                return index;
            }
            if (same_spelling(nodes[slots_[i] - 1].id, id)) return slots_[i] - 1;
        }
    }

private:
    std::vector<std::uint32_t> slots_;  // 0 = empty, else index + 1
};

std::string at(const char* list, std::size_t i) { return std::string("/") + list + "/" + std::to_string(i); }

// A pointer to list item i, rendered only when a problem is reported (most items have none).
struct Ptr {
    const char* list;
    std::size_t i;
    std::string str() const { return at(list, i); }
    operator std::string() const { return str(); }
    std::string operator+(std::string_view tail) const { return str() + std::string(tail); }
};

class Validator {
public:
    Validator(const Blueprint& b, Diagnostics& out) : b_(b), out_(out) {}

    void run() {
        if (b_.schema != schema_name) out_.add("/schema", "unknown schema '" + b_.schema + "'");
        if (b_.arm.rows < 1) out_.add("/arm/rows", "rows must be at least 1");
        if (!b_.arm.mode.known()) out_.add("/arm/mode", "unknown arm mode '" + std::string(b_.arm.mode.name()) + "'");
        if (b_.collapsed_only) {
            // Nothing flat to check; the collapsed form must at least expand.
            auto flat = expand_templates(b_);
            if (!flat) out_.add(flat.error().where, flat.error().message);
            check_layers();
            return;
        }
        check_layers();
        check_nodes();
        check_groups();
        check_edges();
        if (b_.collapsed) check_collapsed();
        if (b_.explain) check_explain();
    }

private:
    void check_layers() {
        for (std::size_t i = 0; i < b_.layers.size(); ++i) {
            const Layer& l = b_.layers[i];
            if (l.index != static_cast<std::int64_t>(i))
                out_.add(at("layers", i) + "/index", "layer index " + std::to_string(l.index) + " at position " + std::to_string(i));
            if (l.template_name.empty()) out_.add(at("layers", i) + "/template", "empty template name");
            std::string prefix = "l" + std::to_string(i) + ".";
            for (std::size_t k = 0; k < l.blocks.size(); ++k)
                if (l.blocks[k].rfind(prefix, 0) != 0)
                    out_.add(at("layers", i) + "/blocks/" + std::to_string(k),
                             "block '" + l.blocks[k] + "' of layer " + std::to_string(i) + " does not start with '" + prefix + "'");
        }
    }

    void check_nodes() {
        FirstIndex ids(b_.nodes.size());
        for (std::size_t i = 0; i < b_.nodes.size(); ++i) {
            const Node& n = b_.nodes[i];
            Ptr ptr{"nodes", i};
            if (n.order != static_cast<std::int64_t>(i))
                out_.add(ptr + "/order", "order " + std::to_string(n.order) + " at index " + std::to_string(i));
            if (n.id.empty()) out_.add(ptr + "/id", "empty node id");
            if (std::size_t first = ids.emplace(n.id, i, b_.nodes); first != i)
                out_.add(ptr + "/id", "duplicate node id '" + n.id + "' (also /nodes/" + std::to_string(first) + ")");
            if (n.layer) {
                if (*n.layer >= static_cast<std::int64_t>(b_.layers.size())) {
                    out_.add(ptr + "/layer", "layer " + std::to_string(*n.layer) + " does not exist (" +
                                                 std::to_string(b_.layers.size()) + " layers)");
                } else {
                    const Layer& l = b_.layers[*n.layer];
                    if (std::find(l.blocks.begin(), l.blocks.end(), n.block) == l.blocks.end())
                        out_.add(ptr + "/block", "block '" + n.block + "' is not a block of layer " + std::to_string(*n.layer));
                    if (!n.kind || !(*n.kind == l.kind))
                        out_.add(ptr + "/kind", "a layer node's kind must be its layer's ('" + std::string(l.kind.name()) + "')");
                }
            }
            if (!(n.id.size() > n.block.size() && n.id.starts_with(n.block.view()) && n.id[n.block.size()] == '.'))
                out_.add(ptr + "/id", "id '" + n.id + "' does not start with its block '" + n.block + ".'");
            if (n.inserted && n.op.kind.id != OpId::act_quant && n.op.kind.id != OpId::smooth_mul)
                out_.add(ptr + "/inserted", "only quantization points (act_quant, smooth_mul) are inserted by the planner");
            if (n.template_args && !n.kernel)
                out_.add(ptr + "/template_args", "template arguments without a kernel");
            if (n.op.kind.id == OpId::linear && (n.roles.size() != 1 || n.roles[0] != n.op.role))
                out_.add(ptr + "/roles", "a projection's roles must be ['" + n.op.role + "']");
            if (!n.point.is_null() && !n.point.is_object()) out_.add(ptr + "/point", "point must be an object or null");
            if (n.kernel && n.kernel->find("::") == std::string::npos)
                out_.add(ptr + "/kernel", "kernel '" + *n.kernel + "' is not 'namespace::entry'");
            if (!n.where.known()) out_.add(ptr + "/where", "unknown place '" + std::string(n.where.name()) + "'");
        }
    }

    void check_groups() {
        const auto node_count = static_cast<std::int64_t>(b_.nodes.size());
        std::vector<std::int64_t> owner(b_.nodes.size(), -1);
        std::int64_t next = 0;  // groups cover the nodes in order
        for (std::size_t g = 0; g < b_.groups.size(); ++g) {
            const Group& group = b_.groups[g];
            Ptr ptr{"groups", g};
            if (group.id != static_cast<std::int64_t>(g))
                out_.add(ptr + "/id", "group id " + std::to_string(group.id) + " at index " + std::to_string(g));
            if (group.nodes.empty()) {
                out_.add(ptr + "/nodes", "a group has at least one node");
                continue;
            }
            if (!group.where.known()) out_.add(ptr + "/where", "unknown place '" + std::string(group.where.name()) + "'");
            for (std::size_t k = 0; k < group.nodes.size(); ++k) {
                auto n = group.nodes[k];
                auto nptr = [&] { return ptr + "/nodes/" + std::to_string(k); };
                if (n >= node_count) {
                    out_.add(nptr(), "node " + std::to_string(n) + " does not exist (" + std::to_string(node_count) + " nodes)");
                    continue;
                }
                if (k > 0 && n != group.nodes[k - 1] + 1)
                    out_.add(nptr(), "group nodes are not contiguous (" + std::to_string(group.nodes[k - 1]) + " then " +
                                       std::to_string(n) + ")");
                if (owner[n] >= 0) {
                    out_.add(nptr(), "node " + std::to_string(n) + " is also in group " + std::to_string(owner[n]));
                    continue;
                }
                owner[n] = static_cast<std::int64_t>(g);
                const Node& node = b_.nodes[n];
                if (node.group != static_cast<std::int64_t>(g))
                    out_.add(at("nodes", n) + "/group", "node says group " + std::to_string(node.group) + ", group " +
                                                            std::to_string(g) + " lists it");
                if (!(node.where == group.where))
                    out_.add(at("nodes", n) + "/where", "node runs on '" + std::string(node.where.name()) + "', its group on '" +
                                                            std::string(group.where.name()) + "'");
                if (node.kernel && std::find(group.kernels.begin(), group.kernels.end(), *node.kernel) == group.kernels.end())
                    out_.add(at("nodes", n) + "/kernel", "kernel '" + *node.kernel + "' is not among its group's kernels");
                // One launch of a templated kernel has one signature: its nodes agree on the arguments.
                if (node.template_args)
                    for (std::size_t j = 0; j < k; ++j) {
                        auto other = group.nodes[j];
                        if (other >= node_count) continue;
                        const Node& o = b_.nodes[other];
                        if (o.template_args && o.kernel == node.kernel && o.template_args != node.template_args) {
                            out_.add(at("nodes", n) + "/template_args",
                                     kernel_signature(*node.kernel, *node.template_args) + ", but " + o.id + " in the same group has " +
                                         kernel_signature(*o.kernel, *o.template_args));
                            break;
                        }
                    }
            }
            if (group.nodes.front() != next && group.nodes.front() < node_count)
                out_.add(ptr + "/nodes/0", "groups must cover the nodes in order: expected node " + std::to_string(next) +
                                               ", found " + std::to_string(group.nodes.front()));
            next = group.nodes.back() + 1;
        }
        for (std::size_t n = 0; n < owner.size(); ++n)
            if (owner[n] < 0) out_.add(at("nodes", n) + "/group", "node '" + b_.nodes[n].id + "' is in no group");
    }

    // top_k from `symbols`, or inferred from the first expert-row edge that has bytes.
    std::optional<std::int64_t> top_k(const std::vector<bool>& expert) {
        if (auto k = b_.symbol("top_k")) return k;
        for (const Edge& e : b_.edges) {
            if (!edge_in_expert_rows(e, expert) || !e.bytes_per_token) continue;
            auto row = row_bytes(e.format, e.dim_value);
            if (row && *row > 0 && *e.bytes_per_token % *row == 0) return *e.bytes_per_token / *row;
        }
        return std::nullopt;
    }

    void check_edges() {
        const auto node_count = static_cast<std::int64_t>(b_.nodes.size());
        std::vector<bool> expert = nodes_in_expert_rows(b_);
        auto k = top_k(expert);
        std::int64_t last_from = -1;
        FirstLeaving first_leaving;
        for (std::size_t i = 0; i < b_.edges.size(); ++i) {
            const Edge& e = b_.edges[i];
            Ptr ptr{"edges", i};
            bool ends_ok = true;
            if (e.from >= node_count) {
                out_.add(ptr + "/from", "node " + std::to_string(e.from) + " does not exist (" + std::to_string(node_count) + " nodes)");
                ends_ok = false;
            }
            if (e.to >= node_count) {
                out_.add(ptr + "/to", "node " + std::to_string(e.to) + " does not exist (" + std::to_string(node_count) + " nodes)");
                ends_ok = false;
            }
            if (e.from >= e.to)
                out_.add(ptr + "/to", "edge runs backward or to itself (" + std::to_string(e.from) + " -> " + std::to_string(e.to) + ")");
            if (e.from < last_from)
                out_.add(ptr + "/from", "edges must be ordered by producer (" + std::to_string(e.from) + " after " +
                                            std::to_string(last_from) + ")");
            last_from = std::max(last_from, e.from);
            if (e.id.empty()) out_.add(ptr + "/id", "empty tensor name");
            if (!ends_ok) continue;
            const Node& producer = b_.nodes[e.from];
            const Node& reader = b_.nodes[e.to];
            if (e.fused != (producer.group == reader.group))
                out_.add(ptr + "/fused", e.fused ? "fused, but its ends are in groups " + std::to_string(producer.group) + " and " +
                                                       std::to_string(reader.group)
                                                 : "not fused, but both ends are in group " + std::to_string(producer.group));
            check_edge_format(e, producer, reader, ptr);
            check_leaving_tensor(i, producer, reader, first_leaving);
            check_bytes(e, expert, k, ptr);
            if (b_.symbols && e.dim) {
                std::string error;
                auto v = eval_dim(*e.dim, *b_.symbols, &error);
                if (!v) out_.add(ptr + "/dim", "cannot evaluate '" + *e.dim + "': " + error);
                else if (*v != e.dim_value)
                    out_.add(ptr + "/dim_value", std::to_string(e.dim_value) + ", but '" + *e.dim + "' = " + std::to_string(*v));
            }
        }
    }

    // Producing node -> its first edge out of its layer (or block outside the layers). Keyed by
    // the node's index, not by the text the messages print: a plan has an edge leaving a layer
    // thousands of times, a problem to report rarely.
    struct FirstLeaving {
        std::map<std::int64_t, std::size_t> node;
    };

    // The edges one node sends out of its layer (or block outside the layers) carry one tensor:
    // the collapsed form records one per out port (ports.out_tensor, or out_tensors when a layer
    // hands on two, as the engines' layers hand on their output and the residual), so a node
    // with two would pass here and then be refused by kbp collapse, which could not write it back.
    void check_leaving_tensor(std::size_t i, const Node& producer, const Node& reader, FirstLeaving& first_leaving) {
        if (producer.layer == reader.layer && (producer.layer || producer.block == reader.block)) return;
        auto [at_first, fresh] = first_leaving.node.try_emplace(b_.edges[i].from, i);
        if (fresh) return;
        const std::optional<std::size_t> first = at_first->second;
        auto from = [&] { return producer.layer ? "layer " + std::to_string(*producer.layer) : "block '" + producer.block + "'"; };
        const Edge& e = b_.edges[i];
        const Edge& f = b_.edges[*first];
        if (e.id != f.id)
            out_.add(at("edges", i) + "/id", "tensor '" + e.id + "' leaves " + from() + ", but " + at("edges", *first) +
                                                 " names the tensor its producer sends out of it '" + f.id + "' (one tensor leaves a layer or block from each node)");
        else if (!(e.rows == f.rows && e.dim == f.dim && e.dim_value == f.dim_value && e.bytes_per_token == f.bytes_per_token &&
                   e.requant == f.requant))
            out_.add(at("edges", i), "tensor '" + e.id + "' leaves " + from() + " with other rows, dim, bytes or requant than on " +
                                         at("edges", *first));
    }

    void check_edge_format(const Edge& e, const Node& producer, const Node& reader, const Ptr& ptr) {
        if (!e.format.known()) return;  // a newer planner's format: nothing to compare with
        const auto& outs = producer.precision.output;
        auto writes = [&](const Format& f) { return outs && std::find(outs->begin(), outs->end(), f) != outs->end(); };
        if (!e.requant) {
            if (outs && !writes(e.format))
                out_.add(ptr + "/format", "'" + std::string(e.format.name()) + "' is not a format '" + producer.id + "' writes (" +
                                              formats_name(*outs) + ")");
            return;
        }
        const Requant& r = *e.requant;
        if (r.from == r.to) out_.add(ptr + "/requant", "requant from and to the same format '" + std::string(r.from.name()) + "'");
        switch (r.at.id) {
            case RequantAtId::producer:
                if (!(e.format == r.to))
                    out_.add(ptr + "/requant/to", "a producer-side requant writes the edge's format '" + std::string(e.format.name()) + "'");
                if (!writes(r.to))
                    out_.add(ptr + "/requant/to", "'" + producer.id + "' does not write '" + std::string(r.to.name()) + "'");
                if (producer.precision.activation && !(*producer.precision.activation == r.from))
                    out_.add(ptr + "/requant/from", "'" + producer.id + "' reads '" + std::string(producer.precision.activation->name()) +
                                                        "', not '" + std::string(r.from.name()) + "'");
                break;
            case RequantAtId::reader:
                if (!(e.format == r.from))
                    out_.add(ptr + "/requant/from", "a reader-side requant starts from the edge's format '" + std::string(e.format.name()) + "'");
                if (reader.precision.activation && !(*reader.precision.activation == r.to))
                    out_.add(ptr + "/requant/to", "'" + reader.id + "' reads '" + std::string(reader.precision.activation->name()) +
                                                      "', not '" + std::string(r.to.name()) + "'");
                break;
            default: out_.add(ptr + "/requant/at", "unknown requant side '" + std::string(r.at.name()) + "'");
        }
    }

    void check_bytes(const Edge& e, const std::vector<bool>& expert, std::optional<std::int64_t> k, const Ptr& ptr) {
        if (!e.bytes_per_token) {
            if (!e.fused) out_.add(ptr + "/bytes_per_token", "null, but the edge leaves its kernel");
            return;
        }
        auto row = row_bytes(e.format, e.dim_value);
        if (!row) return;  // unknown format
        std::int64_t rows = 1;
        bool expert_rows = edge_in_expert_rows(e, expert);
        if (expert_rows) {
            if (!k) {
                out_.add(ptr + "/bytes_per_token", "an expert-row edge, but top_k is unknown");
                return;
            }
            rows = *k;
        }
        // Text for the messages, built only when there is one to write.
        auto space = [&] { return expert_rows ? " x top_k " + std::to_string(*k) : std::string(); };
        std::int64_t expected;
        if (__builtin_mul_overflow(*row, rows, &expected)) {
            out_.add(ptr + "/bytes_per_token", std::string(e.format.name()) + " x " + std::to_string(e.dim_value) + space() + " overflows 64 bits");
            return;
        }
        if (*e.bytes_per_token != expected)
            out_.add(ptr + "/bytes_per_token", std::to_string(*e.bytes_per_token) + ", but " + std::string(e.format.name()) + " x " +
                                                   std::to_string(e.dim_value) + space() + " is " + std::to_string(expected));
    }

    void check_collapsed() {
        const Collapsed& c = *b_.collapsed;
        if (c.layout.size() != b_.layers.size())
            out_.add("/collapsed/layout", std::to_string(c.layout.size()) + " entries for " + std::to_string(b_.layers.size()) + " layers");
        for (std::size_t i = 0; i < std::min(c.layout.size(), b_.layers.size()); ++i)
            if (c.layout[i] != b_.layers[i].template_name)
                out_.add("/collapsed/layout/" + std::to_string(i), "'" + c.layout[i] + "', but layer " + std::to_string(i) +
                                                                       " names template '" + b_.layers[i].template_name + "'");
        for (const Template& t : c.templates) {
            std::vector<std::int64_t> expected;
            for (std::size_t i = 0; i < c.layout.size(); ++i)
                if (c.layout[i] == t.name) expected.push_back(static_cast<std::int64_t>(i));
            if (t.instances != expected)
                out_.add("/collapsed/templates/" + t.name + "/instances", "do not list the layers the layout gives this template");
            std::string prefix = "";
            for (std::size_t i = 0; i < t.blocks.size(); ++i)
                for (std::int64_t layer : t.instances)
                    if (layer < static_cast<std::int64_t>(b_.layers.size()) &&
                        (i >= b_.layers[layer].blocks.size() ||
                         b_.layers[layer].blocks[i] != "l" + std::to_string(layer) + "." + t.blocks[i])) {
                        out_.add("/collapsed/templates/" + t.name + "/blocks/" + std::to_string(i),
                                 "layer " + std::to_string(layer) + " does not have block '" + t.blocks[i] + "'");
                        break;
                    }
        }
        check_expansion(b_, out_);
    }

    void check_explain() {
        const Explain& x = *b_.explain;
        std::unordered_set<std::string_view> formats;
        for (const auto& f : x.formats) formats.insert(f.name);
        // Families are interned: a node's is found by its pointer among a few dozen.
        std::vector<Sym> families;
        for (const auto& f : x.families) families.emplace_back(f.name);
        // Formats already looked up (a plan uses a dozen, on every node and edge).
        std::vector<Format> checked;
        // Report each missing name once, at its first use.
        std::unordered_set<std::string_view> reported;
        auto need_format = [&](const Format& f, auto&& ptr) {
            if (std::find(checked.begin(), checked.end(), f) != checked.end()) return;
            checked.push_back(f);
            std::string_view name = format_doc_name(f);
            if (!formats.count(name) && reported.insert(name).second)
                out_.add(ptr(), "format '" + std::string(name) + "' is used but /explain/formats does not describe it");
        };
        for (std::size_t i = 0; i < b_.nodes.size(); ++i) {
            const Node& n = b_.nodes[i];
            Ptr ptr{"nodes", i};
            if (std::find(families.begin(), families.end(), n.family) == families.end() && reported.insert(n.family).second)
                out_.add(ptr + "/family", "family '" + n.family + "' is used but /explain/families does not describe it");
            if (n.precision.weight) need_format(*n.precision.weight, [&] { return ptr + "/precision/weight"; });
            if (n.precision.activation) need_format(*n.precision.activation, [&] { return ptr + "/precision/activation"; });
            if (n.precision.output)
                for (const auto& f : *n.precision.output) need_format(f, [&] { return ptr + "/precision/output"; });
        }
        for (std::size_t i = 0; i < b_.edges.size(); ++i)
            need_format(b_.edges[i].format, [&] { return at("edges", i) + "/format"; });
    }

    const Blueprint& b_;
    Diagnostics& out_;
};

}  // namespace

Diagnostics validate(const Blueprint& b, const ValidateOptions& options) {
    Diagnostics out(options.max_problems);
    Validator(b, out).run();
    return out;
}

}  // namespace kbp::schema
