// How much quality a module loses in each candidate format or recipe: the input `kbp tune`
// weighs its time savings against (issue 28). A kbp-sensitivity/v1 file (docs/sensitivity.md
// describes it, schema/kbp-sensitivity-v1.schema.json publishes it):
//   {"schema": "kbp-sensitivity/v1", "model": "...", "source": "...",
//    "modules": {"model.layers.3.mlp.down_proj": {"bf16": 0, "fp8-dynamic": 0.0012, "nvfp4/g16": 0.019}}}
// Keys of a module are candidate recipe names ("fp8-dynamic": that recipe, weights and
// activations) or weight formats ("nvfp4/g16": the weight stored in that format alone); a score is
// >= 0, 0 = lossless, larger = worse, in whatever unit the producer measured (ModelOpt's
// Fisher-weighted output change, a KL divergence...): scores are compared and summed, never read
// as absolute quality. scripts/modelopt_autoquant_to_kbp.py makes one from ModelOpt's auto_quantize.
//
// Module names are the checkpoint's Hugging Face names as a plan's `modules` member has them. A
// layer's routed experts, which the plan names with '*' for the expert index
// ("model.layers.3.mlp.experts.*.down_proj"), may be scored three ways: under that name; per
// expert, with the index in place of '*' ("model.layers.3.mlp.experts.5.down_proj", the scores of
// the experts are summed); or as a whole, under the experts' module ("model.layers.3.mlp.experts",
// ModelOpt's group and vLLM's FusedMoE: one score for gate, up and down of every expert).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schema/blueprint.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

// kbp-sensitivity/v1, read (read_sensitivity) or made from llama.cpp's layer rule (use_more_bits_prior).
struct Sensitivity {
    std::string origin;  // the file's path, or "prior: llama.cpp use_more_bits (a heuristic)"
    bool prior = false;
    std::string source;  // the file's "source" text (who measured what, how), "" when it has none
    std::string sha256;  // the file's digest, for a plan's provenance; "" for the prior
    // Hugging Face module name -> key (a candidate recipe name, or a weight format) -> score
    // (>= 0, 0 = lossless). std::map: deterministic order for output and for search ties.
    std::map<std::string, std::map<std::string, double>> modules;
};

// Reads and checks a kbp-sensitivity/v1 file. An error is one line, "FILE:LINE:COL: ..." for JSON
// that does not parse (a number too large for a double among them) and "FILE: /json/pointer:
// ..." for a value that is wrong: the schema name, an unknown member, `modules` not an object, a
// module with no scores, an empty module or key name, a key with a '/' that is no kbp format, a
// score that is not a number, negative or not finite. All are ErrorCode::invalid_input.
Result<Sensitivity> read_sensitivity(const std::string& path);

// Refuses (invalid_input, "FILE: /modules/<escaped name>: the model has no module '<name>'" and a
// " (did you mean '<closest>'?)" for a near miss) a file naming a module the model lacks, so that
// a file measured on another model, or with another naming, is never silently ignored.
// `model_modules` are the plan's Hugging Face module names (schema::Blueprint::modules values).
// A name is the model's when it is one of them, one of them with an expert's index in place of
// '*', or the experts' module of one of them (the three ways above).
Status check_sensitivity_modules(const Sensitivity& s, const std::vector<std::string>& model_modules);

// The score of a unit of modules (one decision of the search: q/k/v, gate/up, a layer's routed
// experts ...) for one candidate: the sum over the file's entries that name the unit's modules
// (each entry once, an experts' module naming several of the unit's modules counted once) of the
// entry's score under `candidate` (the recipe name) if it lists it, else under `format` (the
// weight format the candidate gives that unit). nullopt, the unit not scored (the caller keeps it
// at the base recipe), when no entry names any of its modules or an entry that does lists neither
// key. A unit module no entry names adds nothing: a producer that scores a fused group once
// (ModelOpt scores q/k/v as one, under q_proj) names one module of it.
std::optional<double> unit_score(const Sensitivity& s, std::span<const std::string> modules, std::string_view candidate,
                                 std::string_view format);

// Without a file: llama.cpp's layer rule as a prior, stated as a heuristic (origin "prior:
// llama.cpp use_more_bits (a heuristic)", prior = true). llama.cpp src/llama-quant.cpp
// (llama_tensor_get_type_impl, as of commit 007dbbf3) gives its Q4_K_M and Q5_K_M presets' attn_v
// (with attn_qkv and attn_kv_b: category_is_attn_v) and ffn_down tensors (ffn_down_exps and
// ffn_down_shexp among them) Q6_K where
//     use_more_bits(i, n) = i < n/8 || i >= 7*n/8 || (i - n/8) % 3 == 2      (integer division)
// holds, Q4_K elsewhere, and the output tensor (lm_head) Q6_K always. For attn_v, i and n count
// the model's attn_v-like tensors in layer order (i_attention_wv, n_attention_wv); for ffn_down,
// n is the model's layer count (`n_layers`, n_layer_all) and i the layer of the tensor in a model
// with routed experts, else the count of ffn_down tensors before it (i_ffn_down), as llama.cpp has them.
// On 32 layers the rule marks layers 0-3, 6, 9, 12, 15, 18, 21, 24, 27 and 28-31.
//
// Every module of `model_modules` gets, for every candidate of `bits_of` (candidate -> bits per
// weight parameter of the weight format it gives: bf16 16, fp8 8.x, nvfp4 4.5), the score
//     score = w * (2^(4 - b) - 2^(4 - 16))   for b < 16,   0 for b >= 16
// b the candidate's bits: 0 at 16 bits (the bf16 checkpoint is the lossless reference), about w
// at 4 bits, each bit fewer doubling the quantization step and so the loss term; monotone: fewer
// bits never score lower. w = 2^(6.5625 - 4.5) = 2^2.0625 for a module llama.cpp's Q4_K_M gives
// Q6_K (6.5625 bits per weight, block_q6_K's 210 bytes per 256) instead of Q4_K (4.5: 144 bytes per
// 256), 1 otherwise: a search that minimises the summed score within a bit budget spends bits
// where score falls fastest, and with this w it gives those modules the 2.0625 bits more that
// Q4_K_M gives them (for modules of equal size: the score ignores a module's parameter count, as
// llama.cpp's rule does). A candidate whose bits are not finite and positive is left unscored.
// Which modules are attn_v, ffn_down and output goes by their names as gguf-py's
// tensor_mapping.py maps them (the same table as planner/data/quantizers/gguf.json).
Sensitivity use_more_bits_prior(const std::vector<std::string>& model_modules, std::int64_t n_layers,
                                const std::map<std::string, double>& bits_of);

// The Hugging Face modules of a plan's nodes a recipe quantizes (module_match.hpp's module_kind:
// projections, routed experts, the LM head; not routers, norms, embeddings or other parameters),
// each once, in plan order: what the prior scores and what a file is expected to name.
std::vector<std::string> quantizable_modules(const schema::Blueprint& plan);

// llama.cpp's layer rule itself (the expression above), for the prior and its tests.
bool use_more_bits(std::int64_t i_layer, std::int64_t n_layers);

}  // namespace kbp::planner
