// Every decoder family kbp ships a sample for plans on every arm, its parameter counts match the
// publisher's, its KV cache is what the config alone says, and the fields that change a family's
// plan (head_dim, sliding windows, layer_types, dense layers, q LoRA, soft-caps, biases, sinks)
// change it; configs that cannot be a model are refused at the field.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <random>

#include "cost/cost.hpp"
#include "planner/plan.hpp"
#include "schema/memory.hpp"
#include "schema/validator.hpp"
#include "support.hpp"

namespace {

using kbp::test::OJson;
namespace fs = std::filesystem;

const std::string root = KBP_SOURCE_DIR;

// The samples whose config names the published parameter counts ("kbp": {"parameters": ...}).
std::vector<std::string> counted_samples() {
    std::vector<std::string> names;
    for (const auto& d : fs::directory_iterator(root + "/samples")) {
        auto cfg = d.path() / "config.json";
        if (!fs::exists(cfg)) continue;
        OJson j = OJson::parse(kbp::test::slurp(cfg.string()));
        if (j.contains("kbp") && j["kbp"].contains("parameters")) names.push_back(d.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

kbp::planner::PlanRequest request(const std::string& config_path, const std::string& arm = "decode", std::int64_t rows = 1) {
    kbp::planner::PlanRequest r;
    r.config_path = config_path;
    r.arm = arm;
    r.rows = rows;
    r.command = "kbp plan (test)";
    return r;
}

std::string sample(const std::string& name) { return root + "/samples/" + name + "/config.json"; }

kbp::schema::Blueprint plan_of(const kbp::planner::PlanRequest& r) {
    auto p = kbp::planner::make_plan(r);
    INFO((p ? std::string() : p.error().text()));
    REQUIRE(p.ok());
    return std::move(p->blueprint);
}

// A sample's arm on another target and recipe ("prefill", 512, "b200", "nvfp4").
kbp::planner::PlanRequest request_on(const std::string& name, const std::string& arm, std::int64_t rows, const std::string& target,
                                     const std::string& recipe) {
    auto r = request(sample(name), arm, rows);
    r.target = target;
    r.recipe = recipe;
    return r;
}

// A sample's decode plan for one of `tp` devices (kbp plan --tp).
kbp::schema::Blueprint plan_split(const std::string& name, std::int64_t tp) {
    auto r = request(sample(name));
    r.tp = tp;
    return plan_of(r);
}

// A sample's config with `change` applied, planned (decode); the error when refused.
kbp::Result<kbp::schema::Blueprint> changed(const std::string& name, const std::function<void(OJson&)>& change) {
    kbp::test::TempDir dir;
    OJson cfg = OJson::parse(kbp::test::slurp(sample(name)));
    change(cfg);
    kbp::test::spit(dir.file("config.json"), cfg.dump());
    auto p = kbp::planner::make_plan(request(dir.file("config.json")));
    if (!p) {
        auto e = p.error();
        const std::string prefix = dir.file("config.json") + ": ";
        if (e.where.rfind(prefix, 0) == 0) e.where = e.where.substr(prefix.size());
        return e;
    }
    return std::move(p->blueprint);
}

// Where a sample's config is refused when `field` is set to `value` ("(planned)" if it is not).
std::string refused_at(const std::string& name, const std::string& field, const OJson& value) {
    auto r = changed(name, [&](OJson& c) { c[field] = value; });
    return r.ok() ? "(planned)" : r.error().where;
}

const kbp::schema::Node* node(const kbp::schema::Blueprint& b, const std::string& id) {
    for (const auto& n : b.nodes)
        if (n.id == id) return &n;
    return nullptr;
}

// The values one token adds to the cache of the first layer that has one (layer 0, but for a
// hybrid whose first layers are linear attention): the widths its kv_write reads.
std::int64_t cached_values(const kbp::schema::Blueprint& b) {
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        if (b.nodes[i].op.kind.id != kbp::schema::OpId::kv_write || !b.nodes[i].layer) continue;
        std::int64_t sum = 0;
        for (const auto& e : b.edges)
            if (e.to == static_cast<std::int64_t>(i)) sum += e.dim_value;
        return sum;
    }
    return 0;
}

std::int64_t out_width(const kbp::schema::Blueprint& b, const std::string& id) {
    for (const auto& e : b.edges)
        if (e.from >= 0 && b.nodes[static_cast<std::size_t>(e.from)].id == id) return e.dim_value;
    return 0;
}

// The width of input k of node `id` (its k-th incoming edge), -1 when it has fewer.
std::int64_t nth_in_width(const kbp::schema::Blueprint& b, const std::string& id, std::size_t k) {
    std::vector<std::int64_t> widths;
    for (const auto& e : b.edges)
        if (e.to >= 0 && b.nodes[static_cast<std::size_t>(e.to)].id == id) widths.push_back(e.dim_value);
    return k < widths.size() ? widths[k] : -1;
}

const kbp::schema::JsonValue* config_field(const kbp::schema::Blueprint& b, const std::string& key) {
    if (!b.config_fields) return nullptr;
    for (const auto& [k, v] : *b.config_fields)
        if (k == key) return &v;
    return nullptr;
}

// How many layers are of `kind` ("linear_attention"), and of template `name` ("moe").
std::int64_t count_kind(const kbp::schema::Blueprint& b, const std::string& kind) {
    return std::count_if(b.layers.begin(), b.layers.end(), [&](const auto& l) { return l.kind.name() == kind; });
}
// A layer's template without its layout variant: the first layer, with no previous layer's residual
// add to run in its input norm, is "attn+mlp.v2" of "attn+mlp" (planner/build_blueprint.cpp).
std::string base_template(const std::string& name) { return name.substr(0, name.find(".v")); }

std::int64_t count_template(const kbp::schema::Blueprint& b, const std::string& name) {
    return std::count_if(b.layers.begin(), b.layers.end(), [&](const auto& l) { return base_template(l.template_name) == name; });
}

// The plan's cost at `context` tokens.
kbp::planner::CostReport cost_at(const kbp::schema::Blueprint& b, std::int64_t context) {
    kbp::planner::CostOptions o;
    o.context = context;
    auto cost = kbp::planner::estimate_cost(b, o);
    REQUIRE(cost.ok());
    return *cost;
}

}  // namespace

TEST_CASE("families: every sample's parameters match its card and its cache the config's formula", "[families]") {
    const auto names = counted_samples();
    REQUIRE(names.size() >= 12);
    for (const auto& name : names) {
        INFO(name);
        OJson cfg = OJson::parse(kbp::test::slurp(sample(name)));
        auto plan = plan_of(request(sample(name)));
        CHECK(kbp::schema::validate(plan).empty());
        auto m = kbp::schema::compute_memory(plan);
        const auto& card = cfg["kbp"]["parameters"];
        // Totals are published exactly (safetensors metadata) or to three figures: within 0.1 %,
        // unless the card says its count is coarser (GLM-4.6's "355B": total_tolerance, with why).
        // A multimodal wrapper's total holds what kbp does not plan (its vision encoder): `unplanned`.
        const double planned = card["total"].get<double>() - card.value("unplanned", 0.0);
        CHECK(std::abs(double(m.parameters) / planned - 1) <= card.value("total_tolerance", 0.001));
        // A checkpoint with multi-token-prediction layers: the Hub counts them too.
        if (card.contains("with_mtp")) {
            REQUIRE(plan.mtp);
            CHECK(std::abs(double(m.parameters + plan.mtp->parameters) / card["with_mtp"].get<double>() - 1) <= 0.005);
        }
        // Active counts are rounded ("37B", "3.6B") and publishers differ on the embedding row.
        if (card.contains("active"))
            CHECK(std::abs(double(m.active_parameters) / card["active"].get<double>() - 1) <= card.value("active_tolerance", 0.025));
        // A wrapper's language model is its text_config; one that leaves its heads to transformers'
        // defaults is held to them by its own test (test_wrappers.cpp).
        const OJson model = cfg.contains("text_config") ? cfg["text_config"] : cfg;
        if (!model.contains("num_attention_heads") && !model.contains("kv_lora_rank")) continue;
        std::int64_t formula;
        if (model.contains("kv_lora_rank")) {
            formula = model["kv_lora_rank"].get<std::int64_t>() + model["qk_rope_head_dim"].get<std::int64_t>();
        } else if (model.value("model_type", "") == "deepseek_v4") {
            formula = model["head_dim"].get<std::int64_t>();  // one shared key, which is also the value
        } else {
            std::int64_t heads = model["num_attention_heads"], kv = model.value("num_key_value_heads", heads);
            std::int64_t hd = model.contains("head_dim") && model["head_dim"].is_number() ? model["head_dim"].get<std::int64_t>()
                                                                                          : model["hidden_size"].get<std::int64_t>() / heads;
            formula = 2 * kv * hd;
        }
        CHECK(cached_values(plan) == formula);
    }
}

TEST_CASE("families: every family plans multi_seq 64 on H100 FP8 and prefill 512 on B200 NVFP4", "[families][arms]") {
    for (const auto& name : counted_samples()) {
        for (const auto& [arm, rows, target, recipe] : std::vector<std::tuple<std::string, std::int64_t, std::string, std::string>>{
                 {"multi_seq", 64, "h100", "fp8-dynamic"}, {"prefill", 512, "b200", "nvfp4"}}) {
            INFO(name << " " << arm << " " << rows << " " << target);
            auto plan = plan_of(request_on(name, arm, rows, target, recipe));
            auto problems = kbp::schema::validate(plan);
            INFO((problems.empty() ? std::string() : problems.items().front().pointer + ": " + problems.items().front().message));
            CHECK(problems.empty());
            // Every projection found a kernel of the arm's rows (the embedding gather is a copy, no kernel).
            for (const auto& n : plan.nodes)
                if (n.precision.weight && n.op.kind.id != kbp::schema::OpId::embed) CHECK(n.kernel.has_value());
        }
    }
}

TEST_CASE("families: head_dim and sliding windows shape the plan", "[families][config]") {
    // Mistral-Small-24B: head_dim 128 on hidden 5,120 over 32 heads: q is 4,096 wide.
    auto small = plan_of(request(sample("mistral-small-24b")));
    CHECK(out_width(small, "l0.attn.q") == 4096);
    CHECK(cached_values(small) == 2 * 8 * 128);
    // Mistral-7B: a 4,096-token window; at 32k context the cache holds the window only.
    auto mistral = plan_of(request(sample("mistral-7b-v0.1")));
    for (const auto& l : mistral.layers) CHECK(l.kind.name() == "sliding_attention");
    kbp::planner::CostOptions o;
    o.context = 32768;
    auto cost = kbp::planner::estimate_cost(mistral, o);
    REQUIRE(cost.ok());
    CHECK(cost->resident_state_bytes == 32.0 * 4096 * 2 * 8 * 128 * 1);  // fp8 cache
    o.context = 2048;
    CHECK(kbp::planner::estimate_cost(mistral, o)->resident_state_bytes == 32.0 * 2048 * 2 * 8 * 128);
    // Without a window the same model keeps every token.
    auto full = changed("mistral-7b-v0.1", [](OJson& c) { c["sliding_window"] = nullptr; });
    REQUIRE(full.ok());
    o.context = 32768;
    CHECK(kbp::planner::estimate_cost(*full, o)->resident_state_bytes == 32.0 * 32768 * 2 * 8 * 128);
}

TEST_CASE("families: layer_types, mlp_only_layers, decoder_sparse_step and first dense layers choose the blocks", "[families][config]") {
    // gpt-oss: layer_types alternate sliding and full attention, starting sliding.
    auto oss = plan_of(request(sample("gpt-oss-20b")));
    REQUIRE(oss.layers.size() == 24);
    CHECK(oss.layers[0].kind.name() == "sliding_attention");
    CHECK(oss.layers[1].kind.name() == "full_attention");
    CHECK(oss.layers[0].template_name != oss.layers[1].template_name);
    // A sliding layer's attention kernel carries its window; its sinks are parameters.
    const auto* attend = node(oss, "l0.attn.attend");
    REQUIRE(attend);
    CHECK(attend->point.find("window") != nullptr);
    CHECK(attend->point.find("sinks") != nullptr);
    // The experts as shipped: MXFP4 weights, bf16 activations.
    CHECK(node(oss, "l0.moe.experts_gate_up")->precision.weight->name() == "mxfp4/g32");
    // layer_types given: it decides, not the sliding pattern.
    auto flipped = changed("gpt-oss-20b", [](OJson& c) {
        for (auto& t : c["layer_types"]) t = "full_attention";
    });
    REQUIRE(flipped.ok());
    for (const auto& l : flipped->layers) CHECK(l.kind.name() == "full_attention");
    // Qwen3-MoE: mlp_only_layers and decoder_sparse_step make dense layers.
    auto moe = changed("qwen3-30b-a3b", [](OJson& c) {
        c["mlp_only_layers"] = {0, 5};
        c["decoder_sparse_step"] = 2;
    });
    REQUIRE(moe.ok());
    auto has_block = [](const kbp::schema::Blueprint& b, std::int64_t layer, const std::string& block) {
        return node(b, "l" + std::to_string(layer) + "." + block + ".post_norm") != nullptr;
    };
    CHECK(has_block(*moe, 0, "mlp"));
    CHECK(has_block(*moe, 1, "moe"));  // (1 + 1) % 2 == 0
    CHECK(has_block(*moe, 2, "mlp"));
    CHECK(has_block(*moe, 3, "moe"));
    CHECK(has_block(*moe, 5, "mlp"));
    // DeepSeek-V3: the first three layers are dense.
    auto v3 = plan_of(request(sample("deepseek-v3")));
    CHECK(has_block(v3, 2, "mlp"));
    CHECK(has_block(v3, 3, "moe"));
}

TEST_CASE("families: Qwen3-Next's full_attention_interval or layer_types place its gated attention among Gated DeltaNet layers", "[families][config]") {
    // As published: no layer_types, full_attention_interval 4: layers 3, 7, ..., 47 attend.
    auto next = plan_of(request(sample("qwen3-next-80b-a3b")));
    REQUIRE(next.layers.size() == 48);
    CHECK(count_kind(next, "full_attention") == 12);
    CHECK(count_kind(next, "linear_attention") == 36);
    CHECK(next.layers[2].kind.name() == "linear_attention");
    CHECK(next.layers[3].kind.name() == "full_attention");
    CHECK(next.layers[2].template_name != next.layers[3].template_name);
    // A Gated DeltaNet layer owns a conv window and a recurrent state, and no KV cache.
    CHECK(node(next, "l0.gdn.short_conv") != nullptr);
    CHECK(node(next, "l0.gdn.recur") != nullptr);
    CHECK(node(next, "l0.gattn.kv_write") == nullptr);
    // Gated attention: q_proj gives the query and its output gate; the attention applies it.
    CHECK(out_width(next, "l3.gattn.q") == 16 * 256);
    REQUIRE(node(next, "l3.gattn.attend"));
    CHECK(node(next, "l3.gattn.attend")->point.find("output_gate") != nullptr);
    CHECK(cached_values(next) == 2 * 2 * 256);
    // At 32k context the cache holds 12 layers of fp8 K and V; the 36 others hold their conv
    // window and 32 heads' 128 x 128 FP32 state, whatever the context.
    kbp::planner::CostOptions o;
    o.context = 32768;
    auto cost = kbp::planner::estimate_cost(next, o);
    REQUIRE(cost.ok());
    const double per_gdn_layer = 8192.0 * 4 * 4 + 32.0 * 128 * 128 * 4;
    CHECK(cost->resident_state_bytes == 12.0 * 32768 * 1024 + 36 * per_gdn_layer);
    // full_attention_interval changes the layout.
    auto every_other = changed("qwen3-next-80b-a3b", [](OJson& c) { c["full_attention_interval"] = 2; });
    REQUIRE(every_other.ok());
    CHECK(count_kind(*every_other, "full_attention") == 24);
    CHECK(every_other->layers[1].kind.name() == "full_attention");
    // layer_types, when the config gives it, decides instead.
    auto typed = changed("qwen3-next-80b-a3b", [](OJson& c) {
        c["layer_types"] = OJson::array();
        for (int i = 0; i < 48; ++i) c["layer_types"].push_back(i == 0 ? "full_attention" : "linear_attention");
    });
    REQUIRE(typed.ok());
    CHECK(count_kind(*typed, "full_attention") == 1);
    CHECK(typed->layers[0].kind.name() == "full_attention");
    CHECK(typed->layers[3].kind.name() == "linear_attention");
}

TEST_CASE("families: Llama 4's no_rope_layers, attention_chunk_size and interleave_moe_layer_step shape its layers and its cache", "[families][config]") {
    auto count_template = [](const kbp::schema::Blueprint& b, const std::string& prefix) {
        return std::count_if(b.layers.begin(), b.layers.end(), [&](const auto& l) { return l.template_name.rfind(prefix, 0) == 0; });
    };
    auto resident = [](const kbp::schema::Blueprint& b, std::int64_t context) {
        kbp::planner::CostOptions o;
        o.context = context;
        auto cost = kbp::planner::estimate_cost(b, o);
        REQUIRE(cost.ok());
        return cost->resident_state_bytes;
    };
    // As published: no_rope_layers empty, so every 4th layer (3, 7, ..., 47) is NoPE global
    // attention and the other 36 chunked RoPE attention; every layer is MoE (step 1).
    auto scout = plan_of(request(sample("llama-4-scout-17b-16e")));
    REQUIRE(scout.layers.size() == 48);
    CHECK(count_template(scout, "nope_attn") == 12);
    CHECK(count_template(scout, "chunked_attn") == 36);
    CHECK(base_template(scout.layers[3].template_name) == "nope_attn+moe");
    CHECK(base_template(scout.layers[0].template_name) == "chunked_attn+moe");
    // RoPE (interleaved) and the weightless q/k norm on the chunked layers only; the NoPE layer's
    // queries take the temperature scale, a knob and no weight.
    CHECK(node(scout, "l0.chunked_attn.rope") != nullptr);
    CHECK(node(scout, "l0.chunked_attn.q_norm") != nullptr);
    CHECK(node(scout, "l3.nope_attn.rope") == nullptr);
    CHECK(node(scout, "l3.nope_attn.q_norm") == nullptr);
    REQUIRE(node(scout, "l0.chunked_attn.attend"));
    CHECK(*node(scout, "l0.chunked_attn.attend")->point.find("chunk") == kbp::schema::JsonValue(std::int64_t{8192}));
    REQUIRE(node(scout, "l3.nope_attn.attend"));
    CHECK(node(scout, "l3.nope_attn.attend")->point.find("floor_scale") != nullptr);
    CHECK(node(scout, "l0.moe.shared_gate_up") != nullptr);
    CHECK(cached_values(scout) == 2 * 8 * 128);
    // The cache, fp8: 2,048 bytes a token a layer; a chunked layer holds at most its 8,192 tokens.
    CHECK(resident(scout, 4096) == 48.0 * 4096 * 2048);
    CHECK(resident(scout, 32768) == (36.0 * 8192 + 12.0 * 32768) * 2048);
    // attention_chunk_size changes what a chunked layer holds.
    auto small_chunk = changed("llama-4-scout-17b-16e", [](OJson& c) { c["attention_chunk_size"] = 2048; });
    REQUIRE(small_chunk.ok());
    CHECK(*node(*small_chunk, "l0.chunked_attn.attend")->point.find("chunk") == kbp::schema::JsonValue(std::int64_t{2048}));
    CHECK(resident(*small_chunk, 32768) == (36.0 * 2048 + 12.0 * 32768) * 2048);
    // An explicit no_rope_layers (1 = RoPE) decides instead of the interval.
    auto first_nope = changed("llama-4-scout-17b-16e", [](OJson& c) {
        c["no_rope_layers"] = OJson::array();
        for (int i = 0; i < 48; ++i) c["no_rope_layers"].push_back(i == 0 ? 0 : 1);
    });
    REQUIRE(first_nope.ok());
    CHECK(count_template(*first_nope, "nope_attn") == 1);
    CHECK(base_template(first_nope->layers[0].template_name) == "nope_attn+moe");
    CHECK(base_template(first_nope->layers[3].template_name) == "chunked_attn+moe");
    // layer_types as transformers writes it for Llama 4 (chunked_attention on RoPE layers,
    // full_attention on NoPE ones) decides too, and names what no_rope_layers would.
    auto typed = changed("llama-4-scout-17b-16e", [](OJson& c) {
        c["layer_types"] = OJson::array();
        for (int i = 0; i < 48; ++i) c["layer_types"].push_back(i == 1 ? "full_attention" : "chunked_attention");
    });
    REQUIRE(typed.ok());
    CHECK(count_template(*typed, "nope_attn") == 1);
    CHECK(base_template(typed->layers[1].template_name) == "nope_attn+moe");
    CHECK(base_template(typed->layers[3].template_name) == "chunked_attn+moe");
    // interleave_moe_layer_step 2: dense SwiGLU MLPs of intermediate_size_mlp on layers 0, 2, ...
    auto interleaved = changed("llama-4-scout-17b-16e", [](OJson& c) { c["interleave_moe_layer_step"] = 2; });
    REQUIRE(interleaved.ok());
    CHECK(base_template(interleaved->layers[0].template_name) == "chunked_attn+mlp");
    CHECK(base_template(interleaved->layers[1].template_name) == "chunked_attn+moe");
    CHECK(out_width(*interleaved, "l0.mlp.gate_up") == 2 * 16384);
    CHECK(kbp::schema::compute_memory(*interleaved).parameters < kbp::schema::compute_memory(scout).parameters);
    // moe_layers, when given, lists the MoE layers instead.
    auto listed = changed("llama-4-scout-17b-16e", [](OJson& c) { c["moe_layers"] = OJson::array({5}); });
    REQUIRE(listed.ok());
    CHECK(base_template(listed->layers[5].template_name) == "chunked_attn+moe");
    CHECK(base_template(listed->layers[4].template_name) == "chunked_attn+mlp");
    CHECK(count_template(*listed, "chunked_attn+moe") + count_template(*listed, "nope_attn+moe") == 1);
    // Maverick as published: no q/k norm, MoE on every other layer.
    auto maverick = plan_of(request(sample("llama-4-maverick-17b-128e")));
    CHECK(node(maverick, "l0.chunked_attn.q_norm") == nullptr);
    CHECK(node(maverick, "l0.chunked_attn.rope") != nullptr);
    CHECK(base_template(maverick.layers[0].template_name) == "chunked_attn+mlp");
    CHECK(base_template(maverick.layers[3].template_name) == "nope_attn+moe");
}

TEST_CASE("families: Nemotron-H's hybrid_override_pattern gives every layer one block: Mamba-2, attention or a ReLU^2 MLP", "[families][config]") {
    // NVIDIA-Nemotron-Nano-9B-v2: "M-M-M-MM-M-M-M*-M-..." over 56 layers.
    auto nano = plan_of(request(sample("nemotron-nano-9b-v2")));
    REQUIRE(nano.layers.size() == 56);
    CHECK(count_kind(nano, "linear_attention") == 27);
    CHECK(count_kind(nano, "full_attention") == 4);
    CHECK(count_kind(nano, "mlp") == 25);
    CHECK(base_template(nano.layers[0].template_name) == "mamba");
    CHECK(base_template(nano.layers[1].template_name) == "mlp");
    CHECK(base_template(nano.layers[6].template_name) == "mamba");  // "MM": two Mamba layers in a row
    CHECK(base_template(nano.layers[7].template_name) == "mamba");
    CHECK(base_template(nano.layers[14].template_name) == "attn");
    for (int layer : {21, 30, 39}) CHECK(nano.layers[static_cast<std::size_t>(layer)].kind.name() == "full_attention");
    // One block a layer: a Mamba layer has no MLP, an MLP layer no mixer.
    CHECK(node(nano, "l0.mlp.up") == nullptr);
    CHECK(node(nano, "l1.mamba.ssm") == nullptr);
    // The Mamba-2 mixer: in_proj's x|B|C (10,240 + 2 x 8 x 128), gate and dt columns; the conv owns
    // the conv window and the scan the recurrent state; no KV cache.
    CHECK(out_width(nano, "l0.mamba.in_proj_xbc") == 12288);
    CHECK(out_width(nano, "l0.mamba.in_proj_z") == 10240);
    CHECK(out_width(nano, "l0.mamba.in_proj_dt") == 128);
    REQUIRE(node(nano, "l0.mamba.conv"));
    REQUIRE(node(nano, "l0.mamba.ssm"));
    CHECK(node(nano, "l0.mamba.conv")->state.has_value());
    CHECK(node(nano, "l0.mamba.ssm")->state.has_value());
    CHECK(node(nano, "l0.mamba.kv_write") == nullptr);
    CHECK(node(nano, "l0.mamba.ssm")->point.find("heads_per_group")->integer() == 16);
    CHECK(node(nano, "l0.mamba.out_norm")->point.find("group_size")->integer() == 1280);
    // Attention without RoPE (Nemotron-H has no position encoding) and a KV cache of 8 heads of 128.
    CHECK(node(nano, "l14.attn.rope") == nullptr);
    REQUIRE(node(nano, "l14.attn.kv_write"));
    CHECK(cached_values(nano) == 2 * 8 * 128);
    // The ungated MLP: up to 15,680, squared ReLU, down.
    CHECK(out_width(nano, "l1.mlp.up") == 15680);
    REQUIRE(node(nano, "l1.mlp.act"));
    CHECK(node(nano, "l1.mlp.act")->op.kind.name() == "relu2");
    CHECK(node(nano, "l1.mlp.act")->family == "relu2");
    // Parameters as transformers' modules hold them: a Mamba layer's in_proj, conv weight and bias,
    // A_log, D, dt_bias, gated-norm weight, out_proj and norm; the MLP's two matrices; q, k, v, o.
    const std::int64_t mamba = 4480LL * 22656 + 12288 * 4 + 12288 + 3 * 128 + 10240 + 10240LL * 4480 + 4480;
    const std::int64_t mlp = 2 * 4480LL * 15680 + 4480, attn = 4480LL * (5120 + 2 * 1024) + 5120LL * 4480 + 4480;
    CHECK(kbp::schema::compute_memory(nano).parameters == 27 * mamba + 25 * mlp + 4 * attn + 2 * 131072LL * 4480 + 4480);
    // What a sequence holds: the 4 attention layers' fp8 K and V at the context; each of the 27
    // Mamba layers a bf16 window of the last 3 inputs of its 12,288 conv channels and a 128 x 80 x 128
    // FP32 state, whatever the context.
    const double conv_window = 12288.0 * 3 * 2, ssm_state = 128.0 * 80 * 128 * 4;
    CHECK(cost_at(nano, 32768).resident_state_bytes == 4.0 * 32768 * 2048 + 27 * (conv_window + ssm_state));
    CHECK(cost_at(nano, 1024).resident_state_bytes == 4.0 * 1024 * 2048 + 27 * (conv_window + ssm_state));
    // A decode step reads and writes both Mamba states, appends one token's K and V and reads the cache.
    CHECK(cost_at(nano, 1024).total.state_bytes == 27 * 2 * (conv_window + ssm_state) + 4 * (2048 + 1024.0 * 2048));
    // The kernels: the decode forms on one row, the chunked scan and the varlen conv on a prompt;
    // in_proj's three column blocks are one GEMM (vLLM's MambaMixer2 in_proj), reading the input
    // the norm before it quantized.
    CHECK(node(nano, "l0.mamba.conv")->kernel == "causal_conv1d::causal_conv1d_update");
    CHECK(node(nano, "l0.mamba.ssm")->kernel == "mamba_ssm::selective_state_update");
    CHECK(node(nano, "l0.mamba.ssm")->family == "mamba2_ssm");
    CHECK(node(nano, "l0.mamba.out_norm")->kernel == "layernorm_gated::rms_norm_gated");
    const auto* xbc = node(nano, "l0.mamba.in_proj_xbc");
    REQUIRE(xbc);
    CHECK(nano.groups[static_cast<std::size_t>(xbc->group)].rule == "mamba_in_proj");
    CHECK(nano.groups[static_cast<std::size_t>(xbc->group)].nodes.size() == 3);
    CHECK(nano.groups[static_cast<std::size_t>(xbc->group)].kernels.size() == 1);
    auto prefill = plan_of(request(sample("nemotron-nano-9b-v2"), "prefill", 512));
    CHECK(node(prefill, "l0.mamba.conv")->kernel == "causal_conv1d::causal_conv1d_fn");
    CHECK(node(prefill, "l0.mamba.ssm")->kernel == "mamba_ssm::mamba_chunk_scan_combined");
    CHECK(node(prefill, "l0.mamba.ssm")->point.find("chunk")->integer() == 128);
    // --tp 2: a device holds half the Mamba heads and B / C groups, with half their conv window and
    // state, as it holds half the query and KV heads.
    auto tp2 = plan_split("nemotron-nano-9b-v2", 2);
    CHECK(out_width(tp2, "l0.mamba.in_proj_xbc") == 5120 + 2 * 4 * 128);
    CHECK(out_width(tp2, "l0.mamba.in_proj_dt") == 64);
    CHECK(node(tp2, "l0.mamba.ssm")->point.find("heads_per_group")->integer() == 16);
    CHECK(cost_at(tp2, 1024).resident_state_bytes == 4.0 * 1024 * 1024 + 27 * (conv_window + ssm_state) / 2);
    // Nemotron-H-8B-Base-8K: 24 Mamba (128 heads of 64), 4 attention, 24 MLP layers; head_dim from hidden_size.
    auto h8 = plan_of(request(sample("nemotron-h-8b-base-8k")));
    REQUIRE(h8.layers.size() == 52);
    CHECK(count_kind(h8, "linear_attention") == 24);
    CHECK(count_kind(h8, "full_attention") == 4);
    CHECK(count_kind(h8, "mlp") == 24);
    CHECK(h8.layers[7].kind.name() == "full_attention");
    CHECK(out_width(h8, "l0.mamba.in_proj_xbc") == 8192 + 2 * 8 * 128);
    CHECK(cost_at(h8, 8192).resident_state_bytes == 4.0 * 8192 * 2 * 8 * 128 * 2 + 24 * (10240.0 * 3 * 2 + 128.0 * 64 * 128 * 4));
    // The pattern decides: one attention layer at the end of 56.
    auto one_attn = changed("nemotron-nano-9b-v2", [](OJson& c) { c["hybrid_override_pattern"] = std::string(55, 'M') + "*"; });
    REQUIRE(one_attn.ok());
    CHECK(count_kind(*one_attn, "linear_attention") == 55);
    CHECK(one_attn->layers[55].kind.name() == "full_attention");
    CHECK(cost_at(*one_attn, 1024).resident_state_bytes == 1.0 * 1024 * 2048 + 55 * (conv_window + ssm_state));
    // conv_kernel sizes the window, ssm_state_size the state and B / C; use_conv_bias false drops the conv's bias.
    auto wide = changed("nemotron-nano-9b-v2", [](OJson& c) {
        c["conv_kernel"] = 8;
        c["ssm_state_size"] = 64;
    });
    REQUIRE(wide.ok());
    CHECK(out_width(*wide, "l0.mamba.in_proj_xbc") == 10240 + 2 * 8 * 64);
    CHECK(cost_at(*wide, 1024).resident_state_bytes == 4.0 * 1024 * 2048 + 27 * (11264.0 * 7 * 2 + 128.0 * 80 * 64 * 4));
    auto no_bias = changed("nemotron-nano-9b-v2", [](OJson& c) { c["use_conv_bias"] = false; });
    REQUIRE(no_bias.ok());
    CHECK(node(*no_bias, "l0.mamba.conv") == nullptr);
    REQUIRE(node(*no_bias, "l0.mamba.conv_nobias"));
    CHECK(node(*no_bias, "l0.mamba.conv_nobias")->state.has_value());
    CHECK(kbp::schema::compute_memory(*no_bias).parameters == kbp::schema::compute_memory(nano).parameters - 27 * 12288);
    CHECK(kbp::schema::validate(*no_bias).empty());
}

TEST_CASE("families: MiniMax-M2 plans vLLM's and transformers' module shapes: whole-projection q/k norms, partial rotary, 256 sigmoid-routed experts with a correction bias", "[families][config]") {
    // The widths a node reads (its first non-index input) and writes.
    auto in_width = [](const kbp::schema::Blueprint& b, const std::string& id) -> std::int64_t {
        for (const auto& e : b.edges)
            if (e.to >= 0 && b.nodes[static_cast<std::size_t>(e.to)].id == id && e.format.id != kbp::schema::FormatId::i32) return e.dim_value;
        return 0;
    };
    auto group_of = [](const kbp::schema::Blueprint& b, const std::string& id) -> const kbp::schema::Group& {
        return b.groups[static_cast<std::size_t>(node(b, id)->group)];
    };
    auto m2 = plan_of(request(sample("minimax-m2")));
    REQUIRE(m2.layers.size() == 62);
    for (const auto& l : m2.layers) {
        CHECK(l.kind.name() == "full_attention");
        CHECK(base_template(l.template_name) == "layerqk_attn+moe");
    }
    // Attention (MiniMaxM2Attention): q_proj 3,072 -> 48 x 128, k_proj / v_proj 3,072 -> 8 x 128,
    // o_proj 6,144 -> 3,072, no biases.
    CHECK(in_width(m2, "l0.layerqk_attn.q") == 3072);
    CHECK(out_width(m2, "l0.layerqk_attn.q") == 6144);
    CHECK(out_width(m2, "l0.layerqk_attn.k") == 1024);
    CHECK(out_width(m2, "l0.layerqk_attn.v") == 1024);
    CHECK(in_width(m2, "l0.layerqk_attn.o") == 6144);
    CHECK(out_width(m2, "l0.layerqk_attn.o") == 3072);
    CHECK(node(m2, "l0.layerqk_attn.q")->point.find("bias") == nullptr);
    // q_norm and k_norm (qk_norm_type per_layer): one RMSNorm over the whole projection, with a
    // weight as wide (6,144 and 1,024), not one head's 128 shared by the heads; in one launch.
    for (const auto& [id, width] : std::vector<std::pair<std::string, std::int64_t>>{{"l0.layerqk_attn.q_norm", 6144}, {"l0.layerqk_attn.k_norm", 1024}}) {
        INFO(id);
        REQUIRE(node(m2, id));
        CHECK(in_width(m2, id) == width);
        CHECK(out_width(m2, id) == width);
        CHECK(node(m2, id)->point.find("scale") == nullptr);
        CHECK(node(m2, id)->kernel == "norm::qk_rms_norm_rows");
        CHECK(node(m2, id)->family == "qk_rms_norm");
    }
    CHECK(group_of(m2, "l0.layerqk_attn.q_norm").rule == "qk_rms_norm");
    CHECK(group_of(m2, "l0.layerqk_attn.q_norm").nodes.size() == 2);
    CHECK(node(m2, "l0.layerqk_attn.k_norm")->group == node(m2, "l0.layerqk_attn.q_norm")->group);
    // RoPE on the first rotary_dim (64) of each 128-wide head; a KV cache of 8 heads of 128.
    CHECK(node(m2, "l0.layerqk_attn.rope")->point.find("rotary_dim")->integer() == 64);
    CHECK(cached_values(m2) == 2 * 8 * 128);
    kbp::planner::CostOptions o;
    o.context = 4096;
    auto cost = kbp::planner::estimate_cost(m2, o);
    REQUIRE(cost.ok());
    CHECK(cost->resident_state_bytes == 62.0 * 4096 * 2 * 8 * 128 * 1);  // fp8 K and V: 2,048 B a token a layer
    // The MoE (MiniMaxM2MoE / MiniMaxM2SparseMoeBlock): the gate 3,072 -> 256 logits, sigmoid scores
    // plus e_score_correction_bias (256, FP32) choose 8; experts w1|w3 3,072 -> 2 x 1,536, w2 1,536 ->
    // 3,072; no shared expert.
    CHECK(in_width(m2, "l0.moe.gate") == 3072);
    CHECK(out_width(m2, "l0.moe.gate") == 256);
    const auto* top_k = node(m2, "l0.moe.top_k");
    REQUIRE(top_k);
    CHECK(top_k->point.find("weight_n")->integer() == 256);
    CHECK(top_k->point.find("weight_k")->integer() == 1);
    CHECK(top_k->precision.weight->name() == "f32");
    CHECK(top_k->point.find("score")->string() == "sigmoid");
    CHECK(top_k->kernel == "moe::topk_softmax");
    CHECK(out_width(m2, "l0.moe.top_k") == 8);
    CHECK(out_width(m2, "l0.moe.experts_gate_up") == 2 * 1536);
    CHECK(in_width(m2, "l0.moe.experts_down") == 1536);
    CHECK(out_width(m2, "l0.moe.experts_down") == 3072);
    CHECK(node(m2, "l0.moe.shared_gate_up") == nullptr);
    CHECK(node(m2, "l0.mlp.gate_up") == nullptr);
    // The parameters are the reference modules' elements exactly: per layer the four projections, the
    // two whole-projection norms, the two layer norms, the gate and its correction bias and 256
    // experts; the untied embedding and LM head, the final norm.
    const std::int64_t hidden = 3072, inter = 1536, vocab = 200064, experts = 256;
    const std::int64_t attn = hidden * 6144 * 2 + hidden * 1024 * 2 + 6144 + 1024 + 2 * hidden;
    const std::int64_t router = hidden * experts + experts;
    const std::int64_t expert = 3 * hidden * inter;
    auto m = kbp::schema::compute_memory(m2);
    CHECK(m.parameters == 62 * (attn + router + experts * expert) + 2 * vocab * hidden + hidden);
    CHECK(m.parameters == 228'689'764'864);
    CHECK(m.active_parameters == 62 * (attn + router + 8 * expert) + hidden + vocab * hidden + hidden);
    // use_routing_bias false (vLLM's default): no correction bias, the plain sigmoid top-k.
    auto unbiased = changed("minimax-m2", [](OJson& c) { c["use_routing_bias"] = false; });
    REQUIRE(unbiased.ok());
    CHECK(node(*unbiased, "l0.moe.top_k") == nullptr);
    REQUIRE(node(*unbiased, "l0.moe.top_k_unbiased"));
    CHECK_FALSE(node(*unbiased, "l0.moe.top_k_unbiased")->precision.weight.has_value());
    CHECK(kbp::schema::compute_memory(*unbiased).parameters == m.parameters - 62 * experts);
    CHECK(kbp::schema::validate(*unbiased).empty());
    // rotary_dim: absent, every channel of the head rotates; the shapes do not change.
    auto full_rotary = changed("minimax-m2", [](OJson& c) { c.erase("rotary_dim"); });
    REQUIRE(full_rotary.ok());
    CHECK(node(*full_rotary, "l0.layerqk_attn.rope")->point.find("rotary_dim")->integer() == 128);
    CHECK(kbp::schema::compute_memory(*full_rotary).parameters == m.parameters);
    // --tp 8: a device holds 6 query heads and 1 KV head, so its slices of the norms are 768 and 128
    // wide (the all-reduce of their mean squares is the kernel's, qk_rms_norm's text says).
    auto tp8 = plan_split("minimax-m2", 8);
    CHECK(out_width(tp8, "l0.layerqk_attn.q_norm") == 768);
    CHECK(out_width(tp8, "l0.layerqk_attn.k_norm") == 128);
    CHECK(out_width(tp8, "l0.moe.experts_gate_up") == 2 * 192);
    CHECK(kbp::schema::validate(tp8).empty());
    // The MTP modules are recorded, not planned.
    REQUIRE(config_field(m2, "num_mtp_modules"));
    CHECK(config_field(m2, "num_mtp_modules")->integer() == 3);
    REQUIRE(config_field(m2, "qk_norm_type"));
    CHECK(config_field(m2, "qk_norm_type")->string() == "per_layer");
}

TEST_CASE("families: Nemotron 3 Nano's MoE layers ('E', or 'moe' in layers_block_type) are transformers' NemotronHMoE", "[families][config]") {
    // "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME": 23 Mamba-2, 23 MoE, 6 attention layers.
    const std::string name = "nemotron-3-nano-30b-a3b";
    auto nano = plan_of(request(sample(name)));
    CHECK(kbp::schema::validate(nano).empty());
    REQUIRE(nano.layers.size() == 52);
    CHECK(count_kind(nano, "linear_attention") == 23);
    CHECK(count_kind(nano, "full_attention") == 6);
    CHECK(count_kind(nano, "mlp") == 23);  // a MoE layer is one feed-forward block, as an MLP layer is
    CHECK(count_template(nano, "mamba") == 23);
    CHECK(count_template(nano, "moe") == 23);
    CHECK(count_template(nano, "attn") == 6);
    CHECK(count_template(nano, "mlp") == 0);
    for (int layer : {5, 12, 19, 26, 33, 42}) CHECK(base_template(nano.layers[static_cast<std::size_t>(layer)].template_name) == "attn");
    CHECK(base_template(nano.layers[0].template_name) == "mamba");
    CHECK(base_template(nano.layers[1].template_name) == "moe");
    CHECK(base_template(nano.layers[51].template_name) == "moe");
    // The MoE block, module by module (transformers' NemotronHMoE): the router (NemotronHTopkRouter,
    // 128 x 2,688, FP32 logits), sigmoid top-6 with the correction bias in n_group 1 / topk_group 1,
    // the routed experts' up_proj (128 x 1,856 x 2,688, no gate), ReLU^2, down_proj (128 x 2,688 x
    // 1,856), the shared expert (NemotronHMLP 2,688 -> 3,712 -> 2,688) and the sum.
    CHECK(node(nano, "l1.moe.input_norm") != nullptr);
    CHECK(nth_in_width(nano, "l1.moe.gate", 0) == 2688);
    CHECK(out_width(nano, "l1.moe.gate") == 128);
    REQUIRE(node(nano, "l1.moe.gate"));
    CHECK(node(nano, "l1.moe.gate")->precision.output->front().name() == "f32");
    REQUIRE(node(nano, "l1.moe.top_k"));
    CHECK(out_width(nano, "l1.moe.top_k") == 6);
    CHECK(node(nano, "l1.moe.top_k")->point.find("groups")->integer() == 1);
    CHECK(node(nano, "l1.moe.top_k")->point.find("topk_group")->integer() == 1);
    const auto& steps = node(nano, "l1.moe.top_k")->steps;
    CHECK(std::find(steps.begin(), steps.end(), "score sigmoid f32") != steps.end());
    CHECK(std::find(steps.begin(), steps.end(), "add correction bias f32") != steps.end());
    REQUIRE(node(nano, "l1.moe.experts_up"));
    CHECK(node(nano, "l1.moe.experts_up")->op.kind.name() == "expert_gate_up");
    CHECK(out_width(nano, "l1.moe.experts_up") == 1856);  // up only: an ungated expert
    CHECK(node(nano, "l1.moe.experts_act")->op.kind.name() == "relu2");
    CHECK(node(nano, "l1.moe.experts_act")->family == "relu2");
    CHECK(nth_in_width(nano, "l1.moe.experts_down", 1) == 1856);
    CHECK(out_width(nano, "l1.moe.experts_down") == 2688);
    CHECK(out_width(nano, "l1.moe.shared_up") == 3712);
    CHECK(node(nano, "l1.moe.shared_act")->op.kind.name() == "relu2");
    CHECK(out_width(nano, "l1.moe.shared_down") == 2688);
    CHECK(node(nano, "l1.moe.gate_up") == nullptr);
    CHECK(node(nano, "l1.moe.kv_write") == nullptr);
    // The kernels other MoE families use: the fused FP8 MoE GEMMs, the top-k router kernel, the
    // combine, the bf16 router GEMV with an f32 output; the experts' input quantized in their prologue.
    CHECK(node(nano, "l1.moe.experts_up")->kernel == "moe::fused_moe_fp8");
    CHECK(node(nano, "l1.moe.experts_down")->kernel == "moe::fused_moe_fp8");
    CHECK(node(nano, "l1.moe.top_k")->kernel == "moe::topk_softmax");
    CHECK(node(nano, "l1.moe.blend")->kernel == "vllm_moe::moe_sum");
    CHECK(node(nano, "l1.moe.gate")->kernel == "gemv::dense_gemv_bf16_fp32out");
    CHECK(nano.groups[static_cast<std::size_t>(node(nano, "l1.moe.experts_up")->group)].rule == "moe_gate_up_quant");
    // Parameters as transformers' modules hold them (the FP32 e_score_correction_bias buffers, 23 x
    // 128, are not counted, as for DeepSeek-V3 and GLM-4.6).
    const std::int64_t mamba = 2688LL * 10304 + 6144 * 4 + 6144 + 3 * 64 + 4096 + 4096LL * 2688 + 2688;
    const std::int64_t moe = 128LL * 2688 + 128 * 2 * 1856LL * 2688 + 2 * 2688LL * 3712 + 2688;
    const std::int64_t attn = 2688LL * (4096 + 2 * 256) + 4096LL * 2688 + 2688;
    const std::int64_t table = 131072LL * 2688;
    const auto memory = kbp::schema::compute_memory(nano);
    CHECK(memory.parameters == 23 * mamba + 23 * moe + 6 * attn + 2 * table + 2688);
    CHECK(memory.parameters == 31577937344);
    // Active: six of the 128 routed experts, the shared expert, the router, one embedding row, the LM head.
    const std::int64_t moe_active = 128LL * 2688 + 6 * 2 * 1856LL * 2688 + 2 * 2688LL * 3712 + 2688;
    CHECK(memory.active_parameters == 23 * mamba + 23 * moe_active + 6 * attn + 2688 + table + 2688);
    // A token adds 2 x 2 KV heads x 128 (512 B in fp8) to each of the 6 attention layers; each Mamba-2
    // layer holds a bf16 window of the last 3 inputs of its 6,144 conv channels and a 64 x 64 x 128
    // FP32 state, whatever the context.
    CHECK(cached_values(nano) == 2 * 2 * 128);
    const double conv_window = 6144.0 * 3 * 2, ssm_state = 64.0 * 64 * 128 * 4;
    CHECK(conv_window == 36864);
    CHECK(ssm_state == 2097152);
    CHECK(cost_at(nano, 32768).resident_state_bytes == 6.0 * 32768 * 512 + 23 * (conv_window + ssm_state));
    CHECK(cost_at(nano, 1024).total.state_bytes == 23 * 2 * (conv_window + ssm_state) + 6 * (512 + 1024.0 * 512));

    // layers_block_type, as newer configs give it (legacy names or transformers' current ones),
    // plans the same model.
    const std::string pattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
    auto listed = [&](const std::map<char, std::string>& names) {
        return [=](OJson& c) {
            c.erase("hybrid_override_pattern");
            c["layers_block_type"] = OJson::array();
            for (char ch : pattern) c["layers_block_type"].push_back(names.at(ch));
        };
    };
    for (const auto& names : {std::map<char, std::string>{{'M', "mamba"}, {'*', "attention"}, {'E', "moe"}},
                              std::map<char, std::string>{{'M', "linear_attention"}, {'*', "full_attention"}, {'E', "moe"}}}) {
        INFO(names.at('M'));
        auto typed = changed(name, listed(names));
        REQUIRE(typed.ok());
        REQUIRE(typed->nodes.size() == nano.nodes.size());
        for (std::size_t k = 0; k < nano.nodes.size(); ++k) CHECK(typed->nodes[k].id == nano.nodes[k].id);
        CHECK(kbp::schema::compute_memory(*typed).parameters == memory.parameters);
        REQUIRE(config_field(*typed, "layers_block_type"));
    }
    // Given both, the list decides (transformers reads layers_block_type first): one attention layer last.
    auto both = changed(name, [&](OJson& c) {
        c["layers_block_type"] = OJson::array();
        for (int i = 0; i < 52; ++i) c["layers_block_type"].push_back(i == 51 ? "attention" : i % 2 ? "moe" : "mamba");
    });
    REQUIRE(both.ok());
    CHECK(count_template(*both, "attn") == 1);
    CHECK(base_template(both->layers[51].template_name) == "attn");
    CHECK(base_template(both->layers[5].template_name) == "moe");
    CHECK(count_template(*both, "mamba") == 26);
    // A dense 'mlp' entry is a ReLU^2 MLP of intermediate_size, as '-' is.
    auto dense = changed(name, [&](OJson& c) {
        c["hybrid_override_pattern"] = "M-" + pattern.substr(2);
    });
    REQUIRE(dense.ok());
    CHECK(base_template(dense->layers[1].template_name) == "mlp");
    CHECK(out_width(*dense, "l1.mlp.up") == 1856);

    // The MTP layer a config may name is recorded, not planned.
    auto mtp = changed(name, [](OJson& c) {
        c["num_nextn_predict_layers"] = 1;
        c["mtp_hybrid_override_pattern"] = "*E";
    });
    REQUIRE(mtp.ok());
    CHECK(mtp->nodes.size() == nano.nodes.size());
    REQUIRE(config_field(*mtp, "num_nextn_predict_layers"));
    REQUIRE(config_field(*mtp, "mtp_hybrid_override_pattern"));
    // The router's shape follows the config: 64 experts in 8 groups, top 4 in the best 2.
    auto grouped = changed(name, [](OJson& c) {
        c["n_routed_experts"] = 64;
        c["num_experts_per_tok"] = 4;
        c["n_group"] = 8;
        c["topk_group"] = 2;
    });
    REQUIRE(grouped.ok());
    CHECK(out_width(*grouped, "l1.moe.gate") == 64);
    CHECK(out_width(*grouped, "l1.moe.top_k") == 4);
    CHECK(node(*grouped, "l1.moe.top_k")->point.find("groups")->integer() == 8);
    CHECK(node(*grouped, "l1.moe.top_k")->point.find("topk_group")->integer() == 2);

    // --tp 2: a device holds half of every expert's and of the shared expert's width, half the
    // Mamba heads and query heads, one KV head.
    auto tp2 = plan_split(name, 2);
    CHECK(out_width(tp2, "l1.moe.experts_up") == 928);
    CHECK(out_width(tp2, "l1.moe.shared_up") == 1856);
    CHECK(out_width(tp2, "l1.moe.gate") == 128);
    CHECK(out_width(tp2, "l0.mamba.in_proj_dt") == 32);

    // The decode forms on one row, the chunked scan and the varlen conv on a prompt, on the B200 in NVFP4 too.
    auto p = plan_of(request_on(name, "prefill", 512, "b200", "nvfp4"));
    CHECK(node(p, "l0.mamba.ssm")->kernel == "mamba_ssm::mamba_chunk_scan_combined");
    CHECK(node(p, "l1.moe.experts_up")->kernel == "moe::fused_moe_nvfp4");
    CHECK(node(p, "l1.moe.shared_up")->kernel == "nvfp4_gemm::nvfp4_gemm_block_scaled");

    // A dense Nemotron-H config ('E' in a pattern without MoE fields) plans the MoE layer transformers'
    // NemotronHConfig defaults would build: 8 experts, top 2, 7,688 wide, a 7,688-wide shared expert.
    auto defaults = changed("nemotron-nano-9b-v2", [](OJson& c) {
        std::string p = c["hybrid_override_pattern"];
        p[1] = 'E';
        c["hybrid_override_pattern"] = p;
    });
    REQUIRE(defaults.ok());
    CHECK(out_width(*defaults, "l1.moe.gate") == 8);
    CHECK(out_width(*defaults, "l1.moe.top_k") == 2);
    CHECK(out_width(*defaults, "l1.moe.experts_up") == 7688);
    CHECK(out_width(*defaults, "l1.moe.shared_up") == 7688);
    CHECK(kbp::schema::validate(*defaults).empty());
}

TEST_CASE("families: OLMo 2 and 3 plan transformers' and vLLM's module shapes: norms after each sublayer, whole-projection q/k norms, OLMo 3's sliding layers", "[families][config]") {
    // The widths a node reads (its first input) and writes; whether an edge runs from one node to another.
    auto in_width = [](const kbp::schema::Blueprint& b, const std::string& id) -> std::int64_t {
        for (const auto& e : b.edges)
            if (e.to >= 0 && b.nodes[static_cast<std::size_t>(e.to)].id == id) return e.dim_value;
        return 0;
    };
    auto feeds = [](const kbp::schema::Blueprint& b, const std::string& from, const std::string& to) {
        for (const auto& e : b.edges)
            if (e.from >= 0 && e.to >= 0 && b.nodes[static_cast<std::size_t>(e.from)].id == from &&
                b.nodes[static_cast<std::size_t>(e.to)].id == to)
                return true;
        return false;
    };
    auto group_of = [](const kbp::schema::Blueprint& b, const std::string& id) -> const kbp::schema::Group& {
        return b.groups[static_cast<std::size_t>(node(b, id)->group)];
    };
    auto o2 = plan_of(request(sample("olmo-2-1124-7b")));
    CHECK(kbp::schema::validate(o2).empty());
    REQUIRE(o2.layers.size() == 32);
    CHECK(count_kind(o2, "full_attention") == 32);
    // Olmo2Attention: q_proj, k_proj, v_proj 4,096 -> 32 x 128, o_proj 4,096 -> 4,096, no biases.
    for (const auto& id : {"l0.layerqk_attn.q", "l0.layerqk_attn.k", "l0.layerqk_attn.v", "l0.layerqk_attn.o"}) {
        INFO(id);
        CHECK(in_width(o2, id) == 4096);
        CHECK(out_width(o2, id) == 4096);
        CHECK(node(o2, id)->point.find("bias") == nullptr);
    }
    // q_norm over num_attention_heads x head_dim (the hidden size on the 7B), k_norm over
    // num_key_value_heads x head_dim: one RMS a row, a weight per channel (no per-head scale), both
    // in one launch, before the rotary embedding.
    for (const auto& id : {"l0.layerqk_attn.q_norm", "l0.layerqk_attn.k_norm"}) {
        INFO(id);
        REQUIRE(node(o2, id));
        CHECK(in_width(o2, id) == 4096);
        CHECK(out_width(o2, id) == 4096);
        CHECK(node(o2, id)->point.find("scale") == nullptr);
        CHECK(node(o2, id)->kernel == "norm::qk_rms_norm_rows");
    }
    CHECK(group_of(o2, "l0.layerqk_attn.q_norm").rule == "qk_rms_norm");
    CHECK(node(o2, "l0.layerqk_attn.k_norm")->group == node(o2, "l0.layerqk_attn.q_norm")->group);
    CHECK(feeds(o2, "l0.layerqk_attn.q", "l0.layerqk_attn.q_norm"));
    CHECK(feeds(o2, "l0.layerqk_attn.q_norm", "l0.layerqk_attn.rope"));
    CHECK(feeds(o2, "l0.layerqk_attn.k_norm", "l0.layerqk_attn.rope"));
    // Olmo2DecoderLayer: no input norm; post_attention_layernorm normalises o_proj's output and the
    // residual add reads the normed output, not o_proj's; the same for post_feedforward_layernorm.
    CHECK(node(o2, "l0.layerqk_attn.input_norm") == nullptr);
    CHECK(node(o2, "l0.mlp.post_norm") == nullptr);
    CHECK(feeds(o2, "l0.layerqk_attn.o", "l0.layerqk_attn.post_attn_norm"));
    CHECK(in_width(o2, "l0.layerqk_attn.post_attn_norm") == 4096);
    CHECK(feeds(o2, "l0.layerqk_attn.post_attn_norm", "l0.layerqk_attn.residual"));
    CHECK_FALSE(feeds(o2, "l0.layerqk_attn.o", "l0.layerqk_attn.residual"));
    CHECK(feeds(o2, "l0.mlp.down", "l0.mlp.post_ff_norm"));
    CHECK(feeds(o2, "l0.mlp.post_ff_norm", "l0.mlp.residual"));
    CHECK_FALSE(feeds(o2, "l0.mlp.down", "l0.mlp.residual"));
    // Olmo2MLP: gate_proj | up_proj 4,096 -> 2 x 11,008, SiLU x up, down_proj 11,008 -> 4,096.
    CHECK(out_width(o2, "l0.mlp.gate_up") == 2 * 11008);
    CHECK(in_width(o2, "l0.mlp.down") == 11008);
    CHECK(out_width(o2, "l0.mlp.down") == 4096);
    // In bf16 (no activation quantizer between), q, k, v read the residual stream itself: the
    // previous layer's residual add; and gate_up reads the attention's residual add.
    auto bf16 = request(sample("olmo-2-1124-7b"));
    bf16.recipe = "bf16";
    auto plain = plan_of(bf16);
    for (const auto& id : {"l1.layerqk_attn.q", "l1.layerqk_attn.k", "l1.layerqk_attn.v"}) CHECK(feeds(plain, "l0.mlp.residual", id));
    CHECK(feeds(plain, "l1.layerqk_attn.residual", "l1.mlp.gate_up"));
    // The parameters are the reference modules' elements: per layer the four projections, q_norm,
    // k_norm and the two post norms, gate|up and down; the untied embedding and LM head, the final norm.
    const std::int64_t hidden = 4096, inter = 11008, vocab = 100352;
    const std::int64_t layer = 4 * hidden * hidden + 4 * hidden + 3 * hidden * inter;
    auto m = kbp::schema::compute_memory(o2);
    CHECK(m.parameters == 32 * layer + 2 * vocab * hidden + hidden);
    CHECK(m.parameters == 7'298'617'344);
    // The cache: 32 KV heads of 128 a layer, every token on every layer (fp8: 8,192 B a token a layer).
    CHECK(cached_values(o2) == 2 * 32 * 128);
    CHECK(cost_at(o2, 4096).resident_state_bytes == 32.0 * 4096 * 2 * 32 * 128);
    // Tied embeddings (both references tie the LM head to embed_tokens when told): one table fewer.
    auto tied = changed("olmo-2-1124-7b", [](OJson& c) { c["tie_word_embeddings"] = true; });
    REQUIRE(tied.ok());
    CHECK(kbp::schema::compute_memory(*tied).parameters == m.parameters - vocab * hidden);
    // Grouped-query attention (OLMo-2-0325-32B: 40 heads, 8 KV heads of 128 on 5,120): the k_norm is
    // 1,024 wide, the q_norm 5,120.
    auto gqa = changed("olmo-2-1124-7b", [](OJson& c) {
        c["hidden_size"] = 5120;
        c["num_attention_heads"] = 40;
        c["num_key_value_heads"] = 8;
    });
    REQUIRE(gqa.ok());
    CHECK(out_width(*gqa, "l0.layerqk_attn.q_norm") == 5120);
    CHECK(out_width(*gqa, "l0.layerqk_attn.k_norm") == 1024);
    CHECK(cached_values(*gqa) == 2 * 8 * 128);
    // --tp 2: a device holds 16 heads, so its slices of q_norm and k_norm are 2,048 wide.
    auto tp2 = plan_split("olmo-2-1124-7b", 2);
    CHECK(out_width(tp2, "l0.layerqk_attn.q_norm") == 2048);
    CHECK(out_width(tp2, "l0.layerqk_attn.k_norm") == 2048);
    CHECK(kbp::schema::validate(tp2).empty());

    // OLMo 3 7B: the same block; layer_types makes 24 sliding-window layers (3 of every 4) and 8
    // full ones; a sliding layer's cache holds sliding_window (4,096) tokens.
    auto o3 = plan_of(request(sample("olmo-3-7b")));
    CHECK(kbp::schema::validate(o3).empty());
    REQUIRE(o3.layers.size() == 32);
    CHECK(count_kind(o3, "sliding_attention") == 24);
    CHECK(count_kind(o3, "full_attention") == 8);
    for (std::size_t i = 0; i < o3.layers.size(); ++i) CHECK((o3.layers[i].kind.name() == "full_attention") == ((i + 1) % 4 == 0));
    CHECK(out_width(o3, "l0.layerqk_attn.q_norm") == 4096);
    CHECK(node(o3, "l0.layerqk_attn.k_norm")->kernel == "norm::qk_rms_norm_rows");
    CHECK(feeds(o3, "l0.layerqk_attn.post_attn_norm", "l0.layerqk_attn.residual"));
    CHECK(kbp::schema::compute_memory(o3).parameters == 32 * layer + 2 * std::int64_t{100278} * hidden + hidden);
    CHECK(cached_values(o3) == 2 * 32 * 128);
    // At 32k tokens the sliding layers keep 4,096, the full ones all 32,768; below the window, all keep all.
    CHECK(cost_at(o3, 32768).resident_state_bytes == (24.0 * 4096 + 8.0 * 32768) * 2 * 32 * 128);
    CHECK(cost_at(o3, 2048).resident_state_bytes == 32.0 * 2048 * 2 * 32 * 128);
    // Without layer_types, Olmo3Config's layout: sliding where (i + 1) % 4 != 0, when a window is given.
    auto untyped = changed("olmo-3-7b", [](OJson& c) { c.erase("layer_types"); });
    REQUIRE(untyped.ok());
    CHECK(count_kind(*untyped, "sliding_attention") == 24);
    CHECK(cost_at(*untyped, 32768).resident_state_bytes == cost_at(o3, 32768).resident_state_bytes);
    // layer_types decides: every layer full, every token cached on every layer.
    auto full = changed("olmo-3-7b", [](OJson& c) {
        for (auto& t : c["layer_types"]) t = "full_attention";
    });
    REQUIRE(full.ok());
    CHECK(count_kind(*full, "sliding_attention") == 0);
    CHECK(cost_at(*full, 32768).resident_state_bytes == 32.0 * 32768 * 2 * 32 * 128);
    // OLMo 2 has neither field: every layer full, whatever the context.
    CHECK(cost_at(o2, 32768).resident_state_bytes == 32.0 * 32768 * 2 * 32 * 128);
    REQUIRE(config_field(o3, "rope_scaling"));
}

TEST_CASE("families: Granite 4.0-H plans transformers' and vLLM's GraniteMoeHybrid: Mamba-2 or NoPE attention, then a routed MoE and a shared MLP, or the shared MLP alone", "[families][config]") {
    // granite-4.0-h-tiny: 40 layers, attention at 5, 15, 25 and 35, Mamba-2 elsewhere, every layer a MoE FFN.
    const std::string name = "granite-4.0-h-tiny";
    auto tiny = plan_of(request(sample(name)));
    CHECK(kbp::schema::validate(tiny).empty());
    REQUIRE(tiny.layers.size() == 40);
    // position_embedding_type 'nope', as the H models' configs say, plans the same layers.
    auto nope = changed(name, [](OJson& c) { c["position_embedding_type"] = "nope"; });
    REQUIRE(nope.ok());
    CHECK(nope->nodes.size() == tiny.nodes.size());
    CHECK(count_kind(tiny, "linear_attention") == 36);
    CHECK(count_kind(tiny, "full_attention") == 4);
    CHECK(count_template(tiny, "mamba+moe") == 36);
    CHECK(count_template(tiny, "attn+moe") == 4);
    for (int layer : {5, 15, 25, 35}) CHECK(base_template(tiny.layers[static_cast<std::size_t>(layer)].template_name) == "attn+moe");
    // The Mamba-2 mixer (GraniteMoeHybridMambaLayer): in_proj 1,536 -> 3,328 (x|B|C) + 3,072 (z) + 48 (dt),
    // the conv over 3,328 channels with its bias, the scan, the gated norm over 3,072, out_proj 3,072 -> 1,536.
    CHECK(nth_in_width(tiny, "l0.mamba.in_proj_xbc", 0) == 1536);
    CHECK(out_width(tiny, "l0.mamba.in_proj_xbc") == 3328);
    CHECK(out_width(tiny, "l0.mamba.in_proj_z") == 3072);
    CHECK(out_width(tiny, "l0.mamba.in_proj_dt") == 48);
    REQUIRE(node(tiny, "l0.mamba.conv"));
    CHECK(node(tiny, "l0.mamba.conv_nobias") == nullptr);
    CHECK(out_width(tiny, "l0.mamba.conv") == 3328);
    CHECK(node(tiny, "l0.mamba.conv")->kernel == "causal_conv1d::causal_conv1d_update");
    REQUIRE(node(tiny, "l0.mamba.ssm"));
    CHECK(node(tiny, "l0.mamba.ssm")->kernel == "mamba_ssm::selective_state_update");
    CHECK(node(tiny, "l0.mamba.ssm")->point.find("heads_per_group")->integer() == 48);
    CHECK(node(tiny, "l0.mamba.ssm")->point.find("d_state")->integer() == 128);
    CHECK(node(tiny, "l0.mamba.ssm")->point.find("head_dim")->integer() == 64);
    CHECK(out_width(tiny, "l0.mamba.ssm") == 3072);
    CHECK(node(tiny, "l0.mamba.out_norm")->point.find("group_size")->integer() == 3072);
    CHECK(node(tiny, "l0.mamba.out_norm")->kernel == "layernorm_gated::rms_norm_gated");
    CHECK(nth_in_width(tiny, "l0.mamba.out_proj", 0) == 3072);
    CHECK(out_width(tiny, "l0.mamba.out_proj") == 1536);
    // NoPE GQA attention: q 1,536 -> 12 x 128, k and v -> 4 x 128, o -> 1,536, no rope node.
    CHECK(out_width(tiny, "l5.attn.q") == 1536);
    CHECK(out_width(tiny, "l5.attn.k") == 512);
    CHECK(out_width(tiny, "l5.attn.v") == 512);
    CHECK(out_width(tiny, "l5.attn.o") == 1536);
    CHECK(node(tiny, "l5.attn.rope") == nullptr);
    CHECK(node(tiny, "l5.attn.attend")->point.find("position")->string() == "none");
    CHECK(node(tiny, "l0.attn.q") == nullptr);
    CHECK(node(tiny, "l5.mamba.in_proj_xbc") == nullptr);
    // The FFN (GraniteMoeHybridMoE + shared_mlp): router 64 x 1,536 in FP32, top 6 of the logits
    // softmaxed, input_linear a fused gate|up of 2 x 512, SiLU-gated, output_linear 512 -> 1,536, the
    // shared MLP 1,536 -> 2 x 1,024 -> 1,536, the sum.
    for (const std::string l : {"l0", "l5"}) {
        INFO(l);
        CHECK(nth_in_width(tiny, l + ".moe.gate", 0) == 1536);
        CHECK(out_width(tiny, l + ".moe.gate") == 64);
        CHECK(node(tiny, l + ".moe.gate")->precision.output->front().name() == "f32");
        CHECK(out_width(tiny, l + ".moe.top_k") == 6);
        CHECK(out_width(tiny, l + ".moe.experts_gate_up") == 1024);
        CHECK(node(tiny, l + ".moe.experts_act")->op.kind.name() == "silu_mul");
        CHECK(nth_in_width(tiny, l + ".moe.experts_down", 1) == 512);
        CHECK(out_width(tiny, l + ".moe.experts_down") == 1536);
        CHECK(out_width(tiny, l + ".moe.shared_gate_up") == 2048);
        CHECK(nth_in_width(tiny, l + ".moe.shared_down", 0) == 1024);
        CHECK(out_width(tiny, l + ".moe.shared_down") == 1536);
        CHECK(node(tiny, l + ".moe.experts_gate_up")->kernel == "moe::fused_moe_fp8");
        CHECK(node(tiny, l + ".moe.experts_down")->kernel == "moe::fused_moe_fp8");
        CHECK(node(tiny, l + ".moe.blend")->kernel == "vllm_moe::moe_sum");
    }
    // Parameters as the modules hold them: 36 Mamba-2, 4 attention and 40 MoE blocks (each with its
    // norm), the tied 100,352 x 1,536 table once, the final norm.
    const std::int64_t mamba = 1536 + 1536LL * (3328 + 3072 + 48) + 3328 * 4 + 3328 + 3 * 48 + 3072 + 3072LL * 1536;
    const std::int64_t attn = 1536 + 1536LL * 1536 * 2 + 2 * 1536LL * 512;
    const std::int64_t moe = 1536 + 64 * 1536 + 64 * 3 * 512LL * 1536 + 3 * 1024LL * 1536;
    const std::int64_t table = 100352LL * 1536;
    const auto memory = kbp::schema::compute_memory(tiny);
    CHECK(memory.parameters == 36 * mamba + 4 * attn + 40 * moe + table + 1536);
    CHECK(memory.parameters == 6939037248);
    const std::int64_t moe_active = 1536 + 64 * 1536 + 6 * 3 * 512LL * 1536 + 3 * 1024LL * 1536;
    // Active: the tied head streams the whole table, which holds the row the embedding gathers
    // (counted once, as the table is among the parameters), then the final norm.
    CHECK(memory.active_parameters == 36 * mamba + 4 * attn + 40 * moe_active + table + 1536);
    CHECK(memory.active_parameters == 1465470528);
    // A token adds 2 x 4 KV heads x 128 (1,024 B in fp8) to each of the 4 attention layers; each
    // Mamba-2 layer holds a bf16 window of the last 3 inputs of its 3,328 conv channels and a
    // 48 x 64 x 128 FP32 state, whatever the context.
    CHECK(cached_values(tiny) == 2 * 4 * 128);
    const double conv_window = 3328.0 * 3 * 2, ssm_state = 48.0 * 64 * 128 * 4;
    CHECK(conv_window == 19968);
    CHECK(ssm_state == 1572864);
    CHECK(cost_at(tiny, 32768).resident_state_bytes == 4.0 * 32768 * 1024 + 36 * (conv_window + ssm_state));
    CHECK(cost_at(tiny, 1024).total.state_bytes == 36 * 2 * (conv_window + ssm_state) + 4 * (1024 + 1024.0 * 1024));
    // The multipliers are recorded, not planned.
    auto scaled = changed(name, [](OJson& c) {
        c["embedding_multiplier"] = 12;
        c["residual_multiplier"] = 0.22;
        c["attention_multiplier"] = 0.0078125;
        c["logits_scaling"] = 6;
        c["position_embedding_type"] = "nope";
    });
    REQUIRE(scaled.ok());
    CHECK(scaled->nodes.size() == tiny.nodes.size());
    for (const char* f : {"embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling", "position_embedding_type", "layer_types"})
        CHECK(config_field(*scaled, f) != nullptr);

    // num_local_experts 0 (granite-4.0-h-micro, -h-1b): the shared MLP alone, a dense SwiGLU.
    auto dense = changed(name, [](OJson& c) {
        c["num_local_experts"] = 0;
        c["num_experts_per_tok"] = 0;
        c["shared_intermediate_size"] = 4096;
    });
    REQUIRE(dense.ok());
    CHECK(kbp::schema::validate(*dense).empty());
    CHECK(count_template(*dense, "mamba+mlp") == 36);
    CHECK(count_template(*dense, "attn+mlp") == 4);
    CHECK(node(*dense, "l0.moe.gate") == nullptr);
    CHECK(out_width(*dense, "l0.mlp.gate_up") == 8192);
    CHECK(nth_in_width(*dense, "l0.mlp.down", 0) == 4096);
    CHECK(out_width(*dense, "l0.mlp.down") == 1536);
    const std::int64_t mlp = 1536 + 3 * 4096LL * 1536;
    CHECK(kbp::schema::compute_memory(*dense).parameters == 36 * mamba + 4 * attn + 40 * mlp + table + 1536);

    // Without layer_types every layer is Mamba-2 (transformers' layers_block_type property); the
    // list under its other name, layers_block_type, places the attention layers as layer_types does.
    auto untyped = changed(name, [](OJson& c) { c.erase("layer_types"); });
    REQUIRE(untyped.ok());
    CHECK(count_template(*untyped, "mamba+moe") == 40);
    auto aliased = changed(name, [](OJson& c) {
        c["layers_block_type"] = c["layer_types"];
        c.erase("layer_types");
    });
    REQUIRE(aliased.ok());
    REQUIRE(aliased->nodes.size() == tiny.nodes.size());
    for (std::size_t k = 0; k < tiny.nodes.size(); ++k) CHECK(aliased->nodes[k].id == tiny.nodes[k].id);
    // mamba_d_head absent: mamba_expand x hidden_size / mamba_n_heads, as GraniteMoeHybridConfig's "auto".
    auto automatic = changed(name, [](OJson& c) { c.erase("mamba_d_head"); });
    REQUIRE(automatic.ok());
    CHECK(node(*automatic, "l0.mamba.ssm")->point.find("head_dim")->integer() == 64);
    // mamba_conv_bias false drops the conv's bias.
    auto nobias = changed(name, [](OJson& c) { c["mamba_conv_bias"] = false; });
    REQUIRE(nobias.ok());
    CHECK(node(*nobias, "l0.mamba.conv") == nullptr);
    CHECK(node(*nobias, "l0.mamba.conv_nobias") != nullptr);
    CHECK(kbp::schema::compute_memory(*nobias).parameters == memory.parameters - 36 * 3328);

    // --tp 2: half the experts' and the shared MLP's width, half the Mamba heads, 2 of the 4 KV heads.
    auto tp2 = plan_split(name, 2);
    CHECK(kbp::schema::validate(tp2).empty());
    CHECK(out_width(tp2, "l0.moe.experts_gate_up") == 512);
    CHECK(out_width(tp2, "l0.moe.shared_gate_up") == 1024);
    CHECK(out_width(tp2, "l0.mamba.in_proj_dt") == 24);
    CHECK(out_width(tp2, "l5.attn.k") == 256);

    // B200 NVFP4 prefill: the chunked scan, the varlen conv, the NVFP4 MoE.
    auto p = plan_of(request_on(name, "prefill", 512, "b200", "nvfp4"));
    CHECK(kbp::schema::validate(p).empty());
    CHECK(node(p, "l0.mamba.ssm")->kernel == "mamba_ssm::mamba_chunk_scan_combined");
    CHECK(node(p, "l0.mamba.conv")->kernel == "causal_conv1d::causal_conv1d_fn");
    CHECK(node(p, "l0.moe.experts_gate_up")->kernel == "moe::fused_moe_nvfp4");
}

TEST_CASE("families: a Gemma 3 multimodal config plans its text_config with Gemma3TextConfig's defaults and says so", "[families][wrappers]") {
    // google/gemma-3-4b-it: Gemma3ForConditionalGeneration (model_type gemma3) whose text_config
    // names hidden_size 2560, intermediate_size 10240, 34 layers, window 1024 and linear rope
    // scaling, and leaves the rest to Gemma3TextConfig (8 query heads, 4 KV heads of 256, vocab
    // 262,208, a full-attention layer every 6th).
    auto out = kbp::planner::make_plan(request(sample("gemma-3-4b-it")));
    REQUIRE(out.ok());
    CHECK_THAT(out->defaults_chosen,
               Catch::StartsWith("the language model of this gemma3 config: its text_config (model_type gemma3_text); the vision encoder and "
                                 "projector are not planned, target h100") &&
                   Catch::EndsWith(", transformers' defaults for the fields the config lacks (embedded:architectures/gemma3_text.json "
                                   "/config_defaults): tie_word_embeddings true, vocab_size 262208, num_attention_heads 8, num_key_value_heads 4, "
                                   "head_dim 256, hidden_activation \"gelu_pytorch_tanh\", max_position_embeddings 131072, rope_theta 1000000.0, "
                                   "attention_bias false, query_pre_attn_scalar 256, rope_local_base_freq 10000.0, sliding_window_pattern 6"));
    const auto& plan = out->blueprint;
    CHECK(kbp::schema::validate(plan).empty());
    // Gemma3TextModel's shapes (transformers src/transformers/models/gemma3/modeling_gemma3.py):
    // q_proj 2560 -> 8 x 256, k_proj and v_proj -> 4 x 256, o_proj -> 2560, gate_proj and up_proj -> 10240.
    CHECK(plan.layers.size() == 34);
    CHECK(out_width(plan, "l0.attn.q") == 2048);
    CHECK(out_width(plan, "l0.attn.k") == 1024);
    CHECK(out_width(plan, "l0.attn.v") == 1024);
    CHECK(out_width(plan, "l0.attn.o") == 2560);
    CHECK(out_width(plan, "l0.mlp.gate_up") == 2 * 10240);
    CHECK(out_width(plan, "l0.mlp.down") == 2560);
    CHECK(out_width(plan, "head.lm_head") == 262208);
    CHECK(cached_values(plan) == 2 * 4 * 256);
    // Five sliding layers to each global one: layers 5, 11, 17, 23 and 29 are full attention.
    CHECK(count_kind(plan, "full_attention") == 5);
    CHECK(count_kind(plan, "sliding_attention") == 29);
    CHECK(plan.layers[5].kind.name() == "full_attention");
    // The parameters: the planned language model is the publisher's 4,300,079,472 less the SigLIP
    // vision tower and projector, counted here from vision_config by transformers' shapes
    // (SiglipVisionEmbeddings' patch conv and position table, 27 SiglipEncoderLayers, the
    // post-layernorm; Gemma3MultiModalProjector's 1152 x 2560 projection and its RMSNorm).
    const OJson cfg = OJson::parse(kbp::test::slurp(sample("gemma-3-4b-it")));
    const OJson& vision = cfg["vision_config"];
    const std::int64_t w = vision["hidden_size"], mlp = vision["intermediate_size"], layers = vision["num_hidden_layers"], patch = vision["patch_size"],
                       image = vision["image_size"], text = cfg["text_config"]["hidden_size"];
    const std::int64_t vision_layer = 4 * (w * w + w) + (w * mlp + mlp) + (mlp * w + w) + 2 * 2 * w;
    const std::int64_t patches = (image / patch) * (image / patch);
    const std::int64_t tower = layers * vision_layer + (3 * patch * patch * w + w) + patches * w + 2 * w;
    const std::int64_t projector = w * text + w;
    const auto& card = cfg["kbp"]["parameters"];
    CHECK(tower + projector == card["unplanned"].get<std::int64_t>());
    const auto m = kbp::schema::compute_memory(plan);
    CHECK(m.parameters == card["total"].get<std::int64_t>() - tower - projector);
    CHECK(m.parameters == 3'880'263'168);
    // The same text model written out whole (text_config plus the defaults) plans the same nodes,
    // named by Gemma3ForCausalLM's modules instead of the wrapper's.
    kbp::test::TempDir dir;
    OJson whole = cfg["text_config"];
    const OJson gemma3_text = OJson::parse(kbp::test::slurp(root + "/planner/data/architectures/gemma3_text.json"));
    for (const auto& [k, v] : gemma3_text["config_defaults"].items())
        if (!whole.contains(k)) whole[k] = v;
    kbp::test::spit(dir.file("config.json"), whole.dump());
    auto lifted = kbp::planner::make_plan(request(dir.file("config.json")));
    REQUIRE(lifted.ok());
    CHECK(lifted->defaults_chosen.find("text_config") == std::string::npos);
    REQUIRE(lifted->blueprint.nodes.size() == plan.nodes.size());
    for (std::size_t i = 0; i < plan.nodes.size(); ++i) CHECK(lifted->blueprint.nodes[i].id == plan.nodes[i].id);
    CHECK(kbp::schema::compute_memory(lifted->blueprint).parameters == m.parameters);
    // A text_config field is refused where it is: under /text_config.
    auto bad = changed("gemma-3-4b-it", [](OJson& c) { c["text_config"]["num_hidden_layers"] = 0; });
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().where == "/text_config/num_hidden_layers");
    // A LLaVA-style wrapper of a planned text model plans too: Mistral 3 around a mistral text_config.
    auto mistral3 = changed("mistral-small-24b", [](OJson& c) {
        OJson text = c;
        text.erase("kbp");
        c = OJson{{"model_type", "mistral3"}, {"architectures", {"Mistral3ForConditionalGeneration"}}, {"text_config", text}, {"kbp", c["kbp"]}};
    });
    REQUIRE(mistral3.ok());
    CHECK(kbp::schema::compute_memory(*mistral3).parameters == kbp::schema::compute_memory(plan_of(request(sample("mistral-small-24b")))).parameters);
}

TEST_CASE("families: Qwen1.5-MoE plans transformers' and vLLM's Qwen2MoeSparseMoeBlock: routed experts and a sigmoid-gated shared expert", "[families][config]") {
    // Qwen1.5-MoE-A2.7B: Qwen2 attention (biased q/k/v), 60 experts of 1408, top 4, one shared
    // expert of 5632 scaled by sigmoid(shared_expert_gate(x)) (modeling_qwen2_moe.py, vLLM's qwen2_moe.py).
    const auto plan = plan_of(request(sample("qwen1.5-moe-a2.7b")));
    CHECK(plan.layers.size() == 24);
    CHECK(count_template(plan, "attn+moe") == 24);
    CHECK(out_width(plan, "l0.attn.q") == 2048);
    CHECK(node(plan, "l0.attn.q")->point.find("bias") != nullptr);
    CHECK(out_width(plan, "l0.moe.gate") == 60);
    CHECK(out_width(plan, "l0.moe.experts_gate_up") == 2 * 1408);
    CHECK(out_width(plan, "l0.moe.shared_gate_up") == 2 * 5632);
    CHECK(out_width(plan, "l0.moe.shared_gate") == 1);
    CHECK(node(plan, "l0.moe.blend")->point.find("shared_gate") != nullptr);
    // The parameters, module by module: q/k/v with biases and o; two norms; the router, 60 experts,
    // the shared expert and its gate; untied embedding and head; the final norm.
    const std::int64_t hidden = 2048, vocab = 151936;
    const std::int64_t attn = 3 * (hidden * hidden + hidden) + hidden * hidden + 2 * hidden;
    const std::int64_t moe = 60 * hidden + 60 * 3 * hidden * 1408 + 3 * hidden * 5632 + hidden;
    CHECK(kbp::schema::compute_memory(plan).parameters == 24 * (attn + moe) + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 14'315'784'192);
    // mlp_only_layers gives a layer the dense MLP of intermediate_size.
    auto dense = changed("qwen1.5-moe-a2.7b", [](OJson& c) { c["mlp_only_layers"] = {0}; });
    REQUIRE(dense.ok());
    CHECK(base_template(dense->layers[0].template_name) == "attn+mlp");
    CHECK(out_width(*dense, "l0.mlp.gate_up") == 2 * 5632);
}

TEST_CASE("families: Command R plans transformers' and vLLM's Cohere block: one LayerNorm feeding attention and MLP in parallel, scaled logits", "[families][config]") {
    const auto plan = plan_of(request(sample("command-r-v01")));
    CHECK(plan.layers.size() == 40);
    CHECK(base_template(plan.layers[1].template_name) == "attn_mlp");
    // The attention and the MLP read the same normed input; the layer adds both to the residual.
    CHECK(nth_in_width(plan, "l0.attn_mlp.q", 0) == 8192);
    CHECK(nth_in_width(plan, "l0.attn_mlp.gate_up", 0) == 8192);
    CHECK(out_width(plan, "l0.attn_mlp.gate_up") == 2 * 22528);
    CHECK(node(plan, "l0.attn_mlp.input_norm")->op.kind.name() == "layer_norm");
    CHECK(node(plan, "l0.attn_mlp.q_norm") == nullptr);  // use_qk_norm false (Command R v01)
    CHECK(cached_values(plan) == 2 * 64 * 128);
    REQUIRE(config_field(plan, "logit_scale"));
    // Per layer: q/k/v/o 8192 x 8192, gate/up/down 8192 x 22528, one weight-only LayerNorm; the
    // embedding tied to the head; the final LayerNorm.
    const std::int64_t hidden = 8192, inter = 22528, vocab = 256000;
    CHECK(kbp::schema::compute_memory(plan).parameters == 40 * (4 * hidden * hidden + 3 * hidden * inter + hidden) + vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 34'980'831'232);
    // Command R+'s use_qk_norm: a LayerNorm of q and of k with a weight per head channel.
    auto plus = changed("command-r-v01", [](OJson& c) { c["use_qk_norm"] = true; c["num_key_value_heads"] = 8; });
    REQUIRE(plus.ok());
    CHECK(node(*plus, "l0.attn_mlp.q_norm")->op.kind.name() == "layer_norm");
    CHECK(kbp::schema::compute_memory(*plus).parameters ==
          40 * (2 * hidden * hidden + 2 * hidden * 1024 + 3 * hidden * inter + hidden + hidden + 1024) + vocab * hidden + hidden);
}

TEST_CASE("families: InternLM2.5 plans its checkpoint's modules: one packed wqkv, w1/w3/w2, tok_embeddings and output", "[families][config]") {
    const auto plan = plan_of(request(sample("internlm2.5-7b-chat")));
    CHECK(plan.layers.size() == 32);
    CHECK(out_width(plan, "l0.attn.qkv") == (32 + 2 * 8) * 128);
    CHECK(out_width(plan, "l0.mlp.gate_up") == 2 * 14336);
    CHECK(cached_values(plan) == 2 * 8 * 128);
    const std::int64_t hidden = 4096, inter = 14336, vocab = 92544;
    CHECK(kbp::schema::compute_memory(plan).parameters == 32 * (6144 * hidden + hidden * hidden + 3 * hidden * inter + 2 * hidden) + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 7'737'708'544);
    CHECK(refused_at("internlm2.5-7b-chat", "bias", true) == "/bias");
}

TEST_CASE("families: Granite 3 plans Llama's shapes with its four scalars recorded", "[families][config]") {
    const auto plan = plan_of(request(sample("granite-3.3-2b-instruct")));
    CHECK(plan.layers.size() == 40);
    CHECK(out_width(plan, "l0.attn.k") == 8 * 64);
    for (const char* scalar : {"embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling"}) CHECK(config_field(plan, scalar));
    const std::int64_t hidden = 2048, kv = 512, inter = 8192, vocab = 49159;
    CHECK(kbp::schema::compute_memory(plan).parameters == 40 * (2 * hidden * hidden + 2 * hidden * kv + 3 * hidden * inter + 2 * hidden) + vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 2'533'539'840);
}

TEST_CASE("families: StarCoder2 plans transformers' and vLLM's module shapes: biased LayerNorms and projections, an ungated GELU MLP", "[families][config]") {
    const auto plan = plan_of(request(sample("starcoder2-3b")));
    CHECK(plan.layers.size() == 30);
    CHECK(count_kind(plan, "sliding_attention") == 30);  // sliding_window 4096 on every layer
    CHECK(out_width(plan, "l0.attn.q") == 3072);
    CHECK(out_width(plan, "l0.attn.k") == 256);
    CHECK(out_width(plan, "l0.mlp.up") == 12288);
    CHECK(node(plan, "l0.mlp.act")->op.kind.name() == "gelu");
    CHECK(node(plan, "l0.attn.input_norm")->op.kind.name() == "layer_norm");
    CHECK(node(plan, "head.final_norm")->op.kind.name() == "layer_norm");
    CHECK(cached_values(plan) == 2 * 2 * 128);
    const std::int64_t hidden = 3072, kv = 256, inter = 12288, vocab = 49152;
    const std::int64_t layer = 2 * (hidden * hidden + hidden) + 2 * (hidden * kv + kv) + (hidden * inter + inter) + (inter * hidden + hidden) + 2 * 2 * hidden;
    CHECK(kbp::schema::compute_memory(plan).parameters == 30 * layer + vocab * hidden + 2 * hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 3'030'371'328);
    // Without biases it is not the model this architecture plans.
    CHECK(refused_at("starcoder2-3b", "use_bias", false) == "/use_bias");
}

TEST_CASE("families: SmolLM3 plans Llama's shapes with a NoPE layer every no_rope_layer_interval-th or as no_rope_layers says", "[families][config]") {
    const auto plan = plan_of(request(sample("smollm3-3b-base")));
    CHECK(plan.layers.size() == 36);
    // no_rope_layer_interval 4: layers 3, 7, ..., 35 attend without a rotary embedding.
    CHECK(count_template(plan, "nope_attn+mlp") == 9);
    CHECK(node(plan, "l3.nope_attn.q") != nullptr);
    CHECK(node(plan, "l3.nope_attn.rope") == nullptr);
    CHECK(node(plan, "l2.attn.rope") != nullptr);
    const std::int64_t hidden = 2048, kv = 512, inter = 11008, vocab = 128256;
    CHECK(kbp::schema::compute_memory(plan).parameters == 36 * (2 * hidden * hidden + 2 * hidden * kv + 3 * hidden * inter + 2 * hidden) + vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 3'075'098'624);
    // An explicit no_rope_layers list decides instead of the interval (1 = RoPE, 0 = NoPE).
    auto listed = changed("smollm3-3b-base", [](OJson& c) {
        c["no_rope_layers"] = OJson::array();
        for (int i = 0; i < 36; ++i) c["no_rope_layers"].push_back(i == 0 ? 0 : 1);
    });
    REQUIRE(listed.ok());
    CHECK(count_template(*listed, "nope_attn+mlp") == 1);
    CHECK(node(*listed, "l0.nope_attn.q") != nullptr);
    CHECK(refused_at("smollm3-3b-base", "use_sliding_window", true) == "/use_sliding_window");
}

TEST_CASE("families: latent attention, soft-caps, biases, fused projections and tied embeddings", "[families][ops]") {
    // DeepSeek-V2-Lite has no q LoRA (q_lora_rank null): one q projection instead of q_a, q_b.
    auto lite = plan_of(request(sample("deepseek-v2-lite")));
    CHECK(node(lite, "l0.mla.q") != nullptr);
    CHECK(node(lite, "l0.mla.q_a") == nullptr);
    auto v3 = plan_of(request(sample("deepseek-v3")));
    CHECK(node(v3, "l0.mla.q_a") != nullptr);
    CHECK(node(v3, "l0.mla.q") == nullptr);
    // The rotary embedding reads q_b's queries (the left-out alternative does not stand in for them).
    const auto q_b = std::find_if(v3.nodes.begin(), v3.nodes.end(), [](const auto& n) { return n.id == "l0.mla.q_b"; }) - v3.nodes.begin();
    const auto rope = std::find_if(v3.nodes.begin(), v3.nodes.end(), [](const auto& n) { return n.id == "l0.mla.rope"; }) - v3.nodes.begin();
    CHECK(std::any_of(v3.edges.begin(), v3.edges.end(), [&](const auto& e) { return e.from == q_b && e.to == rope && e.dim_value == 128 * 192; }));
    CHECK(node(v3, "l0.mla.attend")->family == "mla_decode_attention");
    CHECK(node(v3, "l0.mla.kv_write")->family == "mla_latent_write");
    // Gemma 2: soft-capped logits, GeGLU, norms after attention and MLP; tied embeddings recorded.
    auto gemma = plan_of(request(sample("gemma-2-9b")));
    REQUIRE(node(gemma, "head.softcap"));
    CHECK(node(gemma, "head.softcap")->point.find("cap")->integer() == 30);
    CHECK(node(gemma, "l0.mlp.act")->op.kind.name() == "gelu_mul");
    REQUIRE(config_field(gemma, "tie_word_embeddings"));
    CHECK(*config_field(gemma, "tie_word_embeddings") == kbp::schema::JsonValue(true));  // the family's default
    REQUIRE(config_field(gemma, "attn_logit_softcapping"));
    // Without the field the soft-cap is left out and the argmax reads the logits.
    auto uncapped = changed("gemma-2-9b", [](OJson& c) { c.erase("final_logit_softcapping"); });
    REQUIRE(uncapped.ok());
    CHECK(node(*uncapped, "head.softcap") == nullptr);
    CHECK(kbp::schema::validate(*uncapped).empty());
    // Gemma 3 has no final soft-cap: the op is left out.
    auto gemma3 = plan_of(request(sample("gemma-3-1b")));
    CHECK(node(gemma3, "head.softcap") == nullptr);
    CHECK(gemma3.layers[5].kind.name() == "full_attention");
    CHECK(gemma3.layers[4].kind.name() == "sliding_attention");
    // Qwen2: q, k and v carry a bias, counted as parameters.
    auto qwen2 = plan_of(request(sample("qwen2.5-7b")));
    CHECK(node(qwen2, "l0.attn.q")->point.find("bias") != nullptr);
    CHECK(node(qwen2, "l0.attn.o")->point.find("bias") == nullptr);
    // Phi-3: one qkv projection and one gate_up projection.
    auto phi = plan_of(request(sample("phi-3-mini-4k")));
    CHECK(out_width(phi, "l0.attn.qkv") == 3 * 3072);
    // rope_scaling is recorded where the config has it.
    REQUIRE(config_field(v3, "rope_scaling"));
    CHECK(config_field(v3, "rope_scaling")->is_object());
}

TEST_CASE("families: a config that cannot be a model is refused at the field", "[families][checks]") {
    struct Case {
        std::string model, field;
        std::function<void(OJson&)> change;
        std::string says;
    };
    const std::vector<Case> cases{
        {"llama-3.1-8b", "/num_key_value_heads", [](OJson& c) { c["num_key_value_heads"] = 0; }, "less than 1"},
        {"llama-3.1-8b", "/num_key_value_heads", [](OJson& c) { c["num_key_value_heads"] = 5; }, "5 KV heads do not divide 32 query heads"},
        {"llama-3.1-8b", "/num_key_value_heads", [](OJson& c) { c["num_key_value_heads"] = 64; }, "64 KV heads do not divide 32"},
        {"llama-3.1-8b", "/num_attention_heads", [](OJson& c) { c["num_attention_heads"] = 48; c["num_key_value_heads"] = 8; }, "48 heads do not divide hidden_size 4096"},
        {"llama-3.1-8b", "/num_hidden_layers", [](OJson& c) { c["num_hidden_layers"] = 0; }, "less than 1"},
        {"llama-3.1-8b", "/num_hidden_layers", [](OJson& c) { c["num_hidden_layers"] = std::int64_t{1} << 32; }, "is more than"},
        {"llama-3.1-8b", "/hidden_size", [](OJson& c) { c["hidden_size"] = std::int64_t{1} << 62; }, "is more than"},
        {"llama-3.1-8b", "/intermediate_size", [](OJson& c) { c["intermediate_size"] = -1; }, "negative"},
        {"qwen3-30b-a3b", "/num_experts_per_tok", [](OJson& c) { c["num_experts_per_tok"] = 200; }, "top_k 200 is not between 1 and the 128 experts"},
        {"gpt-oss-20b", "/layer_types", [](OJson& c) { c["layer_types"].erase(0); }, "23 entries for 24 layers"},
        // A helper that knows only the pointer; the planner adds the config's path (Result::context).
        {"gpt-oss-20b", "/layer_types/7", [](OJson& c) { c["layer_types"][7] = 3; }, "expected a layer kind name"},
        // A kind the architecture does not lay out: the config's entry is named, not the architecture's slot.
        {"gpt-oss-20b", "/layer_types/7", [](OJson& c) { c["layer_types"][7] = "chunked_attention"; },
         "'chunked_attention' is a layer type architecture 'gpt_oss' does not plan (it plans 'sliding_attention', 'full_attention')"},
        {"qwen3-next-80b-a3b", "/layer_types/47", [](OJson& c) {
             c["layer_types"] = OJson::array();
             for (int i = 0; i < 48; ++i) c["layer_types"].push_back(i < 47 ? "linear_attention" : "bogus");
         }, "'bogus' is a layer type architecture 'qwen3_next' does not plan"},
        {"deepseek-v3", "/topk_group", [](OJson& c) { c["topk_group"] = 9; }, "topk_group 9 is not between 1 and n_group 8"},
        {"deepseek-v3", "/n_group", [](OJson& c) { c["n_group"] = 7; }, "7 groups do not divide 256 routed experts"},
        {"qwen3-next-80b-a3b", "/linear_num_value_heads", [](OJson& c) { c["linear_num_value_heads"] = 24; }, "24 linear-attention value heads are not a whole multiple of the 16 key heads"},
        {"qwen3-next-80b-a3b", "/full_attention_interval", [](OJson& c) { c["full_attention_interval"] = 0; }, "less than 1"},
        {"llama-4-scout-17b-16e", "/no_rope_layers", [](OJson& c) { c["no_rope_layers"] = OJson::array({1, 1, 1, 0}); }, "4 entries for 48 layers"},
        {"llama-4-scout-17b-16e", "/no_rope_layers/2", [](OJson& c) {
             c["no_rope_layers"] = OJson::array();
             for (int i = 0; i < 48; ++i) c["no_rope_layers"].push_back(i == 2 ? 2 : 1);
         }, "expected 0 or 1"},
        {"llama-4-scout-17b-16e", "/moe_layers/0", [](OJson& c) { c["moe_layers"] = OJson::array({48}); }, "expected a layer index from 0 to 47"},
        {"llama-4-scout-17b-16e", "/attention_chunk_size", [](OJson& c) { c["attention_chunk_size"] = 0; }, "less than 1"},
        {"llama-4-scout-17b-16e", "/attention_bias", [](OJson& c) { c["attention_bias"] = true; }, "no attention biases"},
        {"nemotron-nano-9b-v2", "/hybrid_override_pattern", [](OJson& c) { c["hybrid_override_pattern"] = "MX" + std::string(54, '-'); },
         "layer 1 is 'X', a kind of layer architecture 'nemotron_h' does not plan (it plans 'M', '*', '-', 'E')"},
        {"nemotron-nano-9b-v2", "/hybrid_override_pattern", [](OJson& c) { c["hybrid_override_pattern"] = std::string(55, 'M'); }, "55 characters for 56 layers"},
        {"nemotron-nano-9b-v2", "/hybrid_override_pattern", [](OJson& c) { c["num_hidden_layers"] = 57; }, "56 characters for 57 layers"},
        {"nemotron-nano-9b-v2", "/hybrid_override_pattern", [](OJson& c) { c.erase("hybrid_override_pattern"); }, "missing"},
        {"nemotron-nano-9b-v2", "/hybrid_override_pattern", [](OJson& c) { c["hybrid_override_pattern"] = 56; }, "expected a string of one character a layer"},
        {"nemotron-nano-9b-v2", "/hybrid_override_pattern", [](OJson& c) { c["hybrid_override_pattern"] = std::string(55, 'M') + "\x01"; }, "layer 55 is byte 0x01"},
        {"nemotron-nano-9b-v2", "/n_groups", [](OJson& c) { c["n_groups"] = 3; }, "128 Mamba heads are not a whole multiple of the 3 groups"},
        {"nemotron-nano-9b-v2", "/use_bias", [](OJson& c) { c["use_bias"] = true; }, "no in_proj / out_proj biases"},
        {"nemotron-nano-9b-v2", "/mlp_bias", [](OJson& c) { c["mlp_bias"] = true; }, "no MLP biases"},
        {"nemotron-h-8b-base-8k", "/conv_kernel", [](OJson& c) { c["conv_kernel"] = 0; }, "less than 1"},
        {"minimax-m2", "/shared_intermediate_size", [](OJson& c) { c["shared_intermediate_size"] = 1536; }, "a shared expert of 1536: MiniMax-M2's checkpoints have none"},
        {"minimax-m2", "/attention_bias", [](OJson& c) { c["attention_bias"] = true; }, "no q/k/v biases"},
        {"minimax-m2", "/use_qk_norm", [](OJson& c) { c["use_qk_norm"] = false; }, "always normalises q and k over the whole projection"},
        {"minimax-m2", "/rotary_dim", [](OJson& c) { c["rotary_dim"] = 256; }, "rotary_dim 256 is odd or more than head_dim 128"},
        {"minimax-m2", "/rotary_dim", [](OJson& c) { c["rotary_dim"] = 63; }, "rotary_dim 63 is odd"},
        {"minimax-m2", "/num_experts_per_tok", [](OJson& c) { c["num_experts_per_tok"] = 257; }, "top_k 257 is not between 1 and the 256 experts"},
        {"minimax-m2", "/num_key_value_heads", [](OJson& c) { c["num_key_value_heads"] = 7; }, "7 KV heads do not divide 48 query heads"},
        // Nemotron 3 Nano: layers_block_type as the config's own list of layers, then the MoE fields.
        {"nemotron-3-nano-30b-a3b", "/layers_block_type", [](OJson& c) {
             c["layers_block_type"] = OJson::array();
             for (int i = 0; i < 51; ++i) c["layers_block_type"].push_back(i % 2 ? "moe" : "mamba");
         }, "51 entries for 52 layers"},
        {"nemotron-3-nano-30b-a3b", "/layers_block_type/7", [](OJson& c) {
             c["layers_block_type"] = OJson::array();
             for (int i = 0; i < 52; ++i) c["layers_block_type"].push_back(i == 7 ? "bogus" : "mamba");
         }, "'bogus' is a layer type architecture 'nemotron_h' does not plan (it plans 'mamba', 'linear_attention', 'attention', 'full_attention', 'mlp', 'moe')"},
        {"nemotron-3-nano-30b-a3b", "/layers_block_type/3", [](OJson& c) {
             c["layers_block_type"] = OJson::array();
             for (int i = 0; i < 52; ++i) c["layers_block_type"].push_back(i == 3 ? OJson(3) : OJson("moe"));
         }, "expected a layer kind name, not 3"},
        {"nemotron-3-nano-30b-a3b", "/layers_block_type", [](OJson& c) { c["layers_block_type"] = "mamba"; }, "expected a list of layers"},
        {"nemotron-3-nano-30b-a3b", "/layers_block_type", [](OJson& c) { c["layers_block_type"] = OJson::array(); }, "0 entries for 52 layers"},
        {"nemotron-3-nano-30b-a3b", "/hybrid_override_pattern", [](OJson& c) { c.erase("hybrid_override_pattern"); },
         "missing, as is layers_block_type: architecture 'nemotron_h' lays its layers out from one of them"},
        {"nemotron-3-nano-30b-a3b", "/moe_latent_size", [](OJson& c) { c["moe_latent_size"] = 1024; },
         "a latent MoE (Nemotron 3 Super / Ultra: the routed experts work in a 1024-wide space between fc1_latent_proj and fc2_latent_proj) is not planned"},
        {"nemotron-3-nano-30b-a3b", "/n_shared_experts", [](OJson& c) { c["n_shared_experts"] = 2; }, "2 shared experts: transformers builds one shared expert"},
        {"nemotron-3-nano-30b-a3b", "/num_experts_per_tok", [](OJson& c) { c["num_experts_per_tok"] = 200; }, "top_k 200 is not between 1 and the 128 experts"},
        {"nemotron-3-nano-30b-a3b", "/topk_group", [](OJson& c) { c["topk_group"] = 2; }, "topk_group 2 is not between 1 and n_group 1"},
        {"nemotron-3-nano-30b-a3b", "/n_group", [](OJson& c) { c["n_group"] = 3; }, "3 groups do not divide 128 routed experts"},
        {"nemotron-3-nano-30b-a3b", "/hybrid_override_pattern", [](OJson& c) { c["num_hidden_layers"] = 56; }, "52 characters for 56 layers"},
        // OLMo 2 and 3: biases neither reference's checkpoints have, and OLMo 3's layer_types.
        {"olmo-2-1124-7b", "/attention_bias", [](OJson& c) { c["attention_bias"] = true; }, "no q/k/v/o biases"},
        {"olmo-2-1124-7b", "/num_key_value_heads", [](OJson& c) { c["num_key_value_heads"] = 5; }, "5 KV heads do not divide 32 query heads"},
        {"olmo-2-1124-7b", "/num_attention_heads", [](OJson& c) { c["num_attention_heads"] = 48; c["num_key_value_heads"] = 8; }, "48 heads do not divide hidden_size 4096"},
        {"olmo-3-7b", "/attention_bias", [](OJson& c) { c["attention_bias"] = true; }, "no q/k/v/o biases"},
        {"olmo-3-7b", "/layer_types", [](OJson& c) { c["layer_types"].erase(0); }, "31 entries for 32 layers"},
        {"olmo-3-7b", "/layer_types/5", [](OJson& c) { c["layer_types"][5] = "chunked_attention"; },
         "'chunked_attention' is a layer type architecture 'olmo2' does not plan (it plans 'sliding_attention', 'full_attention')"},
        {"olmo-3-7b", "/sliding_window", [](OJson& c) { c["sliding_window"] = -1; }, "negative"},
        // Granite 4.0: what its published checkpoints do not have, and what the two references disagree on.
        {"granite-4.0-h-tiny", "/layer_types", [](OJson& c) { c["layer_types"].erase(0); }, "39 entries for 40 layers"},
        // A name field read by its architecture's names: one it lists but does not plan, one it does not list, not a name.
        {"granite-4.0-h-tiny", "/position_embedding_type", [](OJson& c) { c["position_embedding_type"] = "rope"; }, "RoPE attention ('rope'"},
        {"granite-4.0-h-tiny", "/position_embedding_type", [](OJson& c) { c["position_embedding_type"] = "alibi"; },
         "'alibi' is not one architecture 'granitemoehybrid' plans (it plans 'nope', 'rope')"},
        {"granite-4.0-h-tiny", "/position_embedding_type", [](OJson& c) { c["position_embedding_type"] = 3; }, "the value is not one"},
        {"granite-4.0-h-tiny", "/layer_types/3", [](OJson& c) { c["layer_types"][3] = "linear_attention"; },
         "'linear_attention' is a layer type architecture 'granitemoehybrid' does not plan (it plans 'mamba', 'attention')"},
        {"granite-4.0-h-tiny", "/layers_block_type/2", [](OJson& c) {
             c.erase("layer_types");
             c["layers_block_type"] = OJson::array();
             for (int i = 0; i < 40; ++i) c["layers_block_type"].push_back(i == 2 ? "moe" : "mamba");
         }, "'moe' is a layer type architecture 'granitemoehybrid' does not plan (it plans 'mamba', 'attention')"},
        {"granite-4.0-h-tiny", "/mamba_n_groups", [](OJson& c) { c["mamba_n_groups"] = 2; }, "2 groups: transformers' gated RMSNorm normalises the whole"},
        {"granite-4.0-h-tiny", "/mamba_proj_bias", [](OJson& c) { c["mamba_proj_bias"] = true; }, "no in_proj / out_proj biases"},
        {"granite-4.0-h-tiny", "/attention_bias", [](OJson& c) { c["attention_bias"] = true; }, "no attention biases"},
        {"granite-4.0-h-tiny", "/mamba_d_head", [](OJson& c) { c["mamba_d_head"] = 32; }, "48 Mamba heads of 32 are not mamba_expand x hidden_size (3072)"},
        {"granite-4.0-h-tiny", "/mamba_n_heads", [](OJson& c) { c["mamba_n_heads"] = 50; c.erase("mamba_d_head"); }, "50 Mamba heads do not divide mamba_expand x hidden_size (3072)"},
        {"granite-4.0-h-tiny", "/head_dim", [](OJson& c) { c["head_dim"] = 64; }, "head_dim 64 is not hidden_size / num_attention_heads (128)"},
        {"granite-4.0-h-tiny", "/num_attention_heads", [](OJson& c) { c["num_attention_heads"] = 10; c["num_key_value_heads"] = 5; }, "10 heads do not divide hidden_size 1536"},
        {"granite-4.0-h-tiny", "/num_key_value_heads", [](OJson& c) { c["num_key_value_heads"] = 5; }, "5 KV heads do not divide 12 query heads"},
        {"granite-4.0-h-tiny", "/num_experts_per_tok", [](OJson& c) { c["num_experts_per_tok"] = 65; }, "top_k 65 is not between 1 and the 64 experts"},
        {"granite-4.0-h-tiny", "/num_experts_per_tok", [](OJson& c) { c["num_experts_per_tok"] = 0; }, "top_k 0 is not between 1 and the 64 experts"},
        {"granite-4.0-h-tiny", "/shared_intermediate_size", [](OJson& c) { c["shared_intermediate_size"] = 0; }, "no shared MLP"},
        {"granite-4.0-h-tiny", "/mamba_d_conv", [](OJson& c) { c["mamba_d_conv"] = 0; }, "less than 1"},
    };
    for (const auto& c : cases) {
        INFO(c.model << " " << c.field);
        auto r = changed(c.model, c.change);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == kbp::ErrorCode::invalid_input);
        CHECK(r.error().where == c.field);
        CHECK_THAT(r.error().message, Catch::Contains(c.says));
    }
}

TEST_CASE("families: a mutated config is refused at a config field or gives a plan that validates", "[families][property]") {
    // Seeded single mutations of every sample's numeric fields: each either plans (and the plan
    // is valid) or is refused as invalid input with a pointer into the config.
    std::mt19937 rng(20261203);
    const std::vector<std::int64_t> values{0, -1, 1, 2, 3, 7, 129, 1000003, std::int64_t{1} << 31, std::int64_t{1} << 40};
    int planned = 0, refused = 0;
    for (const auto& name : counted_samples()) {
        // A multimodal wrapper's sizes are in its text_config (the dense Qwen3.5 sample has no
        // integer at the top at all).
        OJson cfg = OJson::parse(kbp::test::slurp(sample(name)));
        const bool wrapped = cfg.contains("text_config");
        std::vector<std::string> numeric;
        for (const auto& [k, v] : (wrapped ? cfg["text_config"] : cfg).items())
            if (v.is_number_integer() && k != "bos_token_id" && k != "eos_token_id" && k != "pad_token_id") numeric.push_back(k);
        REQUIRE_FALSE(numeric.empty());
        for (int trial = 0; trial < 6; ++trial) {
            const std::string field = numeric[rng() % numeric.size()];
            const std::int64_t value = values[rng() % values.size()];
            INFO(name << ": " << (wrapped ? "text_config/" : "") << field << " = " << value);
            auto r = changed(name, [&](OJson& c) { (wrapped ? c["text_config"] : c)[field] = value; });
            if (r.ok()) {
                ++planned;
                CHECK(kbp::schema::validate(*r).empty());
            } else {
                ++refused;
                CHECK(r.error().code == kbp::ErrorCode::invalid_input);
                CHECK(r.error().where.rfind("/", 0) == 0);
            }
        }
    }
    CHECK(planned > 0);
    CHECK(refused > 0);
}

TEST_CASE("families: a recipe or target file the config's hints name is found beside the config", "[families][hints]") {
    kbp::test::TempDir dir;
    fs::create_directories(dir.file("model"));
    OJson recipe = OJson::parse(kbp::test::slurp(root + "/planner/data/recipes/nvfp4.json"));
    recipe["name"] = "mine";
    kbp::test::spit(dir.file("model/mine.json"), recipe.dump());
    OJson cfg = OJson::parse(kbp::test::slurp(sample("qwen3-8b")));
    cfg["kbp"] = {{"recipe", "mine.json"}, {"target", "b200"}};
    kbp::test::spit(dir.file("model/config.json"), cfg.dump());
    // The planner runs from another directory than the config's.
    auto plan = plan_of(request(dir.file("model/config.json")));
    CHECK(node(plan, "l0.attn.q")->precision.weight->name() == "nvfp4/g16");
    cfg["kbp"]["recipe"] = "missing.json";
    kbp::test::spit(dir.file("model/config.json"), cfg.dump());
    auto p = kbp::planner::make_plan(request(dir.file("model/config.json")));
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().where == dir.file("model/config.json") + ": /kbp/recipe");
}

TEST_CASE("families: llama.cpp's Q8_0 GGUFs plan int8/b32 weights on the mmvq kernels", "[families][q8_0]") {
    using kbp::schema::FormatId;
    using kbp::schema::OpId;
    auto q8 = [](const std::string& name, const std::string& recipe) { return plan_of(request_on(name, "decode", 1, "gb10", recipe)); };
    // gguf-q8_0 on a dense model: every projection and the LM head in int8/b32, read by mmvq at one row.
    auto dense = q8("qwen2.5-7b", "gguf-q8_0");
    int projections = 0;
    for (const auto& n : dense.nodes) {
        if (n.op.kind.id != OpId::linear && n.op.kind.id != OpId::lm_head) continue;
        ++projections;
        INFO(n.id);
        REQUIRE(n.precision.weight);
        CHECK(n.precision.weight->id == FormatId::int8_b32);
        REQUIRE(n.kernel);
        // gate|up runs with its SwiGLU in mmvq's fused GLU launch (fusion/llama.cpp.json mmvq_glu_{role}).
        CHECK(n.kernel->str() == (n.op.role.str() == "gate_up" ? "ggml_cuda::mul_mat_vec_q_glu" : "mmvq::mul_mat_vec_q8_0_q8_1"));
        CHECK(n.family.str() == "int8_b32_mmvq");
    }
    CHECK(projections > 28 * 4);
    // ... and on a MoE model the experts too, through the expert form; the router stays bf16.
    auto moe = q8("qwen3-30b-a3b", "gguf-q8_0");
    const auto* experts = node(moe, "l0.moe.experts_gate_up");
    REQUIRE(experts);
    CHECK(experts->precision.weight->id == FormatId::int8_b32);
    REQUIRE(experts->kernel);
    CHECK(experts->kernel->str() == "ggml_cuda::mul_mat_vec_q_id_glu");  // with the SwiGLU, as for the dense gate|up
    REQUIRE(node(moe, "l0.moe.experts_down")->kernel);
    CHECK(node(moe, "l0.moe.experts_down")->kernel->str() == "mmvq::mul_mat_vec_q8_0_q8_1_id");
    for (const auto& n : moe.nodes)
        if (n.op.kind.id == OpId::router) CHECK(n.precision.weight->id == FormatId::bf16);
    // gguf-mxfp4-moe: gpt-oss's experts stay MXFP4, its other projections and LM head are Q8_0.
    auto oss = q8("gpt-oss-20b", "gguf-mxfp4-moe");
    CHECK(node(oss, "l0.moe.experts_gate_up")->precision.weight->id == FormatId::mxfp4_g32);
    for (const auto& n : oss.nodes)
        if (n.op.kind.id == OpId::linear || n.op.kind.id == OpId::lm_head) {
            INFO(n.id);
            CHECK(n.precision.weight->id == FormatId::int8_b32);
        }
    // More rows than mmvq serves (8) go to the tiled mmq GEMM.
    auto prefill = plan_of(request_on("qwen2.5-7b", "prefill", 512, "gb10", "gguf-q8_0"));
    for (const auto& n : prefill.nodes)
        if (n.op.kind.id == OpId::linear) {
            REQUIRE(n.kernel);
            CHECK(n.kernel->str() == "mmq::mul_mat_q8_0");
        }
}

TEST_CASE("families: EXAONE 4.0 plans transformers' and vLLM's module shapes: OLMo 2's post-norms with per-head q/k norms and three sliding RoPE layers to one NoPE global", "[families][config]") {
    const auto plan = plan_of(request(sample("exaone-4.0-32b")));
    CHECK(plan.layers.size() == 64);
    // sliding_window_pattern 4: layers 3, 7, ..., 63 attend to the whole cache without RoPE.
    CHECK(count_kind(plan, "sliding_attention") == 48);
    CHECK(count_template(plan, "nope_attn+mlp") == 16);
    CHECK(node(plan, "l3.nope_attn.q_norm") != nullptr);
    CHECK(node(plan, "l3.nope_attn.rope") == nullptr);
    CHECK(node(plan, "l2.attn.rope") != nullptr);
    // Exaone4DecoderLayer is Olmo2DecoderLayer: no norm before attention or MLP, one after each.
    CHECK(node(plan, "l0.attn.input_norm") == nullptr);
    CHECK(node(plan, "l0.attn.post_attn_norm") != nullptr);
    CHECK(node(plan, "l0.mlp.post_ff_norm") != nullptr);
    CHECK(out_width(plan, "l0.attn.q") == 40 * 128);
    CHECK(out_width(plan, "l0.attn.k") == 8 * 128);
    CHECK(out_width(plan, "l0.mlp.gate_up") == 2 * 27392);
    // q_norm and k_norm are RMSNorm(head_dim): 128 weights each, as vLLM's Exaone4Attention builds them.
    REQUIRE(node(plan, "l0.attn.q_norm"));
    CHECK(node(plan, "l0.attn.q_norm")->point.find("scale")->integer() == 128);
    CHECK(cached_values(plan) == 2 * 8 * 128);
    const std::int64_t hidden = 5120, kv = 1024, inter = 27392, vocab = 102400;
    const std::int64_t layer = 2 * hidden * hidden + 2 * hidden * kv + 3 * hidden * inter + 2 * hidden + 2 * 128;
    CHECK(kbp::schema::compute_memory(plan).parameters == 64 * layer + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 32'003'216'384);
    // The same layers from an explicit layer_types list.
    auto typed = changed("exaone-4.0-32b", [](OJson& c) {
        c["layer_types"] = OJson::array();
        for (int i = 0; i < 64; ++i) c["layer_types"].push_back((i + 1) % 4 ? "sliding_attention" : "full_attention");
    });
    REQUIRE(typed.ok());
    CHECK(count_template(*typed, "nope_attn+mlp") == 16);
    // No sliding window (EXAONE-4.0-1.2B): every layer global, every layer with RoPE.
    auto global = changed("exaone-4.0-32b", [](OJson& c) {
        c["sliding_window"] = nullptr;
        c["layer_types"] = OJson::array();
        for (int i = 0; i < 64; ++i) c["layer_types"].push_back("full_attention");
    });
    REQUIRE(global.ok());
    CHECK(count_template(*global, "nope_attn+mlp") == 0);
    CHECK(count_kind(*global, "sliding_attention") == 0);
    CHECK(node(*global, "l3.attn.rope") != nullptr);
    CHECK(refused_at("exaone-4.0-32b", "attention_bias", true) == "/attention_bias");
}

TEST_CASE("families: Seed-OSS plans transformers' and vLLM's module shapes: biased q/k/v without an o_proj bias and attention twice the residual width", "[families][config]") {
    const auto plan = plan_of(request(sample("seed-oss-36b-instruct")));
    CHECK(plan.layers.size() == 64);
    CHECK(count_kind(plan, "sliding_attention") == 0);
    CHECK(out_width(plan, "l0.attn.q") == 80 * 128);
    CHECK(out_width(plan, "l0.attn.k") == 8 * 128);
    CHECK(nth_in_width(plan, "l0.attn.o", 0) == 80 * 128);
    CHECK(out_width(plan, "l0.attn.o") == 5120);
    CHECK(cached_values(plan) == 2 * 8 * 128);
    const std::int64_t hidden = 5120, q = 10240, kv = 1024, inter = 27648, vocab = 155136;
    const std::int64_t layer = (hidden * q + q) + 2 * (hidden * kv + kv) + q * hidden + 3 * hidden * inter + 2 * hidden;
    CHECK(kbp::schema::compute_memory(plan).parameters == 64 * layer + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 36'151'104'512);
    CHECK(refused_at("seed-oss-36b-instruct", "attention_out_bias", true) == "/attention_out_bias");
    CHECK(refused_at("seed-oss-36b-instruct", "attention_bias", false) == "/attention_bias");
    CHECK(refused_at("seed-oss-36b-instruct", "mlp_bias", true) == "/mlp_bias");
}

TEST_CASE("families: InternLM3 plans Llama's shapes as vLLM serves it and refuses its biases", "[families][config]") {
    const auto plan = plan_of(request(sample("internlm3-8b-instruct")));
    CHECK(plan.layers.size() == 48);
    CHECK(out_width(plan, "l0.attn.k") == 2 * 128);
    CHECK(out_width(plan, "l0.mlp.gate_up") == 2 * 10240);
    CHECK(cached_values(plan) == 2 * 2 * 128);
    REQUIRE(config_field(plan, "rope_scaling"));  // dynamic NTK x6: the tables, not the graph
    const std::int64_t hidden = 4096, kv = 256, inter = 10240, vocab = 128512;
    CHECK(kbp::schema::compute_memory(plan).parameters == 48 * (2 * hidden * hidden + 2 * hidden * kv + 3 * hidden * inter + 2 * hidden) + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 8'804'241'408);
    CHECK(refused_at("internlm3-8b-instruct", "qkv_bias", true) == "/qkv_bias");
    CHECK(refused_at("internlm3-8b-instruct", "bias", true) == "/bias");
}

TEST_CASE("families: ERNIE 4.5 plans Llama's shapes with the interleaved rotary embedding and tied embeddings", "[families][config]") {
    const auto plan = plan_of(request(sample("ernie-4.5-0.3b-pt")));
    CHECK(plan.layers.size() == 18);
    CHECK(out_width(plan, "l0.attn.q") == 16 * 128);
    CHECK(out_width(plan, "l0.attn.o") == 1024);
    REQUIRE(node(plan, "l0.attn.rope"));
    REQUIRE(node(plan, "l0.attn.rope")->point.find("layout"));
    CHECK(node(plan, "l0.attn.rope")->point.find("layout")->string() == "interleaved");
    REQUIRE(config_field(plan, "tie_word_embeddings"));
    const std::int64_t hidden = 1024, q = 2048, kv = 256, inter = 3072, vocab = 103424;
    CHECK(kbp::schema::compute_memory(plan).parameters == 18 * (2 * hidden * q + 2 * hidden * kv + 3 * hidden * inter + 2 * hidden) + vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 360'748'032);
    CHECK(refused_at("ernie-4.5-0.3b-pt", "use_bias", true) == "/use_bias");
}

TEST_CASE("families: Hunyuan dense plans transformers' and vLLM's module shapes: per-head q/k norms after the rotary embedding and a cache of the normalised keys", "[families][config]") {
    const auto plan = plan_of(request(sample("hunyuan-7b-instruct")));
    CHECK(plan.layers.size() == 32);
    auto feeds = [&](const std::string& from, const std::string& to) {
        return std::any_of(plan.edges.begin(), plan.edges.end(), [&](const auto& e) {
            return e.from >= 0 && e.to >= 0 && plan.nodes[static_cast<std::size_t>(e.from)].id == from && plan.nodes[static_cast<std::size_t>(e.to)].id == to;
        });
    };
    // HunYuanDenseV1Attention: rotate, then normalise each head; the cache holds the normalised keys.
    CHECK(feeds("l0.attn.rope", "l0.attn.q_norm"));
    CHECK(feeds("l0.attn.rope", "l0.attn.k_norm"));
    CHECK(feeds("l0.attn.k_norm", "l0.attn.kv_write"));
    CHECK(feeds("l0.attn.q_norm", "l0.attn.attend"));
    CHECK_FALSE(feeds("l0.attn.q_norm", "l0.attn.rope"));
    CHECK(cached_values(plan) == 2 * 8 * 128);
    REQUIRE(config_field(plan, "tie_word_embeddings"));
    const std::int64_t hidden = 4096, kv = 1024, inter = 14336, vocab = 128167;
    CHECK(kbp::schema::compute_memory(plan).parameters == 32 * (2 * hidden * hidden + 2 * hidden * kv + 3 * hidden * inter + 2 * hidden + 2 * 128) + vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 7'504'568'320);
    CHECK(refused_at("hunyuan-7b-instruct", "use_qk_norm", false) == "/use_qk_norm");
    CHECK(refused_at("hunyuan-7b-instruct", "use_cla", true) == "/use_cla");
}

TEST_CASE("families: Command R7B plans transformers' and vLLM's Cohere2: Command R's parallel block with three sliding RoPE layers to one NoPE global", "[families][config]") {
    const auto plan = plan_of(request(sample("command-r7b-12-2024")));
    CHECK(plan.layers.size() == 32);
    CHECK(count_kind(plan, "sliding_attention") == 24);
    CHECK(count_template(plan, "nope_attn_mlp") == 8);
    // Cohere2Attention rotates on sliding layers only (interleaved, as Command R).
    REQUIRE(node(plan, "l0.attn_mlp.rope_unnormed"));
    CHECK(node(plan, "l0.attn_mlp.rope_unnormed")->point.find("layout")->string() == "interleaved");
    CHECK(node(plan, "l3.nope_attn_mlp.kv_write") != nullptr);
    CHECK(node(plan, "l3.nope_attn_mlp.rope_unnormed") == nullptr);
    CHECK(node(plan, "l3.nope_attn_mlp.gate_up") != nullptr);  // the MLP beside the attention, as Command R's
    CHECK(cached_values(plan) == 2 * 8 * 128);
    REQUIRE(config_field(plan, "logit_scale"));
    const std::int64_t hidden = 4096, kv = 1024, inter = 14336, vocab = 256000;
    CHECK(kbp::schema::compute_memory(plan).parameters == 32 * (2 * hidden * hidden + 2 * hidden * kv + 3 * hidden * inter + hidden) + vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 8'028'033'024);
    CHECK(refused_at("command-r7b-12-2024", "use_qk_norm", true) == "/use_qk_norm");
}

TEST_CASE("families: GLM-4.7-Flash plans transformers' and vLLM's Glm4MoeLite: DeepSeek-V3's latent attention, GLM's routed and shared experts", "[families][config]") {
    // modeling_glm4_moe_lite.py: Glm4MoeLiteAttention is DeepseekV3Attention, Glm4MoeLiteMoE is
    // Glm4MoeMoE; vLLM's glm4_moe_lite.py serves it with the DeepSeek-V2 MLA layers.
    const auto plan = plan_of(request(sample("glm-4.7-flash")));
    CHECK(plan.layers.size() == 47);
    CHECK(count_kind(plan, "multi_latent_attention") == 47);
    CHECK(base_template(plan.layers[0].template_name) == "mla+mlp");
    CHECK(count_template(plan, "mla+moe") == 46);
    CHECK(out_width(plan, "l0.mla.q_a") == 768);
    CHECK(out_width(plan, "l0.mla.q_b") == 20 * (192 + 64));
    CHECK(out_width(plan, "l0.mla.kv_a") == 512 + 64);
    CHECK(cached_values(plan) == 576);
    CHECK(out_width(plan, "l0.mlp.gate_up") == 2 * 10240);
    CHECK(out_width(plan, "l1.moe.gate") == 64);
    CHECK(out_width(plan, "l1.moe.experts_gate_up") == 2 * 1536);
    CHECK(out_width(plan, "l1.moe.shared_gate_up") == 2 * 1536);
    CHECK(node(plan, "l1.mla.attend")->family == "mla_decode_attention");
    // The parameters, module by module: q_a (and its norm), q_b, kv_a (and its norm), kv_b
    // (absorbed), o, two layer norms; layer 0's MLP; 46 MoE layers of a router, 64 experts and the
    // shared expert; the untied embedding and head; the final norm.
    const std::int64_t hidden = 2048, vocab = 154880;
    const std::int64_t attn = hidden * 768 + 768 + 768 * 20 * 256 + hidden * 576 + 512 + 512 * 20 * (192 + 256) + 20 * 256 * hidden + 2 * hidden;
    const std::int64_t moe = 64 * hidden + 64 * 3 * hidden * 1536 + 3 * hidden * 1536;
    CHECK(kbp::schema::compute_memory(plan).parameters == 47 * attn + 3 * hidden * 10240 + 46 * moe + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 29'943'390'976);
    // mlp_layer_types decides when given ('dense' / 'sparse', as transformers reads it); another name is refused at its entry.
    auto sparse = changed("glm-4.7-flash", [](OJson& c) { c["mlp_layer_types"] = std::vector<std::string>(47, "sparse"); });
    REQUIRE(sparse.ok());
    CHECK(count_template(*sparse, "mla+moe") == 47);
    auto odd = changed("glm-4.7-flash", [](OJson& c) {
        c["mlp_layer_types"] = std::vector<std::string>(47, "sparse");
        c["mlp_layer_types"][5] = "moe";
    });
    REQUIRE_FALSE(odd.ok());
    CHECK(odd.error().where == "/mlp_layer_types/5");
    CHECK(refused_at("glm-4.7-flash", "attention_bias", true) == "/attention_bias");
}

TEST_CASE("families: DeepSeek-V3.2 and GLM-5 plan transformers' and vLLM's DeepSeek Sparse Attention: the lightning indexer, its FP8 key cache, the top-2048 latents", "[families][config]") {
    // modular_deepseek_v32.py's DeepseekV32Indexer (wq_b, wk, k_norm, weights_proj) and vLLM's
    // sparse_attn_indexer (indexer_k_quant_and_cache, DeepGEMM's FP8 MQA logits, top_k_per_row)
    // feeding FlashMLA's sparse kernels; everything else is DeepSeek-V3's.
    const auto plan = plan_of(request(sample("deepseek-v3.2")));
    CHECK(plan.layers.size() == 61);
    CHECK(count_kind(plan, "deepseek_sparse_attention") == 61);
    CHECK(count_template(plan, "dsa+moe") == 58);
    CHECK(out_width(plan, "l0.dsa.idx_q") == 64 * 128);
    CHECK(nth_in_width(plan, "l0.dsa.idx_q", 0) == 1536);  // from the normed q latent
    CHECK(out_width(plan, "l0.dsa.idx_k") == 128);
    CHECK(out_width(plan, "l0.dsa.idx_w") == 64);
    CHECK(out_width(plan, "l0.dsa.select") == 2048);
    CHECK(node(plan, "l0.dsa.idx_k_norm")->op.kind.name() == "layer_norm");
    CHECK(node(plan, "l0.dsa.idx_write")->op.kind.name() == "index_write");
    CHECK(node(plan, "l0.dsa.idx_write")->family == "dsa_index_write");
    CHECK(node(plan, "l0.dsa.select")->family == "dsa_index_select");
    CHECK(node(plan, "l0.dsa.attend")->family == "mla_sparse_attention");
    CHECK(cached_values(plan) == 576);
    // The attention reads at most index_topk latents a sequence; the indexer scores every cached key
    // (128 FP8 values and an FP32 scale).
    REQUIRE(plan.node_costs);
    std::map<std::string, std::string> moved, held;
    for (const auto& [id, value] : *plan.node_costs) {
        if (auto* m = value.find("state_bytes")) moved[id] = m->string();
        if (auto* h = value.find("state_held")) held[id] = h->string();
    }
    CHECK(moved["l0.dsa.attend"] == "sequences*min(context, 2048)*576*1");
    CHECK(held["l0.dsa.attend"] == "sequences*context*576*1");
    CHECK(held["l0.dsa.select"] == "sequences*context*(128+4)");
    // The parameters: DeepSeek-V3's modules, and the indexer's wq_b, wk, k_norm (weight and bias)
    // and weights_proj on every layer.
    const std::int64_t hidden = 7168, vocab = 129280;
    const std::int64_t attn = hidden * 1536 + 1536 + 1536 * 128 * 192 + hidden * 576 + 512 + 512 * 128 * 256 + 128 * 128 * hidden + 2 * hidden;
    const std::int64_t indexer = 1536 * 64 * 128 + hidden * 128 + 2 * 128 + hidden * 64;
    const std::int64_t moe = 256 * hidden + 256 * 3 * hidden * 2048 + 3 * hidden * 2048;
    CHECK(kbp::schema::compute_memory(plan).parameters == 61 * (attn + indexer) + 3 * 3 * hidden * 18432 + 58 * moe + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 671'877'929'216);
    CHECK(refused_at("deepseek-v3.2", "q_lora_rank", nullptr) == "/q_lora_rank");

    // GLM-5: the same layers with a 32-head indexer; every layer runs its own.
    const auto glm = plan_of(request(sample("glm-5")));
    CHECK(glm.layers.size() == 78);
    CHECK(count_template(glm, "dsa+moe") == 75);
    CHECK(out_width(glm, "l0.dsa.idx_q") == 32 * 128);
    CHECK(out_width(glm, "l0.dsa.q_b") == 64 * 256);
    CHECK(kbp::schema::compute_memory(glm).parameters == 743'911'199'232);
    // GLM-5.1-style shared indexers: a 'shared' layer has no indexer and reads the last full layer's selection.
    auto shared = changed("glm-5", [](OJson& c) {
        c["indexer_types"] = OJson::array();
        for (int i = 0; i < 78; ++i) c["indexer_types"].push_back(i < 3 || (i - 3) % 4 == 3 ? "full" : "shared");
    });
    REQUIRE(shared.ok());
    CHECK(count_template(*shared, "dsa_shared+moe") == 57);
    CHECK(node(*shared, "l3.dsa_shared.attend") != nullptr);
    CHECK(node(*shared, "l3.dsa_shared.select") == nullptr);
    CHECK(node(*shared, "l6.dsa.select") != nullptr);
    CHECK(kbp::schema::validate(*shared).empty());
    // Without the list, index_topk_freq and index_skip_topk_offset make the same schedule (transformers' GlmMoeDsaConfig).
    auto freq = changed("glm-5", [](OJson& c) { c["index_topk_freq"] = 4; c["index_skip_topk_offset"] = 3; });
    REQUIRE(freq.ok());
    CHECK(count_template(*freq, "dsa_shared+moe") == 57);
    auto odd = changed("glm-5", [](OJson& c) {
        c["indexer_types"] = std::vector<std::string>(78, "full");
        c["indexer_types"][9] = "skip";
    });
    REQUIRE_FALSE(odd.ok());
    CHECK(odd.error().where == "/indexer_types/9");
}

TEST_CASE("families: DeepSeek-V4 plans vLLM's DeepseekV4 layers: hyper-connections, the sliding-window, compressed sparse and heavily compressed attention by compress_ratios, hash-routed MoE, the MTP layer", "[families][config]") {
    // vllm/model_executor/models/deepseek_v4.py (DeepseekV4DecoderLayer, DeepseekV4Attention,
    // DeepseekV4MoE), layers/deepseek_v4_attention.py, layers/deepseek_compressor.py, deepseek_v4_mtp.py;
    // module names as the checkpoint (and its quantization_config) gives them.
    const auto plan = plan_of(request(sample("deepseek-v4-flash")));
    CHECK(plan.layers.size() == 43);
    CHECK(count_kind(plan, "sliding_attention") == 2);           // compress_ratios 0
    CHECK(count_kind(plan, "deepseek_sparse_attention") == 21);  // 4
    CHECK(count_kind(plan, "multi_latent_attention") == 20);     // 128
    CHECK(count_template(plan, "v4_swa+moe_hash") == 2);         // num_hash_layers 3
    CHECK(count_template(plan, "v4_csa+moe_hash") == 1);
    CHECK(count_template(plan, "v4_csa+moe") == 20);
    CHECK(count_template(plan, "v4_hca+moe") == 20);
    // Every kind: the mix over 4 x 4096 streams ((2 + 4) x 4 outputs), wq_a / q_norm / wq_b, wkv / kv_norm
    // (one 512-wide key that is the value too), wo_a in 8 groups of 64 x 512 / 8 inputs to 1024, wo_b.
    for (const char* b : {"l0.v4_swa", "l2.v4_csa", "l3.v4_hca"}) {
        const std::string l = b;
        INFO(l);
        CHECK(nth_in_width(plan, l + ".mix", 0) == 4 * 4096);
        CHECK(out_width(plan, l + ".mix") == 24);
        CHECK(out_width(plan, l + ".q_a") == 1024);
        CHECK(out_width(plan, l + ".q_b") == 64 * 512);
        CHECK(out_width(plan, l + ".kv") == 512);
        CHECK(out_width(plan, l + ".o_a") == 8 * 1024);
        CHECK(node(plan, l + ".o_a")->point.find("weight_k")->integer() == 64 * 512 / 8);
        CHECK(out_width(plan, l + ".o_b") == 4096);
        CHECK(node(plan, l + ".attend")->point.find("sinks")->integer() == 64);
        CHECK(node(plan, l + ".attend")->family == "mla_sparse_attention");
        CHECK(node(plan, l + ".kv_write")->family == "dsv4_kv_insert");
        CHECK(node(plan, l + ".mix")->family == "dsv4_mhc");
    }
    CHECK(cached_values(plan) == 512);
    // Ratio 4: the compressor's kv|score of two overlapping windows (2 x 2 x 512) and the indexer
    // (wq_b from the q latent, weights_proj, its own compressor of 128-wide keys); ratio 128: one window.
    CHECK(out_width(plan, "l2.v4_csa.compress_kv") == 2 * 2 * 512);
    CHECK(out_width(plan, "l3.v4_hca.compress_kv") == 2 * 512);
    CHECK(node(plan, "l0.v4_swa.compress") == nullptr);
    CHECK(node(plan, "l3.v4_hca.select") == nullptr);
    CHECK(out_width(plan, "l2.v4_csa.idx_q") == 64 * 128);
    CHECK(nth_in_width(plan, "l2.v4_csa.idx_q", 0) == 1024);
    CHECK(out_width(plan, "l2.v4_csa.idx_w") == 64);
    CHECK(out_width(plan, "l2.v4_csa.idx_compress_kv") == 2 * 2 * 128);
    CHECK(out_width(plan, "l2.v4_csa.select") == 512);
    CHECK(node(plan, "l2.v4_csa.compress")->op.kind.name() == "kv_compress");
    CHECK(node(plan, "l2.v4_csa.select")->family == "dsa_index_select");
    // The MoE on every layer: 256 experts of 2048, 6 a token, one shared expert.
    CHECK(out_width(plan, "l0.moe_hash.gate") == 256);
    CHECK(out_width(plan, "l3.moe.experts_gate_up") == 2 * 2048);
    CHECK(out_width(plan, "l3.moe.shared_gate_up") == 2 * 2048);
    REQUIRE(plan.modules);
    std::map<std::string, std::vector<std::string>> modules;
    for (const auto& [id, names] : *plan.modules)
        for (const auto& n : names.array()) modules[id].push_back(n.string());
    CHECK(modules["l2.v4_csa.q_a"] == std::vector<std::string>{"layers.2.attn.wq_a"});
    CHECK(modules["l2.v4_csa.compress_kv"] == std::vector<std::string>{"layers.2.attn.compressor.wkv", "layers.2.attn.compressor.wgate"});
    CHECK(modules["l2.v4_csa.idx_q"] == std::vector<std::string>{"layers.2.attn.indexer.wq_b"});
    CHECK(modules["l3.v4_hca.mix"] == std::vector<std::string>{"layers.3.hc_attn_fn", "layers.3.hc_attn_base", "layers.3.hc_attn_scale"});
    CHECK(modules["l3.moe.experts_down"] == std::vector<std::string>{"layers.3.ffn.experts.*.w2"});
    CHECK(modules["embed.embed"] == std::vector<std::string>{"embed"});
    CHECK(modules["head.lm_head"] == std::vector<std::string>{"head"});
    // The state vLLM keeps: 584-byte entries (448 FP8, 64 BF16 rotary values, 7 scales and a pad) of
    // the last 128 tokens, and of every 4th (with the indexer's 128 + 4-byte keys) or 128th token.
    REQUIRE(plan.node_costs);
    std::map<std::string, std::string> moved, held;
    for (const auto& [id, value] : *plan.node_costs) {
        if (auto* m = value.find("state_bytes")) moved[id] = m->string();
        if (auto* h = value.find("state_held")) held[id] = h->string();
    }
    CHECK(held["l0.v4_swa.attend"] == "sequences*(min(context, 128))*584");
    CHECK(moved["l2.v4_csa.attend"] == "sequences*(min(context, 128)+min(context/4, 512))*584");
    CHECK(held["l2.v4_csa.attend"] == "sequences*(min(context, 128)+context/4)*584");
    CHECK(held["l2.v4_csa.select"] == "sequences*context/4*(128+4)");
    CHECK(held["l3.v4_hca.attend"] == "sequences*(min(context, 128)+context/128)*584");
    CHECK(held["l2.v4_csa.compress"] == "sequences*2*4*2*2*512*4");
    CHECK(held["l3.v4_hca.compress"] == "sequences*128*2*512*4");
    // The parameters, module by module.
    const std::int64_t hidden = 4096, vocab = 129280, hc = 4 * hidden;
    const std::int64_t attn = 2 * 24 * hc + hidden + hidden * 1024 + 1024 + 1024 * 64 * 512 + hidden * 512 + 512 + 8 * 1024 * 4096 + 8192 * hidden + 64;
    const std::int64_t c4 = 2 * hidden * 1024 + 1024 * 64 * 128 + hidden * 64 + 2 * hidden * 256, c128 = 2 * hidden * 512;
    const std::int64_t moe = hidden + 256 * hidden + 256 * 3 * hidden * 2048 + 3 * hidden * 2048;
    CHECK(kbp::schema::compute_memory(plan).parameters == 43 * (attn + moe) + 21 * c4 + 20 * c128 + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 284'330'720'448);
    // Pro: 61 layers, two heavily compressed ones first.
    const auto pro = plan_of(request(sample("deepseek-v4-pro")));
    CHECK(pro.layers[0].kind.name() == "multi_latent_attention");
    CHECK(count_kind(pro, "deepseek_sparse_attention") == 30);
    CHECK(count_kind(pro, "multi_latent_attention") == 31);
    CHECK(out_width(pro, "l2.v4_csa.q_b") == 128 * 512);
    CHECK(node(pro, "l2.v4_csa.o_a")->point.find("weight_k")->integer() == 4096);
    CHECK(kbp::schema::compute_memory(pro).parameters == 1'572'994'841'216);

    // The draft arm is the MTP layer (mtp.0: e_proj and h_proj, a sliding-window layer, its hc_head and norm).
    const auto draft = plan_of(request(sample("deepseek-v4-flash"), "draft"));
    CHECK(draft.layers.size() == 1);
    CHECK(base_template(draft.layers[0].template_name) == "mtp_in+v4_swa+moe+mtp_norm");
    REQUIRE(draft.modules);
    std::map<std::string, std::vector<std::string>> mtp;
    for (const auto& [id, names] : *draft.modules)
        for (const auto& n : names.array()) mtp[id].push_back(n.string());
    CHECK(mtp["l0.mtp_in.e_proj"] == std::vector<std::string>{"mtp.0.e_proj"});
    CHECK(mtp["l0.v4_swa.q_b"] == std::vector<std::string>{"mtp.0.attn.wq_b"});
    CHECK(mtp["l0.mtp_norm.shared_norm"] == std::vector<std::string>{"mtp.0.norm"});
    REQUIRE(plan.mtp);
    CHECK(plan.mtp->parameters == attn + moe + 2 * hidden * hidden + 3 * hidden);

    // compress_ratios: one entry a layer and one a MTP layer; a ratio no block plans is refused at its entry.
    auto short_list = changed("deepseek-v4-flash", [](OJson& c) { c["compress_ratios"].erase(c["compress_ratios"].size() - 1); });
    REQUIRE_FALSE(short_list.ok());
    CHECK(short_list.error().where == "/compress_ratios");
    auto odd = changed("deepseek-v4-flash", [](OJson& c) { c["compress_ratios"][5] = 16; });
    REQUIRE_FALSE(odd.ok());
    CHECK(odd.error().where == "/compress_ratios/5");
    CHECK(refused_at("deepseek-v4-flash", "num_key_value_heads", 8) == "/num_key_value_heads");
}

TEST_CASE("families: Kimi Linear plans vLLM's KimiDeltaAttention and NoPE MLA on the layers linear_attn_config lists, counted from 1", "[families][config]") {
    const auto plan = plan_of(request(sample("kimi-linear-48b-a3b")));
    CHECK(plan.layers.size() == 27);
    CHECK(count_kind(plan, "linear_attention") == 20);
    CHECK(count_kind(plan, "multi_latent_attention") == 7);
    // full_attn_layers [4, 8, ..., 24, 27] are layers 3, 7, ..., 23 and 26.
    for (int i : {3, 7, 11, 15, 19, 23, 26}) CHECK(plan.layers[static_cast<std::size_t>(i)].kind.name() == "multi_latent_attention");
    CHECK(base_template(plan.layers[0].template_name) == "kda+mlp");
    CHECK(out_width(plan, "l0.kda.q") == 32 * 128);
    CHECK(out_width(plan, "l0.kda.f_a") == 128);
    CHECK(out_width(plan, "l0.kda.f_b") == 32 * 128);
    CHECK(out_width(plan, "l0.kda.b") == 32);
    CHECK(out_width(plan, "l0.kda.gates") == 32 * 128);  // a decay per key channel
    CHECK(node(plan, "l0.kda.recur")->point.find("decay")->string() == "channel");
    REQUIRE(node(plan, "l0.kda.recur")->kernel);
    CHECK(node(plan, "l0.kda.recur")->kernel->str() == "fla::fused_recurrent_kda");
    CHECK(node(plan, "l0.kda.out_norm")->point.find("gate_act")->string() == "sigmoid");
    CHECK(out_width(plan, "l3.mla.q") == 32 * (128 + 64));  // no q LoRA
    CHECK(node(plan, "l3.mla.rope") == nullptr);           // mla_use_nope
    CHECK(cached_values(plan) == 576);
    CHECK(out_width(plan, "l1.moe.gate") == 256);
    const std::int64_t hidden = 2304, proj = 32 * 128, vocab = 163840;
    const std::int64_t kda = 3 * hidden * proj + 2 * (hidden * 128 + 128 * proj) + hidden * 32 + 3 * proj * 4 + (proj + 32) + 128 + proj * hidden + 2 * hidden;
    const std::int64_t mla = hidden * 32 * 192 + hidden * 576 + 512 + 512 * 32 * 256 + 32 * 128 * hidden + 2 * hidden;
    const std::int64_t moe = 256 * hidden + 256 * 3 * hidden * 1024 + 3 * hidden * 1024;
    CHECK(kbp::schema::compute_memory(plan).parameters == 20 * kda + 7 * mla + 3 * hidden * 9216 + 26 * moe + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 49'122'675'072);
    // A layer index outside 1..27 is refused at its entry; so is MLA with a rotary embedding.
    auto zero = changed("kimi-linear-48b-a3b", [](OJson& c) { c["linear_attn_config"]["full_attn_layers"][0] = 0; });
    REQUIRE_FALSE(zero.ok());
    CHECK(zero.error().where == "/linear_attn_config/full_attn_layers/0");
    CHECK(refused_at("kimi-linear-48b-a3b", "mla_use_nope", false) == "/mla_use_nope");
    CHECK(refused_at("kimi-linear-48b-a3b", "q_lora_rank", 1536) == "/q_lora_rank");
}

TEST_CASE("families: Qwen3.5 / 3.6 plan their text_config as transformers' Qwen3_5 builds it: Qwen3-Next's hybrid with in_proj_qkv, in_proj_z, in_proj_b and in_proj_a apart", "[families][wrappers]") {
    // modular_qwen3_5.py: Qwen3_5GatedDeltaNet keeps Qwen3-Next's layer but four input projections;
    // Qwen3_5MoeForConditionalGeneration holds the text model under model.language_model.
    const auto plan = plan_of(request(sample("qwen3.5-35b-a3b")));
    CHECK(plan.layers.size() == 40);
    CHECK(count_kind(plan, "linear_attention") == 30);
    CHECK(count_kind(plan, "full_attention") == 10);
    CHECK(plan.layers[3].kind.name() == "full_attention");
    CHECK(out_width(plan, "l0.gdn.in_proj_qkv") == 2 * 16 * 128 + 32 * 128);
    CHECK(out_width(plan, "l0.gdn.in_proj_z") == 32 * 128);
    CHECK(out_width(plan, "l0.gdn.in_proj_ba") == 2 * 32);
    CHECK(out_width(plan, "l3.gattn.q") == 16 * 256);
    CHECK(out_width(plan, "l3.gattn.q_gate") == 16 * 256);
    CHECK(cached_values(plan) == 2 * 2 * 256);
    CHECK(out_width(plan, "l0.moe.gate") == 256);
    CHECK(out_width(plan, "l0.moe.experts_gate_up") == 2 * 512);
    CHECK(out_width(plan, "l0.moe.shared_gate") == 1);
    REQUIRE(plan.modules);
    for (const auto& [id, names] : *plan.modules)
        if (id == "l0.gdn.in_proj_ba") {
            REQUIRE(names.array().size() == 2);
            CHECK(names.array()[0].string() == "model.language_model.layers.0.linear_attn.in_proj_b");
            CHECK(names.array()[1].string() == "model.language_model.layers.0.linear_attn.in_proj_a");
        }
    const std::int64_t hidden = 2048, vocab = 248320;
    const std::int64_t gdn = hidden * 8192 + hidden * 4096 + 2 * hidden * 32 + 8192 * 4 + 2 * 32 + 128 + 4096 * hidden + hidden;
    const std::int64_t attn = 2 * hidden * 4096 + 2 * hidden * 512 + 2 * 256 + 4096 * hidden + hidden;
    const std::int64_t moe = hidden + 256 * hidden + 256 * 3 * hidden * 512 + 3 * hidden * 512 + hidden;
    CHECK(kbp::schema::compute_memory(plan).parameters == 30 * gdn + 10 * attn + 40 * moe + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 34'660'610'688);
    // A dense Qwen3.5 (qwen3_5 around a qwen3_5_text: no num_experts) has a SwiGLU MLP of intermediate_size on every layer.
    auto dense = changed("qwen3.5-35b-a3b", [](OJson& c) {
        c["model_type"] = "qwen3_5";
        auto& t = c["text_config"];
        t["model_type"] = "qwen3_5_text";
        for (const char* f : {"num_experts", "num_experts_per_tok", "moe_intermediate_size", "shared_expert_intermediate_size", "router_aux_loss_coef"})
            t.erase(f);
        t["intermediate_size"] = 6144;
    });
    REQUIRE(dense.ok());
    CHECK(count_template(*dense, "gdn+mlp") == 30);
    CHECK(out_width(*dense, "l0.mlp.gate_up") == 2 * 6144);
    CHECK(kbp::schema::validate(*dense).empty());
    auto ungated = changed("qwen3.5-35b-a3b", [](OJson& c) { c["text_config"]["attn_output_gate"] = false; });
    REQUIRE_FALSE(ungated.ok());
    CHECK(ungated.error().where == "/text_config/attn_output_gate");
}

TEST_CASE("families: Hunyuan-A13B plans transformers' and vLLM's HunYuanMoEV1: Hunyuan's attention, 8 of 64 experts and the shared MLP, its per-layer lists read as one value", "[families][config]") {
    const auto plan = plan_of(request(sample("hunyuan-a13b-instruct")));
    CHECK(plan.layers.size() == 32);
    CHECK(count_template(plan, "attn+moe") == 32);
    CHECK(node(plan, "l0.attn.q_norm") != nullptr);  // query_layernorm after the rotation, as Hunyuan dense
    CHECK(cached_values(plan) == 2 * 8 * 128);
    CHECK(out_width(plan, "l0.moe.gate") == 64);
    CHECK(out_width(plan, "l0.moe.experts_gate_up") == 2 * 3072);
    CHECK(out_width(plan, "l0.moe.shared_gate_up") == 2 * 3072);  // intermediate_size x num_shared_expert
    const std::int64_t hidden = 4096, kv = 1024, inter = 3072, vocab = 128167;
    const std::int64_t layer = 2 * hidden * hidden + 2 * hidden * kv + 2 * 128 + 64 * hidden + 65 * 3 * hidden * inter + 2 * hidden;
    CHECK(kbp::schema::compute_memory(plan).parameters == 32 * layer + vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 80'393'183'232);
    // A list read as one value: the same list of another value plans it; entries that differ are
    // refused at the first that differs, a list of another length at the field.
    auto four = changed("hunyuan-a13b-instruct", [](OJson& c) { c["moe_topk"] = OJson::array(); for (int i = 0; i < 32; ++i) c["moe_topk"].push_back(4); });
    REQUIRE(four.ok());
    CHECK(out_width(*four, "l0.moe.top_k") == 4);
    auto scalar = changed("hunyuan-a13b-instruct", [](OJson& c) { c["moe_intermediate_size"] = 1536; c["num_shared_expert"] = 2; });
    REQUIRE(scalar.ok());
    CHECK(out_width(*scalar, "l0.moe.experts_gate_up") == 2 * 1536);
    CHECK(out_width(*scalar, "l0.moe.shared_gate_up") == 2 * 2 * 3072);
    auto mixed = changed("hunyuan-a13b-instruct", [](OJson& c) { c["moe_topk"][5] = 2; });
    REQUIRE_FALSE(mixed.ok());
    CHECK(mixed.error().where == "/moe_topk/5");
    auto shorter = changed("hunyuan-a13b-instruct", [](OJson& c) { c["num_shared_expert"].erase(c["num_shared_expert"].size() - 1); });
    REQUIRE_FALSE(shorter.ok());
    CHECK(shorter.error().where == "/num_shared_expert");
    CHECK(refused_at("hunyuan-a13b-instruct", "use_mixed_mlp_moe", false) == "/use_mixed_mlp_moe");
    CHECK(refused_at("hunyuan-a13b-instruct", "use_cla", true) == "/use_cla");
}

TEST_CASE("families: Ling-lite plans vLLM's BailingMoe: one packed query_key_value, 6 of 64 experts and two shared experts as one MLP", "[families][config]") {
    const auto plan = plan_of(request(sample("ling-lite-1.5")));
    CHECK(plan.layers.size() == 28);
    CHECK(count_template(plan, "attn+moe") == 28);
    CHECK(out_width(plan, "l0.attn.qkv") == (16 + 2 * 4) * 128);
    CHECK(cached_values(plan) == 2 * 4 * 128);
    CHECK(out_width(plan, "l0.moe.gate") == 64);
    CHECK(out_width(plan, "l0.moe.top_k") == 6);
    CHECK(out_width(plan, "l0.moe.shared_gate_up") == 2 * 2 * 1408);  // moe_intermediate_size x num_shared_experts
    const std::int64_t hidden = 2048, vocab = 126464;
    const std::int64_t layer = hidden * 3072 + hidden * hidden + 64 * hidden + 64 * 3 * hidden * 1408 + 3 * hidden * 2816 + 2 * hidden;
    CHECK(kbp::schema::compute_memory(plan).parameters == 28 * layer + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 16'801'974'272);
    // first_k_dense_replace layers are dense SwiGLU MLPs of intermediate_size.
    auto dense = changed("ling-lite-1.5", [](OJson& c) { c["first_k_dense_replace"] = 1; });
    REQUIRE(dense.ok());
    CHECK(out_width(*dense, "l0.mlp.gate_up") == 2 * 1408);
    CHECK(out_width(*dense, "l1.moe.gate") == 64);
    // Ling 2.0 (BailingMoeV2ForCausalLM) publishes the same model_type: refused, not planned as Ling 1.x.
    CHECK(refused_at("ling-lite-1.5", "use_qk_norm", true) == "/use_qk_norm");
    CHECK(refused_at("ling-lite-1.5", "score_function", "sigmoid") == "/score_function");
    CHECK(refused_at("ling-lite-1.5", "moe_router_enable_expert_bias", true) == "/moe_router_enable_expert_bias");
    CHECK(refused_at("ling-lite-1.5", "use_bias", true) == "/use_bias");
}

TEST_CASE("families: LFM2 plans transformers' and vLLM's gated short convolutions and GQA layers with a conv window of conv_L_cache - 1 inputs", "[families][config]") {
    const auto plan = plan_of(request(sample("lfm2-1.2b")));
    CHECK(plan.layers.size() == 16);
    CHECK(count_kind(plan, "full_attention") == 6);
    CHECK(count_kind(plan, "linear_attention") == 10);
    for (int i : {2, 5, 8, 10, 12, 14}) CHECK(plan.layers[static_cast<std::size_t>(i)].kind.name() == "full_attention");
    // Lfm2ShortConv: in_proj to B|C|x, B * x, the 3-tap conv without activation, C * its output.
    CHECK(out_width(plan, "l0.conv.in_proj_bx") == 2 * 2048);
    CHECK(out_width(plan, "l0.conv.in_proj_c") == 2048);
    CHECK(node(plan, "l0.conv.gate_b")->op.kind.name() == "mul");
    CHECK(nth_in_width(plan, "l0.conv.gate_c", 0) == 2048);
    CHECK(nth_in_width(plan, "l0.conv.gate_c", 1) == 2048);
    REQUIRE(node(plan, "l0.conv.conv")->kernel);
    CHECK(node(plan, "l0.conv.conv")->kernel->str() == "causal_conv1d::causal_conv1d_update");
    CHECK(node(plan, "l0.conv.conv")->point.find("activation")->string() == "none");
    CHECK(node(plan, "l2.attn.q_norm") != nullptr);  // q_layernorm before the rotation
    CHECK(cached_values(plan) == 2 * 8 * 64);
    CHECK(out_width(plan, "l0.mlp.gate_up") == 2 * 8192);  // block_ff_dim 12,288 auto-adjusted
    const std::int64_t hidden = 2048, vocab = 65536, ff = 8192;
    const std::int64_t conv = hidden * 3 * hidden + hidden * 3 + hidden * hidden, attn = 2 * hidden * hidden + 2 * hidden * 512 + 2 * 64;
    CHECK(kbp::schema::compute_memory(plan).parameters == 16 * (3 * hidden * ff + 2 * hidden) + 10 * conv + 6 * attn + vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 1'170'340'608);
    // layer_types, as newer configs give it, decides as full_attn_idxs does.
    auto typed = changed("lfm2-1.2b", [](OJson& c) {
        c.erase("full_attn_idxs");
        c["layer_types"] = OJson::array();
        for (int i = 0; i < 16; ++i) c["layer_types"].push_back(i == 3 ? "full_attention" : "conv");
    });
    REQUIRE(typed.ok());
    CHECK(count_kind(*typed, "full_attention") == 1);
    CHECK((*typed).layers[3].kind.name() == "full_attention");
    auto unadjusted = changed("lfm2-1.2b", [](OJson& c) { c["block_auto_adjust_ff_dim"] = false; });
    REQUIRE(unadjusted.ok());
    CHECK(out_width(*unadjusted, "l0.mlp.gate_up") == 2 * 12288);
    CHECK(refused_at("lfm2-1.2b", "conv_bias", true) == "/conv_bias");
    CHECK(refused_at("lfm2-1.2b", "tie_embedding", false) == "/tie_embedding");
    CHECK(refused_at("lfm2-1.2b", "block_ffn_dim_multiplier", 1.5) == "/block_ffn_dim_multiplier");
}

TEST_CASE("families: Falcon-H1 plans transformers' and vLLM's parallel hybrid: attention and Mamba-2 side by side in every layer, muP multipliers recorded", "[families][config]") {
    const auto plan = plan_of(request(sample("falcon-h1-7b-instruct")));
    CHECK(plan.layers.size() == 44);
    CHECK(count_template(plan, "attn_mamba+mlp") == 44);
    CHECK(cached_values(plan) == 2 * 2 * 128);
    CHECK(out_width(plan, "l0.attn_mamba.q") == 12 * 128);
    CHECK(out_width(plan, "l0.attn_mamba.in_proj_xbc") == 3072 + 2 * 256);
    CHECK(out_width(plan, "l0.attn_mamba.in_proj_z") == 3072);
    CHECK(out_width(plan, "l0.attn_mamba.in_proj_dt") == 24);
    REQUIRE(node(plan, "l0.attn_mamba.conv")->kernel);
    CHECK(node(plan, "l0.attn_mamba.conv")->kernel->str() == "causal_conv1d::causal_conv1d_update");
    REQUIRE(node(plan, "l0.attn_mamba.out_norm")->kernel);
    // Both branches read the one input_layernorm and are added to the residual stream.
    CHECK(nth_in_width(plan, "l0.attn_mamba.residual", 1) == 3072);
    // The multipliers change no shape: recorded, and a config without them plans the same total.
    REQUIRE(config_field(plan, "ssm_multipliers"));
    REQUIRE(config_field(plan, "key_multiplier"));
    auto plain = changed("falcon-h1-7b-instruct", [](OJson& c) {
        for (const char* k : {"embedding_multiplier", "attention_in_multiplier", "key_multiplier", "attention_out_multiplier", "ssm_in_multiplier",
                              "ssm_multipliers", "ssm_out_multiplier", "mlp_multipliers", "lm_head_multiplier"})
            c.erase(k);
    });
    REQUIRE(plain.ok());
    CHECK(kbp::schema::compute_memory(*plain).parameters == kbp::schema::compute_memory(plan).parameters);
    const std::int64_t hidden = 3072, vocab = 130049, conv = 3072 + 2 * 256;
    const std::int64_t attn = 2 * hidden * 1536 + 2 * hidden * 256;
    const std::int64_t mamba = hidden * (3072 + conv + 24) + conv * 4 + conv + 3 * 24 + 3072 + 3072 * hidden;
    CHECK(kbp::schema::compute_memory(plan).parameters == 44 * (attn + mamba + 3 * hidden * 12288 + 2 * hidden) + 2 * vocab * hidden + hidden);
    CHECK(kbp::schema::compute_memory(plan).parameters == 7'585'654'880);
    CHECK(refused_at("falcon-h1-7b-instruct", "mamba_rms_norm", false) == "/mamba_rms_norm");
    CHECK(refused_at("falcon-h1-7b-instruct", "mamba_norm_before_gate", true) == "/mamba_norm_before_gate");
    CHECK(refused_at("falcon-h1-7b-instruct", "mamba_d_head", 64) == "/mamba_d_head");
}
