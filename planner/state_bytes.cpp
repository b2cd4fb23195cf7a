#include "planner/state_bytes.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "planner/expr.hpp"
#include "planner/settings_types.hpp"

namespace kbp::planner {
namespace {

constexpr std::array<std::string_view, 8> value_names{"context", "rows", "sequences", "cache_bytes", "width", "in_width", "cached_width", "window"};
constexpr std::array<std::string_view, 3> cost_names{"context", "rows", "sequences"};

std::string_view cache_dtype(const schema::Node& n) {
    for (const auto& s : n.steps) {
        std::string_view step = s.view();
        if (step.rfind("cache ", 0) == 0) return step.substr(6);
    }
    return "";
}

// What one cached token holds for the state node `i` reads: the input widths of the op before
// it in its block that writes that state; nullopt when it reads none or no writer precedes it.
std::optional<std::int64_t> cached_width(const schema::Blueprint& b, const Wiring& wiring, std::size_t i) {
    if (!b.nodes[i].state) return std::nullopt;
    const auto& roles = *b.nodes[i].state;
    auto read = std::find_if(roles.begin(), roles.end(), [](const schema::StateRole& r) { return r.action.id == schema::StateActionId::read; });
    if (read == roles.end()) return std::nullopt;
    for (std::size_t k = i; k-- > 0 && b.nodes[k].block == b.nodes[i].block;) {
        const auto& ws = b.nodes[k].state;
        bool writer = ws && std::any_of(ws->begin(), ws->end(), [&](const schema::StateRole& w) {
                          return w.state == read->state && w.action.id == schema::StateActionId::write;
                      });
        if (!writer) continue;
        std::int64_t width = 0;
        for (const auto* e : wiring.in[k]) width += e->dim_value;
        return width == 0 ? std::nullopt : std::optional<std::int64_t>(width);
    }
    return std::nullopt;
}

}  // namespace

std::span<const std::string_view> state_value_names() { return value_names; }
std::span<const std::string_view> node_cost_names() { return cost_names; }

Wiring wire(const schema::Blueprint& b) {
    Wiring w;
    w.in.resize(b.nodes.size());
    w.out.resize(b.nodes.size());
    for (const auto& e : b.edges) {
        if (e.to >= 0 && e.to < static_cast<std::int64_t>(b.nodes.size())) w.in[e.to].push_back(&e);
        if (e.from >= 0 && e.from < static_cast<std::int64_t>(b.nodes.size())) w.out[e.from].push_back(&e);
    }
    return w;
}

StateValues state_values(const schema::Blueprint& b, const Wiring& wiring, std::size_t i, std::int64_t context, std::int64_t rows,
                         std::int64_t sequences) {
    const schema::Node& n = b.nodes[i];
    StateValues v;
    v.context = context;
    v.rows = rows;
    v.sequences = sequences;
    v.cache_dtype = std::string(cache_dtype(n));
    v.width = wiring.in[i].empty() ? 0 : wiring.in[i].front()->dim_value;
    for (const auto* e : wiring.in[i]) v.in_width += e->dim_value;
    v.cached_width = cached_width(b, wiring, i).value_or(v.width);
    // A sliding-window layer keeps (and reads) only its window of tokens.
    v.window = context;
    if (auto window = b.symbol("sliding_window"); window && *window > 0 && n.kind && n.kind->id == schema::LayerKindId::sliding_attention) {
        v.sliding_window = *window;
        v.window = std::min<std::int64_t>(context, *window);
    }
    return v;
}

namespace {

// Whether every op the plan took from its architecture is one of `blocks`' (a plan another
// planner wrote names no architecture: kbp's whose blocks it follows may describe its state).
bool follows(const schema::Blueprint& plan, const nlohmann::ordered_json& blocks) {
    for (const auto& n : plan.nodes) {
        if (n.inserted) continue;
        auto block = blocks.find(std::string(n.block_type.view()));
        if (block == blocks.end() || !block->contains("ops") || n.id.size() <= n.block.size()) return false;
        std::string local = n.id.substr(n.block.size() + 1);
        const auto& ops = (*block)["ops"];
        if (std::none_of(ops.begin(), ops.end(), [&](const nlohmann::ordered_json& op) { return op.value("name", std::string()) == local; }))
            return false;
    }
    return true;
}

}  // namespace

StateBytes::StateBytes(const schema::Blueprint& plan, const Catalog& catalog) : plan_(plan), catalog_(catalog) {
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

const char* StateBytes::key(Measure measure) { return measure == moved ? "state_bytes" : measure == held ? "state_held" : "flops"; }

const nlohmann::ordered_json* StateBytes::spec(const schema::Node& n, Measure measure) const {
    const char* k = key(measure);
    const nlohmann::ordered_json* spec = nullptr;
    // The node's op in its architecture: block type, then the name after "<block>.".
    if (blocks_ && n.id.size() > n.block.size() && n.id.compare(0, n.block.size(), n.block) == 0) {
        std::string local = n.id.substr(n.block.size() + 1);
        if (auto block = blocks_->find(std::string(n.block_type.view())); block != blocks_->end())
            if (auto ops = block->find("ops"); ops != block->end() && ops->is_array())
                for (const auto& op : *ops)
                    if (op.value("name", std::string()) == local && op.contains(k)) spec = &op;
    }
    if (!spec)
        if (auto it = ops_.find(std::string(n.op.kind.name())); it != ops_.end() && it->second->contains(k)) spec = it->second;
    if (!spec || !(*spec)[k].is_string()) return nullptr;
    return &(*spec)[k];
}

std::optional<std::int64_t> StateBytes::value(std::string_view name, const StateValues& v) const {
    if (name == "cache_bytes") return v.cache_dtype.empty() ? std::optional<std::int64_t>(2) : cache_bytes_per_value(catalog_, v.cache_dtype);
    const std::array<std::int64_t, 8> values{v.context, v.rows, v.sequences, 0, v.width, v.in_width, v.cached_width, v.window};
    for (std::size_t i = 0; i < value_names.size(); ++i)
        if (value_names[i] == name) return values[i];
    if (auto s = plan_.symbol(name)) return s;
    if (auto e = edge_symbols_.find(std::string(name)); e != edge_symbols_.end()) return e->second;
    return std::nullopt;
}

Status StateBytes::cache_known(const std::string& text, const StateValues& v) const {
    if (v.cache_dtype.empty() || cache_bytes_per_value(catalog_, v.cache_dtype)) return Ok{};
    auto names = expr_names(text);
    if (!names || std::find(names->begin(), names->end(), "cache_bytes") == names->end()) return Ok{};
    return make_error(ErrorCode::invalid_input, "", "its step 'cache " + v.cache_dtype + "' names no KV cache format kbp knows (kv_cache_dtype " +
                                                        cache_dtype_names(catalog_) + "), so its bytes are unknown");
}

Result<std::int64_t> StateBytes::of(const schema::Node& n, const StateValues& v, Measure measure) const {
    const auto* text = spec(n, measure);
    if (!text) return std::int64_t{0};
    if (auto s = cache_known(text->get<std::string>(), v); !s) return s.error();
    return eval_expr(text->get<std::string>(), [&](std::string_view name) { return value(name, v); });
}

Result<std::string> StateBytes::recorded(const schema::Node& n, const StateValues& v, Measure measure) const {
    const auto* spec_text = spec(n, measure);
    if (!spec_text) return std::string();
    const std::string text = spec_text->get<std::string>();
    if (auto s = cache_known(text, v); !s) return s.error();
    if (auto checked = eval_expr(text, [&](std::string_view name) { return value(name, v); }); !checked) return checked.error();
    // Names become their values, except the step's own; a function name (before '(') stays.
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        char c = text[i];
        if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) {
            out += c;
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
        std::string_view name(text.data() + i, end - i);
        std::size_t next = text.find_first_not_of(' ', end);
        if ((next != std::string::npos && text[next] == '(') || std::find(cost_names.begin(), cost_names.end(), name) != cost_names.end())
            out += name;
        else if (name == "window")
            out += v.sliding_window > 0 ? "min(context, " + std::to_string(v.sliding_window) + ")" : std::string("context");
        else
            out += std::to_string(*value(name, v));  // known: the expression evaluated above
        i = end;
    }
    return out;
}

void record_node_costs(schema::Blueprint& b, const Catalog& catalog) {
    const StateBytes state(b, catalog);
    const Wiring wiring = wire(b);
    schema::JsonObject costs;
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        // Any context, rows and sequences: they stay names in what is recorded.
        StateValues v = state_values(b, wiring, i, 1, b.arm.rows, 1);
        schema::JsonObject entry;
        for (auto measure : {StateBytes::moved, StateBytes::held, StateBytes::flops}) {
            if (measure != StateBytes::flops && !(b.nodes[i].state && !b.nodes[i].state->empty())) continue;
            auto text = state.recorded(b.nodes[i], v, measure);
            if (text && !text->empty()) entry.emplace_back(StateBytes::key(measure), *text);
        }
        if (!entry.empty()) costs.emplace_back(b.nodes[i].id, std::move(entry));
    }
    if (!costs.empty()) b.node_costs = std::move(costs);
}

Result<std::int64_t> eval_node_cost(std::string_view expression, std::int64_t context, std::int64_t rows, std::int64_t sequences) {
    const std::array<std::int64_t, 3> values{context, rows, sequences};
    return eval_expr(expression, [&](std::string_view name) -> std::optional<std::int64_t> {
        for (std::size_t i = 0; i < cost_names.size(); ++i)
            if (cost_names[i] == name) return values[i];
        return std::nullopt;
    });
}

}  // namespace kbp::planner
