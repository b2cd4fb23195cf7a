#include "planner/export_quant.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "planner/module_match.hpp"
#include "schema/names.hpp"

namespace kbp::planner {
namespace {

using Json = nlohmann::ordered_json;

// One checkpoint module of the plan, with the formats its node reads.
struct Module {
    std::string name;  // "model.layers.3.self_attn.q_proj"; "...experts.*.gate_proj" for every expert
    std::string node;  // "l3.attn.q"
    std::size_t index = 0;  // the node's index in the plan
    ModuleKind role = ModuleKind::other;
    std::string op;
    std::string weight, activation;  // format names; "" when the node has none
};

bool unquantized(const std::string& format) { return format.empty() || format == "bf16" || format == "f16" || format == "f32"; }

struct Plan {
    const schema::Blueprint& b;
    std::string file;
    std::vector<Module> modules;  // in node order

    Error refuse(const Module& m, const std::string& message) const {
        return make_error(ErrorCode::invalid_input, file + ": /nodes/" + std::to_string(m.index),
                          m.node + " (" + m.name + "): " + message);
    }
};

Result<Plan> read_plan(const schema::Blueprint& b, const std::string& file) {
    Plan p{b, file, {}};
    if (!b.modules || b.modules->empty()) {
        std::string arch;
        if (b.provenance && b.provenance->planner_header.is_object())
            if (const auto* a = b.provenance->planner_header.find("architecture"); a && a->is_string()) arch = " '" + a->string() + "'";
        return make_error(ErrorCode::unsupported, file + ": /modules",
                          "the plan names no checkpoint modules (its architecture" + arch +
                              " gives its ops no Hugging Face module names, or kbp planned it before it recorded them): there is nothing to name in a quantization config");
    }
    std::unordered_map<std::string_view, const schema::JsonValue*> by_node;
    for (const auto& [id, names] : *b.modules) by_node.emplace(id, &names);
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        const schema::Node& n = b.nodes[i];
        auto it = by_node.find(n.id);
        if (it == by_node.end() || !it->second->is_array()) continue;
        for (const auto& name : it->second->array()) {
            if (!name.is_string()) continue;
            Module m;
            m.name = name.string();
            m.node = n.id;
            m.index = i;
            m.role = module_kind(n.op);
            m.op = n.op.name();
            m.weight = n.precision.weight ? std::string(n.precision.weight->name()) : "";
            m.activation = n.precision.activation ? std::string(n.precision.activation->name()) : "";
            p.modules.push_back(std::move(m));
        }
    }
    return p;
}

// The KV cache format the plan's attention caches hold ("cache fp8" steps), with the node that
// says so; nullopt when no node caches.
struct KvCache {
    std::string format;
    std::size_t node = 0;
};

Result<std::optional<KvCache>> kv_cache_of(const Plan& p) {
    std::optional<KvCache> kv;
    for (std::size_t i = 0; i < p.b.nodes.size(); ++i)
        for (const auto& step : p.b.nodes[i].steps) {
            const std::string_view s = step;
            if (s.rfind("cache ", 0) != 0) continue;
            const std::string format(s.substr(6));
            if (!kv) kv = KvCache{format, i};
            else if (kv->format != format)
                return make_error(ErrorCode::invalid_input, p.file + ": /nodes/" + std::to_string(i),
                                  p.b.nodes[i].id + " caches " + format + " where " + p.b.nodes[kv->node].id + " caches " + kv->format +
                                      ": a quantization config names one KV cache format");
        }
    return kv;
}

std::string names_of_rows(const Json& rows, const char* key) {
    std::vector<std::string> names;
    for (const auto& r : rows) names.push_back(r.at(key).get<std::string>());
    return schema::quoted_names(names);
}


// --- compact patterns ------------------------------------------------------------------------

// A name as a regular expression: '.' literal, '*' (every expert) any index.
std::string regex_of(const std::string& name) {
    std::string out;
    for (char c : name) {
        if (c == '*') out += "[0-9]+";
        else if (std::string_view("\\^$.|?+()[]{}").find(c) != std::string_view::npos) (out += '\\') += c;
        else out += c;
    }
    return out;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
    return out;
}

// `chosen` (a subset of `all`) as few regular expressions: one per run of module suffixes that
// share their layers, the layers "[0-9]+" when they are every layer holding that suffix, else
// an alternation; a name outside the layers as itself (`outside`). `whole(prefix, layers,
// suffixes)` makes the expression.
template <class Whole, class Outside>
std::vector<std::string> compact(const std::vector<std::string>& chosen, const std::vector<std::string>& all, const std::string& token,
                                 Whole whole, Outside outside) {
    std::map<std::pair<std::string, std::string>, std::set<long>> every;  // (prefix, suffix) -> layers holding it
    for (const auto& n : all)
        if (auto s = split_at_layer(n, token); s.layer >= 0) every[{s.prefix, s.suffix}].insert(s.layer);
    std::vector<std::string> out;
    std::vector<std::pair<std::string, std::string>> order;  // (prefix, suffix) in first-seen order
    std::map<std::pair<std::string, std::string>, std::set<long>> picked;
    std::set<std::string> seen_outside;
    for (const auto& n : chosen) {
        auto s = split_at_layer(n, token);
        if (s.layer < 0) {
            if (seen_outside.insert(n).second) out.push_back(outside(n));
            continue;
        }
        auto [it, fresh] = picked.try_emplace({s.prefix, s.suffix});
        if (fresh) order.push_back({s.prefix, s.suffix});
        it->second.insert(s.layer);
    }
    // Suffixes with the same prefix and the same layers written one expression.
    std::vector<std::pair<std::pair<std::string, std::string>, std::vector<std::string>>> runs;  // ((prefix, layers), suffixes)
    for (const auto& key : order) {
        const auto& layers = picked[key];
        std::string expr;
        if (layers == every[key]) expr = "[0-9]+";
        else if (layers.size() == 1) expr = std::to_string(*layers.begin());
        else {
            std::vector<std::string> each;
            for (long l : layers) each.push_back(std::to_string(l));
            expr = "(" + join(each, "|") + ")";
        }
        auto run = std::find_if(runs.begin(), runs.end(), [&](const auto& r) { return r.first == std::make_pair(key.first, expr); });
        if (run == runs.end()) runs.push_back({{key.first, expr}, {key.second}});
        else run->second.push_back(key.second);
    }
    for (const auto& [head, suffixes] : runs) out.push_back(whole(head.first, head.second, suffixes));
    return out;
}

// compressed-tensors' "re:" patterns, re.match-ed from the start by vLLM (compressed_tensors/
// utils.py _is_equal_or_regex_match), so each ends in '$'; names outside the layers exact.
std::vector<std::string> ct_patterns(const std::vector<std::string>& chosen, const std::vector<std::string>& all) {
    return compact(
        chosen, all, "layers",
        [](const std::string& prefix, const std::string& layers, const std::vector<std::string>& suffixes) {
            std::vector<std::string> each;
            for (const auto& s : suffixes) each.push_back(regex_of(s));
            const std::string tail = each.size() == 1 ? each[0] : "(" + join(each, "|") + ")";
            return "re:" + regex_of(prefix) + layers + "\\." + tail + "$";
        },
        [](const std::string& name) { return name.find('*') == std::string::npos ? name : "re:" + regex_of(name) + "$"; });
}

// ModelOpt's wildcards ('*' any run: vLLM modelopt.py is_layer_excluded, fnmatch): every layer
// of a suffix as "prefix*.suffix", else each module by name.
std::vector<std::string> modelopt_patterns(const std::vector<std::string>& chosen, const std::vector<std::string>& all) {
    std::vector<std::string> out;
    std::map<std::pair<std::string, std::string>, std::set<long>> every, picked;
    for (const auto& n : all)
        if (auto s = split_at_layer(n, "layers"); s.layer >= 0) every[{s.prefix, s.suffix}].insert(s.layer);
    for (const auto& n : chosen)
        if (auto s = split_at_layer(n, "layers"); s.layer >= 0) picked[{s.prefix, s.suffix}].insert(s.layer);
    std::set<std::string> written;
    for (const auto& n : chosen) {
        auto s = split_at_layer(n, "layers");
        std::string pattern = n;
        if (s.layer >= 0 && picked[{s.prefix, s.suffix}] == every[{s.prefix, s.suffix}]) pattern = s.prefix + "*." + s.suffix;
        if (written.insert(pattern).second) out.push_back(pattern);
    }
    return out;
}

// QuantizationArgs as compressed-tensors writes them: the row's members, with the defaults
// quant_args.py gives the rest (the table's "defaults": symmetric, dynamic) spelt out.
Json quantization_args(const Json& row_args, const Json& defaults) {
    Json a = row_args;
    for (const auto& [k, v] : defaults.items())
        if (!a.contains(k)) a[k] = v;
    return a;
}

const Json* row_with(const Json& rows, const char* key, const std::string& value) {
    for (const auto& r : rows)
        if (r.at(key).get<std::string>() == value) return &r;
    return nullptr;
}

// The row of a form's KV cache table (`table` of quantizers/<form>.json) for the plan's KV cache;
// nullptr when the cache is unquantized or absent, an error naming the caching node when the form
// has no row for its format.
Result<const Json*> kv_cache_row(const Plan& p, const Json& quantizer, const char* table, const std::string& form, const std::string& what) {
    auto kv = kv_cache_of(p);
    if (!kv) return kv.error();
    if (!*kv || unquantized((*kv)->format)) return static_cast<const Json*>(nullptr);
    const Json* row = row_with(quantizer.at(table), "kv_cache_dtype", (*kv)->format);
    if (!row)
        return make_error(ErrorCode::invalid_input, p.file + ": /nodes/" + std::to_string((*kv)->node),
                          p.b.nodes[(*kv)->node].id + ": " + form + " has no " + what + " for a " + (*kv)->format + " KV cache (quantizers/" + quantizer.value("name", form) +
                              ".json has " + names_of_rows(quantizer.at(table), "kv_cache_dtype") + ")");
    return row;
}

const Json& table(const Catalog& catalog, const std::string& name) {
    for (const DataFile* f : catalog.all("quantizers"))
        if (f->name == name) return f->json;
    static const Json none = Json::object();
    return none;
}

std::string count(std::size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// --- compressed-tensors ----------------------------------------------------------------------

Result<QuantExport> to_compressed_tensors(const Plan& p, const Json& t) {
    struct Scheme {
        std::string weight, activation;
        const Json* weight_row = nullptr;
        const Json* activation_row = nullptr;
        std::vector<std::string> modules;
    };
    std::vector<Scheme> schemes;
    std::vector<std::string> linear, ignore;
    for (const auto& m : p.modules) {
        if (m.role == ModuleKind::other) {
            if (!unquantized(m.weight))
                return p.refuse(m, "compressed-tensors quantizes Linear modules; this " + m.op + " is planned in " + m.weight);
            continue;
        }
        linear.push_back(m.name);
        if (m.role == ModuleKind::router && !unquantized(m.weight))
            return p.refuse(m, "a router planned in " + m.weight + ": vLLM builds routers without a quantization method");
        if (unquantized(m.weight)) {
            if (!unquantized(m.activation))
                return p.refuse(m, "activations in " + m.activation + " over " + m.weight + " weights: compressed-tensors schemes kbp reads quantize the weight");
            ignore.push_back(m.name);
            continue;
        }
        const Json* w = row_with(t.at("weights"), "format", m.weight);
        if (!w) return p.refuse(m, "compressed-tensors has no QuantizationArgs for weights in " + m.weight + " (quantizers/compressed-tensors.json has " + names_of_rows(t.at("weights"), "format") + ")");
        const Json* a = nullptr;
        if (!unquantized(m.activation)) {
            a = row_with(t.at("input_activations"), "format", m.activation);
            if (!a) return p.refuse(m, "compressed-tensors has no QuantizationArgs for input activations in " + m.activation + " (quantizers/compressed-tensors.json has " + names_of_rows(t.at("input_activations"), "format") + ")");
        }
        const std::string act = a ? m.activation : "bf16";
        auto s = std::find_if(schemes.begin(), schemes.end(), [&](const Scheme& x) { return x.weight == m.weight && x.activation == act; });
        if (s == schemes.end()) s = schemes.insert(schemes.end(), Scheme{m.weight, act, w, a, {}});
        s->modules.push_back(m.name);
    }
    if (schemes.empty())
        return make_error(ErrorCode::unsupported, p.file, "the plan quantizes no Linear module: its checkpoint is unquantized and carries no quantization_config");
    auto kv_row = kv_cache_row(p, t, "kv_cache", "compressed-tensors", "kv_cache_scheme");
    if (!kv_row) return kv_row.error();
    const Json kv_scheme = *kv_row ? quantization_args((*kv_row)->at("args"), t.value("defaults", Json::object())) : Json(nullptr);

    Json groups = Json::object();
    std::set<std::string> formats;
    std::vector<std::string> described;
    for (std::size_t i = 0; i < schemes.size(); ++i) {
        const Scheme& s = schemes[i];
        Json g = Json::object();
        // One scheme covers every Linear module not ignored: its target is the class, as
        // llm-compressor's recipes write it. Several: each names its modules.
        g["targets"] = schemes.size() == 1 ? Json::array({"Linear"}) : Json(ct_patterns(s.modules, linear));
        g["weights"] = quantization_args(s.weight_row->at("args"), t.value("defaults", Json::object()));
        g["input_activations"] = s.activation_row ? quantization_args(s.activation_row->at("args"), t.value("defaults", Json::object())) : Json(nullptr);
        g["output_activations"] = nullptr;
        g["format"] = s.weight_row->at("compression");
        formats.insert(s.weight_row->at("compression").get<std::string>());
        groups["group_" + std::to_string(i)] = std::move(g);
        described.push_back(s.weight + " x " + s.activation + ": " + count(s.modules.size(), "module", "modules"));
    }
    Json q = Json::object();
    q["quant_method"] = "compressed-tensors";
    q["format"] = formats.size() == 1 ? *formats.begin() : std::string("mixed-precision");
    q["quantization_status"] = "compressed";
    q["config_groups"] = std::move(groups);
    q["ignore"] = ct_patterns(ignore, linear);
    q["kv_cache_scheme"] = kv_scheme;
    QuantExport out;
    out.text = q.dump(2) + "\n";
    out.summary = "compressed-tensors, " + count(schemes.size(), "group", "groups") + " (" + join(described, "; ") + "), " +
                  count(ignore.size(), "module", "modules") + " ignored, KV cache " + (kv_scheme.is_null() ? "unquantized" : (*kv_row)->at("kv_cache_dtype").get<std::string>());
    return out;
}

// --- ModelOpt --------------------------------------------------------------------------------

// A routed experts' module named as ModelOpt's quantized_layers names a FusedMoE: the layer's
// experts ("model.layers.3.mlp.experts"), which vLLM looks up for the whole MoE.
std::string quantized_layer_key(const std::string& module) {
    if (auto at = module.find(".experts."); at != std::string::npos) return module.substr(0, at) + ".experts";
    return module;
}

Result<QuantExport> to_modelopt(const Plan& p, const Json& t) {
    std::vector<std::string> linear, excluded;
    std::vector<std::pair<std::string, const Json*>> quantized;  // module -> its quant_algos row
    for (const auto& m : p.modules) {
        if (m.role == ModuleKind::other) {
            if (!unquantized(m.weight)) return p.refuse(m, "ModelOpt's quant_algo covers Linear modules; this " + m.op + " is planned in " + m.weight);
            continue;
        }
        linear.push_back(m.name);
        if (m.role == ModuleKind::router && !unquantized(m.weight))
            return p.refuse(m, "a router planned in " + m.weight + ": vLLM builds routers without a quantization method");
        if (unquantized(m.weight)) {
            if (!unquantized(m.activation)) return p.refuse(m, "activations in " + m.activation + " over " + m.weight + " weights: no ModelOpt quant_algo quantizes activations alone");
            excluded.push_back(m.name);
            continue;
        }
        const std::string act = unquantized(m.activation) ? "bf16" : m.activation;
        const Json* row = nullptr;
        for (const auto& r : t.at("quant_algos"))
            if (r.at("weight") == m.weight && r.at("activation") == act) row = &r;
        if (!row) {
            std::vector<std::string> known;
            for (const auto& r : t.at("quant_algos"))
                known.push_back(r.at("quant_algo").get<std::string>() + " (" + r.at("weight").get<std::string>() + " x " + r.at("activation").get<std::string>() + ")");
            return p.refuse(m, "ModelOpt has no quant_algo for " + m.weight + " weights with " + act + " activations (quantizers/modelopt.json has " + join(known, ", ") + ")");
        }
        quantized.push_back({m.name, row});
    }
    if (quantized.empty())
        return make_error(ErrorCode::unsupported, p.file, "the plan quantizes no Linear module: its checkpoint is unquantized and has no hf_quant_config.json");
    auto kv_row = kv_cache_row(p, t, "kv_cache_quant_algos", "ModelOpt", "kv_cache_quant_algo");
    if (!kv_row) return kv_row.error();
    const Json kv_algo = *kv_row ? (*kv_row)->at("kv_cache_quant_algo") : Json(nullptr);
    std::vector<const Json*> algos;
    for (const auto& [name, row] : quantized)
        if (std::find(algos.begin(), algos.end(), row) == algos.end()) algos.push_back(row);

    Json q = Json::object();
    std::string summary;
    if (algos.size() == 1) {
        q["quant_algo"] = algos[0]->at("quant_algo");
        if (algos[0]->contains("group_size")) q["group_size"] = algos[0]->at("group_size");
        summary = "ModelOpt " + algos[0]->at("quant_algo").get<std::string>() + ", " + count(quantized.size(), "module", "modules") + " quantized";
    } else {
        q["quant_algo"] = "MIXED_PRECISION";
        Json layers = Json::object();
        for (const auto& [name, row] : quantized) {
            const std::string key = quantized_layer_key(name);
            Json spec = Json::object();
            spec["quant_algo"] = row->at("quant_algo");
            if (row->contains("group_size")) spec["group_size"] = row->at("group_size");
            if (layers.contains(key) && layers[key] != spec)
                return make_error(ErrorCode::invalid_input, p.file + ": /modules",
                                  key + ": its experts are planned in two schemes; ModelOpt (and vLLM's FusedMoE) give a layer's experts one");
            layers[key] = std::move(spec);
        }
        summary = "ModelOpt MIXED_PRECISION, " + count(layers.size(), "quantized layer", "quantized layers") + " in " + std::to_string(algos.size()) + " algorithms";
        q["quantized_layers"] = std::move(layers);
    }
    q["kv_cache_quant_algo"] = kv_algo;
    q["exclude_modules"] = modelopt_patterns(excluded, linear);
    Json file = Json::object();
    file["producer"] = Json{{"name", "modelopt"}, {"version", std::string("kbp ") + KBP_VERSION}};
    file["quantization"] = std::move(q);
    QuantExport out;
    out.text = file.dump(2) + "\n";
    out.summary = summary + ", " + count(excluded.size(), "module", "modules") + " excluded, KV cache " + (kv_algo.is_null() ? "unquantized" : (*kv_row)->at("kv_cache_dtype").get<std::string>());
    return out;
}

// --- llama-quantize --------------------------------------------------------------------------

// The GGUF tensor of a Hugging Face module (gguf.json tensor_names); "" when none.
std::string gguf_name(const Json& t, const std::string& module) {
    // A plan's routed experts ("...experts.*.gate_proj") are one stacked GGUF tensor.
    std::string name = module;
    if (auto at = name.find(".*."); at != std::string::npos) name.erase(at, 2);
    const LayerSplit s = split_at_layer(name, "layers");
    for (const auto& row : t.at("tensor_names"))
        for (const auto& hf : row.at("hf")) {
            const std::string pattern = hf.get<std::string>();
            const std::string gguf = row.at("gguf").get<std::string>();
            if (auto bid = pattern.find("{bid}"); bid != std::string::npos) {
                if (s.layer < 0 || pattern.substr(0, bid) != s.prefix || pattern.substr(bid + 6) != s.suffix) continue;
                std::string out = gguf;
                out.replace(out.find("{bid}"), 5, std::to_string(s.layer));
                return out;
            }
            if (pattern == name) return gguf;
        }
    return "";
}

std::string shell_word(const std::string& w) {
    if (!w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=") == std::string::npos) return w;
    std::string out = "'";
    for (char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

Result<QuantExport> to_llama_quantize(const Plan& p, const Json& t) {
    struct Tensor {
        std::string name;  // "blk.3.attn_q"
        std::string type;  // "q8_0"
        const Module* module;
    };
    std::vector<Tensor> tensors;
    std::map<std::string, std::string> ftype_of;  // ggml type -> file type
    std::vector<std::string> known;
    for (const auto& r : t.at("ggml_types")) known.push_back(r.at("format").get<std::string>());
    bool tied = false;
    if (p.b.config_fields)
        for (const auto& [k, v] : *p.b.config_fields)
            if (k == "tie_word_embeddings") tied = v == schema::JsonValue(true);
    for (const auto& m : p.modules) {
        if (m.weight.empty()) continue;
        if (m.role == ModuleKind::router) continue;  // ffn_gate_inp: llama-quantize never quantizes it (tensor_allows_quantization)
        const std::string name = gguf_name(t, m.name);
        if (name.empty()) return p.refuse(m, "no GGUF tensor name for this module in quantizers/gguf.json (gguf-py's tensor_mapping.py names it)");
        const Json* row = row_with(t.at("ggml_types"), "format", m.weight);
        if (!row) return p.refuse(m, "GGUF has no ggml type for " + m.weight + " weights (quantizers/gguf.json maps " + schema::quoted_names(known) + ")");
        if (name == "output" && tied) continue;  // no output.weight: the head reads token_embd
        tensors.push_back({name, row->at("ggml_type").get<std::string>(), &m});
        ftype_of[row->at("ggml_type").get<std::string>()] = row->at("ftype").get<std::string>();
    }
    // The base type: the most common quantized type among the layers' tensors (ties: the
    // first); its file type makes it every tensor's default, and overrides apply only when that
    // default is quantized (llama_tensor_get_type). Without one, the most common type.
    std::map<std::string, std::size_t> uses;
    std::vector<std::string> first_seen;
    for (const auto& x : tensors)
        if (x.name != "token_embd" && x.name != "output" && uses[x.type]++ == 0) first_seen.push_back(x.type);
    auto is_float = [](const std::string& type) { return type == "bf16" || type == "f16" || type == "f32"; };
    auto most_common = [&](bool quantized_only) {
        std::string best;
        for (const auto& type : first_seen)
            if ((!quantized_only || !is_float(type)) && (best.empty() || uses[type] > uses[best])) best = type;
        return best;
    };
    std::string base = most_common(true);
    if (base.empty()) base = most_common(false);
    if (base.empty()) base = "bf16";
    const std::string ftype = ftype_of.count(base) ? ftype_of[base] : "BF16";

    Json j = Json::object();
    j["tool"] = "llama-quantize";
    j["ftype"] = ftype;
    j["pure"] = true;
    j["token_embedding_type"] = nullptr;
    j["output_tensor_type"] = nullptr;
    std::vector<std::string> args{"--pure"};
    for (const auto& x : tensors) {
        if (x.name == "token_embd" || (x.name == "output" && !tied)) {
            const char* key = x.name == "token_embd" ? "token_embedding_type" : "output_tensor_type";
            j[key] = x.type;
        }
    }
    if (tied)  // the one tensor is the head's too: it takes the head's type
        for (const auto& m : p.modules)
            if (m.role == ModuleKind::lm_head)
                if (const Json* row = row_with(t.at("ggml_types"), "format", m.weight)) j["token_embedding_type"] = row->at("ggml_type");
    if (!j["token_embedding_type"].is_null()) args.insert(args.end(), {"--token-embedding-type", j["token_embedding_type"].get<std::string>()});
    if (!j["output_tensor_type"].is_null()) args.insert(args.end(), {"--output-tensor-type", j["output_tensor_type"].get<std::string>()});

    // Tensors of the layers not in the base type, by type: one anchored pattern per run of
    // tensor kinds sharing their layers (regex_search over "blk.3.attn_q.weight").
    std::vector<std::string> all_layer_tensors;
    std::vector<std::string> types;  // in first-seen order
    std::map<std::string, std::vector<std::string>> by_type;
    for (const auto& x : tensors) {
        if (x.name == "token_embd" || x.name == "output") continue;
        all_layer_tensors.push_back(x.name);
        if (x.type == base) continue;
        if (by_type[x.type].empty()) types.push_back(x.type);
        by_type[x.type].push_back(x.name);
    }
    Json overrides = Json::array();
    for (const auto& type : types) {
        auto patterns = compact(
            by_type[type], all_layer_tensors, "blk",
            [](const std::string& prefix, const std::string& layers, const std::vector<std::string>& kinds) {
                std::vector<std::string> each;
                for (const auto& k : kinds) each.push_back(regex_of(k));
                return "^" + regex_of(prefix) + layers + "\\." + (each.size() == 1 ? each[0] : "(" + join(each, "|") + ")") + "\\.weight$";
            },
            [](const std::string& name) { return "^" + regex_of(name) + "\\.weight$"; });
        // a tensor kind of the same name twice (gate and up of one fused op) is one entry
        std::vector<std::string> unique;
        for (auto& pt : patterns)
            if (std::find(unique.begin(), unique.end(), pt) == unique.end()) unique.push_back(pt);
        for (const auto& pt : unique) {
            overrides.push_back(Json{{"pattern", pt}, {"type", type}});
            args.insert(args.end(), {"--tensor-type", pt + "=" + type});
        }
    }
    j["tensor_types"] = std::move(overrides);
    args.insert(args.end(), {"model-bf16.gguf", "model-" + ftype + ".gguf", ftype});
    j["arguments"] = args;
    std::string command = "llama-quantize";
    for (const auto& a : args) command += " " + shell_word(a);
    j["command"] = command;
    QuantExport out;
    out.text = j.dump(2) + "\n";
    out.summary = "llama-quantize " + ftype + " --pure, " + count(j["tensor_types"].size(), "--tensor-type pattern", "--tensor-type patterns") + ", " +
                  count(tensors.size(), "tensor", "tensors") + " typed";
    return out;
}

}  // namespace

std::optional<QuantForm> parse_quant_form(std::string_view name) {
    if (name == "compressed-tensors") return QuantForm::compressed_tensors;
    if (name == "modelopt") return QuantForm::modelopt;
    if (name == "llama-quantize") return QuantForm::llama_quantize;
    return std::nullopt;
}

std::vector<std::string> quant_form_names() { return {"compressed-tensors", "modelopt", "llama-quantize"}; }

Result<QuantExport> export_quant(const schema::Blueprint& plan, QuantForm form, const Catalog& catalog, const std::string& plan_file) {
    auto p = read_plan(plan, plan_file);
    if (!p) return p.error();
    switch (form) {
        case QuantForm::compressed_tensors: return to_compressed_tensors(*p, table(catalog, "compressed-tensors"));
        case QuantForm::modelopt: return to_modelopt(*p, table(catalog, "modelopt"));
        case QuantForm::llama_quantize: return to_llama_quantize(*p, table(catalog, "gguf"));
    }
    return make_error(ErrorCode::internal, plan_file, "unknown export form");
}

}  // namespace kbp::planner
