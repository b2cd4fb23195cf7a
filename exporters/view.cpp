// Building a view: select the ops the cut keeps, then walk them in plan order, opening each
// cluster the first time one of its ops is met (so a parent always precedes its children and
// the same plan always gives the same lists), and keep the edges whose ends are shown (or draw
// the outside end as a stub).
#include "exporters/view.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <tuple>

#include "exporters/text.hpp"
#include "schema/names.hpp"
#include "schema/stats.hpp"
#include "schema/templates.hpp"

namespace kbp::exporters {

using schema::Blueprint;
using schema::Node;

std::optional<ViewKind> parse_view_kind(std::string_view text) {
    if (text == "flat") return ViewKind::flat;
    if (text == "groups") return ViewKind::groups;
    if (text == "collapsed") return ViewKind::collapsed;
    return std::nullopt;
}

std::string_view view_kind_name(ViewKind kind) {
    switch (kind) {
        case ViewKind::flat: return "flat";
        case ViewKind::groups: return "groups";
        case ViewKind::collapsed: return "collapsed";
    }
    return "flat";
}

Result<std::vector<std::int64_t>> parse_layer_list(std::string_view text, std::int64_t layer_count) {
    auto bad = [&](const std::string& why) {
        return make_error(ErrorCode::usage, "", "--layers '" + std::string(text) + "': " + why);
    };
    if (layer_count <= 0) return bad("the plan has no layers");
    auto number = [](std::string_view s, std::int64_t& out) {
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        return !s.empty() && ec == std::errc{} && end == s.data() + s.size() && s[0] != '-' && s[0] != '+';
    };
    std::vector<char> chosen(static_cast<std::size_t>(layer_count), 0);
    std::string_view rest = text;
    if (rest.empty()) return bad("expected a layer, a range (3-7) or a list (0-2,7)");
    while (true) {
        auto comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        auto dash = item.find('-');
        std::int64_t first = 0, last = 0;
        if (dash == std::string_view::npos) {
            if (!number(item, first)) return bad("'" + std::string(item) + "' is not a layer number");
            last = first;
        } else if (!number(item.substr(0, dash), first) || !number(item.substr(dash + 1), last)) {
            return bad("'" + std::string(item) + "' is not a range like 3-7");
        }
        if (first > last) return bad("range " + std::string(item) + " runs backwards");
        if (last >= layer_count)
            return bad("layer " + std::to_string(last) + " is out of range (the plan has layers 0-" +
                       std::to_string(layer_count - 1) + ")");
        for (auto l = first; l <= last; ++l) chosen[static_cast<std::size_t>(l)] = 1;
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    std::vector<std::int64_t> out;
    for (std::int64_t l = 0; l < layer_count; ++l)
        if (chosen[static_cast<std::size_t>(l)]) out.push_back(l);
    return out;
}

Status ensure_flat(Blueprint& b) {
    if (!b.collapsed_only) return Ok{};
    auto flat = schema::expand_templates(b);
    if (!flat) return flat.error();
    b.nodes = std::move(flat->nodes);
    b.edges = std::move(flat->edges);
    b.groups = std::move(flat->groups);
    b.collapsed_only = false;
    return Ok{};
}

std::string View::filter_text() const {
    std::string out;
    if (options.layers) {
        const auto& l = *options.layers;
        out = (l.size() == 1 ? "layer " : "layers ") + schema::ranges_text(l);
    }
    if (!options.block.empty()) out += (out.empty() ? "" : ", ") + std::string("block ") + options.block;
    return out;
}

std::size_t View::count_nodes(ViewNodeKind kind) const {
    return static_cast<std::size_t>(
        std::count_if(nodes.begin(), nodes.end(), [&](const ViewNode& n) { return n.kind == kind; }));
}

int View::common_cluster(int a, int b) const {
    while (a != b) {
        if (a < 0 || b < 0) return -1;
        // Walk the deeper one up; at equal depth walk both.
        int da = clusters[static_cast<std::size_t>(a)].depth, db = clusters[static_cast<std::size_t>(b)].depth;
        if (da >= db) a = clusters[static_cast<std::size_t>(a)].parent;
        if (db >= da) b = clusters[static_cast<std::size_t>(b)].parent;
    }
    return a;
}

namespace {

std::string block_of_local(std::string_view local_id) {
    auto dot = local_id.find('.');
    return std::string(dot == std::string_view::npos ? local_id : local_id.substr(0, dot));
}

// "g52". (Appending, not "g" + to_string: GCC 12 warns wrongly about the latter, -Wrestrict.)
std::string group_name(std::int64_t id) {
    std::string name = "g";
    name += std::to_string(id);
    return name;
}

bool block_matches(const Node& n, const std::string& block) {
    return block.empty() || n.block_type.view() == block || n.block == block;
}

bool layer_matches(const Node& n, const std::optional<std::vector<std::int64_t>>& layers) {
    if (!layers) return true;
    return n.layer && std::binary_search(layers->begin(), layers->end(), *n.layer);
}

class Builder {
public:
    Builder(const Blueprint& b, const ViewOptions& o) : b_(b) {
        v_.kind = o.kind;
        v_.plan = &b;
        v_.options = o;
    }

    Result<View> build() {
        if (auto s = select(); !s) return s.error();
        switch (v_.kind) {
            case ViewKind::flat: build_flat(); break;
            case ViewKind::groups: build_groups(); break;
            case ViewKind::collapsed:
                if (auto s = build_collapsed(); !s) return s.error();
                break;
        }
        if (v_.nodes.empty()) return make_error(ErrorCode::usage, "", "the view is empty: nothing to show");
        return std::move(v_);
    }

private:
    const Blueprint& b_;
    View v_;
    std::vector<char> selected_;  // per blueprint node

    Status select() {
        const auto& o = v_.options;
        if (!o.block.empty()) {
            bool any = false;
            for (const auto& n : b_.nodes) any = any || block_matches(n, o.block);
            if (!any) {
                std::vector<std::string> types;
                for (const auto& n : b_.nodes) {
                    std::string t(n.block_type.view());
                    if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
                }
                std::string list;
                for (const auto& t : types) list += (list.empty() ? "" : ", ") + t;
                std::string near = schema::closest_of(o.block, types);
                return make_error(ErrorCode::usage, "",
                                  "--block '" + o.block + "': no such block (" + (near.empty() ? "" : "did you mean '" + near + "'? ") +
                                      "block types in this plan: " + list + ")");
            }
        }
        selected_.assign(b_.nodes.size(), 0);
        bool any = false;
        for (std::size_t i = 0; i < b_.nodes.size(); ++i) {
            const Node& n = b_.nodes[i];
            selected_[i] = layer_matches(n, o.layers) && block_matches(n, o.block);
            any = any || selected_[i];
        }
        if (!any) return make_error(ErrorCode::usage, "", "nothing to show: " + v_.filter_text() + " selects no op");
        keep_distinct_blocks();
        return Ok{};
    }

    // --block TYPE: of the chosen blocks that are alike, the first stays selected and stands for
    // the others. Alike: the same ops in the same order (local names, ops, precisions, kernels,
    // inserted points, state), fused the same way (rules, groups counted from the block's first),
    // and the same tensors inside, in and out of it (formats, bytes, fused).
    void keep_distinct_blocks() {
        const auto& block = v_.options.block;
        if (block.empty() || v_.kind == ViewKind::collapsed) return;
        for (const auto& n : b_.nodes)
            if (n.block == block) return;  // a block id: one block
        std::vector<std::string> order;  // block ids in plan order
        std::map<std::string, std::string> signature;
        std::map<std::string, std::int64_t> first_group;
        std::map<std::string, std::optional<std::int64_t>> layer_of_block;
        auto local = [](const Node& n) {
            std::string_view id = n.id, prefix = n.block.view();
            return std::string(id.substr(0, prefix.size()) == prefix && id.size() > prefix.size() ? id.substr(prefix.size() + 1) : id);
        };
        for (std::size_t i = 0; i < b_.nodes.size(); ++i) {
            if (!selected_[i]) continue;
            const Node& n = b_.nodes[i];
            std::string id(n.block.view());
            auto [it, fresh] = signature.try_emplace(id);
            if (fresh) {
                order.push_back(id);
                first_group[id] = n.group;
                layer_of_block[id] = n.layer;
            }
            const auto* g = group_of(n);
            it->second += local(n) + "|" + std::string(n.op.name()) + "|" + precision_text(n) + "|" +
                          (n.kernel ? std::string(n.kernel->view()) : std::string()) + "|" + (g ? std::string(g->rule.view()) : std::string()) + "|" +
                          std::to_string(n.group - first_group[id]) + (n.inserted ? "|i" : "") + (n.state ? "|s" : "") + "\n";
        }
        for (const auto& e : b_.edges) {
            if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= b_.nodes.size() || static_cast<std::size_t>(e.to) >= b_.nodes.size())
                continue;
            const Node &f = b_.nodes[static_cast<std::size_t>(e.from)], &t = b_.nodes[static_cast<std::size_t>(e.to)];
            bool inside_f = selected_[static_cast<std::size_t>(e.from)], inside_t = selected_[static_cast<std::size_t>(e.to)];
            if (!inside_f && !inside_t) continue;
            std::string text = std::string(e.format.name()) + "|" + std::to_string(e.bytes_per_token.value_or(-1)) + (e.fused ? "|f" : "");
            if (inside_f) signature[std::string(f.block.view())] += "out " + local(f) + ">" + (f.block == t.block ? local(t) : "*") + "|" + text + "\n";
            if (inside_t && f.block != t.block) signature[std::string(t.block.view())] += "in *>" + local(t) + "|" + text + "\n";
        }
        std::map<std::string, std::string> first_alike;  // signature -> the block drawn for it
        std::set<std::string> dropped;
        for (const auto& id : order) {
            auto [it, fresh] = first_alike.try_emplace(signature[id], id);
            v_.alike[it->second].push_back(layer_of_block[id].value_or(-1));
            if (!fresh) dropped.insert(id);
        }
        for (auto it = v_.alike.begin(); it != v_.alike.end();) it = it->second.size() < 2 ? v_.alike.erase(it) : std::next(it);
        if (dropped.empty()) return;
        for (std::size_t i = 0; i < b_.nodes.size(); ++i)
            if (selected_[i] && dropped.count(std::string(b_.nodes[i].block.view()))) selected_[i] = 0;
    }

    static std::string precision_text(const Node& n) { return precision_signature(n); }

    int add_cluster(ViewCluster c) {
        c.depth = c.parent < 0 ? 0 : v_.clusters[static_cast<std::size_t>(c.parent)].depth + 1;
        v_.clusters.push_back(std::move(c));
        return static_cast<int>(v_.clusters.size()) - 1;
    }

    int add_node(ViewNode n) {
        v_.nodes.push_back(std::move(n));
        return static_cast<int>(v_.nodes.size()) - 1;
    }

    // Layer and block clusters, opened on first use.
    std::map<std::int64_t, int> layer_clusters_;
    std::map<std::string, int> block_clusters_;

    int layer_cluster(std::int64_t layer) {
        auto [it, fresh] = layer_clusters_.try_emplace(layer, -1);
        if (fresh) {
            ViewCluster c;
            c.name = "cluster_l" + std::to_string(layer);
            c.kind = ClusterKind::layer;
            c.layer = layer;
            it->second = add_cluster(std::move(c));
        }
        return it->second;
    }

    int block_cluster(const Node& n) {
        auto it = block_clusters_.find(n.block);
        if (it != block_clusters_.end()) return it->second;
        ViewCluster c;
        c.name = "cluster_" + n.block;
        c.kind = ClusterKind::block;
        c.block = n.block;
        c.layer = n.layer;
        c.parent = n.layer ? layer_cluster(*n.layer) : -1;
        int index = add_cluster(std::move(c));
        block_clusters_.emplace(n.block, index);
        return index;
    }

    // Where a set of ops (a group's shown members) sits: their common block, else their common
    // layer, else the graph.
    int common_parent(const std::vector<std::int64_t>& members) {
        const Node& first = b_.nodes[static_cast<std::size_t>(members.front())];
        bool same_block = true, same_layer = true;
        for (auto m : members) {
            const Node& n = b_.nodes[static_cast<std::size_t>(m)];
            same_block = same_block && n.block == first.block;
            same_layer = same_layer && n.layer == first.layer;
        }
        if (same_block) return block_cluster(first);
        if (same_layer && first.layer) return layer_cluster(*first.layer);
        return -1;
    }

    std::vector<std::int64_t> shown_members(const schema::Group& g) const {
        std::vector<std::int64_t> out;
        for (auto m : g.nodes)
            if (m >= 0 && static_cast<std::size_t>(m) < b_.nodes.size() && selected_[static_cast<std::size_t>(m)])
                out.push_back(m);
        return out;
    }

    const schema::Group* group_of(const Node& n) const {
        if (n.group < 0 || static_cast<std::size_t>(n.group) >= b_.groups.size()) return nullptr;
        return &b_.groups[static_cast<std::size_t>(n.group)];
    }

    void build_flat() {
        std::vector<int> node_index(b_.nodes.size(), -1);
        std::vector<int> group_cluster(b_.groups.size(), -2);  // -2 = not decided yet
        for (std::size_t i = 0; i < b_.nodes.size(); ++i) {
            if (!selected_[i]) continue;
            const Node& n = b_.nodes[i];
            int cluster = block_cluster(n);
            if (const auto* g = group_of(n)) {
                auto gi = static_cast<std::size_t>(n.group);
                if (group_cluster[gi] == -2) {
                    auto members = shown_members(*g);
                    group_cluster[gi] = -1;
                    if (members.size() >= 2) {
                        ViewCluster c;
                        c.name = "cluster_g" + std::to_string(g->id);
                        c.kind = ClusterKind::group;
                        c.group = g;
                        c.group_id = g->id;
                        c.layer = n.layer;
                        c.parent = common_parent(members);
                        group_cluster[gi] = add_cluster(std::move(c));
                    }
                }
                if (group_cluster[gi] >= 0) cluster = group_cluster[gi];
            }
            ViewNode vn;
            vn.name = n.id;
            vn.kind = ViewNodeKind::op;
            vn.cluster = cluster;
            vn.op = &n;
            vn.local = n.id;
            node_index[i] = add_node(std::move(vn));
        }
        std::vector<int> stub_index(b_.nodes.size(), -1);
        auto stub = [&](std::size_t i, bool incoming) {
            if (stub_index[i] < 0) {
                ViewNode vn;
                vn.name = b_.nodes[i].id;
                vn.kind = ViewNodeKind::stub;
                vn.op = &b_.nodes[i];
                vn.group = group_of(b_.nodes[i]);
                vn.local = b_.nodes[i].id;
                vn.incoming = incoming;
                stub_index[i] = add_node(std::move(vn));
            }
            return stub_index[i];
        };
        for (const auto& e : b_.edges) {
            if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= b_.nodes.size() ||
                static_cast<std::size_t>(e.to) >= b_.nodes.size())
                continue;
            auto f = static_cast<std::size_t>(e.from), t = static_cast<std::size_t>(e.to);
            if (!selected_[f] && !selected_[t]) continue;
            ViewEdge ve;
            ve.from = selected_[f] ? node_index[f] : stub(f, true);
            ve.to = selected_[t] ? node_index[t] : stub(t, false);
            ve.edge = &e;
            ve.format = e.format;
            ve.bytes_per_token = e.bytes_per_token;
            ve.fused = e.fused;
            v_.edges.push_back(std::move(ve));
        }
    }

    void build_groups() {
        std::vector<int> group_node(b_.groups.size(), -1);
        for (const auto& g : b_.groups) {
            auto members = shown_members(g);
            if (members.empty()) continue;
            ViewNode vn;
            vn.name = group_name(g.id);
            vn.kind = ViewNodeKind::group;
            vn.cluster = common_parent(members);
            vn.group = &g;
            vn.op = &b_.nodes[static_cast<std::size_t>(members.front())];
            vn.local = vn.name;
            group_node[static_cast<std::size_t>(&g - b_.groups.data())] = add_node(std::move(vn));
        }
        std::vector<int> stub_index(b_.groups.size(), -1);
        auto stub = [&](std::size_t gi, bool incoming) {
            if (stub_index[gi] < 0) {
                const auto& g = b_.groups[gi];
                ViewNode vn;
                vn.name = group_name(g.id);
                vn.kind = ViewNodeKind::stub;
                vn.group = &g;
                if (!g.nodes.empty() && g.nodes.front() >= 0 && static_cast<std::size_t>(g.nodes.front()) < b_.nodes.size())
                    vn.op = &b_.nodes[static_cast<std::size_t>(g.nodes.front())];
                vn.local = vn.name;
                vn.incoming = incoming;
                stub_index[gi] = add_node(std::move(vn));
            }
            return stub_index[gi];
        };
        // One edge per (producer group, reader group, tensor, format), in order of first use.
        std::map<std::tuple<int, int, std::string, std::string>, std::size_t> merged;
        for (const auto& e : b_.edges) {
            if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= b_.nodes.size() ||
                static_cast<std::size_t>(e.to) >= b_.nodes.size())
                continue;
            const Node& nf = b_.nodes[static_cast<std::size_t>(e.from)];
            const Node& nt = b_.nodes[static_cast<std::size_t>(e.to)];
            if (!group_of(nf) || !group_of(nt) || nf.group == nt.group) continue;  // inside one kernel
            auto gf = static_cast<std::size_t>(nf.group), gt = static_cast<std::size_t>(nt.group);
            bool sf = group_node[gf] >= 0, st = group_node[gt] >= 0;
            if (!sf && !st) continue;
            int from = sf ? group_node[gf] : stub(gf, true);
            int to = st ? group_node[gt] : stub(gt, false);
            auto key = std::make_tuple(from, to, e.id, std::string(e.format.name()));
            auto it = merged.find(key);
            if (it != merged.end()) {
                ViewEdge& ve = v_.edges[it->second];
                ++ve.readers;
                if (e.bytes_per_token) ve.bytes_per_token = ve.bytes_per_token.value_or(0) + *e.bytes_per_token;
                continue;
            }
            ViewEdge ve;
            ve.from = from;
            ve.to = to;
            ve.edge = &e;
            ve.format = e.format;
            ve.bytes_per_token = e.bytes_per_token;
            ve.fused = false;
            merged.emplace(std::move(key), v_.edges.size());
            v_.edges.push_back(std::move(ve));
        }
    }

    struct Instance {
        const schema::Template* t = nullptr;
        std::optional<std::int64_t> layer;
        std::size_t base = 0;  // index of its first node in the flat list
        std::string placement;
    };

    Status build_collapsed() {
        if (b_.collapsed) {
            v_.collapsed = std::shared_ptr<const schema::Collapsed>(std::shared_ptr<void>(), &*b_.collapsed);
        } else {
            auto c = schema::collapse_layers(b_, {.detail = false});
            if (!c)
                return make_error(ErrorCode::unsupported, c.error().where,
                                  "no collapsed form, and the layers cannot be collapsed: " + c.error().message);
            v_.collapsed = std::make_shared<const schema::Collapsed>(std::move(*c));
        }
        const schema::Collapsed& c = *v_.collapsed;

        // The instances in plan order, each with the index of its first flat node.
        std::vector<Instance> seq;
        std::size_t base = 0;
        auto add = [&](const std::string& name, std::optional<std::int64_t> layer, const char* placement) -> Status {
            const schema::Template* t = c.find(name);
            if (!t) return make_error(ErrorCode::invalid_input, "/collapsed", "unknown template '" + name + "'");
            seq.push_back({t, layer, base, placement});
            base += t->nodes.size();
            return Ok{};
        };
        for (const auto& name : c.prologue)
            if (auto s = add(name, std::nullopt, "prologue"); !s) return s;
        for (std::size_t i = 0; i < c.layout.size(); ++i)
            if (auto s = add(c.layout[i], static_cast<std::int64_t>(i), "layers"); !s) return s;
        for (const auto& name : c.epilogue)
            if (auto s = add(name, std::nullopt, "epilogue"); !s) return s;
        if (base != b_.nodes.size())
            return make_error(ErrorCode::invalid_input, "/collapsed",
                              "the templates hold " + std::to_string(base) + " ops, the flat list " +
                                  std::to_string(b_.nodes.size()));

        // Out-edges of each flat node, to find the flat edge a template edge stands for.
        std::vector<std::vector<std::size_t>> out_edges(b_.nodes.size());
        for (std::size_t i = 0; i < b_.edges.size(); ++i) {
            auto f = b_.edges[i].from;
            if (f >= 0 && static_cast<std::size_t>(f) < b_.nodes.size()) out_edges[static_cast<std::size_t>(f)].push_back(i);
        }
        auto flat_edge = [&](std::size_t from, std::size_t to, std::size_t nth) -> const schema::Edge* {
            for (auto i : out_edges[from])
                if (static_cast<std::size_t>(b_.edges[i].to) == to && nth-- == 0) return &b_.edges[i];
            return nullptr;
        };

        // Templates in order of first use, with their instances.
        struct Shown {
            const Instance* first = nullptr;
            std::vector<std::int64_t> layers;
            std::string placement;
            bool selected = false;
        };
        std::vector<const schema::Template*> order;
        std::map<const schema::Template*, Shown> info;  // lookup only; output follows `order`
        for (const auto& inst : seq) {
            auto [it, fresh] = info.try_emplace(inst.t);
            if (fresh) {
                order.push_back(inst.t);
                it->second.first = &inst;
                it->second.placement = inst.placement;
            }
            if (inst.layer) it->second.layers.push_back(*inst.layer);
            const auto& layers = v_.options.layers;
            if (!layers ? true : inst.layer && std::binary_search(layers->begin(), layers->end(), *inst.layer))
                it->second.selected = true;
        }

        std::map<const schema::Template*, std::vector<int>> node_of;  // template-local index -> view node
        for (const auto* t : order) {
            Shown& s = info[t];
            auto& nodes = node_of[t];
            nodes.assign(t->nodes.size(), -1);
            if (!s.selected) continue;
            std::vector<char> shown(t->nodes.size(), 0);
            bool any = false;
            for (std::size_t i = 0; i < t->nodes.size(); ++i) {
                const Node& rep = b_.nodes[s.first->base + i];
                const auto& block = v_.options.block;
                shown[i] = block.empty() || block_matches(rep, block) || block_of_local(t->nodes[i].id) == block;
                any = any || shown[i];
            }
            if (!any) continue;
            ViewCluster tc;
            tc.name = "cluster_t:" + t->name;
            tc.kind = ClusterKind::layer_template;
            tc.layer_template = t;
            tc.placement = s.placement;
            tc.instances = s.layers;
            int template_cluster = add_cluster(std::move(tc));
            std::map<std::string, int> blocks;
            std::map<std::int64_t, int> groups;  // local group -> cluster (-1: none)
            auto block_cluster_of = [&](const std::string& block) {
                auto [it, fresh] = blocks.try_emplace(block, -1);
                if (fresh) {
                    ViewCluster bc;
                    bc.name = "cluster_t:" + t->name + "/" + block;
                    bc.kind = ClusterKind::block;
                    bc.block = block;
                    bc.parent = template_cluster;
                    it->second = add_cluster(std::move(bc));
                }
                return it->second;
            };
            for (std::size_t i = 0; i < t->nodes.size(); ++i) {
                if (!shown[i]) continue;
                const auto& tn = t->nodes[i];
                std::string block = block_of_local(tn.id);
                int cluster = block_cluster_of(block);
                auto [git, fresh] = groups.try_emplace(tn.group, -1);
                if (fresh) {
                    std::vector<std::size_t> members;
                    bool same_block = true;
                    for (std::size_t j = 0; j < t->nodes.size(); ++j)
                        if (shown[j] && t->nodes[j].group == tn.group) {
                            members.push_back(j);
                            same_block = same_block && block_of_local(t->nodes[j].id) == block;
                        }
                    if (members.size() >= 2) {
                        const Node& rep = b_.nodes[s.first->base + i];
                        ViewCluster gc;
                        gc.name = "cluster_t:" + t->name + "/g" + std::to_string(tn.group);
                        gc.kind = ClusterKind::group;
                        gc.group = group_of(rep);
                        gc.group_id = tn.group;
                        gc.parent = same_block ? cluster : template_cluster;
                        git->second = add_cluster(std::move(gc));
                    }
                }
                if (git->second >= 0) cluster = git->second;
                ViewNode vn;
                vn.name = t->name + "/" + tn.id;
                vn.kind = ViewNodeKind::op;
                vn.cluster = cluster;
                vn.op = &b_.nodes[s.first->base + i];
                vn.local = tn.id;
                nodes[i] = add_node(std::move(vn));
            }
            // The template's own edges; the k-th edge between the same two ops is the k-th flat one.
            std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> seen;
            for (const auto& te : t->edges) {
                if (te.from < 0 || te.to < 0 || static_cast<std::size_t>(te.from) >= nodes.size() ||
                    static_cast<std::size_t>(te.to) >= nodes.size())
                    continue;
                std::size_t nth = seen[{te.from, te.to}]++;
                int from = nodes[static_cast<std::size_t>(te.from)], to = nodes[static_cast<std::size_t>(te.to)];
                if (from < 0 || to < 0) continue;
                ViewEdge ve;
                ve.from = from;
                ve.to = to;
                ve.edge = flat_edge(s.first->base + static_cast<std::size_t>(te.from),
                                    s.first->base + static_cast<std::size_t>(te.to), nth);
                ve.format = te.format;
                ve.fused = te.fused;
                if (ve.edge) ve.bytes_per_token = ve.edge->bytes_per_token;
                else if (te.detail) ve.bytes_per_token = te.detail->bytes_per_token;
                v_.edges.push_back(std::move(ve));
            }
        }

        // Port edges: the out port of one instance feeds the in ports of the next; one set per
        // pair of consecutive templates, counted over the whole layout.
        struct Transition {
            const Instance* prev;
            const Instance* next;
            std::int64_t count = 0;
        };
        std::vector<Transition> transitions;
        for (std::size_t i = 1; i < seq.size(); ++i) {
            auto it = std::find_if(transitions.begin(), transitions.end(), [&](const Transition& tr) {
                return tr.prev->t == seq[i - 1].t && tr.next->t == seq[i].t;
            });
            if (it == transitions.end()) transitions.push_back({&seq[i - 1], &seq[i], 1});
            else ++it->count;
        }
        for (const auto& tr : transitions) {
            const auto& from_nodes = node_of[tr.prev->t];
            const auto& to_nodes = node_of[tr.next->t];
            for (auto o : tr.prev->t->ports.out) {
                if (o < 0 || static_cast<std::size_t>(o) >= from_nodes.size() || from_nodes[static_cast<std::size_t>(o)] < 0)
                    continue;
                // In ports bucketed by the fused group (cluster) holding them, in port order.
                std::vector<std::pair<int, std::vector<std::int64_t>>> buckets;
                for (auto in : tr.next->t->ports.in) {
                    if (in < 0 || static_cast<std::size_t>(in) >= to_nodes.size() || to_nodes[static_cast<std::size_t>(in)] < 0)
                        continue;
                    int cluster = v_.nodes[static_cast<std::size_t>(to_nodes[static_cast<std::size_t>(in)])].cluster;
                    int key = cluster >= 0 && v_.clusters[static_cast<std::size_t>(cluster)].kind == ClusterKind::group
                                  ? cluster
                                  : -2 - static_cast<int>(in);  // not in a group: a bucket of its own
                    auto it = std::find_if(buckets.begin(), buckets.end(), [&](const auto& bk) { return bk.first == key; });
                    if (it == buckets.end()) buckets.push_back({key, {in}});
                    else it->second.push_back(in);
                }
                for (const auto& [key, ins] : buckets) {
                    ViewEdge ve;
                    ve.from = from_nodes[static_cast<std::size_t>(o)];
                    ve.to = to_nodes[static_cast<std::size_t>(ins.front())];
                    ve.role = EdgeRole::port;
                    ve.transitions = tr.count;
                    for (auto in : ins) ve.in_ports.push_back(to_nodes[static_cast<std::size_t>(in)]);
                    if (key >= 0 && ins.size() > 1) ve.head_cluster = key;
                    ve.edge = flat_edge(tr.prev->base + static_cast<std::size_t>(o),
                                        tr.next->base + static_cast<std::size_t>(ins.front()), 0);
                    if (ve.edge) {
                        ve.format = ve.edge->format;
                        ve.bytes_per_token = ve.edge->bytes_per_token;
                    } else if (const auto& out = b_.nodes[tr.prev->base + static_cast<std::size_t>(o)].precision.output;
                               out && !out->empty()) {
                        ve.format = out->front();
                    }
                    v_.edges.push_back(std::move(ve));
                }
            }
        }
        return Ok{};
    }
};

}  // namespace

Result<View> build_view(const Blueprint& b, const ViewOptions& options) {
    if (b.collapsed_only)
        return make_error(ErrorCode::invalid_input, "", "the blueprint has no flat lists (expand it first)");
    return Builder(b, options).build();
}

}  // namespace kbp::exporters
