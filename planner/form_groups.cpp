// form_groups: which consecutive nodes run fused, and the kernels each such group launches. At
// each node the fusion rules are tried in the order the engine reads its catalogs (a rule
// overrides, or with `off` removes, a later catalog's rule of its name); a rule matches when its
// pattern (op globs, optionally formats) fits the next nodes of the same block (or layer, for a
// rule across_blocks; or running on into the next layer, for one across_layers), the node after
// them matches its followed_by, and its block / rows / arms conditions hold. The first match
// forms a group named by the rule (placeholders filled); the other rules that matched there are
// recorded as beaten. The rule's members spec overrides the members' kernel, family, compute and
// knobs; `kernels: members` launches the members' own kernels, each once (members that share a
// kernel run in one launch of it). A node no rule takes forms a group of one, named by its kernel
// table row.
#include <algorithm>
#include <set>

#include "planner/passes.hpp"

namespace kbp::planner {
namespace {

bool element_matches(const PatternElement& element, const IrNode& n) {
    if (const auto* op = std::get_if<std::string>(&element)) return name_matches(*op, n.node.op.name());
    const PatternOp& e = std::get<PatternOp>(element);
    const auto& out = n.node.precision.output;
    return name_matches(e.op, n.node.op.name()) && format_matches(e.weight, n.node.precision.weight) &&
           format_matches(e.activation, n.node.precision.activation) &&
           format_matches(e.output, out && !out->empty() ? std::optional<schema::Format>(out->front()) : std::nullopt);
}

// Where a match of `pattern_size` nodes at `at` crosses from one layer into the next (or into the
// head): the index of the first node past the boundary, or 0 when it stays in one layer.
std::size_t layer_boundary(const Ir& ir, std::size_t at, std::size_t pattern_size) {
    for (std::size_t k = 1; k < pattern_size; ++k)
        if (ir.nodes[at + k].node.layer != ir.nodes[at + k - 1].node.layer) return at + k;
    return 0;
}

bool rule_matches(const FusionRule& rule, const Ir& ir, std::size_t at) {
    const auto& pattern = rule.pattern;
    if (at + pattern.size() > ir.nodes.size()) return false;
    const IrNode& first = ir.nodes[at];
    if (rule.block && !name_matches(*rule.block, first.block)) return false;
    if (!step_matches(rule, ir)) return false;
    if (rule.followed_by)
        if (at + pattern.size() >= ir.nodes.size() || !name_matches(*rule.followed_by, ir.nodes[at + pattern.size()].node.op.name()))
            return false;
    // Within one block, or (across_blocks) one layer, or (across_layers) a layer's last nodes and
    // the next layer's (or the head's) first: never more than one boundary, never out of the
    // prologue.
    const bool across_layers = rule.across_layers;
    const bool across_blocks = across_layers || rule.across_blocks;
    const std::size_t boundary = across_layers ? layer_boundary(ir, at, pattern.size()) : 0;
    if (boundary && !first.node.layer) return false;
    // The ops that move into the later layer must read only what their own layer made: one that
    // reads the layer's input (a one-block layer's residual add, Nemotron-H's) would make that
    // tensor skip a layer, which the collapsed form's ports between neighbours cannot hold.
    for (std::size_t k = at; k < boundary; ++k)
        for (const auto& in : ir.nodes[k].inputs)
            if (ir.nodes[static_cast<std::size_t>(in.node)].node.layer != ir.nodes[k].node.layer) return false;
    for (std::size_t k = 0; k < pattern.size(); ++k) {
        const IrNode& n = ir.nodes[at + k];
        const IrNode& anchor = boundary && at + k >= boundary ? ir.nodes[boundary] : first;
        const bool together = across_blocks ? n.node.layer == anchor.node.layer && (n.node.layer || n.node.block == anchor.node.block)
                                            : n.node.block == anchor.node.block;
        if (!together || !element_matches(pattern[k], n)) return false;
    }
    return true;
}

// A layer's closing op that runs in the next layer's first kernel becomes that layer's (or the
// head's): its id, block and layer are the later block's, its name and its outputs' get "_in"
// ("l0.mlp.residual" -> "l1.attn.residual_in", writing "l1.attn.h_in"). The engines' decoder
// layers are cut there too (vLLM's layer adds the previous layer's output in its input norm), and
// the collapsed form keeps each layer's groups inside its template.
void rehome(IrNode& n, const IrNode& into) {
    auto last_part = [](std::string_view id) { return std::string(id.substr(id.rfind('.') + 1)); };
    const std::string block_id(into.node.block.view());
    const std::string name = last_part(n.node.id) + "_in";
    n.why.moved_from = n.node.id;
    n.node.id = block_id + "." + name;
    n.local = std::string(into.block.view()) + "." + name;
    n.block = into.block;
    n.attn = into.attn;
    n.slot = into.slot;
    n.node.layer = into.node.layer;
    n.node.block = into.node.block;
    n.node.block_type = into.node.block_type;
    n.node.kind = into.node.kind;
    for (auto& t : n.outputs) t.id = block_id + "." + last_part(t.id) + "_in";
}

// The rules in the order they are tried: a rule overrides (or, `off`, removes) the rule of its
// name in a later file.
struct Candidate {
    const FusionRule* rule;
    const DataFile* file;
    std::size_t index;
};

std::vector<Candidate> rules_in_order(const Ir& ir) {
    std::vector<Candidate> rules;
    std::set<std::string> named_earlier;
    for (const DataFile* f : ir.fusion) {
        const auto& list = f->fusion_catalog->rules;
        std::set<std::string> named_here;
        for (std::size_t r = 0; r < list.size(); ++r) {
            const std::string& name = list[r].name;
            if (named_earlier.count(name)) continue;
            named_here.insert(name);
            if (!list[r].off) rules.push_back({&list[r], f, r});
        }
        named_earlier.insert(named_here.begin(), named_here.end());
    }
    return rules;
}

}  // namespace

Status form_groups(Ir& ir) {
    const std::vector<Candidate> rules = rules_in_order(ir);
    for (std::size_t i = 0; i < ir.nodes.size();) {
        const Candidate* won = nullptr;
        std::vector<std::string> beaten;
        for (const auto& c : rules) {
            if (!rule_matches(*c.rule, ir, i)) continue;
            if (!won) won = &c;
            else
                beaten.push_back(c.file->origin + ": /rules/" + std::to_string(c.index) + " " +
                                 ir.fill(c.rule->name, placeholders(ir, ir.nodes[i])));
        }
        schema::Group g;
        g.id = static_cast<std::int64_t>(ir.groups.size());
        std::size_t count = won ? won->rule->pattern.size() : 1;
        std::vector<schema::Sym> kernels;  // the group's launches, interned once complete
        if (won) {
            const FusionRule& rule = *won->rule;
            if (rule.across_layers)
                if (const std::size_t boundary = layer_boundary(ir, i, count))
                    for (std::size_t k = i; k < boundary; ++k) rehome(ir.nodes[k], ir.nodes[boundary]);
            // Placeholders come from the first member with a role of its own (a projection or expert).
            const IrNode* named = &ir.nodes[i];
            for (std::size_t k = 0; k < count; ++k)
                if (ir.nodes[i + k].weighted) {
                    named = &ir.nodes[i + k];
                    break;
                }
            g.rule = ir.fill(rule.name, placeholders(ir, *named));
            static const MemberSpec leave_as_is;  // a rule without members: its members keep their kernels
            for (std::size_t k = 0; k < count; ++k) {
                IrNode& n = ir.nodes[i + k];
                const MemberSpec& spec = !rule.members                                         ? leave_as_is
                                         : std::holds_alternative<MemberSpec>(*rule.members) ? std::get<MemberSpec>(*rule.members)
                                                                                             : std::get<std::vector<MemberSpec>>(*rule.members)[k];
                // A member kernel that a kernel file defines brings its family and compute along
                // (the spec's own family / compute, if any, still win).
                const KernelCatalog* instances = nullptr;
                const DataFile* defining = nullptr;
                if (spec.kernel && *spec.kernel && ir.kernel_instance(**spec.kernel, &defining)) instances = defining->kernel_catalog.get();
                if (auto s = apply_assignment(ir, n, spec, instances); !s) return s;
                n.why.fusion = won->file->origin + ": /rules/" + std::to_string(won->index) + " " + g.rule + " (" + rule.about.value_or("") + ")";
                n.why.beaten = beaten;
            }
            if (std::holds_alternative<std::string>(rule.kernels)) {  // "members": the members' own kernels (or launches), each once
                auto launch = [&](const schema::Sym& kernel) {
                    if (std::find(kernels.begin(), kernels.end(), kernel) == kernels.end()) kernels.push_back(kernel);
                };
                for (std::size_t k = 0; k < count; ++k) {
                    const IrNode& n = ir.nodes[i + k];
                    if (!n.kernel_launches.empty()) {
                        for (const auto& l : n.kernel_launches) launch(l);
                    } else if (n.node.kernel) {
                        launch(*n.node.kernel);
                    }
                }
            } else {
                for (const auto& k : std::get<std::vector<std::string>>(rule.kernels)) kernels.push_back(k);
            }
            // What bounds the group: the rule's word, else its GEMM's (a quantizer and the GEMV that
            // reads it compute as the GEMV), else its first member's.
            if (rule.compute) {
                g.compute = schema::Compute::parse(*rule.compute);
            } else {
                g.compute = ir.nodes[i].node.compute;
                for (std::size_t k = 0; k < count; ++k)
                    if (ir.nodes[i + k].weighted) {
                        g.compute = ir.nodes[i + k].node.compute;
                        break;
                    }
            }
        } else {
            IrNode& n = ir.nodes[i];
            g.rule = n.kernel_rule;
            // A row's launches, when it lists them, are all it launches (its kernel among them);
            // else its kernel.
            if (!n.kernel_launches.empty()) kernels.assign(n.kernel_launches.begin(), n.kernel_launches.end());
            else if (n.node.kernel) kernels.push_back(*n.node.kernel);
            g.compute = n.node.compute;
            n.why.fusion = "no fusion rule matched; a group of its own, named by its kernel table row";
        }
        g.kernels = schema::SymList(kernels);
        g.where = ir.nodes[i].node.where;
        g.numerics = ir.nodes[i].node.numerics;
        for (std::size_t k = 0; k < count; ++k) {
            ir.nodes[i + k].node.group = g.id;
            ir.nodes[i + k].node.where = g.where;
            g.nodes.push_back(static_cast<std::int64_t>(i + k));
        }
        ir.groups.push_back(std::move(g));
        i += count;
    }
    return Ok{};
}

}  // namespace kbp::planner
