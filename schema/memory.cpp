#include "schema/memory.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "schema/bytes.hpp"
#include "schema/numbers.hpp"

namespace kbp::schema {
namespace {

bool has_unknown(const Node& n) {
    auto unknown = [](const std::optional<Format>& f) { return f && f->id == FormatId::fx32 && fx32_fraction_bits(*f) < 0; };
    if (unknown(n.precision.weight) || unknown(n.precision.activation)) return true;
    if (n.precision.output)
        for (const auto& f : *n.precision.output)
            if (unknown(f)) return true;
    if (n.template_args)
        for (const auto& a : *n.template_args)
            if (!a.value) return true;
    return false;
}

std::string billions(std::int64_t n) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1fB", static_cast<double>(n) / 1e9);
    return text;
}

}  // namespace

std::optional<std::int64_t> plan_value(const Blueprint& b, std::string_view name) {
    if (auto s = b.symbol(name)) return s;
    for (const auto& e : b.edges)
        if (e.dim && e.dim->view() == name) return e.dim_value;
    return std::nullopt;
}

PlanFigures plan_figures(const Blueprint& b) {
    PlanFigures f{b.symbol("vocab"), b.symbol("experts"), b.symbol("top_k")};
    if (f.vocab && f.experts && f.top_k) return f;
    for (const auto& e : b.edges) {
        if (!e.dim) continue;
        std::string_view dim = e.dim->view();
        if (!f.vocab && dim == "vocab") f.vocab = e.dim_value;
        if (!f.experts && dim == "experts") f.experts = e.dim_value;
        if (!f.top_k && dim == "top_k") f.top_k = e.dim_value;
    }
    return f;
}

WeightUse weight_use(const Blueprint& b, const Node& n, const Edge* in, const Edge* out, const PlanFigures* figures) {
    WeightUse w;
    if (!n.precision.weight) return w;
    const Format& f = *n.precision.weight;
    w.k = in ? in->dim_value : (out ? out->dim_value : 0);
    w.n = out ? out->dim_value : w.k;
    // A weight its edges do not show (latent attention's absorbed up-projections) gives its shape.
    const auto* wn = n.point.find("weight_n");
    const auto* wk = n.point.find("weight_k");
    if (wn && wk && wn->is_integer() && wk->is_integer()) {
        w.kind = WeightKind::matrix;
        w.n = wn->integer();
        w.k = wk->integer();
        w.bytes_per_matrix = weight_bytes(f, w.n, w.k).value_or(0);
        w.stored_bytes = w.bytes_per_matrix;
        return w;
    }
    switch (n.op.kind.id) {
        case OpId::embed: {
            w.kind = WeightKind::table;
            w.n = out ? out->dim_value : 0;
            w.matrices = (figures ? figures->vocab : plan_value(b, "vocab")).value_or(0);
            w.bytes_per_matrix = row_bytes(f, w.n).value_or(0);
            w.stored_bytes = w.matrices * w.bytes_per_matrix;
            return w;
        }
        case OpId::smooth_mul:
        case OpId::rms_norm:
        case OpId::final_norm:
        case OpId::layer_norm:
            w.kind = WeightKind::vector;
            w.bytes_per_matrix = row_bytes(f, w.n).value_or(0);
            w.stored_bytes = w.bytes_per_matrix;
            return w;
        case OpId::expert_gate_up:
        case OpId::expert_down:
            w.kind = WeightKind::experts;
            w.matrices = (figures ? figures->experts : plan_value(b, "experts")).value_or(0);  // 0: neither symbols nor edges say how many
            break;
        default: w.kind = WeightKind::matrix; break;
    }
    if (!in || !out) {
        w.kind = WeightKind::none;
        return w;
    }
    w.bytes_per_matrix = weight_bytes(f, w.n, w.k).value_or(0);
    w.stored_bytes = w.bytes_per_matrix * w.matrices;
    return w;
}

NodeEdges first_edges(const Blueprint& b) {
    const std::size_t count = b.nodes.size();
    NodeEdges out{std::vector<const Edge*>(count, nullptr), std::vector<const Edge*>(count, nullptr)};
    for (const auto& e : b.edges) {
        if (e.to >= 0 && static_cast<std::size_t>(e.to) < count && !out.first_in[e.to] && e.format.id != FormatId::i32) out.first_in[e.to] = &e;
        if (e.from >= 0 && static_cast<std::size_t>(e.from) < count && !out.first_out[e.from]) out.first_out[e.from] = &e;
    }
    return out;
}

TiedEmbedding tied_embedding(const Blueprint& b, const NodeEdges& edges, const PlanFigures& figures) {
    TiedEmbedding t;
    const JsonValue* tie = b.config_field("tie_word_embeddings");
    if (!tie || *tie != JsonValue(true)) return t;
    WeightUse table_use, head_use;
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        const Node& n = b.nodes[i];
        if (!n.precision.weight) continue;
        if (n.op.kind.id == OpId::embed && !t.table) t.table = &n, table_use = weight_use(b, n, edges.first_in[i], edges.first_out[i], &figures);
        if (n.op.kind.id == OpId::lm_head && !t.head) t.head = &n, head_use = weight_use(b, n, edges.first_in[i], edges.first_out[i], &figures);
    }
    t.shared_parameters = t.table && t.head;
    t.stored_once = t.shared_parameters && *t.head->precision.weight == *t.table->precision.weight && head_use.kind == WeightKind::matrix &&
                    table_use.kind == WeightKind::table && table_use.matrices > 0 && head_use.n * head_use.k == table_use.matrices * table_use.n;
    return t;
}

MemoryReport compute_memory(const Blueprint& b) {
    MemoryReport m;
    m.mtp = b.mtp;
    const std::size_t count = b.nodes.size();
    const NodeEdges edges = first_edges(b);
    const auto& first_in = edges.first_in;
    const auto& first_out = edges.first_out;
    std::map<std::string, std::int64_t> by_format;
    std::map<std::int64_t, std::int64_t> reserved;
    const PlanFigures figures = plan_figures(b);
    const std::int64_t top_k = figures.top_k.value_or(1);
    const TiedEmbedding tied = tied_embedding(b, edges, figures);
    const Node* head = tied.head;
    const bool shared_parameters = tied.shared_parameters;
    const bool stored_once = tied.stored_once;
    for (std::size_t i = 0; i < count; ++i) {
        const Node& n = b.nodes[i];
        auto add_parameters = [&](std::int64_t own, std::int64_t active) {
            m.parameters += own;
            m.active_parameters += active;
            if (n.layer) m.layer_parameters += own;
        };
        // Parameters (elements, whatever their format).
        const WeightUse w = n.precision.weight ? weight_use(b, n, first_in[i], first_out[i], &figures) : WeightUse{};
        if (n.precision.weight) {
            std::int64_t each = 0, matrices = 1;
            switch (w.kind) {
                case WeightKind::matrix: each = w.n * w.k; break;
                case WeightKind::experts: each = w.n * w.k, matrices = w.matrices; break;
                case WeightKind::vector: each = w.n; break;
                case WeightKind::table: each = w.n, matrices = w.matrices; break;
                case WeightKind::none: break;
            }
            // A bias (point.bias) adds one vector of the output's width per matrix.
            const auto* bias = n.point.find("bias");
            const std::int64_t bias_each = bias && *bias == JsonValue(true) && (w.kind == WeightKind::matrix || w.kind == WeightKind::experts) ? w.n : 0;
            // What the node owns, and what one token reads of it: top_k of the routed experts,
            // one row of a table, all of the rest. A tied head owns only its bias (its matrix is
            // the table's), and the table is then read whole (the head streams it).
            const bool shared_head = shared_parameters && &n == head;
            const std::int64_t own = shared_head ? bias_each : (each + bias_each) * matrices;
            std::int64_t active = w.kind == WeightKind::experts                         ? (each + bias_each) * std::min(top_k, matrices)
                                  : w.kind == WeightKind::table && !shared_parameters ? each
                                                                                      : own;
            // Active <= total by construction: what a token reads of a node's weight is part of it
            // (a table or experts of unknown count own 0 here and read none).
            add_parameters(own, std::min(active, own));
        } else if (const auto* sinks = n.point.find("sinks"); sinks && sinks->is_integer()) {
            add_parameters(sinks->integer(), sinks->integer());  // one learned attention-sink logit per head
        } else if ((n.op.kind.id == OpId::rms_norm || n.op.kind.id == OpId::final_norm || n.op.kind.id == OpId::layer_norm) && first_out[i]) {
            // The norm's scale: its output's width, or point.scale (per-head q/k norms share one head's);
            // a LayerNorm with a bias (point.bias: StarCoder2's nn.LayerNorm) has a shift as wide.
            const auto* scale = n.point.find("scale");
            const auto* bias = n.point.find("bias");
            std::int64_t width = scale && scale->is_integer() ? scale->integer() : first_out[i]->dim_value;
            if (bias && *bias == JsonValue(true)) width *= 2;
            add_parameters(width, width);
        }
        if (n.precision.weight) {
            if (w.kind == WeightKind::none || ((w.kind == WeightKind::table || w.kind == WeightKind::experts) && w.matrices == 0)) {
                ++m.weights_unsized;
            } else if (stored_once && &n == head) {
                m.tied_head_bytes = w.stored_bytes;  // the embedding table's bytes, counted there
            } else {
                by_format[std::string(n.precision.weight->name())] += w.stored_bytes;
                m.weight_bytes += w.stored_bytes;
            }
        }
        if (const auto* r = n.point.find("reserved_ext"); r && r->is_integer()) {
            reserved[n.layer.value_or(-1)] += r->integer();
            m.reserved_bytes += r->integer();
        }
        if (has_unknown(n)) m.unknown_fixed_point.push_back(n.id);
    }
    m.weights_by_format.assign(by_format.begin(), by_format.end());
    std::stable_sort(m.weights_by_format.begin(), m.weights_by_format.end(), [](const auto& a, const auto& c) { return a.second > c.second; });
    m.reserved_by_layer.assign(reserved.begin(), reserved.end());

    // Live activations: a tensor is live from its producer until its last reader. One step holds
    // bytes_per_token x rows of it; tensors that never leave a kernel (null bytes) take none.
    struct Live {
        std::int64_t from, to, bytes;
    };
    std::map<std::pair<std::int64_t, std::string>, Live> tensors;
    for (const auto& e : b.edges) {
        if (!e.bytes_per_token) continue;
        std::int64_t bytes = *e.bytes_per_token * b.arm.rows;
        auto [it, fresh] = tensors.emplace(std::make_pair(e.from, e.id), Live{e.from, e.to, bytes});
        if (!fresh) it->second.to = std::max(it->second.to, e.to);
        if (bytes > m.largest_tensor_bytes) {
            m.largest_tensor_bytes = bytes;
            m.largest_tensor = e.id;
        }
    }
    std::vector<std::int64_t> delta(count + 1, 0);
    for (const auto& [_, t] : tensors) {
        if (t.from < 0 || t.to > static_cast<std::int64_t>(count)) continue;
        delta[t.from + 1] += t.bytes;  // live after its producer ...
        delta[t.to + 1] -= t.bytes;    // ... through its last reader
    }
    std::int64_t live = 0;
    for (std::size_t i = 0; i < count; ++i) {
        live += delta[i];
        if (live > m.largest_live_bytes) {
            m.largest_live_bytes = live;
            m.largest_live_at = b.nodes[i].id;
        }
    }
    return m;
}

// "671.0B + 11.7B MTP": the target's parameters and the MTP layers', as the Hub's total counts both.
std::string mtp_text(const Mtp& mtp) {
    const std::string sum = billions(mtp.target_parameters) + " + " + billions(mtp.parameters) + " MTP (" + std::to_string(mtp.layers) + " " +
                            (mtp.layers == 1 ? "layer" : "layers") + ", " + mtp.config_field + ") = " +
                            billions(mtp.target_parameters + mtp.parameters);
    if (mtp.draft)
        return "  the draft step: one MTP layer with the target's embedding and LM head; the model " + sum + "\n";
    return "  with the MTP layers the draft arm plans: " + sum + "\n";
}

std::string memory_text(const MemoryReport& m) {
    std::string out = "\nmemory\n";
    char params[160];
    std::snprintf(params, sizeof params, "  parameters %s (%.3f B)%s\n", with_commas(m.parameters).c_str(), static_cast<double>(m.parameters) / 1e9,
                  m.active_parameters != m.parameters
                      ? (", active per token " + with_commas(m.active_parameters)).c_str()
                      : "");
    out += params;
    if (m.mtp) out += mtp_text(*m.mtp);
    out += "  weights stored " + with_commas(m.weight_bytes) + " B (" + megabytes(static_cast<double>(m.weight_bytes)) + ")" +
           (m.tied_head_bytes ? ", the LM head reading the tied embedding table (" + with_commas(m.tied_head_bytes) + " B stored once)" : "") +
           (m.weights_unsized ? ", " + std::to_string(m.weights_unsized) + " weighted ops of unknown shape not counted" : "") + "\n";
    for (const auto& [format, bytes] : m.weights_by_format)
        out += "    " + format + std::string(format.size() < 14 ? 14 - format.size() : 1, ' ') + with_commas(bytes) + " B\n";
    if (m.reserved_bytes) {
        std::int64_t first = m.reserved_by_layer.front().second;
        bool same = std::all_of(m.reserved_by_layer.begin(), m.reserved_by_layer.end(), [&](const auto& r) { return r.second == first; });
        out += "  reserved state (KV cache) " + with_commas(m.reserved_bytes) + " B (" + megabytes(static_cast<double>(m.reserved_bytes)) + "): " +
               (same ? std::to_string(m.reserved_by_layer.size()) + " layers x " + with_commas(first) + " B" : "per layer differs") + "\n";
    }
    if (m.largest_tensor_bytes)
        out += "  largest activation " + m.largest_tensor + " " + with_commas(m.largest_tensor_bytes) + " B per step; most live at once " +
               with_commas(m.largest_live_bytes) + " B (before " + m.largest_live_at + ")\n";
    if (!m.unknown_fixed_point.empty()) {
        out += "  " + std::to_string(m.unknown_fixed_point.size()) + " ops with FixedPoint32 bits not decided (no calibrated range):";
        for (std::size_t i = 0; i < std::min<std::size_t>(6, m.unknown_fixed_point.size()); ++i) out += " " + m.unknown_fixed_point[i];
        if (m.unknown_fixed_point.size() > 6) out += " ...";
        out += "\n";
    }
    return out;
}

}  // namespace kbp::schema
