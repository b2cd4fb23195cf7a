// insert_quant: where a reader needs its activation in a quantized format (fp8/token,
// nvfp4/g16, ...) and the producer writes a float tensor, an act_quant node is inserted right
// before the first such reader, named after the tensor ("xn" -> "xn_quant"), marked
// `inserted`; later readers wanting the same format share it. Its output edge carries
// requant {from, to, at: producer}. An integer tensor (routing ids) read by a quantized op is
// re-quantized in the reader's prologue instead: requant {at: reader}, no node.
#include <map>

#include "planner/passes.hpp"

namespace kbp::planner {

Status insert_quant(Ir& ir) {
    std::vector<IrNode> out;
    out.reserve(ir.nodes.size() + ir.nodes.size() / 4);
    std::vector<int> new_index(ir.nodes.size(), -1);
    std::map<std::pair<std::pair<int, int>, std::string>, int> quantized;  // (tensor, format) -> act_quant node
    for (std::size_t i = 0; i < ir.nodes.size(); ++i) {
        IrNode n = std::move(ir.nodes[i]);
        for (auto& ref : n.inputs) ref.node = new_index[ref.node];
        const auto& activation = n.node.precision.activation;
        if (n.weighted && activation && is_quantized(*activation)) {
            for (std::size_t k = 0; k < n.inputs.size(); ++k) {
                TensorRef& ref = n.inputs[k];
                const IrTensor& t = out[ref.node].outputs[ref.slot];
                if (t.format == *activation) continue;
                if (!is_float(t.format)) {
                    n.requant_at_reader[k] = true;
                    continue;
                }
                auto key = std::make_pair(std::make_pair(ref.node, ref.slot), std::string(activation->name()));
                if (auto q = quantized.find(key); q != quantized.end()) {
                    ref = TensorRef{q->second, 0};
                    continue;
                }
                std::string tensor = t.id.substr(t.id.rfind('.') + 1);
                IrNode q;
                q.local = n.block + "." + tensor + "_quant";
                q.block = n.block;
                q.attn = n.attn;
                q.slot = n.slot;
                q.node.id = n.node.block + "." + tensor + "_quant";
                q.node.layer = n.node.layer;
                q.node.block = n.node.block;
                q.node.block_type = n.node.block_type;
                q.node.kind = n.node.kind;
                q.node.op = schema::Op::parse("act_quant");
                q.node.inserted = true;
                q.node.numerics = n.node.numerics;
                q.node.where = n.node.where;
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
                                     std::string(t.format.name());
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
