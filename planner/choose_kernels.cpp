// choose_kernels: the kernel that serves each node at the arm's rows. The target's kernel
// tables are read top to bottom; the first row whose op (glob), block, layer kind, weight /
// activation / output formats, rows range, arms and settings all match decides the node's kernel entry, family,
// compute kind, knobs (`point`) and the rule name of the group it forms if no fusion rule
// takes it. A node no row serves is an error: the plan would have a hole. So is a node whose
// first matching row refuses it (`refuse`: the engine has no path for that format).
#include <algorithm>

#include "planner/passes.hpp"

namespace kbp::planner {
bool format_matches(const Json& row, const char* key, const std::optional<schema::Format>& f) {
    if (!row.contains(key)) return true;
    if (!f) return false;
    return name_matches(row[key].get<std::string>(), std::string(f->name()));
}

bool settings_match(const Json& conditions, const Ir& ir) {
    for (const auto& [k, v] : conditions.items()) {
        auto it = ir.settings.find(k);
        if (it == ir.settings.end() || !v.is_string() || it->second != v.get<std::string>()) return false;
    }
    return true;
}

bool step_matches(const Json& row, const Ir& ir) {
    if (row.contains("rows") && (ir.rows < row["rows"][0].get<std::int64_t>() || ir.rows > row["rows"][1].get<std::int64_t>()))
        return false;
    if (auto conditions = row.find("settings"); conditions != row.end() && conditions->is_object() && !settings_match(*conditions, ir))
        return false;
    if (!row.contains("arms")) return true;
    for (const auto& a : row["arms"])
        if (a == ir.request.arm) return true;
    return false;
}

std::map<std::string, std::string> placeholders(const Ir& ir, const IrNode& n) {
    return {{"role", role_of(n.node.op)}, {"block", n.block}, {"attn", n.attn}, {"slot", n.slot}, {"rows", std::to_string(ir.rows)}};
}

Json fill_json(const Ir& ir, const Json& v, const std::map<std::string, std::string>& extra) {
    if (v.is_string()) {
        const std::string& text = v.get_ref<const std::string&>();
        // A whole "{=expr}" is a number, not its digits as text.
        if (text.size() > 3 && text.rfind("{=", 0) == 0 && text.back() == '}' && text.find('}') == text.size() - 1)
            if (auto n = ir.eval(std::string_view(text).substr(2, text.size() - 3))) return *n;
        return ir.fill(text, extra);
    }
    if (v.is_object()) {
        Json o = Json::object();
        for (const auto& [k, x] : v.items()) o[k] = fill_json(ir, x, extra);
        return o;
    }
    return v;
}

schema::JsonValue to_value(const Json& v) {
    if (v.is_null()) return nullptr;
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number()) return v.get<double>();
    if (v.is_array()) {
        schema::JsonArray a;
        for (const auto& x : v) a.push_back(to_value(x));
        return a;
    }
    schema::JsonObject o;
    for (const auto& [k, x] : v.items()) o.emplace_back(k, to_value(x));
    return o;
}

Status apply_assignment(const Ir& ir, IrNode& n, const Json& a, const Json* instances) {
    auto extra = placeholders(ir, n);
    if (a.contains("kernel")) {
        if (a["kernel"].is_null()) {
            n.node.kernel.reset();
        } else {
            std::string kernel = a["kernel"].get<std::string>();
            n.node.kernel = kernel;
            if (instances && instances->contains(kernel)) {
                const Json& inst = (*instances)[kernel];
                n.node.family = inst.at("family").get<std::string>();
                n.node.compute = inst.at("compute").is_null() ? std::optional<schema::Compute>{}
                                                              : schema::Compute::parse(ir.fill(inst["compute"].get<std::string>()));
            }
        }
    }
    if (a.contains("family")) n.node.family = a["family"].get<std::string>();
    if (a.contains("compute"))
        n.node.compute = a["compute"].is_null() ? std::optional<schema::Compute>{} : schema::Compute::parse(ir.fill(a["compute"].get<std::string>()));
    if (a.contains("where")) n.node.where = schema::WhereName::parse(a["where"].get<std::string>());
    if (a.contains("point")) {
        n.node.point = to_value(fill_json(ir, a["point"], extra));
        // The op's own knobs (a window, an absorbed weight's shape) stay with it.
        if (!n.own_point.empty()) {
            schema::JsonObject merged = n.node.point.is_object() ? n.node.point.object() : schema::JsonObject{};
            for (const auto& [k, v] : n.own_point)
                // (key = k: clang 14, which builds the fuzz targets, cannot capture a structured binding)
                if (std::none_of(merged.begin(), merged.end(), [&key = k](const auto& m) { return m.first == key; })) merged.emplace_back(k, v);
            n.node.point = schema::JsonValue(std::move(merged));
        }
    }
    if (auto f = a.find("fraction_bits"); f != a.end()) n.fraction_rule = &*f;
    return Ok{};
}

Status choose_kernels(Ir& ir) {
    const std::string arm = ir.request.arm;
    for (auto& n : ir.nodes) {
        const Json* chosen = nullptr;
        const DataFile* file = nullptr;
        std::size_t index = 0;
        for (const DataFile* f : ir.kernels) {
            const auto& table = f->json.at("table");
            for (std::size_t r = 0; r < table.size() && !chosen; ++r) {
                const Json& row = table[r];
                if (!name_matches(row.at("op").get<std::string>(), n.node.op.name())) continue;
                if (row.contains("block") && !name_matches(row["block"].get<std::string>(), n.block)) continue;
                // A row for one layer kind only (a sliding-window attention kernel).
                if (row.contains("kind") && !(n.node.kind && name_matches(row["kind"].get<std::string>(), std::string(n.node.kind->name()))))
                    continue;
                if (!format_matches(row, "weight", n.node.precision.weight)) continue;
                if (!format_matches(row, "activation", n.node.precision.activation)) continue;
                if (row.contains("output") &&
                    !(n.node.precision.output && !n.node.precision.output->empty() &&
                      name_matches(row["output"].get<std::string>(), std::string(n.node.precision.output->front().name()))))
                    continue;
                if (!step_matches(row, ir)) continue;
                chosen = &row;
                file = f;
                index = r;
            }
            if (chosen) break;
        }
        auto fmt = [](const std::optional<schema::Format>& f) { return f ? std::string(f->name()) : std::string("none"); };
        // The engine has no path for this node (TensorRT-LLM's CUTLASS MoE and FP8 per-channel
        // experts): say which row says so and why, rather than plan a kernel it never runs.
        if (chosen && chosen->contains("refuse"))
            return make_error(ErrorCode::unsupported, file->origin + ": /table/" + std::to_string(index) + "/refuse",
                              "engine '" + ir.engine->name + "' does not run '" + n.node.id + "' (" + n.node.op.name() + ", weight " +
                                  fmt(n.node.precision.weight) + ", activation " + fmt(n.node.precision.activation) +
                                  "): " + chosen->at("refuse").get<std::string>());
        if (!chosen) {
            // Name what decided the node's formats too: the data that asked for what no row has.
            std::string decided = !n.why.recipe.empty() ? "; formats from " + n.why.recipe : "";
            if (n.node.inserted) {
                decided = "; inserted: " + n.why.inserted_for;
                const int self = static_cast<int>(&n - ir.nodes.data());
                for (const auto& reader : ir.nodes)
                    if (!reader.why.recipe.empty() &&
                        std::any_of(reader.inputs.begin(), reader.inputs.end(), [&](const TensorRef& r) { return r.node == self; })) {
                        decided += ", its formats from " + reader.why.recipe;
                        break;
                    }
            }
            return make_error(ErrorCode::unsupported, ir.kernels.front()->origin + ": /table",
                              "no row serves '" + n.node.id + "' (" + n.node.op.name() + ", weight " + fmt(n.node.precision.weight) +
                                  ", activation " + fmt(n.node.precision.activation) + ", " + std::to_string(ir.rows) + " rows, " + arm +
                                  " arm" + decided + ")");
        }
        // The row's kernel: one of its file's instances, or of a later catalog the engine reads
        // (an engine's own table may send a node to a shared kernel).
        const Json* instances = file->json.contains("instances") ? &file->json["instances"] : nullptr;
        if (!chosen->at("kernel").is_null() && !(instances && instances->contains(chosen->at("kernel").get<std::string>()))) {
            const DataFile* defining = nullptr;
            if (!ir.kernel_instance(chosen->at("kernel").get<std::string>(), &defining))
                return make_error(ErrorCode::invalid_input, file->origin + ": /table/" + std::to_string(index) + "/kernel",
                                  "kernel '" + chosen->at("kernel").get<std::string>() + "' is an instance of no kernel catalog engine '" +
                                      ir.engine->name + "' reads");
            instances = &defining->json["instances"];
        }
        if (auto s = apply_assignment(ir, n, *chosen, instances); !s) return s;
        if (auto steps = chosen->find("steps"); steps != chosen->end()) n.steps_spec = &*steps;
        for (const auto& k : chosen->value("launches", Json::array())) n.kernel_launches.push_back(k.get<std::string>());
        n.kernel_rule = ir.fill(chosen->at("rule").get<std::string>(), placeholders(ir, n));
        n.why.kernel_row = file->origin + ": /table/" + std::to_string(index);
        n.why.kernel_row_json = chosen;
    }
    return Ok{};
}

}  // namespace kbp::planner
