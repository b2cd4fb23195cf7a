// insert_smoothing: SmoothQuant's per-channel multiply before the projections a recipe smooths
// (its `smoothing` section). The multiply by a calibrated vector moves activation outliers into
// the weights, which is what lets the GPNPU keep int4 weights and FixedPoint32 activations; the
// compiler later absorbs it into the custom op that reads it (fusion/chimera.json), so it is a
// quantization point of the plan: an inserted `smooth_mul` node, named after the projection
// ("l3.attn.o" -> "l3.attn.o_smooth"), reading the projection's input and feeding only it.
//
// Projections that one fused op serves share one smoothing vector when the recipe's `shared`
// sets say so for the current settings (proj_mode=fused: q|k|v behind one vector): one node,
// named after the tensor ("l3.attn.xn_smooth"), feeds all of them.
#include <algorithm>
#include <map>

#include "planner/passes.hpp"

namespace kbp::planner {

Status insert_smoothing(Ir& ir) {
    if (!ir.recipe->recipe_record->smoothing) return Ok{};
    const Smoothing& spec = *ir.recipe->recipe_record->smoothing;
    const std::string where = ir.recipe->origin + ": /smoothing";
    const auto vector = schema::Format::parse(spec.vector.value_or("f32"));
    if (!vector.known()) return make_error(ErrorCode::invalid_input, where + "/vector", "unknown format '" + std::string(vector.name()) + "'");
    // The role sets that share one vector under the current settings.
    std::vector<std::vector<std::string>> shared;
    if (spec.shared)
        for (const SharedSmoothing& s : *spec.shared)
            if (!s.settings || settings_match(*s.settings, ir)) shared.push_back(s.roles);
    auto smoothed = [&](const IrNode& n) {
        return n.weighted && !n.inputs.empty() &&
               std::any_of(spec.before.begin(), spec.before.end(), [&](const std::string& g) { return name_matches(g, n.node.op.name()); });
    };
    auto shared_set = [&](const IrNode& n) -> const std::vector<std::string>* {
        for (const auto& roles : shared)
            if (std::find(roles.begin(), roles.end(), role_of(n.node.op)) != roles.end()) return &roles;
        return nullptr;
    };

    std::vector<IrNode> out;
    out.reserve(ir.nodes.size() * 2);
    std::vector<int> new_index(ir.nodes.size(), -1);
    // (block, input tensor, role set) -> the shared smoothing node already inserted.
    std::map<std::tuple<std::string, int, int, const void*>, int> shared_nodes;
    for (std::size_t i = 0; i < ir.nodes.size(); ++i) {
        IrNode n = std::move(ir.nodes[i]);
        for (auto& ref : n.inputs) ref.node = new_index[ref.node];
        if (smoothed(n)) {
            TensorRef& ref = n.inputs.front();
            const IrTensor& t = out[ref.node].outputs[ref.slot];
            const auto* roles = shared_set(n);
            auto key = std::make_tuple(n.node.block, ref.node, ref.slot, static_cast<const void*>(roles));
            if (auto found = roles ? shared_nodes.find(key) : shared_nodes.end(); found != shared_nodes.end()) {
                ref = TensorRef{found->second, 0};
            } else {
                std::string tensor = t.id.substr(t.id.rfind('.') + 1);
                std::string name = (roles ? tensor : n.local.substr(n.local.find('.') + 1)) + "_smooth";
                IrNode m = inserted_node(n, name, "smooth_mul");
                m.node.precision.weight = vector;
                m.node.precision.activation = t.format;
                m.node.precision.output = std::vector<schema::Format>{t.format};
                m.inputs = {ref};
                m.requant_at_reader = {false};
                IrTensor mt;
                mt.id = m.node.id;
                mt.dim = t.dim;
                mt.dim_value = t.dim_value;
                mt.rows = t.rows;
                mt.format = t.format;
                m.outputs = {mt};
                m.why.inserted_for = roles ? "the projections of one fused op share one smoothing vector (" + where + "/shared)"
                                           : n.node.id + " is smoothed (" + where + "/before)";
                m.inserted_steps = spec.steps ? &*spec.steps : nullptr;
                int mi = static_cast<int>(out.size());
                out.push_back(std::move(m));
                if (roles) shared_nodes[key] = mi;
                ref = TensorRef{mi, 0};
            }
        }
        new_index[i] = static_cast<int>(out.size());
        out.push_back(std::move(n));
    }
    ir.nodes = std::move(out);
    return Ok{};
}

}  // namespace kbp::planner
