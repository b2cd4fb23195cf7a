#include "planner/state_bytes.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "planner/expr.hpp"

namespace kbp::planner {
namespace {

constexpr std::array<std::string_view, 8> value_names{"context", "rows", "sequences", "cache_bytes", "width", "in_width", "cached_width", "window"};

}  // namespace

std::span<const std::string_view> state_value_names() { return value_names; }

namespace {

// Whether every op the plan took from its architecture is one of `blocks`' (a plan another
// planner wrote names no architecture: kbp's whose blocks it follows may describe its state).
bool follows(const schema::Blueprint& plan, const nlohmann::ordered_json& blocks) {
    for (const auto& n : plan.nodes) {
        if (n.inserted) continue;
        auto block = blocks.find(std::string(n.block_type.name()));
        if (block == blocks.end() || !block->contains("ops") || n.id.size() <= n.block.size()) return false;
        std::string local = n.id.substr(n.block.size() + 1);
        const auto& ops = (*block)["ops"];
        if (std::none_of(ops.begin(), ops.end(), [&](const nlohmann::ordered_json& op) { return op.value("name", std::string()) == local; }))
            return false;
    }
    return true;
}

}  // namespace

StateBytes::StateBytes(const schema::Blueprint& plan, const Catalog& catalog) : plan_(plan) {
    // An edge whose width is one symbol says that symbol's value, for a plan that lists none.
    for (const auto& e : plan.edges)
        if (e.dim && !e.dim->empty() && std::all_of(e.dim->begin(), e.dim->end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
            edge_symbols_.emplace(*e.dim, e.dim_value);
    for (const DataFile* f : catalog.all("ops"))
        if (auto ops = f->json.find("ops"); ops != f->json.end() && ops->is_object())
            for (const auto& [name, spec] : ops->items()) ops_[name] = &spec;
    const schema::JsonValue* named = plan.provenance ? plan.provenance->planner_header.find("architecture") : nullptr;
    std::vector<const DataFile*> candidates;
    for (const DataFile* f : catalog.all("architectures")) {
        auto blocks = f->json.find("blocks");
        if (blocks == f->json.end() || !blocks->is_object()) continue;
        if (named ? named->is_string() && f->name == named->string() : follows(plan, *blocks)) candidates.push_back(f);
    }
    if (candidates.size() == 1) {
        blocks_ = &candidates.front()->json["blocks"];
        if (!named) note_ = "state as " + candidates.front()->origin + " describes it (the plan names no architecture)";
    } else {
        note_ = "state as the ops files describe it: the plan names no architecture of the catalog";
    }
}

Result<std::int64_t> StateBytes::of(const schema::Node& n, const StateValues& v, Measure measure) const {
    const char* key = measure == moved ? "state_bytes" : measure == held ? "state_held" : "flops";
    const nlohmann::ordered_json* spec = nullptr;
    // The node's op in its architecture: block type, then the name after "<block>.".
    if (blocks_ && n.id.size() > n.block.size() && n.id.compare(0, n.block.size(), n.block) == 0) {
        std::string local = n.id.substr(n.block.size() + 1);
        if (auto block = blocks_->find(std::string(n.block_type.name())); block != blocks_->end())
            if (auto ops = block->find("ops"); ops != block->end() && ops->is_array())
                for (const auto& op : *ops)
                    if (op.value("name", std::string()) == local && op.contains(key)) spec = &op;
    }
    if (!spec)
        if (auto it = ops_.find(std::string(n.op.kind.name())); it != ops_.end() && it->second->contains(key)) spec = it->second;
    if (!spec) return std::int64_t{0};
    const auto& text = (*spec)[key];
    if (!text.is_string()) return std::int64_t{0};
    const std::array<std::int64_t, 8> values{v.context, v.rows, v.sequences, v.cache_bytes, v.width, v.in_width, v.cached_width, v.window};
    return eval_expr(text.get<std::string>(), [&](std::string_view name) -> std::optional<std::int64_t> {
        for (std::size_t i = 0; i < value_names.size(); ++i)
            if (value_names[i] == name) return values[i];
        if (auto s = plan_.symbol(name)) return s;
        if (auto e = edge_symbols_.find(std::string(name)); e != edge_symbols_.end()) return e->second;
        return std::nullopt;
    });
}

}  // namespace kbp::planner
