// describe_steps: the arithmetic of each node as short steps ("act bf16", "weight
// nvfp4/g16->bf16", "mma bf16*bf16", "accumulate f32", "scale f32"). For a weighted op they
// follow from its formats and compute: on a tensor core the weight is widened to the MMA's
// operand format (the target's `mma` table), on CUDA cores to the activation's; a quantized
// weight needs a scale. Other ops say what their architecture entry says ("compute f32" by
// default); `{activation}`-style placeholders name the node's formats. A kernel table row's own
// `steps` come first (a GPNPU op says what its custom op does), then, for a projection, its
// kernel instance's, then an inserted node's (a recipe's smoothing steps).
#include "planner/passes.hpp"

namespace kbp::planner {

Status describe_steps(Ir& ir) {
    const auto& mma_table = ir.target->target_record->mma;
    for (auto& n : ir.nodes) {
        const auto& p = n.node.precision;
        std::map<std::string, std::string> extra = placeholders(ir, n);
        extra["activation"] = p.activation ? std::string(p.activation->name()) : "";
        extra["weight"] = p.weight ? std::string(p.weight->name()) : "";
        std::vector<schema::Sym> steps;
        const Json* spec = n.spec;
        const KernelInstance* instance = n.weighted && n.node.kernel ? ir.kernel_instance(*n.node.kernel) : nullptr;
        const std::vector<std::string>* own = n.steps_spec        ? n.steps_spec
                                              : n.inserted_steps  ? n.inserted_steps
                                              : instance && instance->steps ? &*instance->steps
                                                                            : nullptr;
        if (own) {
            for (const auto& s : *own) steps.push_back(ir.fill(s, extra));
        } else if (spec && spec->contains("steps")) {
            for (const auto& s : (*spec)["steps"]) steps.push_back(ir.fill(s.get<std::string>(), extra));
        } else if (n.weighted) {
            if (spec && spec->contains("steps_prefix"))
                for (const auto& s : (*spec)["steps_prefix"]) steps.push_back(ir.fill(s.get<std::string>(), extra));
            std::string operand = extra["activation"];
            if (n.node.compute && n.node.compute->kind.id == schema::ComputeId::tensor_core) {
                auto it = mma_table.find(n.node.compute->unit);
                if (it == mma_table.end())
                    return make_error(ErrorCode::unsupported, ir.target->origin + ": /mma",
                                      "target has no MMA instruction '" + n.node.compute->unit + "' (needed by " + n.node.id + ")");
                operand = it->second;
            }
            steps = {steps.empty() ? schema::Sym("act " + extra["activation"]) : steps.front()};
            if (spec && spec->contains("steps_prefix")) steps.push_back("act " + extra["activation"]);
            steps.push_back("weight " + extra["weight"] + "->" + operand);
            steps.push_back("mma " + operand + "*" + operand);
            steps.push_back("accumulate f32");
            steps.push_back(std::string("scale ") + (p.weight && is_quantized(*p.weight) ? "f32" : "none"));
            if (spec && spec->value("bias", false)) steps.push_back("bias bf16");
        } else {
            steps = {"compute f32"};
        }
        n.node.steps = std::move(steps);
    }
    return Ok{};
}

}  // namespace kbp::planner
