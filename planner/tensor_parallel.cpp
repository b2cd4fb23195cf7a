#include "planner/tensor_parallel.hpp"

#include <cmath>
#include <set>

#include "planner/ir.hpp"

namespace kbp::planner {

TensorSplit::TensorSplit(const Ir& ir) : ir_(ir), tp_(ir.request.tp) {
    // The fields and their order are data: vocabulary/config-fields.json /tensor_parallel.
    if (tp_ <= 1 || !ir.catalog) return;
    for (const DataFile* f : ir.catalog->all("vocabulary")) {
        if (f->name != "config-fields") continue;
        const Json& split = f->json.at("tensor_parallel");
        for (const Json& s : split.at("splits"))
            fields_.push_back({s.at("field").get<std::string>(), s.at("what").get<std::string>(), s.value("replicate", false)});
        vocab_field_ = split.at("vocabulary").at("field").get<std::string>();
        vocab_padding_ = split.at("vocabulary").at("padded_to").get<std::int64_t>();
    }
}

std::string TensorSplit::not_divided(std::int64_t value, const std::string& what) const {
    return std::to_string(value) + " " + what + " do" + (value == 1 ? "es" : "") + " not split over " + std::to_string(tp_) + " devices (--tp " +
           std::to_string(tp_) + ")";
}

void TensorSplit::split(const std::string& name, const nlohmann::ordered_json& spec, const std::string& field, std::int64_t& value) {
    if (tp_ <= 1) return;
    // A symbol the architecture says the devices split (its "split"), whatever it is read from.
    if (spec.is_object() && spec.contains("split")) {
        if (value % tp_ == 0) {
            value /= tp_;
        } else if (!refused_) {
            refused_ = make_error(ErrorCode::invalid_input, ir_.architecture->origin + ": /symbols/" + name, not_divided(value, spec.at("split").get<std::string>()));
            refused_rank_ = static_cast<int>(fields_.size());  // a field the devices do not divide is still reported first
        }
        return;
    }
    if (field.empty()) return;
    if (field == vocab_field_) {
        // Padded, then sliced (vocabulary/config-fields.json says whose rule): never refused, a
        // slice that does not divide is rounded up, as the padding the engine adds would be.
        const std::int64_t padded = (value + vocab_padding_ - 1) / vocab_padding_ * vocab_padding_;
        value = (padded + tp_ - 1) / tp_;
        return;
    }
    for (std::size_t rank = 0; rank < fields_.size(); ++rank) {
        if (fields_[rank].field != field) continue;
        if (value % tp_ == 0) {
            value /= tp_;
        } else if (fields_[rank].replicate && tp_ % value == 0) {
            kv_head_replicas_ = tp_ / value;  // each device holds one, duplicated
            value = 1;
        } else if (static_cast<int>(rank) < refused_rank_) {
            refused_rank_ = static_cast<int>(rank);
            refused_ = make_error(ErrorCode::invalid_input, ir_.config_at(field), not_divided(value, fields_[rank].what));
        }
        return;
    }
}

Status TensorSplit::status() const {
    if (refused_) return *refused_;
    return Ok{};
}

Status check_interconnect(const Ir& ir) {
    if (ir.request.tp <= 1) return Ok{};
    const TargetRecord& t = *ir.target->target_record;
    if (!t.interconnect) {
        std::string why;
        if (auto s = t.sources.find("interconnect"); s != t.sources.end()) why = " (" + s->second + ")";
        return make_error(ErrorCode::unsupported, ir.target->origin + ": /interconnect",
                          "target '" + ir.target->name + "' has no interconnect between devices" + why + ": --tp " +
                              std::to_string(ir.request.tp) + " needs one");
    }
    return Ok{};
}

void record_parallel(const Ir& ir, schema::Blueprint& b, const std::vector<std::int64_t>& op_reduce_bytes) {
    if (ir.request.tp <= 1) return;
    const Interconnect& link = *ir.target->target_record->interconnect;  // check_interconnect has seen it
    schema::Parallel p;
    p.tp = ir.request.tp;
    p.interconnect = link.name;
    p.bandwidth_mbps = static_cast<std::int64_t>(std::llround(link.bandwidth_gbps * 1000.0));
    p.latency_ns = static_cast<std::int64_t>(std::llround(link.latency_us * 1000.0));
    // A residual add joins the stream and a block's output: under tensor parallelism that output
    // is each device's partial sum (of o_proj, of down_proj), all-reduced just before the add.
    // Its bytes are those of the block's output edge (the later producer of the two inputs).
    std::vector<const schema::Edge*> block_output(b.nodes.size(), nullptr);
    for (const auto& e : b.edges) {
        if (e.to < 0 || e.to >= static_cast<std::int64_t>(b.nodes.size())) continue;
        auto& best = block_output[static_cast<std::size_t>(e.to)];
        if (!best || e.from > best->from) best = &e;
    }
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        if (b.nodes[i].op.kind.id != schema::OpId::residual_add || !block_output[i]) continue;
        ++p.all_reduces_per_step;
        std::int64_t bytes = block_output[i]->bytes_per_token.value_or(0);
        p.all_reduce_bytes_per_token = std::max(p.all_reduce_bytes_per_token, bytes);
        p.all_reduce_bytes_per_step += bytes * b.arm.rows;
    }
    for (const std::int64_t bytes : op_reduce_bytes) {
        ++p.all_reduces_per_step;
        p.all_reduce_bytes_per_step += bytes * b.arm.rows;
    }
    std::set<std::int64_t> vocab_split_counted;
    // The vocabulary split adds two collectives. Each device's embedding gather fills only the rows
    // of its slice (zeros elsewhere), so its output is all-reduced like a projection's partial sum
    // (VocabParallelEmbedding.forward: tensor_model_parallel_all_reduce); and the LM head's logits
    // are gathered to the device that samples (LogitsProcessor._gather_logits:
    // tensor_model_parallel_gather), vocab x rows x the logits' bytes, of which each device sends
    // its slice.
    for (const auto& e : b.edges) {
        if (e.from < 0 || e.from >= static_cast<std::int64_t>(b.nodes.size())) continue;
        const auto op = b.nodes[static_cast<std::size_t>(e.from)].op.kind.id;
        if (op != schema::OpId::embed && op != schema::OpId::lm_head) continue;
        if (!vocab_split_counted.insert(e.from).second) continue;  // one collective per node, not per reader
        const std::int64_t bytes = e.bytes_per_token.value_or(0) * b.arm.rows;
        if (op == schema::OpId::embed) {
            ++p.all_reduces_per_step;
            p.all_reduce_bytes_per_step += bytes;
        } else {
            ++p.gathers_per_step;
            p.gather_bytes_per_step += bytes * p.tp;
        }
    }
    if (ir.kv_head_replicas > 1) p.kv_head_replicas = ir.kv_head_replicas;
    b.arm.parallel = std::move(p);
}

}  // namespace kbp::planner
