// form_groups: which consecutive nodes run as one kernel launch. At each node the fusion rules
// are tried in file order; a rule matches when its pattern (op globs, optionally formats) fits
// the next nodes of the same block (or layer, for a rule across_blocks) and its block / rows /
// arms conditions hold. The first match forms a group named by the rule (placeholders filled);
// the other rules that matched there are recorded as beaten. The rule's members spec overrides the members' kernel,
// family, compute and knobs; `kernels: members` launches the members' own kernels. A node no
// rule takes forms a group of one, named by its kernel table row.
#include <algorithm>

#include "planner/passes.hpp"

namespace kbp::planner {
namespace {

bool element_matches(const Json& element, const IrNode& n) {
    if (element.is_string()) return name_matches(element.get<std::string>(), n.node.op.name());
    return name_matches(element.at("op").get<std::string>(), n.node.op.name()) &&
           format_matches(element, "weight", n.node.precision.weight) &&
           format_matches(element, "activation", n.node.precision.activation);
}

bool rule_matches(const Json& rule, const Ir& ir, std::size_t at) {
    const auto& pattern = rule.at("pattern");
    if (at + pattern.size() > ir.nodes.size()) return false;
    const IrNode& first = ir.nodes[at];
    if (rule.contains("block") && !name_matches(rule["block"].get<std::string>(), first.block)) return false;
    if (!step_matches(rule, ir)) return false;
    // Within one block, or (across_blocks) one layer: a group never spans two layers' templates.
    const bool across_blocks = rule.value("across_blocks", false);
    for (std::size_t k = 0; k < pattern.size(); ++k) {
        const IrNode& n = ir.nodes[at + k];
        const bool together = across_blocks ? n.node.layer && n.node.layer == first.node.layer : n.node.block == first.node.block;
        if (!together || !element_matches(pattern[k], n)) return false;
    }
    return true;
}

}  // namespace

Status form_groups(Ir& ir) {
    struct Candidate {
        const Json* rule;
        const DataFile* file;
        std::size_t index;
    };
    std::vector<Candidate> rules;
    for (const DataFile* f : ir.fusion) {
        const auto& list = f->json.at("rules");
        for (std::size_t r = 0; r < list.size(); ++r) rules.push_back({&list[r], f, r});
    }
    for (std::size_t i = 0; i < ir.nodes.size();) {
        const Candidate* won = nullptr;
        std::vector<std::string> beaten;
        for (const auto& c : rules) {
            if (!rule_matches(*c.rule, ir, i)) continue;
            if (!won) won = &c;
            else
                beaten.push_back(c.file->origin + ": /rules/" + std::to_string(c.index) + " " +
                                 ir.fill(c.rule->at("name").get<std::string>(), placeholders(ir, ir.nodes[i])));
        }
        schema::Group g;
        g.id = static_cast<std::int64_t>(ir.groups.size());
        std::size_t count = won ? won->rule->at("pattern").size() : 1;
        std::vector<schema::Sym> kernels;  // the group's launches, interned once complete
        if (won) {
            const Json& rule = *won->rule;
            // Placeholders come from the first member with a role of its own (a projection or expert).
            const IrNode* named = &ir.nodes[i];
            for (std::size_t k = 0; k < count; ++k)
                if (ir.nodes[i + k].weighted) {
                    named = &ir.nodes[i + k];
                    break;
                }
            g.rule = ir.fill(rule.at("name").get<std::string>(), placeholders(ir, *named));
            const Json& members = rule.value("members", Json::object());
            for (std::size_t k = 0; k < count; ++k) {
                IrNode& n = ir.nodes[i + k];
                const Json& spec = members.is_array() ? members.at(k) : members;
                // A member kernel that a kernel file defines brings its family and compute along
                // (the spec's own family / compute, if any, still win).
                const Json* instances = nullptr;
                const DataFile* defining = nullptr;
                if (auto kernel = spec.find("kernel"); kernel != spec.end() && kernel->is_string() &&
                                                      ir.kernel_instance(kernel->get<std::string>(), &defining))
                    instances = &defining->json["instances"];
                if (auto s = apply_assignment(ir, n, spec, instances); !s) return s;
                n.why.fusion = won->file->origin + ": /rules/" + std::to_string(won->index) + " " + g.rule + " (" +
                               rule.value("about", "") + ")";
                n.why.beaten = beaten;
            }
            if (rule.at("kernels").is_string()) {  // "members": the members' own kernels
                for (std::size_t k = 0; k < count; ++k) {
                    const auto& kernel = ir.nodes[i + k].node.kernel;
                    if (kernel && std::find(kernels.begin(), kernels.end(), *kernel) == kernels.end()) kernels.push_back(*kernel);
                }
            } else {
                for (const auto& k : rule["kernels"]) kernels.push_back(k.get<std::string>());
            }
            if (rule.contains("compute")) g.compute = schema::Compute::parse(rule["compute"].get<std::string>());
            else g.compute = ir.nodes[i].node.compute;
        } else {
            IrNode& n = ir.nodes[i];
            g.rule = n.kernel_rule;
            if (n.node.kernel) kernels.push_back(*n.node.kernel);
            kernels.insert(kernels.end(), n.kernel_launches.begin(), n.kernel_launches.end());
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
