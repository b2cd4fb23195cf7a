// insert_quant: where a reader needs its activation in a quantized format (fp8/token,
// nvfp4/g16, int8/static, ...) and the producer writes a real-valued tensor (a float, or
// FixedPoint32 on a GPNPU), an act_quant node is inserted right
// before the first such reader, named after the tensor ("xn" -> "xn_quant"), marked
// `inserted`; later readers wanting the same format share it. Its output edge carries
// requant {from, to, at: producer}. Another quantized tensor read in a third format is
// re-quantized in the reader's prologue: requant {at: reader}, no node. Integer ids (i32: the
// top-k expert ids an expert GEMM reads) are indices, not values: nothing quantizes them, so
// their edge carries no requant, unless the plan's engine says `requant_ids_at_reader` (met, the
// seed's: its planner wrote them as requant i32 -> nvfp4/g16 at the reader, and kbp reproduces
// that plan exactly).
#include <algorithm>
#include <map>

#include "planner/passes.hpp"

namespace kbp::planner {

Status insert_quant(Ir& ir) {
    std::vector<IrNode> out;
    out.reserve(ir.nodes.size() + ir.nodes.size() / 4);
    std::vector<int> new_index(ir.nodes.size(), -1);
    std::map<std::pair<std::pair<int, int>, std::string>, int> quantized;  // (tensor, format) -> act_quant node
    const bool requant_ids = ir.engine && ir.engine->json.value("requant_ids_at_reader", false);
    for (std::size_t i = 0; i < ir.nodes.size(); ++i) {
        IrNode n = std::move(ir.nodes[i]);
        for (auto& ref : n.inputs) ref.node = new_index[ref.node];
        const auto& activation = n.node.precision.activation;
        // A projection reads its quantized activation; another op (the GPNPU's attention reading
        // int8 Q, K and V) does when its activation is an integer format, not FixedPoint32.
        const bool reads_quantized = activation && is_quantized(*activation) && (n.weighted || !is_real_valued(*activation));
        if (reads_quantized) {
            for (std::size_t k = 0; k < n.inputs.size(); ++k) {
                TensorRef& ref = n.inputs[k];
                const IrTensor& t = out[ref.node].outputs[ref.slot];
                if (t.format == *activation) continue;
                if (!is_real_valued(t.format)) {
                    n.requant_at_reader[k] = t.format.id != schema::FormatId::i32 || requant_ids;
                    continue;
                }
                auto key = std::make_pair(std::make_pair(ref.node, ref.slot), std::string(activation->name()));
                if (auto q = quantized.find(key); q != quantized.end()) {
                    ref = TensorRef{q->second, 0};
                    continue;
                }
                std::string tensor = t.id.substr(t.id.rfind('.') + 1);
                IrNode q = inserted_node(n, tensor + "_quant", "act_quant");
                q.node.precision.activation = t.format;
                q.node.precision.output = std::vector<schema::Format>{*activation};
                q.inputs = {ref};
                q.requant_at_reader = {false};
                IrTensor qt;
                qt.id = q.node.id;
                qt.dim_value = t.dim_value;
                qt.rows = "";  // the row space of its input
                qt.format = *activation;
                q.outputs = {qt};
                q.why.inserted_for = n.node.id + " reads " + std::string(activation->name()) + ", " + t.id + " is " +
                                     std::string(schema::format_doc_name(t.format));
                int qi = static_cast<int>(out.size());
                out.push_back(std::move(q));
                quantized[key] = qi;
                ref = TensorRef{qi, 0};
            }
        }
        new_index[i] = static_cast<int>(out.size());
        out.push_back(std::move(n));
    }
    ir.nodes = std::move(out);
    return Ok{};
}

}  // namespace kbp::planner
