// build_blueprint: the plan as kbp-graph/v2. Edges come from the wiring: for each producer in
// order, each output slot, each reader in order, one edge with the tensor's name, format,
// row space, symbolic and numeric width and bytes per token (schema/bytes.hpp; x top_k in the
// expert row space; none for a tensor that stays in registers inside its kernel). The
// collapsed form is the schema's collapse of the flat lists; explain holds exactly the
// families and formats used; provenance names every input file with its sha256.
#include <algorithm>
#include <set>

#include "planner/passes.hpp"
#include "planner/sha256.hpp"
#include "schema/bytes.hpp"
#include "schema/templates.hpp"
#include "schema/writer.hpp"

namespace kbp::planner {
namespace {

bool in_expert_rows(const Ir& ir, int node, int slot, int depth = 0) {
    const IrTensor& t = ir.nodes[node].outputs[slot];
    if (t.rows == "n*top_k") return true;
    if (!t.rows.empty() || depth > 4) return false;
    for (const auto& in : ir.nodes[node].inputs)
        if (in_expert_rows(ir, in.node, in.slot, depth + 1)) return true;
    return false;
}

std::vector<std::string> strings_of(const Json& v) {
    std::vector<std::string> out;
    for (const auto& s : v) out.push_back(s.get<std::string>());
    return out;
}

}  // namespace

Result<schema::Blueprint> build_blueprint(const Ir& ir) {
    schema::Blueprint b;
    b.arm.mode = schema::ArmMode::parse(ir.request.arm);
    b.arm.rows = ir.rows;
    b.layers = ir.layers;
    b.nodes.reserve(ir.nodes.size());
    for (std::size_t i = 0; i < ir.nodes.size(); ++i) {
        schema::Node n = ir.nodes[i].node;
        n.order = static_cast<std::int64_t>(i);
        b.nodes.push_back(std::move(n));
    }
    b.groups = ir.groups;

    // Readers of every (producer, slot), in node order.
    std::vector<std::vector<std::vector<std::pair<int, int>>>> readers(ir.nodes.size());
    for (std::size_t i = 0; i < ir.nodes.size(); ++i) readers[i].resize(ir.nodes[i].outputs.size());
    for (std::size_t r = 0; r < ir.nodes.size(); ++r)
        for (std::size_t k = 0; k < ir.nodes[r].inputs.size(); ++k) {
            const auto& in = ir.nodes[r].inputs[k];
            readers[in.node][in.slot].push_back({static_cast<int>(r), static_cast<int>(k)});
        }
    const std::int64_t top_k = ir.symbol("top_k").value_or(1);
    for (std::size_t p = 0; p < ir.nodes.size(); ++p) {
        const IrNode& producer = ir.nodes[p];
        for (std::size_t s = 0; s < producer.outputs.size(); ++s) {
            const IrTensor& t = producer.outputs[s];
            for (const auto& [r, k] : readers[p][s]) {
                const IrNode& reader = ir.nodes[r];
                schema::Edge e;
                e.id = t.id;
                e.from = static_cast<std::int64_t>(p);
                e.to = r;
                e.format = t.format;
                if (!t.rows.empty()) e.rows = schema::RowSpace::parse(t.rows);
                if (!t.dim.empty()) e.dim = t.dim;
                e.dim_value = t.dim_value;
                e.fused = producer.node.group == reader.node.group;
                if (!(t.in_kernel && e.fused)) {
                    auto row = schema::row_bytes(t.format, t.dim_value);
                    if (!row) return make_error(ErrorCode::unsupported, t.id, "no byte size for format '" + std::string(t.format.name()) + "'");
                    e.bytes_per_token = *row * (in_expert_rows(ir, static_cast<int>(p), static_cast<int>(s)) ? top_k : 1);
                }
                if (producer.node.inserted && producer.node.precision.activation && !(*producer.node.precision.activation == t.format))
                    e.requant = schema::Requant{*producer.node.precision.activation, t.format, schema::RequantAt::parse("producer"), {}};
                else if (reader.requant_at_reader[k] && reader.node.precision.activation)
                    e.requant = schema::Requant{t.format, *reader.node.precision.activation, schema::RequantAt::parse("reader"), {}};
                b.edges.push_back(std::move(e));
            }
        }
    }

    // The arm's digest covers what the arm decided: its layers, nodes, edges and groups, written
    // before anything else joins the plan.
    b.arm.digest = sha256_hex(schema::write_blueprint(b, {.pretty = false}));
    b.symbols = ir.symbols;

    auto collapsed = schema::collapse_layers(b, {.detail = false});
    if (!collapsed) return collapsed.error();
    b.collapsed = std::move(*collapsed);

    // Explain: exactly the families and formats used, from the catalog's texts.
    std::set<std::string> families, formats;
    for (const auto& n : b.nodes) {
        families.insert(n.family);
        const auto& pr = n.precision;
        if (pr.weight) formats.insert(std::string(schema::format_doc_name(*pr.weight)));
        if (pr.activation) formats.insert(std::string(schema::format_doc_name(*pr.activation)));
        if (pr.output)
            for (const auto& f : *pr.output) formats.insert(std::string(schema::format_doc_name(f)));
    }
    for (const auto& e : b.edges) formats.insert(std::string(schema::format_doc_name(e.format)));
    schema::Explain x;
    const Json& family_texts = ir.explain[0]->json;
    const Json& format_texts = ir.explain[1]->json;
    for (const auto& name : families) {
        auto it = family_texts.find(name);
        if (it == family_texts.end())
            return make_error(ErrorCode::unsupported, ir.explain[0]->origin, "no explain text for kernel family '" + name + "'");
        x.families.push_back({name, it->value("description", ""), it->value("about", ""), it->value("numerics", ""),
                              strings_of(it->value("math", Json::array())), {}});
    }
    for (const auto& name : formats) {
        auto it = format_texts.find(name);
        if (it == format_texts.end())
            return make_error(ErrorCode::unsupported, ir.explain[1]->origin, "no explain text for format '" + name + "'");
        schema::FormatDoc d{name, it->value("title", ""), it->value("description", ""), strings_of(it->value("math", Json::array())),
                            std::nullopt, {}};
        if (it->contains("encode") && (*it)["encode"].is_string()) d.encode = (*it)["encode"].get<std::string>();
        x.formats.push_back(std::move(d));
    }
    b.explain = std::move(x);

    // Provenance: the command, every input with its digest, kbp's version.
    schema::Provenance pv;
    pv.kind = "kbp";
    schema::JsonObject header;
    header.emplace_back("architecture", ir.architecture->name);
    header.emplace_back("recipe", ir.recipe->name);
    if (ir.recipe->json.contains("checkpoint")) header.emplace_back("checkpoint", ir.recipe->json["checkpoint"].get<std::string>());
    header.emplace_back("target", ir.target->name);
    if (ir.ranges) header.emplace_back("ranges", ir.ranges->origin);
    std::string settings;
    for (const auto& [k, v] : ir.settings) settings += (settings.empty() ? "" : " ") + k + "=" + v;
    header.emplace_back("settings", settings);
    pv.planner_header = schema::JsonValue(std::move(header));
    pv.commands = {ir.request.command};
    std::vector<const DataFile*> inputs{ir.config, ir.architecture, ir.recipe};
    inputs.insert(inputs.end(), ir.recipe_parts.begin(), ir.recipe_parts.end());
    inputs.push_back(ir.target);
    if (ir.ranges) inputs.push_back(ir.ranges);
    inputs.insert(inputs.end(), ir.kernels.begin(), ir.kernels.end());
    inputs.insert(inputs.end(), ir.fusion.begin(), ir.fusion.end());
    inputs.insert(inputs.end(), ir.explain.begin(), ir.explain.end());
    std::string lineage;
    for (const DataFile* f : inputs) {
        pv.files.push_back({f->origin, f->sha256, {}});
        lineage += f->sha256;
    }
    pv.extras.emplace_back("kbp_version", KBP_VERSION);
    b.provenance = std::move(pv);

    b.lineage = "sha256:" + sha256_hex(lineage);
    b.blueprint_id = "kbp:" + sha256_hex(*b.arm.digest + *b.lineage);
    b.revision = 0;
    b.exported_by = std::string("kbp ") + KBP_VERSION + " plan";
    return b;
}

}  // namespace kbp::planner
