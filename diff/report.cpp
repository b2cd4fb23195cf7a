// The two ways a diff is written: a report for people (diff_text) and kbp-diff/v1 JSON for
// scripts (diff_json). Both list items in the diff's order, so the same plans give the same bytes.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "diff/diff.hpp"

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

void section(std::string& out, const char* title, const std::vector<ItemChange>& items, std::size_t max_items) {
    auto c = count(items);
    out += std::string(title) + ": " + std::to_string(c.added) + " added, " + std::to_string(c.removed) + " removed, " +
           std::to_string(c.changed) + " changed\n";
    std::size_t shown = 0;
    for (const auto& item : items) {
        if (max_items && shown == max_items) {
            out += "  ... and " + std::to_string(items.size() - shown) + " more (--max-items 0 lists all)\n";
            break;
        }
        ++shown;
        out += "  ";
        out += mark(item.status);
        out += " " + item.key;
        if (item.status != ChangeKind::changed) {
            out += " (" + std::string(status_name(item.status)) + ")\n";
            continue;
        }
        out += "\n";
        for (const auto& f : item.fields) out += "      " + field_text(f) + "\n";
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

std::string diff_text(const PlanDiff& d, const std::string& name_a, const std::string& name_b, std::size_t max_items) {
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
    section(out, "nodes", d.nodes, max_items);
    section(out, "groups", d.groups, max_items);
    section(out, "edges", d.edges, max_items);
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
