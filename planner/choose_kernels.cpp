// choose_kernels: the kernel that serves each node at the arm's rows. The target's kernel
// tables are read top to bottom; the first row whose op (glob), block, layer kind, weight /
// activation / output formats, rows range, arms and settings all match decides the node's kernel entry, family,
// compute kind, knobs (`point`) and the rule name of the group it forms if no fusion rule
// takes it. A node no row serves is an error: the plan would have a hole. So is a node whose
// first matching row refuses it (`refuse`: the engine has no path for that format).
#include <algorithm>

#include "planner/passes.hpp"

namespace kbp::planner {
bool format_matches(const std::optional<std::string>& glob, const std::optional<schema::Format>& f) {
    if (!glob) return true;
    if (!f) return false;
    return name_matches(*glob, std::string(f->name()));
}

bool settings_match(const std::map<std::string, std::string>& conditions, const Ir& ir) {
    for (const auto& [k, v] : conditions) {
        auto it = ir.settings.find(k);
        if (it == ir.settings.end() || it->second != v) return false;
    }
    return true;
}

template <class Conditions> bool step_matches(const Conditions& row, const Ir& ir) {
    if (row.rows && (ir.rows < (*row.rows)[0] || ir.rows > (*row.rows)[1])) return false;
    if (row.settings && !settings_match(*row.settings, ir)) return false;
    return !row.arms || std::find(row.arms->begin(), row.arms->end(), ir.request.arm) != row.arms->end();
}
template bool step_matches(const KernelRow&, const Ir&);
template bool step_matches(const FusionRule&, const Ir&);

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

namespace {
// A compute word, filled, or none: nothing runs on the device.
std::optional<schema::Compute> compute_of(const Ir& ir, const std::optional<std::string>& word) {
    return word ? schema::Compute::parse(ir.fill(*word)) : std::optional<schema::Compute>{};
}
}  // namespace

template <class Spec> Status apply_assignment(const Ir& ir, IrNode& n, const Spec& a, const KernelCatalog* instances) {
    auto extra = placeholders(ir, n);
    if (a.kernel) {
        if (!*a.kernel) {
            n.node.kernel.reset();
        } else {
            const std::string& kernel = **a.kernel;
            n.node.kernel = kernel;
            if (instances)
                if (auto inst = instances->instances.find(kernel); inst != instances->instances.end()) {
                    n.node.family = inst->second.family;
                    n.node.compute = compute_of(ir, inst->second.compute);
                }
        }
    }
    if (a.family) n.node.family = *a.family;
    if (a.compute) n.node.compute = compute_of(ir, *a.compute);
    if (a.where) n.node.where = schema::WhereName::parse(*a.where);
    if (a.point) {
        n.node.point = to_value(fill_json(ir, *a.point, extra));
        // The op's own knobs (a window, an absorbed weight's shape) stay with it.
        if (!n.own_point.empty()) {
            schema::JsonObject merged = n.node.point.is_object() ? n.node.point.object() : schema::JsonObject{};
            for (const auto& [k, v] : n.own_point)
                // (key = k: clang 14, which builds the fuzz targets, cannot capture a structured binding)
                if (std::none_of(merged.begin(), merged.end(), [&key = k](const auto& m) { return m.first == key; })) merged.emplace_back(k, v);
            n.node.point = schema::JsonValue(std::move(merged));
        }
    }
    if (a.fraction_bits) n.fraction_rule = &*a.fraction_bits;
    return Ok{};
}
template Status apply_assignment(const Ir&, IrNode&, const KernelRow&, const KernelCatalog*);
template Status apply_assignment(const Ir&, IrNode&, const MemberSpec&, const KernelCatalog*);

namespace {

// The first row of the engine's tables, in order, that serves node `n`, with its file and index.
struct Served {
    const KernelRow* row = nullptr;
    const DataFile* file = nullptr;
    std::size_t index = 0;
};

Served first_row_serving(const Ir& ir, const IrNode& n) {
    const auto& out = n.node.precision.output;
    for (const DataFile* f : ir.kernels) {
        const auto& table = f->kernel_catalog->table;
        for (std::size_t r = 0; r < table.size(); ++r) {
            const KernelRow& row = table[r];
            if (!name_matches(row.op, n.node.op.name())) continue;
            if (row.block && !name_matches(*row.block, n.block)) continue;
            // A row for one layer kind only (a sliding-window attention kernel).
            if (row.kind && !(n.node.kind && name_matches(*row.kind, std::string(n.node.kind->name())))) continue;
            if (!format_matches(row.weight, n.node.precision.weight)) continue;
            if (!format_matches(row.activation, n.node.precision.activation)) continue;
            if (row.output && !(out && !out->empty() && name_matches(*row.output, std::string(out->front().name())))) continue;
            if (!step_matches(row, ir)) continue;
            return {&row, f, r};
        }
    }
    return {};
}

}  // namespace

Status choose_kernels(Ir& ir) {
    const std::string arm = ir.request.arm;
    for (auto& n : ir.nodes) {
        const auto [chosen, file, index] = first_row_serving(ir, n);
        auto fmt = [](const std::optional<schema::Format>& f) { return f ? std::string(f->name()) : std::string("none"); };
        // The engine has no path for this node (TensorRT-LLM's CUTLASS MoE and FP8 per-channel
        // experts): say which row says so and why, rather than plan a kernel it never runs.
        if (chosen && chosen->refuse)
            return make_error(ErrorCode::unsupported, file->origin + ": /table/" + std::to_string(index) + "/refuse",
                              "engine '" + ir.engine->name + "' does not run '" + n.node.id + "' (" + n.node.op.name() + ", weight " +
                                  fmt(n.node.precision.weight) + ", activation " + fmt(n.node.precision.activation) + "): " + *chosen->refuse);
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
        const KernelCatalog* instances = file->kernel_catalog.get();
        if (const auto& kernel = *chosen->kernel; kernel && !instances->instances.count(*kernel)) {
            const DataFile* defining = nullptr;
            if (!ir.kernel_instance(*kernel, &defining))
                return make_error(ErrorCode::invalid_input, file->origin + ": /table/" + std::to_string(index) + "/kernel",
                                  "kernel '" + *kernel + "' is an instance of no kernel catalog engine '" + ir.engine->name + "' reads");
            instances = defining->kernel_catalog.get();
        }
        if (auto s = apply_assignment(ir, n, *chosen, instances); !s) return s;
        if (chosen->steps) n.steps_spec = &*chosen->steps;
        if (chosen->launches) n.kernel_launches.insert(n.kernel_launches.end(), chosen->launches->begin(), chosen->launches->end());
        n.kernel_rule = ir.fill(chosen->rule, placeholders(ir, n));
        n.why.kernel_row = file->origin + ": /table/" + std::to_string(index);
        n.why.kernel_row_json = chosen->json;
    }
    return Ok{};
}

}  // namespace kbp::planner
