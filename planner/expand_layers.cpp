// expand_layers: lays the model out as nodes. The prologue blocks, then for every layer one
// block per slot (the first choice that holds for layer i), then the epilogue. A choice holds
// when its conditions do: `layer_type` (the config's `layer_types[i]`, when the config has that
// list; else `layer_list` / `layer_char`, when the config has their field, else `when` decides),
// `layer_list` (a per-layer config list: entry i of a 0/1 list such as `no_rope_layers`, entry i
// of a list of layer kind names such as Nemotron-H's `layers_block_type`, entry i of a list of
// integer layer kinds such as DeepSeek-V4's `compress_ratios` (0, 4, 128; a `length` says when
// the list runs past the layers), or i among the indices of a list such as `moe_layers`; when
// the config gives it, it decides before the choice's
// `layer_char`), `layer_char` (character i of a config string of one character a layer, such as
// Nemotron-H's `hybrid_override_pattern`: 'M', '*', '-' or 'E'), `when` (an expression over the
// symbols and i), `layer_in` / `layer_not_in` (i is / is not in a config list such as
// `mlp_only_layers`). Each op of a block becomes a node "l<i>.<block>.<op>" unless its `if`
// expression is false (then its outputs stand for its first input: a left-out soft-cap hands the
// logits on); its inputs name tensors of the same block, or "$in", the tensor the previous block
// handed on (its `output`).
// The draft arm of a model with multi-token-prediction layers (the architecture's `mtp`, a count
// above 0) plans one MTP layer instead: mtp.prologue (the target's embedding), the blocks of the
// first MTP layer, mtp.epilogue (the target's LM head). The plan numbers that layer 0 (a plan's
// layers are numbered from 0); its modules keep the checkpoint's index, after the target's last
// layer (model.layers.61.eh_proj). An engine's draft step runs one MTP layer whatever their
// count (vLLM's DeepSeekMTP: layer mtp_start_layer_idx + spec_step_idx % num_mtp_layers), and
// they are alike, so the first stands for them.
// An op's own `point` knobs (and a `weight_shape` [n, k] for weights its edges do not show,
// such as latent attention's absorbed up-projections) join the node's point. Whether an op reads
// a weight (and so takes its formats from the recipe) is its ops file's say (ops/*.json).
#include <algorithm>

#include "planner/data_schema.hpp"
#include "planner/expr.hpp"
#include "planner/limits.hpp"
#include "planner/passes.hpp"

namespace kbp::planner {
namespace {

// The refusal of a layer kind (a `layer_types` or `layers_block_type` entry) that no choice of its
// slot plans, at the config's entry.
Error unplanned_kind(const Ir& ir, const std::string& entry_at, const std::string& name, const std::vector<std::string>& planned) {
    return make_error(ErrorCode::invalid_input, entry_at,
                      "'" + name + "' is a layer type architecture '" + ir.architecture_name() + "' does not plan (it plans " +
                          schema::quoted_names(planned) + ")");
}

// The names a `layer_list` string entry holds ("moe", or any of ["mamba", "linear_attention"]).
std::vector<std::string> entry_names(const Json& entry) {
    std::vector<std::string> names;
    if (entry.is_string()) names.push_back(entry.get<std::string>());
    else if (entry.is_array())
        for (const auto& e : entry)
            if (e.is_string()) names.push_back(e.get<std::string>());
    return names;
}

// What a choice's `layer_list` says of layer i of `count`: nullopt when the config does not give
// the list (then `when` decides); an error at the config field when the list cannot be one. A 0/1
// list ({"entry": e}) has one entry per layer and counts as absent when empty (transformers reads
// an empty no_rope_layers so); a list of layer kinds ({"entry": "moe"}, or a list of names any of
// which will do) has one name per layer, each one that some choice of the slot (`slot_choices`)
// names for the field: another one is a layer kind this architecture does not lay out and is
// refused at its entry, as transformers refuses a layers_block_type it does not know; an index
// list ({"has": true}) may be empty (no layer).
Result<std::optional<bool>> layer_list_says(const Ir& ir, const Json& spec, const Json& slot_choices, std::int64_t i, std::int64_t count) {
    const std::string field = spec.at("field").get<std::string>();
    // The field may be a path into an object ("linear_attn_config/full_attn_layers", Kimi Linear's).
    const Json* object = &ir.config->json;
    std::string below;
    Json::const_iterator list;
    for (std::size_t from = 0;;) {
        const std::size_t slash = field.find('/', from);
        const std::string key = field.substr(from, slash == std::string::npos ? std::string::npos : slash - from);
        below += (below.empty() ? "" : "/") + pointer_token(key);
        list = object->find(key);
        if (list == object->end() || list->is_null()) return std::optional<bool>();
        if (slash == std::string::npos) break;
        if (!list->is_object()) return std::optional<bool>();
        object = &*list;
        from = slash + 1;
    }
    const std::string at = ir.config_at(below);
    // An index list may count its layers from 1 (Kimi Linear's kda_layers and full_attn_layers).
    const std::int64_t first = spec.value("first", std::int64_t{0});
    if (!list->is_array()) return make_error(ErrorCode::invalid_input, at, "expected a list of layers");
    auto integer = [](const Json& x) -> std::optional<std::int64_t> {
        if (x.is_boolean()) return x.get<bool>() ? 1 : 0;
        if (x.is_number_integer()) return x.get<std::int64_t>();
        return std::nullopt;
    };
    const bool named = spec.contains("entry") && !spec["entry"].is_number();
    // A list of integer layer kinds (DeepSeek-V4's compress_ratios: 0, 4, 128): the choice's `value`;
    // every entry must be a value some choice of the slot names for the field.
    const bool valued = spec.contains("value");
    if (spec.contains("entry") || valued) {
        if (!valued && !named && list->empty()) return std::optional<bool>();  // an empty 0/1 list
        // A list may carry entries past the decoder layers (`length`: compress_ratios holds one for
        // each MTP layer too, layers + num_nextn_predict_layers); the layers read the first `count`.
        std::int64_t length = count;
        std::string length_text = std::to_string(count) + " layers";
        if (auto l = spec.find("length"); l != spec.end() && l->is_string()) {
            auto v = eval_expr(l->get<std::string>(), [&](std::string_view name) { return ir.symbol(name); });
            if (!v) return ir.config_error({l->get<std::string>()}, v.error().message + " (layer_list /length)", false);
            length = *v;
            length_text = l->get<std::string>() + " = " + std::to_string(length);
        }
        if (static_cast<std::int64_t>(list->size()) != length)
            return make_error(ErrorCode::invalid_input, at, std::to_string(list->size()) + " entries for " + length_text);
        const Json& here = (*list)[static_cast<std::size_t>(i)];
        const std::string entry_at = at + "/" + std::to_string(i);
        if (valued) {
            std::vector<std::int64_t> kinds;  // the values the slot's choices give this field, in order
            for (const auto& c : slot_choices)
                if (auto other = c.find("layer_list"); other != c.end() && other->value("field", "") == field && other->contains("value") &&
                                                       std::find(kinds.begin(), kinds.end(), (*other)["value"].get<std::int64_t>()) == kinds.end())
                    kinds.push_back((*other)["value"].get<std::int64_t>());
            auto v = integer(here);
            if (!v || here.is_boolean() || std::find(kinds.begin(), kinds.end(), *v) == kinds.end()) {
                std::string planned;
                for (std::size_t k = 0; k < kinds.size(); ++k) planned += (k ? ", " : "") + std::to_string(kinds[k]);
                return make_error(ErrorCode::invalid_input, entry_at,
                                  "layer " + std::to_string(i) + " is " + here.dump() + ", a kind of layer architecture '" + ir.architecture_name() +
                                      "' does not plan (it plans " + planned + ")");
            }
            return std::optional<bool>(*v == spec["value"].get<std::int64_t>());
        }
        if (!named) {
            auto v = integer(here);
            if (!v || (*v != 0 && *v != 1)) return make_error(ErrorCode::invalid_input, entry_at, "expected 0 or 1 (one entry per layer)");
            return std::optional<bool>(*v == spec["entry"].get<std::int64_t>());
        }
        if (!here.is_string()) return make_error(ErrorCode::invalid_input, entry_at, "expected a layer kind name, not " + here.dump());
        std::vector<std::string> planned;  // the names the slot's choices give this field, in order
        for (const auto& c : slot_choices)
            if (auto other = c.find("layer_list"); other != c.end() && other->value("field", "") == field && other->contains("entry"))
                for (auto& n : entry_names((*other)["entry"]))
                    if (std::find(planned.begin(), planned.end(), n) == planned.end()) planned.push_back(n);
        const std::string& name = here.get_ref<const std::string&>();
        if (std::find(planned.begin(), planned.end(), name) == planned.end()) return unplanned_kind(ir, entry_at, name, planned);
        const auto mine = entry_names(spec["entry"]);
        return std::optional<bool>(std::find(mine.begin(), mine.end(), name) != mine.end());
    }
    bool in = false;
    for (std::size_t k = 0; k < list->size(); ++k) {
        auto v = integer((*list)[k]);
        if (!v || (*list)[k].is_boolean() || *v < first || *v >= count + first)
            return make_error(ErrorCode::invalid_input, at + "/" + std::to_string(k),
                              "expected a layer index from " + std::to_string(first) + " to " + std::to_string(count - 1 + first) + ", not " +
                                  (*list)[k].dump());
        in = in || *v - first == i;
    }
    return std::optional<bool>(in);
}

// A byte of a config string as a message shows it: 'M', or its code when it is not printable ASCII.
std::string quoted_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
    const char* hex = "0123456789abcdef";
    return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

// What a choice's `layer_char` says of layer i of `count`: whether character i of the config's
// string `field` is the choice's `char`. The string has one character a layer, each one that some
// choice of the slot (`slot_choices`) names for that field: a string of another length, or a
// character no choice plans (a layer kind this architecture does not lay out), is refused at the
// field. A config without the field: nullopt (then `when` decides) when the choice has a `when`;
// without one, the field is missing (as is the choice's `layer_list`, which would have decided
// first), since nothing else says which layers the choice serves.
Result<std::optional<bool>> layer_char_says(const Ir& ir, const Json& choice, const Json& slot_choices, std::int64_t i, std::int64_t count) {
    const Json& cfg = ir.config->json;
    const Json& spec = choice["layer_char"];
    const std::string field = spec.at("field").get<std::string>();
    const std::string at = ir.config_at(pointer_token(field));
    const std::string arch = ir.architecture_name();
    auto text = cfg.find(field);
    if (text == cfg.end() || text->is_null()) {
        if (choice.contains("when")) return std::optional<bool>();
        if (auto list = choice.find("layer_list"); list != choice.end())
            return make_error(ErrorCode::invalid_input, at,
                              "missing, as is " + list->value("field", "") + ": architecture '" + arch +
                                  "' lays its layers out from one of them (one character a layer, or one name a layer)");
        return make_error(ErrorCode::invalid_input, at, "missing: architecture '" + arch + "' lays its layers out from it, one character a layer");
    }
    if (!text->is_string()) return make_error(ErrorCode::invalid_input, at, "expected a string of one character a layer");
    const std::string& chars = text->get_ref<const std::string&>();
    if (static_cast<std::int64_t>(chars.size()) != count)
        return make_error(ErrorCode::invalid_input, at, std::to_string(chars.size()) + " characters for " + std::to_string(count) + " layers");
    std::string planned;  // the characters the slot's choices name for this field, in order
    for (const auto& c : slot_choices)
        if (auto other = c.find("layer_char"); other != c.end() && other->value("field", "") == field)
            for (char x : other->value("char", "")) planned += x;
    const char here = chars[static_cast<std::size_t>(i)];
    if (planned.find(here) == std::string::npos) {
        std::string kinds;
        for (std::size_t k = 0; k < planned.size(); ++k) kinds += (k ? ", " : "") + quoted_char(planned[k]);
        return make_error(ErrorCode::invalid_input, at,
                          "layer " + std::to_string(i) + " is " + quoted_char(here) + ", a kind of layer architecture '" + arch +
                              "' does not plan (it plans " + kinds + ")");
    }
    return std::optional<bool>(here == spec.at("char").get<std::string>().front());
}

// Whether choice c of a layer slot holds for layer i of `count` (see the note on top).
Result<bool> choice_holds(const Ir& ir, const Json& choices, std::size_t c, std::int64_t i, std::int64_t count, const std::string& where) {
    const Json& cfg = ir.config->json;
    const Json& choice = choices[c];
    auto layer_types = cfg.find("layer_types");
    bool typed = layer_types != cfg.end() && layer_types->is_array();
    std::optional<bool> listed;  // what the per-layer config fields the choice names say, when the config has them
    if (!(choice.contains("layer_type") && typed)) {
        if (choice.contains("layer_list")) {
            auto says = layer_list_says(ir, choice["layer_list"], choices, i, count);
            if (!says) return says.error();
            if (*says) listed = listed.value_or(true) && **says;
        }
        // A list the config gives decides before a string of one character a layer (transformers
        // reads Nemotron-H's layers_block_type before its older hybrid_override_pattern).
        if (choice.contains("layer_char") && !listed) {
            auto says = layer_char_says(ir, choice, choices, i, count);
            if (!says) return says.error();
            if (*says) listed = listed.value_or(true) && **says;
        }
    }
    if (choice.contains("layer_type") && typed) {
        if (!((*layer_types)[static_cast<std::size_t>(i)] == choice["layer_type"])) return false;
    } else if (listed) {
        if (!*listed) return false;
    } else if (choice.contains("when")) {
        auto v = eval_expr(choice["when"].get<std::string>(), [&](std::string_view name) -> std::optional<std::int64_t> {
            if (name == "i") return i;
            return ir.symbol(name);
        });
        // The condition parsed when the architecture loaded: what fails is the symbols' values.
        if (!v)
            return ir.config_error({choice["when"].get<std::string>()}, "layer " + std::to_string(i) + ": " + v.error().message + " (" + where + "/when)",
                                   v.error().message.find("division by zero") != std::string::npos);
        if (!*v) return false;
    }
    for (const char* key : {"layer_in", "layer_not_in"}) {
        if (!choice.contains(key)) continue;
        bool in = false;
        if (auto list = cfg.find(choice[key].get<std::string>()); list != cfg.end() && list->is_array())
            for (const auto& x : *list) in = in || (x.is_number_integer() && x.get<std::int64_t>() == i);
        if (in != (std::string(key) == "layer_in")) return false;
    }
    return true;
}

// A slot whose choices name layer types reads the config's `layer_types` when it has one: entry i
// must be a type one of them names. Another one (a kind of layer this architecture does not lay
// out) is refused at the entry, naming the types it plans, as transformers refuses a type it does
// not know; it is not planned as whatever choice comes last.
std::optional<Error> unplanned_layer_type(const Ir& ir, const Json& choices, std::int64_t i) {
    const Json& cfg = ir.config->json;
    auto layer_types = cfg.find("layer_types");
    if (layer_types == cfg.end() || !layer_types->is_array() || static_cast<std::size_t>(i) >= layer_types->size()) return std::nullopt;
    std::vector<std::string> planned;
    for (const auto& c : choices)
        if (auto t = c.find("layer_type"); t != c.end() && t->is_string() &&
                                           std::find(planned.begin(), planned.end(), t->get<std::string>()) == planned.end())
            planned.push_back(t->get<std::string>());
    const Json& here = (*layer_types)[static_cast<std::size_t>(i)];
    if (planned.empty() || !here.is_string() || std::find(planned.begin(), planned.end(), here.get<std::string>()) != planned.end())
        return std::nullopt;
    return unplanned_kind(ir, ir.config_at("layer_types/" + std::to_string(i)), here.get<std::string>(), planned);
}

struct BlockUse {
    std::string type;                  // "dsa"
    std::optional<std::int64_t> layer;
    std::string attn, slot;
    std::optional<schema::LayerKind> kind;
    // The checkpoint's index of the layer, when it is not the plan's: the draft step's one MTP
    // layer is the plan's layer 0 and the checkpoint's model.layers.61.
    std::optional<std::int64_t> module_layer = std::nullopt;
    // The MTP layer's own module prefix, in place of the architecture's (Qwen3-Next's
    // "mtp.layers.{layer}."), and whether this block's modules are whole names instead
    // (its "mtp.fc", "mtp.norm").
    std::string module_prefix;
    bool whole_names = false;
};

// The op's own knobs: its `point` (filled), and the [n, k] of a `weight_shape`.
// The Hugging Face module names an op's "module" gives, made whole: a layer's ops are named
// relative to the architecture's module_prefix ("model.layers.{layer}."), the prologue's and
// epilogue's in full; "{expert}" stands for every routed expert and is written '*'.
std::vector<std::string> module_names(const Json& arch, const Json& spec, std::optional<std::int64_t> layer, const std::string& own_prefix = "") {
    std::vector<std::string> out;
    auto m = spec.find("module");
    if (m == spec.end()) return out;
    std::string prefix;
    if (layer) {
        prefix = own_prefix.empty() ? arch.value("module_prefix", std::string("model.layers.{layer}.")) : own_prefix;
        if (auto at = prefix.find("{layer}"); at != std::string::npos) prefix.replace(at, 7, std::to_string(*layer));
    }
    auto add = [&](const std::string& relative) {
        std::string name = prefix + relative;
        for (auto at = name.find("{expert}"); at != std::string::npos; at = name.find("{expert}")) name.replace(at, 8, "*");
        out.push_back(std::move(name));
    };
    if (m->is_string()) add(m->get<std::string>());
    else
        for (const auto& r : *m) add(r.get<std::string>());
    return out;
}

Status own_point(const Ir& ir, const Json& spec, const std::string& where, IrNode& n) {
    schema::JsonObject point;
    if (auto p = spec.find("point"); p != spec.end()) {
        if (!p->is_object()) return make_error(ErrorCode::invalid_input, where + "/point", "expected an object of knobs");
        auto filled = to_value(fill_json(ir, *p, {}));
        point = filled.object();
    }
    if (auto shape = spec.find("weight_shape"); shape != spec.end()) {
        if (!shape->is_array() || shape->size() != 2)
            return make_error(ErrorCode::invalid_input, where + "/weight_shape", "expected [n, k] expressions");
        const char* names[] = {"weight_n", "weight_k"};
        for (int d = 0; d < 2; ++d) {
            auto v = eval_expr((*shape)[d].is_string() ? (*shape)[d].get<std::string>() : (*shape)[d].dump(),
                               [&](std::string_view s) { return ir.symbol(s); });
            if (!v) return v.error().with_context(where + "/weight_shape/" + std::to_string(d));
            point.emplace_back(names[d], *v);
        }
    }
    // A projection's bias is a weight of its own (counted as parameters, added in its epilogue).
    if (spec.value("bias", false)) point.emplace_back("bias", true);
    if (!point.empty()) n.node.point = schema::JsonValue(point);
    n.own_point = std::move(point);
    return Ok{};
}

}  // namespace

namespace {

// The count an architecture member gives (`mtp`, `mtp_not_laid_out`): 0 when it has none.
Result<std::int64_t> member_count(const Ir& ir, const char* member, const char* what) {
    const Json& arch = ir.architecture->json;
    auto m = arch.find(member);
    if (m == arch.end()) return std::int64_t{0};
    const std::string expr = m->at("count").get<std::string>();
    auto v = eval_expr(expr, [&](std::string_view name) { return ir.symbol(name); });
    if (!v) return ir.config_error({expr}, std::string(what) + ": " + v.error().message, true);
    if (*v < 0 || *v > max_layers) return ir.config_error({expr}, std::to_string(*v) + " " + what, *v < 0);
    return *v;
}

}  // namespace

Result<std::int64_t> mtp_count(const Ir& ir) { return member_count(ir, "mtp", "multi-token-prediction layers"); }

Result<std::int64_t> mtp_modules_not_laid_out(const Ir& ir) {
    return member_count(ir, "mtp_not_laid_out", "multi-token-prediction modules");
}

Status expand_layers(Ir& ir) {
    const Json& arch = ir.architecture->json;
    const std::string& origin = ir.architecture->origin;
    auto lookup_symbol = [&](std::string_view name) { return ir.symbol(name); };
    const Json& layers = arch.at("layers");
    const std::string count_expr = layers.at("count").get<std::string>();
    auto count = eval_expr(count_expr, lookup_symbol);
    if (!count) return ir.config_error({count_expr}, "layers: " + count.error().message, true);
    if (*count > max_layers)
        return ir.config_error({count_expr}, std::to_string(*count) + " layers are more than kbp plans (" + std::to_string(max_layers) + ")");

    std::vector<BlockUse> uses;
    auto mtp_layers = mtp_count(ir);
    if (!mtp_layers) return mtp_layers.error();
    const Json* mtp = ir.request.arm == "draft" && *mtp_layers > 0 ? &arch["mtp"] : nullptr;
    for (const auto& b : (mtp ? *mtp : arch).value("prologue", Json::array())) uses.push_back({b.get<std::string>(), std::nullopt, "", "", std::nullopt});
    if (mtp) {
        schema::Layer layer;
        layer.index = 0;
        if (!mtp->contains("kind"))
            return make_error(ErrorCode::invalid_input, origin + ": /mtp", "the MTP layer needs a \"kind\" (kbp-graph/v2 gives every layer one)");
        layer.kind = schema::LayerKind::parse((*mtp)["kind"].get<std::string>());
        const std::string attn = (*mtp)["attention"].get<std::string>();
        // The checkpoint names MTP layer k model.layers.<count + k> (DeepSeek-V3, GLM) or, with
        // the mtp member's own module_prefix, <prefix with k> (Qwen3-Next's mtp.layers.0.).
        const std::string own_prefix = mtp->value("module_prefix", std::string());
        const Json whole = mtp->value("whole_names", Json::array());
        bool seen_attention = false;
        for (std::size_t e = 0; e < (*mtp)["layer"].size(); ++e) {
            // A block name, or {"block": B, "when": expression}: the block when the expression
            // over the symbols is non-zero (Qwen3.5's MTP layer has the model's FFN: MoE or dense).
            const Json& b = (*mtp)["layer"][e];
            if (b.is_object()) {
                auto holds = ir.eval(b.at("when").get<std::string>());
                if (!holds) return holds.error().with_context(origin + ": /mtp/layer/" + std::to_string(e) + "/when");
                if (*holds == 0) continue;
            }
            const std::string block = b.is_object() ? b.at("block").get<std::string>() : b.get<std::string>();
            layer.template_name += (layer.template_name.empty() ? "" : "+") + block;
            layer.blocks.push_back("l0." + block);
            // The blocks before the attention feed it ("input"), as a layer's first block does.
            BlockUse use{block, 0, attn, seen_attention ? "post" : "input", layer.kind, own_prefix.empty() ? *count : 0};
            use.module_prefix = own_prefix;
            use.whole_names = std::find(whole.begin(), whole.end(), Json(block)) != whole.end();
            uses.push_back(std::move(use));
            seen_attention = seen_attention || block == attn;
        }
        ir.layers.push_back(std::move(layer));
    }
    for (std::int64_t i = 0; i < (mtp ? 0 : *count); ++i) {
        schema::Layer layer;
        layer.index = i;
        std::vector<std::string> names, templates;
        std::string attn;
        const auto& slots = layers.at("slots");
        for (std::size_t s = 0; s < slots.size(); ++s) {
            const Json* chosen = nullptr;
            const auto& choices = slots[s].at("choices");
            if (auto unplanned = unplanned_layer_type(ir, choices, i)) return *unplanned;
            for (std::size_t c = 0; c < choices.size() && !chosen; ++c) {
                auto holds = choice_holds(ir, choices, c, i, *count, origin + ": /layers/slots/" + std::to_string(s) + "/choices/" + std::to_string(c));
                if (!holds) return holds.error();
                if (*holds) chosen = &choices[c];
            }
            if (!chosen)
                return make_error(ErrorCode::invalid_input, origin + ": /layers/slots/" + std::to_string(s),
                                  "no choice holds for layer " + std::to_string(i));
            std::string block = chosen->at("block").get<std::string>();
            if (chosen->contains("kind")) layer.kind = schema::LayerKind::parse(chosen->at("kind").get<std::string>());
            if (s == 0) attn = block;
            names.push_back(block);
            // Layers of one block but another kind (sliding and global attention) need templates of their own.
            templates.push_back(chosen->value("template", block));
            layer.blocks.push_back("l" + std::to_string(i) + "." + block);
        }
        // Every layer has a kind (kbp-graph/v2 requires one): some slot's choice must give it.
        if (layer.kind.name().empty())
            return make_error(ErrorCode::invalid_input, origin + ": /layers/slots",
                              "no choice of layer " + std::to_string(i) + "'s slots gives its kind (a choice's \"kind\")");
        for (std::size_t s = 0; s < names.size(); ++s) {
            layer.template_name += (s ? "+" : "") + templates[s];
            uses.push_back({names[s], i, attn, s == 0 ? "input" : "post", layer.kind});
        }
        ir.layers.push_back(std::move(layer));
    }
    for (const auto& b : (mtp ? *mtp : arch).value("epilogue", Json::array())) uses.push_back({b.get<std::string>(), std::nullopt, "", "", std::nullopt});

    const Json& blocks = arch.at("blocks");
    std::optional<TensorRef> handed_on;  // the previous block's output
    for (const BlockUse& use : uses) {
        auto found = blocks.find(use.type);
        if (found == blocks.end()) return make_error(ErrorCode::invalid_input, origin + ": /blocks", "no block '" + use.type + "'");
        const Json& block = *found;
        std::string block_id = (use.layer ? "l" + std::to_string(*use.layer) + "." : "") + use.type;
        std::map<std::string, TensorRef> tensors;
        const auto& ops = block.at("ops");
        for (std::size_t k = 0; k < ops.size(); ++k) {
            const Json& spec = ops[k];
            std::string where = origin + ": /blocks/" + use.type + "/ops/" + std::to_string(k);
            if (spec.contains("if")) {
                auto on = eval_expr(spec["if"].get<std::string>(), [&](std::string_view s) { return ir.symbol(s); });
                if (!on) return on.error().with_context(where + "/if");
                if (!*on) {
                    // An op left out hands its first input on in place of its outputs (no soft-cap: the logits),
                    // unless an alternative op has made them.
                    const auto in = spec.value("in", Json::array());
                    std::optional<TensorRef> through;
                    if (!in.empty() && in[0].get<std::string>() == "$in") through = handed_on;
                    else if (!in.empty())
                        if (auto t = tensors.find(in[0].get<std::string>()); t != tensors.end()) through = t->second;
                    if (through)
                        for (const auto& o : spec.value("out", Json::array())) tensors.emplace(o.at("tensor").get<std::string>(), *through);
                    continue;
                }
            }
            IrNode n;
            n.spec = &spec;
            n.local = use.type + "." + spec.at("name").get<std::string>();
            n.block = use.type;
            n.attn = use.attn;
            n.slot = use.slot;
            n.node.id = block_id + "." + spec.at("name").get<std::string>();
            n.node.layer = use.layer;
            n.node.block = block_id;
            n.node.block_type = use.type;
            n.node.kind = use.kind;
            n.node.op = schema::Op::parse(spec.at("op").get<std::string>());
            if (n.node.op.kind.id == schema::OpId::linear) n.node.roles = {n.node.op.role};
            n.node.numerics = ir.settings.count("numerics") ? ir.settings.at("numerics") : "reference";
            n.node.where = schema::WhereName::parse("device");
            if (spec.contains("state")) n.node.state = schema::parse_state_roles(spec["state"].get<std::string>());
            n.weighted = ir.has_weight(n.node.op);
            n.modules = use.whole_names ? module_names(arch, spec, std::nullopt)
                                        : module_names(arch, spec, use.module_layer ? use.module_layer : use.layer, use.module_prefix);
            for (auto& m : n.modules) m = ir.module_name(std::move(m));
            if (auto s = own_point(ir, spec, where, n); !s) return s;
            for (const auto& input : spec.value("in", Json::array())) {
                std::string name = input.get<std::string>();
                if (name == "$in") {
                    if (!handed_on) return make_error(ErrorCode::invalid_input, where + "/in", "'$in', but no block comes before");
                    n.inputs.push_back(*handed_on);
                    continue;
                }
                auto t = tensors.find(name);
                if (t == tensors.end())
                    return make_error(ErrorCode::invalid_input, where + "/in", "tensor '" + name + "' is not made earlier in block '" + use.type + "'");
                n.inputs.push_back(t->second);
            }
            n.requant_at_reader.assign(n.inputs.size(), false);
            const auto& outs = spec.value("out", Json::array());
            for (std::size_t o = 0; o < outs.size(); ++o) {
                IrTensor t;
                std::string name = outs[o].at("tensor").get<std::string>();
                t.id = block_id + "." + name;
                t.dim = outs[o].at("dim").get<std::string>();
                // The width's names are symbols (checked when the architecture loaded): what fails is their values.
                auto v = eval_expr(t.dim, [&](std::string_view s) { return ir.symbol(s); });
                const std::string needs = " (" + where + "/out/" + std::to_string(o) + "/dim is '" + t.dim + "')";
                if (!v) return ir.config_error({t.dim}, "width of " + t.id + ": " + v.error().message + needs,
                                               v.error().message.find("division by zero") != std::string::npos);
                if (*v < 0 || *v > max_size)
                    return ir.config_error({t.dim}, "width of " + t.id + " = " + std::to_string(*v) + " is " +
                                                        (*v < 0 ? "negative" : "more than kbp plans (" + std::to_string(max_size) + ")") + needs,
                                           *v < 0);
                t.dim_value = *v;
                t.rows = outs[o].value("rows", "n");
                t.in_kernel = outs[o].value("in_kernel", false);
                tensors[name] = TensorRef{static_cast<int>(ir.nodes.size()), static_cast<int>(o)};
                n.outputs.push_back(std::move(t));
            }
            ir.nodes.push_back(std::move(n));
        }
        if (!block.value("output", Json()).is_null()) {
            auto t = tensors.find(block["output"].get<std::string>());
            if (t == tensors.end())
                return make_error(ErrorCode::invalid_input, origin + ": /blocks/" + use.type + "/output", "names no tensor of the block");
            handed_on = t->second;
        }
    }
    return Ok{};
}

}  // namespace kbp::planner
