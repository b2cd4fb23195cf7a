#include "schema/synthetic.hpp"

#include "schema/templates.hpp"

namespace kbp::schema {

Result<Blueprint> relayout(const Blueprint& plan, const std::vector<std::string>& layout, bool expand) {
    auto collapsed = collapse_layers(plan, {.detail = true});
    if (!collapsed) return collapsed.error();
    Blueprint b = plan;
    b.node_costs.reset();  // keyed by the old layout's node ids
    b.modules.reset();
    b.collapsed = std::move(*collapsed);
    auto& c = *b.collapsed;
    c.layout.clear();
    for (auto& t : c.templates) t.instances.clear();
    b.layers.clear();
    for (std::size_t i = 0; i < layout.size(); ++i) {
        const Layer* model = nullptr;
        for (const auto& l : plan.layers)
            if (l.template_name == layout[i] && !model) model = &l;
        if (!model) return make_error(ErrorCode::usage, "", "no layer of the plan has template '" + layout[i] + "'");
        Layer layer = *model;
        layer.index = static_cast<std::int64_t>(i);
        for (auto& block : layer.blocks) {
            // Appending, not "l" + to_string: GCC 12 warns wrongly about the latter (-Wrestrict).
            auto dot = block.find('.');
            std::string renamed = "l";
            renamed += std::to_string(i);
            renamed += dot == std::string::npos ? "." + block : block.substr(dot);
            block = std::move(renamed);
        }
        b.layers.push_back(std::move(layer));
        c.layout.push_back(layout[i]);
        for (auto& t : c.templates)
            if (t.name == layout[i]) t.instances.push_back(static_cast<std::int64_t>(i));
    }
    b.nodes.clear();
    b.edges.clear();
    b.groups.clear();
    b.collapsed_only = true;
    if (!expand) return b;
    auto flat = expand_templates(b);
    if (!flat) return flat.error();
    b.nodes = std::move(flat->nodes);
    b.edges = std::move(flat->edges);
    b.groups = std::move(flat->groups);
    b.collapsed_only = false;
    return b;
}

std::vector<std::string> glm_layout(std::size_t layers) {
    std::vector<std::string> out;
    out.reserve(layers);
    for (std::size_t i = 0; i < layers; ++i) out.push_back(i < 3 ? "kda+mlp" : (i % 4 == 3 ? "dsa+moe" : "kda+moe"));
    return out;
}

}  // namespace kbp::schema
