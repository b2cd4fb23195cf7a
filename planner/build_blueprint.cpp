// build_blueprint: the plan as kbp-graph/v2. Edges come from the wiring: for each producer in
// order, each output slot, each reader in order, one edge with the tensor's name, format,
// row space, symbolic and numeric width and bytes per token (schema/bytes.hpp; x top_k in the
// expert row space; none for a tensor that stays in registers inside its kernel). The
// collapsed form is the schema's collapse of the flat lists; explain holds exactly the
// families and formats used; provenance names every input file with its sha256.
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>

#include "planner/data_schema.hpp"
#include "planner/limits.hpp"
#include "planner/passes.hpp"
#include "planner/tensor_parallel.hpp"
#include "schema/bytes.hpp"
#include "schema/model_identity.hpp"
#include "schema/sha256.hpp"
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

// The symbolic width of a tensor; a quantized copy's is its input's.
std::string symbolic_dim(const Ir& ir, int node, int slot) {
    for (int depth = 0; depth < 8; ++depth) {
        const IrNode& n = ir.nodes[node];
        if (!n.outputs[slot].dim.empty() || n.inputs.empty()) return n.outputs[slot].dim;
        node = n.inputs.front().node;
        slot = n.inputs.front().slot;
    }
    return "";
}

std::vector<std::string> strings_of(const Json& v) {
    std::vector<std::string> out;
    for (const auto& s : v) out.push_back(s.get<std::string>());
    return out;
}

// "true" -> true, "64" -> 64, anything else stays text: knobs as a compile pipeline reads them.
schema::JsonValue typed(const std::string& v) {
    if (v == "true") return true;
    if (v == "false") return false;
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (!v.empty() && ec == std::errc{} && end == v.data() + v.size()) return n;
    return v;
}

// What a compile stage fed by this plan is called and keyed by (`kbp export stage`): the
// recipe's `stage` section (name, a tag template, the knobs under the pipeline's own names),
// else a "launches" stage tagged by model, recipe, arm and rows. The tag names the model
// ({model}: its name and config digest, schema/model_identity.hpp), first, put there when a
// template leaves it out, so two models' stages never share a folder. A setting changed from the
// recipe's default that the stage reads and the tag does not show is appended to it
// ("..._packed_hr2+fuse_v=false"), so different knobs never share one either, and a knob the
// stage does not read (kv_persist_mb for custom_op) leaves its folder alone.
schema::JsonValue stage_record(const Ir& ir) {
    static const Stage no_stage;
    const RecipeRecord& recipe = *ir.recipe->recipe_record;
    const Stage& stage = recipe.stage ? *recipe.stage : no_stage;
    const auto model = schema::model_identity(ir.config->origin, ir.architecture_name(), ir.symbols, ir.config_fields, ir.layers);
    const std::map<std::string, std::string> extra{
        {"arm", ir.request.arm}, {"rows", std::to_string(ir.rows)}, {"recipe", ir.recipe->name}, {"model", model.label()}};
    std::string tag_template = stage.tag.value_or("{model}_{recipe}_{arm}-r{rows}");
    if (tag_template.rfind("{model}", 0) != 0) tag_template = "{model}_" + tag_template;  // the schema allows it first or nowhere
    std::string tag = ir.fill(tag_template, extra);
    const std::string knob_text = stage.knobs ? stage.knobs->dump() : "";
    for (const auto& [k, v] : ir.settings) {
        if (tag_template.find("{" + k + "}") != std::string::npos) continue;
        // Only the knobs this stage reads (all settings when the recipe does not list them).
        if (!knob_text.empty() && knob_text.find("{" + k + "}") == std::string::npos) continue;
        if (const Json* d = recipe.setting(k); d && d->is_string() && d->get<std::string>() == v) continue;
        tag += "+" + k + "=" + v;
    }
    schema::JsonObject knobs;
    if (stage.knobs) {
        for (const auto& [name, v] : stage.knobs->items())
            knobs.emplace_back(name, v.is_string() ? typed(ir.fill(v.get<std::string>(), extra)) : to_value(v));
    } else {
        for (const auto& [k, v] : ir.settings) knobs.emplace_back(k, typed(v));
    }
    schema::JsonObject o;
    o.emplace_back("name", stage.name.value_or("launches"));
    o.emplace_back("tag", tag);
    schema::JsonObject m;
    m.emplace_back("name", model.name);
    m.emplace_back("digest", model.digest);
    o.emplace_back("model", std::move(m));
    o.emplace_back("knobs", std::move(knobs));
    return o;
}

// Layers planned from one template but laid out differently (a checkpoint that quantizes some
// layers and not others: MIXED_PRECISION, an ignore list naming one layer's down_proj; the first
// layer, which has no previous layer's residual add to run in its input norm) are templates of
// their own, so the collapsed form still expands back to the flat plan. The layout most layers
// share keeps the template's name; the others are "attn+mlp.v2", "attn+mlp.v3" by how many
// layers have them, then by their first layer.
void name_layer_variants(Ir& ir) {
    std::vector<std::string> signature(ir.layers.size());
    for (const auto& n : ir.nodes) {
        if (!n.node.layer || *n.node.layer < 0 || static_cast<std::size_t>(*n.node.layer) >= signature.size()) continue;
        const auto& p = n.node.precision;
        std::string& s = signature[static_cast<std::size_t>(*n.node.layer)];
        // Formats by kind: FixedPoint32's fractional bits differ layer by layer within one
        // template (its instance values carry them).
        s += std::string(n.local.view()) + "|" + std::string(n.node.op.name()) + "|" + (p.weight ? std::string(schema::format_doc_name(*p.weight)) : "") + "|" +
             (p.activation ? std::string(schema::format_doc_name(*p.activation)) : "") + "|" + (n.node.kernel ? std::string(n.node.kernel->view()) : "") + ";";
    }
    struct Layout {
        std::string signature;
        std::size_t layers = 0, first = 0;
    };
    std::map<std::string, std::vector<Layout>> seen;  // template -> its layouts, in order of first layer
    for (std::size_t i = 0; i < ir.layers.size(); ++i) {
        auto& layouts = seen[ir.layers[i].template_name];
        auto it = std::find_if(layouts.begin(), layouts.end(), [&](const Layout& l) { return l.signature == signature[i]; });
        if (it == layouts.end()) it = layouts.insert(layouts.end(), Layout{signature[i], 0, i});
        ++it->layers;
    }
    for (auto& [_, layouts] : seen)
        std::stable_sort(layouts.begin(), layouts.end(), [](const Layout& a, const Layout& b) { return a.layers > b.layers; });
    for (std::size_t i = 0; i < ir.layers.size(); ++i) {
        const auto& layouts = seen[ir.layers[i].template_name];
        const auto variant = static_cast<std::size_t>(
            std::find_if(layouts.begin(), layouts.end(), [&](const Layout& l) { return l.signature == signature[i]; }) - layouts.begin());
        if (variant > 0) ir.layers[i].template_name += ".v" + std::to_string(variant + 1);
    }
}

}  // namespace

Result<schema::Blueprint> build_blueprint(Ir& ir) {
    schema::Blueprint b;
    b.arm.mode = schema::ArmMode::parse(ir.request.arm);
    b.arm.rows = ir.rows;
    name_layer_variants(ir);
    b.layers = ir.layers;
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
                    const bool expert_rows = in_expert_rows(ir, static_cast<int>(p), static_cast<int>(s));
                    std::int64_t bytes = 0;
                    if (__builtin_mul_overflow(*row, expert_rows ? top_k : 1, &bytes) || bytes > max_bytes_per_token)
                        return ir.config_error({symbolic_dim(ir, static_cast<int>(p), static_cast<int>(s)), expert_rows ? "top_k" : ""},
                                               t.id + " moves more than " + std::to_string(max_bytes_per_token) + " bytes per token");
                    e.bytes_per_token = bytes;
                }
                if (producer.node.inserted && producer.node.precision.activation && !(*producer.node.precision.activation == t.format))
                    e.requant = schema::Requant{*producer.node.precision.activation, t.format, schema::RequantAt::parse("producer"), {}};
                else if (reader.requant_at_reader[k] && reader.node.precision.activation)
                    e.requant = schema::Requant{t.format, *reader.node.precision.activation, schema::RequantAt::parse("reader"), {}};
                b.edges.push_back(std::move(e));
            }
        }
    }

    // The nodes leave the IR once the edges are made from them: a plan of a million nodes is not
    // held twice.
    b.nodes.reserve(ir.nodes.size());
    schema::JsonObject modules;
    for (const auto& n : ir.nodes) {
        if (n.modules.empty()) continue;
        schema::JsonArray names(n.modules.begin(), n.modules.end());
        modules.emplace_back(n.node.id, std::move(names));
    }
    // Ops that all-reduce their own partial sums under --tp (an architecture's tp_all_reduce),
    // read while the nodes still know their architecture entries.
    std::vector<std::int64_t> op_reduce_bytes;
    if (ir.request.tp > 1)
        for (const auto& n : ir.nodes) {
            if (!n.spec) continue;
            auto it = n.spec->find("tp_all_reduce");
            if (it == n.spec->end()) continue;
            auto bytes = ir.eval(it->get<std::string>());
            if (!bytes) return bytes.error();
            op_reduce_bytes.push_back(*bytes);
        }
    for (std::size_t i = 0; i < ir.nodes.size(); ++i) {
        b.nodes.push_back(std::move(ir.nodes[i].node));
        b.nodes.back().order = static_cast<std::int64_t>(i);
    }
    ir.nodes = {};

    // The arm's digest covers what the arm decided: its layers, nodes, edges and groups, written
    // before anything else joins the plan (streamed into the digest, not held as text).
    record_parallel(ir, b, op_reduce_bytes);  // --tp N: the split and its all-reduces
    schema::Sha256 digest;
    schema::write_blueprint(b, {.pretty = false}, [&](std::string_view text) { digest.add(text); });
    b.arm.digest = digest.hex();
    b.symbols = ir.symbols;
    if (!ir.config_fields.empty()) b.config_fields = ir.config_fields;
    // Names, not decisions: outside the arm's digest, like the config's fields.
    if (!modules.empty()) b.modules = std::move(modules);

    // Layers that do not repeat (an architecture whose last layer feeds nothing) have no collapsed form.
    auto collapsed = schema::collapse_layers(b, {.detail = false});
    if (!collapsed)
        return make_error(ErrorCode::invalid_input, ir.architecture->origin + ": /layers",
                          "the layers do not repeat: " + collapsed.error().where + ": " + collapsed.error().message);
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
            return make_error(ErrorCode::unsupported, ir.explain[0]->origin + ": /" + pointer_token(name), "missing: kernel family '" + name + "' has no explain text");
        x.families.push_back({name, it->value("description", ""), it->value("about", ""), it->value("numerics", ""),
                              strings_of(it->value("math", Json::array())), {}});
    }
    for (const auto& name : formats) {
        auto it = format_texts.find(name);
        if (it == format_texts.end())
            return make_error(ErrorCode::unsupported, ir.explain[1]->origin + ": /" + pointer_token(name), "missing: format '" + name + "' has no explain text");
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
    // The checkpoint's own precision (import_quant.hpp): where it was declared; the recipe only
    // filled in what the declaration does not reach, and a replay must not name it.
    // The file by name alone (its path is in the provenance's files): the plan stays the same bytes
    // wherever the checkout is.
    if (ir.quant) header.emplace_back("precision", std::filesystem::path(ir.quant->file->origin).filename().string() + ": " + ir.quant->pointer);
    if (const auto& checkpoint = ir.recipe->recipe_record->checkpoint) header.emplace_back("checkpoint", *checkpoint);
    header.emplace_back("target", ir.target->name);
    header.emplace_back("engine", ir.engine->name);
    if (ir.ranges) header.emplace_back("ranges", ir.ranges->origin);
    std::string settings;
    for (const auto& [k, v] : ir.settings) settings += (settings.empty() ? "" : " ") + k + "=" + v;
    header.emplace_back("settings", settings);
    header.emplace_back("stage", stage_record(ir));
    if (!ir.request.node_formats.empty()) {
        // The per-node choices that replaced the recipe's (kbp tune): a replay passes them again.
        schema::JsonObject chosen;
        for (const auto& [id, f] : ir.request.node_formats)
            chosen.emplace_back(id, schema::JsonObject{{"weight", f.weight}, {"activation", f.activation}, {"why", f.why}});
        header.emplace_back("node_formats", std::move(chosen));
    }
    pv.planner_header = schema::JsonValue(std::move(header));
    pv.commands = {ir.request.command};
    std::string lineage;
    for (const DataFile* f : ir.input_files()) {
        pv.files.push_back({f->origin, f->sha256, {}});
        lineage += f->sha256;
    }
    pv.extras.emplace_back("kbp_version", KBP_VERSION);
    b.provenance = std::move(pv);

    b.lineage = "sha256:" + schema::sha256_hex(lineage);
    b.blueprint_id = "kbp:" + schema::sha256_hex(*b.arm.digest + *b.lineage);
    b.revision = 0;
    b.exported_by = std::string("kbp ") + KBP_VERSION + " plan";
    return b;
}

}  // namespace kbp::planner
