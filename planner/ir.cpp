#include "planner/ir.hpp"

#include <algorithm>
#include <charconv>
#include <regex>

#include "planner/data_schema.hpp"
#include "planner/regex_cache.hpp"
#include "planner/expr.hpp"

namespace kbp::planner {

std::vector<const DataFile*> Ir::input_files() const {
    std::vector<const DataFile*> inputs{config, architecture, recipe};
    inputs.insert(inputs.end(), recipe_parts.begin(), recipe_parts.end());
    // The architectures this one extends (after the recipe: a replay finds the recipe third).
    inputs.insert(inputs.end(), architecture->bases.begin(), architecture->bases.end());
    if (quant) {
        if (quant->file != config) inputs.push_back(quant->file);
        inputs.push_back(quant->table);
    }
    inputs.push_back(target);
    if (engine) inputs.push_back(engine);
    if (ranges) inputs.push_back(ranges);
    for (const auto* list : {&kernels, &fusion, &explain, &ops}) inputs.insert(inputs.end(), list->begin(), list->end());
    return inputs;
}

std::string Ir::architecture_name() const { return architecture->json.value("name", architecture->name); }

std::optional<std::int64_t> Ir::symbol(std::string_view name) const {
    for (const auto& s : symbols)
        if (s.name == name) return s.value;
    return std::nullopt;
}

std::string Ir::fill(std::string text, const std::map<std::string, std::string>& extra) const {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        auto open = text.find('{', i);
        if (open == std::string::npos) {
            out += text.substr(i);
            break;
        }
        auto close = text.find('}', open);
        if (close == std::string::npos) {
            out += text.substr(i);
            break;
        }
        out += text.substr(i, open - i);
        std::string key = text.substr(open + 1, close - open - 1);
        if (!key.empty() && key[0] == '=') {
            auto v = eval(std::string_view(key).substr(1));
            out += v ? std::to_string(*v) : text.substr(open, close - open + 1);
        } else if (auto it = extra.find(key); it != extra.end()) out += it->second;
        else if (auto s = settings.find(key); s != settings.end()) out += s->second;
        else if (auto v = symbol(key)) out += std::to_string(*v);
        else if (auto i = target_instruction(key)) out += *i;
        else out += text.substr(open, close - open + 1);
        i = close + 1;
    }
    return out;
}

Result<std::int64_t> Ir::eval(std::string_view expr) const {
    return eval_expr(expr, [&](std::string_view name) -> std::optional<std::int64_t> {
        if (auto v = symbol(name)) return v;
        auto s = settings.find(std::string(name));
        if (s == settings.end()) return std::nullopt;
        std::int64_t v = 0;
        auto [end, ec] = std::from_chars(s->second.data(), s->second.data() + s->second.size(), v);
        if (ec != std::errc{} || end != s->second.data() + s->second.size()) return std::nullopt;
        return v;
    });
}

const KernelInstance* Ir::kernel_instance(const std::string& kernel, const DataFile** file) const {
    for (const DataFile* f : kernels) {
        const auto& instances = f->kernel_catalog->instances;
        auto it = instances.find(kernel);
        if (it == instances.end()) continue;
        if (file) *file = f;
        return &it->second;
    }
    return nullptr;
}

std::string Ir::config_at(const std::string& below) const { return config->origin + ": " + config_pointer + "/" + below; }

std::string Ir::module_name(std::string name) const {
    for (const auto& [from, to] : module_roots)
        if (name.rfind(from, 0) == 0) return to + name.substr(from.size());
    return name;
}

std::vector<std::string> Ir::fields_of(const std::vector<std::string>& expressions) const {
    std::vector<std::string> fields;
    for (const auto& text : expressions) {
        auto symbols = expr_names(text);
        if (!symbols) continue;
        for (const auto& s : *symbols)
            if (auto it = symbol_fields.find(s); it != symbol_fields.end())
                for (const auto& f : it->second)
                    if (std::find(fields.begin(), fields.end(), f) == fields.end()) fields.push_back(f);
    }
    return fields;
}

Error Ir::config_error(const std::vector<std::string>& names, const std::string& message, bool smallest) const {
    const std::vector<std::string> fields = fields_of(names);
    const Json& cfg = config->json;
    std::string best;
    long double best_value = 0;
    std::string values;
    for (const auto& f : fields) {
        auto it = cfg.find(f);
        if (it == cfg.end() || !it->is_number()) continue;
        long double v = it->is_number_unsigned() ? static_cast<long double>(it->get<std::uint64_t>())
                        : it->is_number_integer() ? static_cast<long double>(it->get<std::int64_t>())
                                                  : static_cast<long double>(it->get<double>());
        values += (values.empty() ? "" : ", ") + f + " " + it->dump();
        bool better = smallest ? v < best_value : (v < 0 ? -v : v) > best_value;
        if (best.empty() || better) best = f, best_value = smallest ? v : (v < 0 ? -v : v);
    }
    return make_error(ErrorCode::invalid_input, config_at(pointer_token(best)), message + (values.empty() ? "" : " (" + values + ")"));
}

bool Ir::has_weight(const schema::Op& op) const {
    for (const DataFile* f : ops)
        if (auto entry = f->json.at("ops").find(std::string(op.kind.name())); entry != f->json.at("ops").end())
            return entry->value("weight", false);
    return false;
}

std::optional<std::string> Ir::target_instruction(const std::string& key) const {
    if (!target) return std::nullopt;
    const auto& table = target->target_record->instructions;
    auto it = table.find(key);
    if (it == table.end()) return std::nullopt;
    return it->second;
}

bool is_quantized(const schema::Format& f) {
    using schema::FormatId;
    switch (f.id) {
        case FormatId::fp8_token:
        case FormatId::fp8_channel:
        case FormatId::fp8_tensor:
        case FormatId::nvfp4_g16:
        case FormatId::mxfp4_g32:
        case FormatId::int4_b128:
        case FormatId::int8_token:
        case FormatId::int8_channel:
        case FormatId::int8_static:
        case FormatId::int8_b32:
        case FormatId::fp8_b128:
        case FormatId::fp8_g128:
        case FormatId::int4_g128:
        case FormatId::int4_g128z:
        case FormatId::int4_g32:
        case FormatId::int4_g32z:
        case FormatId::nf4_b64:
        case FormatId::nf4_b64dq:
        case FormatId::fx32: return true;
        default: return false;
    }
}

bool is_float(const schema::Format& f) {
    using schema::FormatId;
    return f.id == FormatId::bf16 || f.id == FormatId::f16 || f.id == FormatId::f32;
}

IrNode inserted_node(const IrNode& reader, const std::string& name, std::string_view op) {
    IrNode q;
    q.local = reader.block + "." + name;
    q.block = reader.block;
    q.attn = reader.attn;
    q.slot = reader.slot;
    q.node.id = reader.node.block + "." + name;
    q.node.layer = reader.node.layer;
    q.node.block = reader.node.block;
    q.node.block_type = reader.node.block_type;
    q.node.kind = reader.node.kind;
    q.node.op = schema::Op::parse(op);
    q.node.inserted = true;
    q.node.numerics = reader.node.numerics;
    q.node.where = reader.node.where;
    return q;
}

bool is_real_valued(const schema::Format& f) { return is_float(f) || f.id == schema::FormatId::fx32; }

std::string role_of(const schema::Op& op) {
    if (op.kind.id == schema::OpId::linear) return op.role;
    std::string name = op.name();
    if (name.rfind("expert_", 0) == 0) return name.substr(7);
    return name;
}

bool name_matches(const std::string& pattern, const std::string& text) {
    if (pattern.rfind("re:", 0) == 0) {
        // The catalog's check refused a "re:" that does not compile: every one here does.
        const auto& compiled = compiled_regex(std::string_view(pattern).substr(3));
        return compiled.regex && std::regex_match(text, *compiled.regex);
    }
    // Iterative glob with backtracking on the last '*'.
    std::size_t p = 0, t = 0, star = std::string::npos, mark = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = t;
        } else if (star != std::string::npos) {
            p = star + 1;
            t = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

}  // namespace kbp::planner
