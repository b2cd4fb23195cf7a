// Matching: a node by its id; an edge by (tensor, producer id, reader id) and, for the rare
// tensor read twice by one op, its rank among those; a group by the id of its first node (a
// group is a contiguous run, so the op that opens it names it across plans). The fields of each
// matched pair are compared by path, in the writer's order.
#include "diff/diff.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include <nlohmann/json.hpp>

#include "schema/stats.hpp"
#include "schema/writer.hpp"

namespace kbp::diff {
namespace {

using schema::Blueprint;
using schema::WrittenField;
using Fields = std::vector<WrittenField>;
using J = nlohmann::ordered_json;

// Written fields that are positions in a list: they shift when anything is inserted before.
bool is_position(const std::string& path) {
    return path == "id" || path == "order" || path == "group" || path == "from" || path == "to" || path == "nodes";
}

Fields comparable(Fields written) {
    std::erase_if(written, [](const WrittenField& f) { return is_position(f.path); });
    return written;
}

class Wiring {
public:
    explicit Wiring(const Blueprint& b) : b_(b), in_(b.nodes.size()), out_(b.nodes.size()) {
        for (const auto& e : b.edges) {
            if (valid_node(e.from)) out_[static_cast<std::size_t>(e.from)].push_back(&e);
            if (valid_node(e.to)) in_[static_cast<std::size_t>(e.to)].push_back(&e);
        }
    }

    bool valid_node(std::int64_t i) const { return i >= 0 && static_cast<std::size_t>(i) < b_.nodes.size(); }
    bool valid_group(std::int64_t g) const { return g >= 0 && static_cast<std::size_t>(g) < b_.groups.size(); }
    const std::string& node_id(std::int64_t i) const {
        static const std::string none = "?";
        return valid_node(i) ? b_.nodes[static_cast<std::size_t>(i)].id : none;
    }

    // The members of a group by id, as JSON.
    std::string members(const schema::Group& g) const {
        J ids = J::array();
        for (auto m : g.nodes) ids.push_back(node_id(m));
        return ids.dump();
    }

    // A group's key: the id of its first node.
    std::string group_key(const schema::Group& g) const {
        if (!g.nodes.empty()) return node_id(g.nodes.front());
        std::string key = "g";  // appended: GCC 12 warns wrongly about "g" + to_string (-Wrestrict)
        key += std::to_string(g.id);
        return key;
    }

    Fields node_fields(std::size_t i) const {
        const schema::Node& n = b_.nodes[i];
        Fields f = comparable(schema::written_fields(n));
        if (valid_group(n.group)) {
            const auto& g = b_.groups[static_cast<std::size_t>(n.group)];
            f.push_back({"group/rule", J(g.rule).dump()});
            f.push_back({"group/members", members(g)});
        } else {
            f.push_back({"group/rule", "null"});
            f.push_back({"group/members", "null"});
        }
        std::int64_t in = 0, out = 0;
        for (const auto* e : in_[i]) in += e->bytes_per_token.value_or(0);
        std::vector<const std::string*> written;
        for (const auto* e : out_[i]) {
            if (std::any_of(written.begin(), written.end(), [&](const std::string* id) { return *id == e->id; })) continue;
            written.push_back(&e->id);
            out += e->bytes_per_token.value_or(0);
        }
        f.push_back({"bytes_in", std::to_string(in)});
        f.push_back({"bytes_out", std::to_string(out)});
        return f;
    }

    Fields group_fields(std::size_t g) const {
        Fields f = comparable(schema::written_fields(b_.groups[g]));
        f.push_back({"members", members(b_.groups[g])});
        return f;
    }

    Fields edge_fields(std::size_t e) const { return comparable(schema::written_fields(b_.edges[e])); }

    // Keys of the edges in list order: "tensor: from -> to", "#2" for a repeat.
    std::vector<std::string> edge_keys() const {
        std::vector<std::string> keys;
        std::map<std::string, int> seen;
        for (const auto& e : b_.edges) {
            std::string key = e.id + ": " + node_id(e.from) + " -> " + node_id(e.to);
            int n = ++seen[key];
            if (n > 1) key += " #" + std::to_string(n);
            keys.push_back(std::move(key));
        }
        return keys;
    }

private:
    const Blueprint& b_;
    std::vector<std::vector<const schema::Edge*>> in_, out_;
};

// The fields of a and b that differ, by path: a's paths in order, then those only b has.
std::vector<FieldChange> compare_fields(const Fields& a, const Fields& b) {
    std::vector<FieldChange> out;
    std::map<std::string_view, const WrittenField*> in_b;
    for (const auto& f : b) in_b.emplace(f.path, &f);
    for (const auto& f : a) {
        auto it = in_b.find(f.path);
        if (it == in_b.end()) out.push_back({f.path, f.json, ""});
        else if (it->second->json != f.json) out.push_back({f.path, f.json, it->second->json});
    }
    std::map<std::string_view, bool> in_a;
    for (const auto& f : a) in_a.emplace(f.path, true);
    for (const auto& f : b)
        if (!in_a.count(f.path)) out.push_back({f.path, "", f.json});
    return out;
}

// Pairs the items of two lists by key and compares each pair. The result follows b's order, each
// removed item placed before the next item of a that b also has.
template <class FieldsOf>
std::vector<ItemChange> match(const std::vector<std::string>& keys_a, const std::vector<std::string>& keys_b,
                              FieldsOf fields_a, FieldsOf fields_b) {
    std::map<std::string_view, std::size_t> in_b;
    for (std::size_t i = 0; i < keys_b.size(); ++i) in_b.emplace(keys_b[i], i);
    std::vector<std::int64_t> partner(keys_a.size(), -1);
    for (std::size_t i = 0; i < keys_a.size(); ++i)
        if (auto it = in_b.find(keys_a[i]); it != in_b.end()) partner[i] = static_cast<std::int64_t>(it->second);
    std::vector<char> matched_b(keys_b.size(), 0);
    for (auto p : partner)
        if (p >= 0) matched_b[static_cast<std::size_t>(p)] = 1;

    struct Placed {
        std::size_t at;  // position in b's order
        int rank;        // removed items (0) before the b item they precede (1)
        std::size_t seq;
        ItemChange change;
    };
    std::vector<Placed> placed;
    std::size_t next_partner = keys_b.size();
    for (std::size_t i = keys_a.size(); i-- > 0;) {
        if (partner[i] >= 0) {
            next_partner = static_cast<std::size_t>(partner[i]);
            auto fields = compare_fields(fields_a(i), fields_b(next_partner));
            if (!fields.empty())
                placed.push_back({next_partner, 1, 0,
                                  {ChangeKind::changed, keys_b[next_partner], static_cast<std::int64_t>(i),
                                   static_cast<std::int64_t>(next_partner), std::move(fields)}});
        } else {
            placed.push_back({next_partner, 0, i, {ChangeKind::removed, keys_a[i], static_cast<std::int64_t>(i), std::nullopt, {}}});
        }
    }
    for (std::size_t j = 0; j < keys_b.size(); ++j)
        if (!matched_b[j]) placed.push_back({j, 1, 0, {ChangeKind::added, keys_b[j], std::nullopt, static_cast<std::int64_t>(j), {}}});
    std::sort(placed.begin(), placed.end(), [](const Placed& x, const Placed& y) {
        return std::tie(x.at, x.rank, x.seq) < std::tie(y.at, y.rank, y.seq);
    });
    std::vector<ItemChange> out;
    out.reserve(placed.size());
    for (auto& p : placed) out.push_back(std::move(p.change));
    return out;
}

std::vector<Total> totals_of(const Blueprint& a, const Blueprint& b) {
    auto sa = schema::compute_stats(a), sb = schema::compute_stats(b);
    return {
        {"nodes", sa.nodes, sb.nodes},
        {"edges", sa.edges, sb.edges},
        {"groups", sa.groups, sb.groups},
        {"launches", sa.launches, sb.launches},
        {"host_steps", sa.host_groups, sb.host_groups},
        {"quant_points", sa.quant_points, sb.quant_points},
        {"requant_edges", sa.requant_edges, sb.requant_edges},
        {"fused_edges", sa.fused_edges, sb.fused_edges},
        {"bytes_between_kernels", sa.bytes_between_kernels, sb.bytes_between_kernels},
    };
}

// The arm, and the symbols when both plans list them (the format lets a plan leave them out); what
// both were made with when kbp made both (its planner header: the engine, target and recipe), so
// that two engines' plans of one model say first that the engine differs.
Fields plan_fields(const Blueprint& b, bool symbols, bool made_by_kbp) {
    Fields f{{"arm/mode", J(std::string(b.arm.mode.name())).dump()}, {"arm/rows", std::to_string(b.arm.rows)}};
    if (made_by_kbp)
        for (const char* key : {"engine", "target", "recipe"})
            if (const auto* v = b.provenance->planner_header.find(key); v && v->is_string()) f.push_back({std::string("made_with/") + key, J(v->string()).dump()});
    if (symbols && b.symbols)
        for (const auto& s : *b.symbols) f.push_back({"symbols/" + s.name, std::to_string(s.value)});
    return f;
}

}  // namespace

std::string_view status_name(ChangeKind s) {
    switch (s) {
        case ChangeKind::added: return "added";
        case ChangeKind::removed: return "removed";
        case ChangeKind::changed: return "changed";
    }
    return "changed";
}

bool PlanDiff::equal() const {
    return plan.empty() && nodes.empty() && groups.empty() && edges.empty() &&
           std::none_of(totals.begin(), totals.end(), [](const Total& t) { return t.moved(); });
}

Counts count(const std::vector<ItemChange>& items) {
    Counts c;
    for (const auto& i : items) {
        if (i.status == ChangeKind::added) ++c.added;
        else if (i.status == ChangeKind::removed) ++c.removed;
        else ++c.changed;
    }
    return c;
}

PlanDiff diff_plans(const Blueprint& a, const Blueprint& b) {
    PlanDiff d;
    bool symbols = a.symbols && b.symbols;
    const bool by_kbp = a.provenance && b.provenance && a.provenance->kind == "kbp" && b.provenance->kind == "kbp";
    d.plan = compare_fields(plan_fields(a, symbols, by_kbp), plan_fields(b, symbols, by_kbp));
    Wiring wa(a), wb(b);

    std::vector<std::string> na, nb;
    for (const auto& n : a.nodes) na.push_back(n.id);
    for (const auto& n : b.nodes) nb.push_back(n.id);
    d.nodes = match(na, nb, std::function<Fields(std::size_t)>([&](std::size_t i) { return wa.node_fields(i); }),
                    std::function<Fields(std::size_t)>([&](std::size_t i) { return wb.node_fields(i); }));

    std::vector<std::string> ga, gb;
    for (const auto& g : a.groups) ga.push_back(wa.group_key(g));
    for (const auto& g : b.groups) gb.push_back(wb.group_key(g));
    d.groups = match(ga, gb, std::function<Fields(std::size_t)>([&](std::size_t i) { return wa.group_fields(i); }),
                     std::function<Fields(std::size_t)>([&](std::size_t i) { return wb.group_fields(i); }));

    d.edges = match(wa.edge_keys(), wb.edge_keys(),
                    std::function<Fields(std::size_t)>([&](std::size_t i) { return wa.edge_fields(i); }),
                    std::function<Fields(std::size_t)>([&](std::size_t i) { return wb.edge_fields(i); }));
    d.totals = totals_of(a, b);
    return d;
}

std::string shown_value(const std::string& json) {
    if (json.empty()) return "—";
    if (json.front() == '"') {
        auto v = J::parse(json, nullptr, false);
        if (v.is_string()) return v.get<std::string>();
    }
    return json;
}

}  // namespace kbp::diff
