#include "planner/sensitivity.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <utility>

#include "planner/catalog.hpp"
#include "planner/data_schema.hpp"
#include "planner/module_match.hpp"
#include "schema/names.hpp"

namespace kbp::planner {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* schema_name = "kbp-sensitivity/v1";
constexpr const char* prior_origin = "prior: llama.cpp use_more_bits (a heuristic)";

Error bad(const std::string& origin, const std::string& pointer, std::string message) {
    return make_error(ErrorCode::invalid_input, origin + ": " + pointer, std::move(message));
}

// A value in a message: a scalar as written, a structure by its kind.
std::string shown(const Json& v) {
    if (v.is_array()) return "an array";
    if (v.is_object()) return "an object";
    return v.dump();
}

// Where a plan names a layer's routed experts with '*' ("model.layers.3.mlp.experts.*.down_proj"):
// the position of ".*.", or npos.
std::size_t expert_star(std::string_view module) { return module.find(".*."); }

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// The model's module names as a file may name them: each module, each experts' module
// ("model.layers.3.mlp.experts" of "model.layers.3.mlp.experts.*.down_proj"), and a routed
// expert's module with its index in place of '*'.
class ModelModules {
public:
    explicit ModelModules(const std::vector<std::string>& modules) : exact_(modules.begin(), modules.end()) {
        for (const auto& m : modules)
            if (auto star = expert_star(m); star != std::string::npos) experts_.insert(m.substr(0, star));
    }

    bool names(const std::string& entry) const {
        if (exact_.count(entry) || experts_.count(entry)) return true;
        // "...experts.5.down_proj": some all-digit segment read as '*' names a module. A layer's
        // index is digits too, but with '*' there the name is no module of the plan.
        for (std::size_t start = 0; start <= entry.size();) {
            std::size_t end = entry.find('.', start);
            if (end == std::string::npos) end = entry.size();
            if (all_digits(std::string_view(entry).substr(start, end - start))) {
                std::string starred = entry.substr(0, start) + "*" + entry.substr(end);
                if (exact_.count(starred)) return true;
            }
            start = end + 1;
        }
        return false;
    }

    // What a near miss is suggested from: the modules and the experts' modules.
    std::vector<std::string> spellings() const {
        std::vector<std::string> out(exact_.begin(), exact_.end());
        out.insert(out.end(), experts_.begin(), experts_.end());
        return out;
    }

private:
    std::set<std::string> exact_, experts_;
};

// One module's scores: key (candidate or format) -> score, each checked.
Result<std::map<std::string, double>> read_scores(const std::string& origin, const std::string& ptr, const Json& v) {
    if (!v.is_object()) return bad(origin, ptr, "expected an object: candidate recipe or weight format -> score, found " + shown(v));
    if (v.empty()) return bad(origin, ptr, "no scores (name at least one candidate recipe or weight format)");
    std::map<std::string, double> out;
    for (const auto& [key, score] : v.items()) {
        const std::string at = ptr + "/" + pointer_token(key);
        if (key.empty()) return bad(origin, at, "empty candidate name");
        // A key with a '/' is a weight format ("nvfp4/g16"); recipe names have none. A format kbp
        // does not know would never match a candidate: refuse it rather than ignore it.
        if (key.find('/') != std::string::npos && !schema::Format::parse(key).known()) {
            const auto near = schema::closest_name<schema::FormatId>(key);
            return bad(origin, at, "unknown format '" + key + "'" + (near.empty() ? "" : " (did you mean '" + std::string(near) + "'?)"));
        }
        if (!score.is_number())
            return bad(origin, at, "expected a number (the score: 0 = lossless, larger = worse), found " + shown(score));
        const double x = score.get<double>();
        if (!std::isfinite(x)) return bad(origin, at, "not a finite number");
        if (x < 0) return bad(origin, at, "negative score " + score.dump() + " (0 = lossless, larger = worse)");
        out.emplace(key, x);
    }
    return out;
}

}  // namespace

Result<Sensitivity> read_sensitivity(const std::string& path) {
    // A catalog with no files of its own: only its reading of a file by path (the nesting limit,
    // "FILE:LINE:COL" for broken JSON, "this is a kbp plan, not ..." for a file of another kind).
    Catalog reader;
    auto file = reader.file("sensitivity", path);
    if (!file) return file.error();
    const DataFile& f = **file;
    const Json& j = f.json;
    if (!j.is_object()) return bad(f.origin, "/", "a sensitivity file is a JSON object {\"schema\": \"" + std::string(schema_name) + "\", \"modules\": {...}}");
    auto schema = j.find("schema");
    if (schema == j.end()) return bad(f.origin, "/schema", std::string("missing (\"") + schema_name + "\")");
    if (!schema->is_string() || *schema != schema_name)
        return bad(f.origin, "/schema", std::string("expected \"") + schema_name + "\", found " + shown(*schema));
    static const std::vector<std::string> members{"schema", "model", "source", "modules"};
    for (const auto& [key, value] : j.items()) {
        if (std::find(members.begin(), members.end(), key) == members.end())
            return bad(f.origin, "/" + pointer_token(key), "unknown member '" + key + "'" + schema::name_hint(key, members, "members"));
        if ((key == "model" || key == "source") && !value.is_string()) return bad(f.origin, "/" + key, "expected a string, found " + shown(value));
    }
    auto modules = j.find("modules");
    if (modules == j.end()) return bad(f.origin, "/modules", "missing (an object: Hugging Face module name -> {candidate or format: score})");
    if (!modules->is_object())
        return bad(f.origin, "/modules", "expected an object: Hugging Face module name -> {candidate or format: score}, found " + shown(*modules));
    if (modules->empty()) return bad(f.origin, "/modules", "no modules (a sensitivity file scores at least one)");

    Sensitivity s;
    s.origin = f.origin;
    s.sha256 = f.sha256;
    if (auto source = j.find("source"); source != j.end()) s.source = source->get<std::string>();
    for (const auto& [name, scores] : modules->items()) {
        const std::string ptr = "/modules/" + pointer_token(name);
        if (name.empty()) return bad(f.origin, ptr, "empty module name");
        auto read = read_scores(f.origin, ptr, scores);
        if (!read) return read.error();
        s.modules.emplace(name, std::move(*read));
    }
    return s;
}

Status check_sensitivity_modules(const Sensitivity& s, const std::vector<std::string>& model_modules) {
    const ModelModules model(model_modules);
    std::vector<std::string> spellings;  // made on the first miss only
    for (const auto& [name, scores] : s.modules) {
        if (model.names(name)) continue;
        spellings = model.spellings();
        return bad(s.origin, "/modules/" + pointer_token(name),
                   "the model has no module '" + name + "'" + schema::layered_name_hint(name, spellings, "modules", "the model"));
    }
    return Ok{};
}

std::optional<double> unit_score(const Sensitivity& s, std::span<const std::string> modules, std::string_view candidate,
                                 std::string_view format) {
    // The file's entries that name a module of the unit, each once.
    std::vector<const std::map<std::string, double>*> entries;
    auto take = [&](const std::map<std::string, double>& scores) {
        if (std::find(entries.begin(), entries.end(), &scores) == entries.end()) entries.push_back(&scores);
    };
    for (const auto& m : modules) {
        if (auto it = s.modules.find(m); it != s.modules.end()) take(it->second);
        const std::size_t star = expert_star(m);
        if (star == std::string::npos) continue;
        if (auto it = s.modules.find(m.substr(0, star)); it != s.modules.end()) take(it->second);
        // Per expert: "<prefix>.<digits><suffix>" for the plan's "<prefix>.*<suffix>".
        const std::string prefix = m.substr(0, star + 1), suffix = m.substr(star + 2);
        for (auto it = s.modules.lower_bound(prefix); it != s.modules.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
            std::string_view rest = std::string_view(it->first).substr(prefix.size());
            std::size_t digits = 0;
            while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
            if (digits > 0 && rest.substr(digits) == suffix) take(it->second);
        }
    }
    if (entries.empty()) return std::nullopt;
    double sum = 0;
    for (const auto* scores : entries) {
        auto it = scores->find(std::string(candidate));
        if (it == scores->end()) it = scores->find(std::string(format));
        if (it == scores->end()) return std::nullopt;
        sum += it->second;
    }
    return sum;
}

std::vector<std::string> quantizable_modules(const schema::Blueprint& plan) {
    std::vector<std::string> out;
    if (!plan.modules) return out;
    std::map<std::string_view, const schema::JsonArray*> by_node;
    for (const auto& [id, names] : *plan.modules)
        if (names.is_array()) by_node.emplace(id, &names.array());
    std::set<std::string_view> seen;
    for (const auto& node : plan.nodes) {
        const ModuleKind kind = module_kind(node.op);
        if (kind != ModuleKind::linear && kind != ModuleKind::experts && kind != ModuleKind::lm_head) continue;
        auto it = by_node.find(node.id);
        if (it == by_node.end()) continue;
        for (const auto& name : *it->second)
            if (name.is_string() && seen.insert(name.string()).second) out.push_back(name.string());
    }
    return out;
}

// --- the prior ---------------------------------------------------------------------------------

bool use_more_bits(std::int64_t i_layer, std::int64_t n_layers) {
    return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2;
}

namespace {

// llama.cpp's tensor categories the prior tells apart (tensor_get_category in llama-quant.cpp).
enum class LlamaCategory { attn_v, ffn_down, output, other };

// A module's category by its last name segment, as gguf-py/gguf/tensor_mapping.py maps Hugging
// Face names to GGUF tensors (planner/data/quantizers/gguf.json holds the rows kbp's architectures
// use; tests/test_sensitivity.cpp checks the two agree): attn_v, attn_qkv and attn_kv_b are
// category_is_attn_v; ffn_down, ffn_down_exps and ffn_down_shexp all contain "ffn_down".
LlamaCategory category_of(const std::string& module) {
    const auto dot = module.rfind('.');
    const std::string_view last = dot == std::string::npos ? std::string_view(module) : std::string_view(module).substr(dot + 1);
    static constexpr std::string_view attn_v[] = {
        "v_proj",           // ATTN_V: model.layers.{bid}.self_attn.v_proj, backbone.layers.{bid}.mixer.v_proj
        "qkv_proj",         // ATTN_QKV: phi3's self_attn.qkv_proj
        "query_key_value",  // ATTN_QKV: falcon, gptneox, chatglm
        "in_proj_qkv",      // ATTN_QKV: qwen3.5's linear_attn.in_proj_qkv
        "kv_b_proj",        // ATTN_KV_B: deepseek2's self_attn.kv_b_proj
    };
    static constexpr std::string_view ffn_down[] = {
        "down_proj",      // FFN_DOWN, FFN_DOWN_EXP, FFN_DOWN_SHEXP: mlp.down_proj, mlp.experts.down_proj, mlp.shared_experts.down_proj
        "w2",             // FFN_DOWN_EXP: mixtral's block_sparse_moe.experts.{xid}.w2
        "output_linear",  // FFN_DOWN_EXP, FFN_DOWN_SHEXP: granitemoe's block_sparse_moe / shared_mlp .output_linear
        "dense_4h_to_h",  // FFN_DOWN: gptneox, falcon, bloom
    };
    if (last == "lm_head") return LlamaCategory::output;  // OUTPUT
    if (std::find(std::begin(attn_v), std::end(attn_v), last) != std::end(attn_v)) return LlamaCategory::attn_v;
    if (std::find(std::begin(ffn_down), std::end(ffn_down), last) != std::end(ffn_down)) return LlamaCategory::ffn_down;
    return LlamaCategory::other;
}

// Modules in llama.cpp's tensor order: by layer (weight_name_comparer in llama-model-loader.h),
// then by name.
bool layer_order(const std::string& a, const std::string& b) {
    const long la = split_at_layer(a).layer, lb = split_at_layer(b).layer;
    return la != lb ? la < lb : a < b;
}

// Bits per weight of llama.cpp's K-quants (ggml-common.h): block_q4_K is 144 bytes per 256
// weights, block_q6_K 210.
constexpr double q4_k_bits = 144.0 * 8 / 256;  // 4.5
constexpr double q6_k_bits = 210.0 * 8 / 256;  // 6.5625

double prior_score(double weight, double bits) {
    if (bits >= 16) return 0;
    return weight * (std::exp2(4 - bits) - std::exp2(4.0 - 16));
}

}  // namespace

Sensitivity use_more_bits_prior(const std::vector<std::string>& model_modules, std::int64_t n_layers,
                                const std::map<std::string, double>& bits_of) {
    std::vector<std::string> modules(model_modules.begin(), model_modules.end());
    std::sort(modules.begin(), modules.end(), layer_order);
    modules.erase(std::unique(modules.begin(), modules.end()), modules.end());
    // A model with routed experts is llama.cpp's n_expert > 1: its ffn_down tensors take the
    // layer from their name, a dense model's their count (layer_info in llama_tensor_get_type_impl).
    const bool routed_experts = std::any_of(modules.begin(), modules.end(), [](const std::string& m) { return expert_star(m) != std::string::npos; });
    std::int64_t n_attention_wv = 0;
    for (const auto& m : modules) n_attention_wv += category_of(m) == LlamaCategory::attn_v ? 1 : 0;

    const double more_bits_weight = std::exp2(q6_k_bits - q4_k_bits);
    Sensitivity s;
    s.origin = prior_origin;
    s.prior = true;
    s.source = std::string("llama.cpp's Q4_K_M layer rule (src/llama-quant.cpp use_more_bits) over ") + std::to_string(n_layers) +
               " layers: score = w * (2^(4 - bits) - 2^-12), w = 2^2.0625 where Q4_K_M gives Q6_K, else 1; a heuristic, not a measurement";
    std::int64_t i_attention_wv = 0, i_ffn_down = 0;
    for (const auto& m : modules) {
        bool more_bits = false;
        switch (category_of(m)) {
            case LlamaCategory::attn_v: more_bits = use_more_bits(i_attention_wv++, n_attention_wv); break;
            case LlamaCategory::ffn_down: {
                const std::int64_t i = routed_experts ? split_at_layer(m).layer : i_ffn_down;
                ++i_ffn_down;
                more_bits = i >= 0 && use_more_bits(i, n_layers);
                break;
            }
            case LlamaCategory::output: more_bits = true; break;
            case LlamaCategory::other: break;
        }
        auto& scores = s.modules[m];
        for (const auto& [candidate, bits] : bits_of)
            if (std::isfinite(bits) && bits > 0) scores[candidate] = prior_score(more_bits ? more_bits_weight : 1.0, bits);
    }
    return s;
}

}  // namespace kbp::planner
