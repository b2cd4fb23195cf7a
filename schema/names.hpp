// Closed vocabularies of the kbp-graph/v2 format, each in one table (names.cpp).
//
// A blueprint names formats, ops, compute kinds, state roles and so on by string. Inside
// the model they are enums so that code switches on them and typos fail to compile; a name
// that a newer planner invented is kept verbatim in `Named::spelling` (id == unknown) and
// written back unchanged, so reading never drops information.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "schema/sym.hpp"

namespace kbp::schema {

// Number formats on weights, activations and edges.
enum class FormatId : std::uint8_t {
    unknown,
    bf16,         // bfloat16, 2 bytes
    f16,          // IEEE half, 2 bytes
    f32,          // IEEE single, 4 bytes
    i32,          // 32-bit integer (indices), 4 bytes
    i8,           // 8-bit integer without a scale
    fp8_token,    // "fp8/token": E4M3 with one f32 scale per row (activations)
    fp8_channel,  // "fp8/channel": E4M3 with one f32 scale per output channel (weights)
    fp8_tensor,   // "fp8/tensor": E4M3 with one f32 scale per tensor
    nvfp4_g16,    // "nvfp4/g16": E2M1 codes, an E4M3 scale per 16, an f32 global scale
    mxfp4_g32,    // "mxfp4/g32": E2M1 codes, an E8M0 scale per 32
    int4_b128,    // "int4/b128": asymmetric int4, an f32 scale and a 4-bit zero point per 128
    int8_token,   // "int8/token": int8 with one f32 scale per row
    int8_channel, // "int8/channel": int8 with one f32 scale per output channel
    int8_static,  // "int8/static": int8 with a calibrated scale fixed at compile time
    fx32,         // "fx32/f<F>": FixedPoint32 with F fractional bits (Chimera GPNPU)
    int8_b32,     // "int8/b32": symmetric int8, an f16 scale per 32 (llama.cpp's Q8_0)
    // The formats quantized checkpoints declare (planner/import_quant.cpp reads them):
    fp8_b128,     // "fp8/b128": E4M3 weight, an f32 scale per 128 x 128 block (DeepSeek-V3, Qwen3 FP8)
    fp8_g128,     // "fp8/g128": E4M3 activation, an f32 scale per 128 values of a row (per-token-group)
    int4_g128,    // "int4/g128": symmetric int4, an f16 scale per 128 (GPTQ sym, compressed-tensors W4A16)
    int4_g128z,   // "int4/g128z": int4, an f16 scale and a 4-bit zero point per 128 (AWQ, GPTQ asym)
    int4_g32,     // "int4/g32": symmetric int4, an f16 scale per 32
    int4_g32z,    // "int4/g32z": int4, an f16 scale and a 4-bit zero point per 32
    nf4_b64,      // "nf4/b64": bitsandbytes NF4 codes, an f32 absmax per 64
    nf4_b64dq,    // "nf4/b64dq": NF4 codes, an 8-bit absmax per 64 with an f32 scale per 256 of those (double quant)
};

// The op an node performs. Projections are "linear:<role>" (the role is kept apart).
enum class OpId : std::uint8_t {
    unknown,
    embed,           // token id -> embedding row gather
    hc_expand,       // hyper-connections: one residual -> hc streams
    hc_pre,          // hyper-connections: mix streams into the block input
    hc_post,         // hyper-connections: fold the block output back into the streams
    hc_contract,     // hyper-connections: streams -> one residual before the head
    linear,          // a projection, "linear:<role>"
    rms_norm,
    l2_norm,
    layer_norm,
    gated_rms_norm,  // rms_norm(x) * act(gate)
    final_norm,      // the norm before the LM head
    concat,
    conv1d_update,   // causal depthwise conv over a rolling window (owns conv state)
    state_snapshot,  // copy of recurrent state for speculative rollback
    act_quant,       // activation quantization (inserted by the planner)
    gdn_gates,       // gated delta-net gate/decay computation
    gdn_recurrence,  // gated delta-net recurrent state update (owns h state)
    swiglu_clamp,    // clamp of the gate|up halves before silu_mul
    silu_mul,        // silu(gate) * up
    router,          // MoE router logits
    top_k,           // MoE top-k selection (weights and ids)
    expert_gate_up,  // routed experts' gate|up projection
    expert_down,     // routed experts' down projection
    blend,           // combine routed experts and the shared expert
    kv_write,        // append to a KV / latent cache
    kpool_compress,  // DSA indexer: pooled key store
    index_select,    // DSA indexer: select the top positions
    mla_attention,   // multi-head latent attention over a latent cache
    attention,       // grouped-query attention over a KV cache
    rope,            // rotary position embedding
    residual_add,    // x + f(x)
    smooth_mul,      // SmoothQuant per-channel smoothing multiply
    lm_head,
    argmax,
    gelu_mul,        // gelu_tanh(gate) * up (GeGLU)
    logit_softcap,   // c * tanh(x / c) on the logits (Gemma 2)
};

// What executes a node: "cuda_core", "memory" (bandwidth-bound), "tensor_core:<mma>",
// "pe_array:<unit>" (a GPNPU processing-element array), or "host".
enum class ComputeId : std::uint8_t { unknown, cuda_core, memory, tensor_core, pe_array, host };

enum class WhereId : std::uint8_t { unknown, device, host };

// Layer kinds (the attention flavour that defines a layer, or mlp for a layer that has none).
enum class LayerKindId : std::uint8_t {
    unknown,
    linear_attention,
    deepseek_sparse_attention,
    full_attention,
    multi_latent_attention,
    sliding_attention,
    mlp,  // a layer of one feed-forward block and no mixer (Nemotron-H's '-' layers)
};

// Block types: the role of a block inside a layer (or the model's prologue/epilogue).
enum class BlockTypeId : std::uint8_t { unknown, embed, kda, dsa, mla, attn, mlp, moe, head };

// State roles are "<state>:<action>" pairs; a node may own several ("index:write,tail:update").
enum class StateNameId : std::uint8_t { unknown, conv, h, latent, index, tail, kv, k, v };
enum class StateActionId : std::uint8_t { unknown, update, snapshot, write, read };

// Row spaces of an edge: one row per token, or one per (token, routed expert).
enum class RowSpaceId : std::uint8_t { unknown, n, n_top_k };

enum class ArmModeId : std::uint8_t { unknown, decode, multi_seq, verify, draft, prefill };

// Where a re-quantization happens: in the producer's epilogue or in the reader's prologue.
enum class RequantAtId : std::uint8_t { unknown, producer, reader };

// The spelling of every known value of E, indexed by the enum's value (index 0 = unknown = "").
template <class E> std::span<const std::string_view> name_table();

// A closed-vocabulary value that still carries a name it did not know.
template <class E> struct Named {
    E id = E::unknown;
    Sym spelling;  // set only when id == unknown, or for parametric names ("fx32/f23")

    static Named parse(std::string_view text);
    std::string_view name() const {
        if (!spelling.empty()) return spelling;
        return name_table<E>()[static_cast<std::size_t>(id)];
    }
    bool known() const { return id != E::unknown; }
    // Two known names without a spelling are equal by id alone: no string compare on the hot path
    // (the validator and the diff compare formats of every edge).
    bool operator==(const Named& o) const {
        if (id != o.id) return false;
        if (spelling == o.spelling) return true;  // interned: one pointer compare (both empty, mostly)
        return name() == o.name();
    }
};

using Format = Named<FormatId>;
using WhereName = Named<WhereId>;
using LayerKind = Named<LayerKindId>;
using BlockType = Named<BlockTypeId>;
using RowSpace = Named<RowSpaceId>;
using ArmMode = Named<ArmModeId>;
using RequantAt = Named<RequantAtId>;
using StateName = Named<StateNameId>;
using StateAction = Named<StateActionId>;

// Fixed-point formats carry their fractional bits in the name ("fx32/f23").
template <> Named<FormatId> Named<FormatId>::parse(std::string_view text);

// Fractional bits of an "fx32/f<F>" format, or -1 (not fx32, or "fx32/f?": bits not yet known,
// because no calibrated range decided them).
int fx32_fraction_bits(const Format& f);
// "fx32/f<bits>", or "fx32/f?" for bits < 0.
Format fx32_format(int bits);
// The name that describes a format in `explain.formats`: "fx32" for every fx32/f<F>.
std::string_view format_doc_name(const Format& f);

// Closest known spelling to `text` (for "did you mean" hints), or "" when nothing is close.
template <class E> std::string_view closest_name(std::string_view text);
// The same over any list of names (a data file's members, the catalog's kernels, ...).
std::string_view closest_of(std::string_view text, std::span<const std::string_view> names);
std::string closest_of(std::string_view text, std::span<const std::string> names);
// What to add to "unknown X 'text'": " (did you mean 'x'?)" for a near miss, else the names
// when they are few (" (<plural>: a, b, c)"), else "".
std::string name_hint(std::string_view text, std::span<const std::string> names, std::string_view plural);
// "'a', 'b', 'c'": the names a refusal says are planned.
std::string quoted_names(std::span<const std::string> names);

}  // namespace kbp::schema
