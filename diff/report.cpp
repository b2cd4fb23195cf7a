// The two ways a diff is written: a report for people (diff_text) and kbp-diff/v1 JSON for
// scripts (diff_json). Both list items in the diff's order, so the same plans give the same bytes.
#include <cstdio>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "diff/diff.hpp"
#include "schema/stats.hpp"

namespace kbp::diff {
namespace {

using J = nlohmann::ordered_json;

// Plain names of the totals, for the report.
const char* total_title(const std::string& name) {
    if (name == "launches") return "kernel launches";
    if (name == "host_steps") return "host steps";
    if (name == "quant_points") return "quantization points";
    if (name == "requant_edges") return "re-quantized edges";
    if (name == "fused_edges") return "fused edges";
    if (name == "bytes_between_kernels") return "bytes per token between kernels";
    return name.c_str();
}

std::string signed_text(std::int64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+lld", static_cast<long long>(v));
    return buf;
}

std::string field_text(const FieldChange& f) {
    return f.field + ": " + shown_value(f.before) + " -> " + shown_value(f.after);
}

char mark(ChangeKind s) {
    switch (s) {
        case ChangeKind::added: return '+';
        case ChangeKind::removed: return '-';
        case ChangeKind::changed: return '~';
    }
    return '~';
}

// ---- one change made in many layers, listed once ----------------------------------------------
//
// A recipe or an arm changes the same ops of every layer the same way: a 36-layer model's diff
// was 36 copies of each change. The report lists a change once with the layers it is made in when
// the items differ only by their layer: every id in the key and in the field values is read
// relative to the item's layer ("l7.attn.q" in layer 7 is "l*.attn.q"; "l8.x" is "l*+1.x").

// Where a layer prefix "l<digits>." starts a name (at the start, or after a quote, space, bracket
// or comma): its number and the index after the '.'.
struct LayerRef {
    std::size_t begin = 0, end = 0;
    std::int64_t layer = 0;
};
std::optional<LayerRef> next_layer_ref(const std::string& s, std::size_t from) {
    for (std::size_t i = from; i + 2 < s.size(); ++i) {
        if (s[i] != 'l' || (i > 0 && s[i - 1] != '"' && s[i - 1] != ' ' && s[i - 1] != '[' && s[i - 1] != ',')) continue;
        std::size_t j = i + 1;
        std::int64_t n = 0;
        while (j < s.size() && j - i <= 9 && s[j] >= '0' && s[j] <= '9') n = n * 10 + (s[j++] - '0');
        if (j > i + 1 && j < s.size() && s[j] == '.') return LayerRef{i, j + 1, n};
    }
    return std::nullopt;
}

// `s` with every layer prefix written relative to `base`: "l*.", "l*+1.", "l*-2.".
std::string relative_to(const std::string& s, std::int64_t base) {
    std::string out;
    std::size_t at = 0;
    while (auto ref = next_layer_ref(s, at)) {
        out.append(s, at, ref->begin - at);
        const std::int64_t d = ref->layer - base;
        out += d == 0 ? "l*." : "l*" + signed_text(d) + ".";
        at = ref->end;
    }
    return out.append(s, at, std::string::npos);
}

// Items that are one change made in several layers.
struct Folded {
    const ItemChange* first = nullptr;
    std::string key;                  // relative to the layer ("l*.attn.q"), or the item's own key
    std::vector<FieldChange> fields;  // likewise
    std::vector<std::int64_t> layers;  // empty: not in a layer
};

std::vector<Folded> fold_layers(const std::vector<ItemChange>& items) {
    std::vector<Folded> out;
    std::map<std::string, std::size_t> by_signature;  // status, key and fields, relative -> entry
    for (const auto& item : items) {
        auto ref = next_layer_ref(item.key, 0);
        if (!ref || ref->begin != 0) {
            out.push_back({&item, item.key, item.fields, {}});
            continue;
        }
        Folded f{&item, relative_to(item.key, ref->layer), {}, {ref->layer}};
        std::string signature = std::string(status_name(item.status)) + "\n" + f.key;
        for (const auto& field : item.fields) {
            f.fields.push_back({field.field, relative_to(field.before, ref->layer), relative_to(field.after, ref->layer)});
            signature += "\n" + field.field + "\n" + f.fields.back().before + "\n" + f.fields.back().after;
        }
        auto [it, fresh] = by_signature.try_emplace(signature, out.size());
        if (fresh) out.push_back(std::move(f));
        else out[it->second].layers.push_back(ref->layer);
    }
    // One layer alone reads best as itself.
    for (auto& f : out)
        if (f.layers.size() == 1) {
            f.key = f.first->key;
            f.fields = f.first->fields;
            f.layers.clear();
        }
    return out;
}

void section(std::string& out, const char* title, const std::vector<ItemChange>& items, std::size_t max_items, bool fold) {
    auto c = count(items);
    out += std::string(title) + ": " + std::to_string(c.added) + " added, " + std::to_string(c.removed) + " removed, " +
           std::to_string(c.changed) + " changed\n";
    std::vector<Folded> entries;
    if (fold) entries = fold_layers(items);
    else
        for (const auto& item : items) entries.push_back({&item, item.key, item.fields, {}});
    std::size_t shown = 0;
    for (const auto& e : entries) {
        if (max_items && shown == max_items) {
            out += "  ... and " + std::to_string(entries.size() - shown) + " more (--max-items 0 lists all)\n";
            break;
        }
        ++shown;
        out += "  ";
        out += mark(e.first->status);
        out += " " + e.key;
        if (e.first->status != ChangeKind::changed) out += " (" + std::string(status_name(e.first->status)) + ")";
        if (!e.layers.empty())
            out += "  in " + std::to_string(e.layers.size()) + " layers: " + schema::ranges_text(e.layers);
        out += "\n";
        if (e.first->status == ChangeKind::changed)
            for (const auto& f : e.fields) out += "      " + field_text(f) + "\n";
    }
}

J json_value(const std::string& json) {
    if (json.empty()) return nullptr;
    return J::parse(json);
}

J items_json(const std::vector<ItemChange>& items, const char* key_name) {
    auto c = count(items);
    J list = J::array();
    for (const auto& item : items) {
        J o = J::object();
        o["status"] = std::string(status_name(item.status));
        o[key_name] = item.key;
        o["index_a"] = item.index_a ? J(*item.index_a) : J(nullptr);
        o["index_b"] = item.index_b ? J(*item.index_b) : J(nullptr);
        J fields = J::array();
        for (const auto& f : item.fields)
            fields.push_back({{"field", f.field}, {"before", json_value(f.before)}, {"after", json_value(f.after)}});
        o["fields"] = std::move(fields);
        list.push_back(std::move(o));
    }
    return {{"added", c.added}, {"removed", c.removed}, {"changed", c.changed}, {"items", std::move(list)}};
}

J side_json(const schema::Blueprint& b, const std::string& name) {
    return {{"file", name},
            {"arm", {{"mode", std::string(b.arm.mode.name())}, {"rows", b.arm.rows}}},
            {"nodes", b.nodes.size()},
            {"edges", b.edges.size()},
            {"groups", b.groups.size()}};
}

}  // namespace

std::string diff_text(const PlanDiff& d, const std::string& name_a, const std::string& name_b, std::size_t max_items, bool fold) {
    std::string out = "a: " + name_a + "\nb: " + name_b + "\n";
    if (d.equal()) return out + "the plans are equal\n";
    for (const auto& f : d.plan) out += "plan " + field_text(f) + "\n";
    bool any = false;
    for (const auto& t : d.totals) {
        if (!t.moved()) continue;
        if (!any) out += "totals that moved:\n";
        any = true;
        char line[160];
        std::snprintf(line, sizeof line, "  %-32s %14lld -> %-14lld (%s)\n", total_title(t.name), static_cast<long long>(t.before),
                      static_cast<long long>(t.after), signed_text(t.after - t.before).c_str());
        out += line;
    }
    section(out, "nodes", d.nodes, max_items, fold);
    section(out, "groups", d.groups, max_items, fold);
    section(out, "edges", d.edges, max_items, fold);
    return out;
}

std::string diff_json(const PlanDiff& d, const schema::Blueprint& a, const schema::Blueprint& b, const std::string& name_a,
                      const std::string& name_b) {
    J o = J::object();
    o["schema"] = "kbp-diff/v1";
    o["a"] = side_json(a, name_a);
    o["b"] = side_json(b, name_b);
    o["equal"] = d.equal();
    J plan = J::array();
    for (const auto& f : d.plan) plan.push_back({{"field", f.field}, {"before", json_value(f.before)}, {"after", json_value(f.after)}});
    o["plan"] = std::move(plan);
    J totals = J::array();
    for (const auto& t : d.totals)
        totals.push_back({{"name", t.name}, {"before", t.before}, {"after", t.after}, {"delta", t.after - t.before}});
    o["totals"] = std::move(totals);
    o["nodes"] = items_json(d.nodes, "id");
    o["groups"] = items_json(d.groups, "first_node");
    o["edges"] = items_json(d.edges, "key");
    return o.dump(2) + "\n";
}

}  // namespace kbp::diff
