// The one list of each closed vocabulary of the kbp-graph/v2 format: X(enumerator, "spelling").
//
// names.hpp makes each list an enum (unknown first) and names.cpp the spelling table indexed by
// it, so adding a value is one line here, and the enum and its table cannot fall out of step.
// Data that names the same values is checked against these lists by tests/test_vocabulary.cpp:
// planner/data/ops/*.json (the ops architectures may use), planner/data/explain/formats.json (a
// description of every format), schema/bytes.cpp (its bytes) and exporters/palette.cpp (its
// colour; a missing one fails the build). Block types are not a closed list: they are the block
// names of the architecture files (planner/data/architectures/*.json "blocks").
#pragma once

// Number formats on weights, activations and edges.
#define KBP_FORMATS(X)                                                                                      \
    X(bf16, "bf16")                 /* bfloat16, 2 bytes */                                               \
    X(f16, "f16")                   /* IEEE half, 2 bytes */                                              \
    X(f32, "f32")                   /* IEEE single, 4 bytes */                                            \
    X(i32, "i32")                   /* 32-bit integer (indices), 4 bytes */                               \
    X(i8, "i8")                     /* 8-bit integer without a scale */                                   \
    X(fp8_token, "fp8/token")       /* E4M3 with one f32 scale per row (activations) */                   \
    X(fp8_channel, "fp8/channel")   /* E4M3 with one f32 scale per output channel (weights) */            \
    X(fp8_tensor, "fp8/tensor")     /* E4M3 with one f32 scale per tensor */                              \
    X(nvfp4_g16, "nvfp4/g16")       /* E2M1 codes, an E4M3 scale per 16, an f32 global scale */           \
    X(mxfp4_g32, "mxfp4/g32")       /* E2M1 codes, an E8M0 scale per 32 */                                \
    X(int4_b128, "int4/b128")       /* asymmetric int4, an f32 scale and a 4-bit zero point per 128 */    \
    X(int8_token, "int8/token")     /* int8 with one f32 scale per row */                                 \
    X(int8_channel, "int8/channel") /* int8 with one f32 scale per output channel */                      \
    X(int8_static, "int8/static")   /* int8 with a calibrated scale fixed at compile time */              \
    X(fx32, "fx32")                 /* "fx32/f<F>": FixedPoint32 with F fractional bits (Chimera GPNPU) */ \
    X(int8_b32, "int8/b32")         /* symmetric int8, an f16 scale per 32 (llama.cpp's Q8_0) */          \
    /* The formats quantized checkpoints declare (planner/import_quant.cpp reads them): */                 \
    X(fp8_b128, "fp8/b128")     /* E4M3 weight, an f32 scale per 128 x 128 block (DeepSeek-V3, Qwen3 FP8) */ \
    X(fp8_g128, "fp8/g128")     /* E4M3 activation, an f32 scale per 128 values of a row */                 \
    X(int4_g128, "int4/g128")   /* symmetric int4, an f16 scale per 128 (GPTQ sym, W4A16) */                \
    X(int4_g128z, "int4/g128z") /* int4, an f16 scale and a 4-bit zero point per 128 (AWQ, GPTQ asym) */    \
    X(int4_g32, "int4/g32")     /* symmetric int4, an f16 scale per 32 */                                   \
    X(int4_g32z, "int4/g32z")   /* int4, an f16 scale and a 4-bit zero point per 32 */                      \
    X(nf4_b64, "nf4/b64")       /* bitsandbytes NF4 codes, an f32 absmax per 64 */                          \
    X(nf4_b64dq, "nf4/b64dq")   /* NF4, an 8-bit absmax per 64 and an f32 scale per 256 of those */

// The op a node performs. Projections are "linear:<role>" (the role is kept apart). The planner's
// ops files (planner/data/ops/*.json) say what each does and whether it reads a weight.
#define KBP_OPS(X)                                                                        \
    X(embed, "embed")                   /* token id -> embedding row gather */            \
    X(hc_expand, "hc_expand")           /* hyper-connections: one residual -> streams */  \
    X(hc_pre, "hc_pre")                 /* hyper-connections: mix streams into the input */ \
    X(hc_post, "hc_post")               /* hyper-connections: fold the output back */     \
    X(hc_contract, "hc_contract")       /* hyper-connections: streams -> one residual */  \
    X(linear, "linear")                 /* a projection, "linear:<role>" */               \
    X(rms_norm, "rms_norm")                                                               \
    X(l2_norm, "l2_norm")                                                                 \
    X(layer_norm, "layer_norm")                                                           \
    X(gated_rms_norm, "gated_rms_norm") /* rms_norm(x) * act(gate) */                     \
    X(final_norm, "final_norm")         /* the norm before the LM head */                 \
    X(concat, "concat")                                                                   \
    X(conv1d_update, "conv1d_update")   /* causal depthwise conv (owns conv state) */     \
    X(state_snapshot, "state_snapshot") /* copy of recurrent state for rollback */        \
    X(act_quant, "act_quant")           /* activation quantization (planner-inserted) */  \
    X(gdn_gates, "gdn_gates")           /* gated delta-net gate/decay computation */      \
    X(gdn_recurrence, "gdn_recurrence") /* gated delta-net state update (owns h) */       \
    X(swiglu_clamp, "swiglu_clamp")     /* clamp of the gate|up halves before silu_mul */ \
    X(silu_mul, "silu_mul")             /* silu(gate) * up */                             \
    X(router, "router")                 /* MoE router logits */                           \
    X(top_k, "top_k")                   /* MoE top-k selection (weights and ids) */       \
    X(expert_gate_up, "expert_gate_up") /* routed experts' gate|up projection */          \
    X(expert_down, "expert_down")       /* routed experts' down projection */             \
    X(blend, "blend")                   /* combine routed experts and the shared one */   \
    X(kv_write, "kv_write")             /* append to a KV / latent cache */               \
    X(kpool_compress, "kpool_compress") /* DSA indexer: pooled key store */               \
    X(index_select, "index_select")     /* DSA indexer: select the top positions */       \
    X(index_write, "index_write")       /* DSA indexer: FP8 key store (DeepSeek-V3.2) */  \
    X(kv_compress, "kv_compress")       /* DeepSeek-V4 compressor: gated pooling to a cache */ \
    X(mla_attention, "mla_attention")   /* multi-head latent attention */                 \
    X(attention, "attention")           /* grouped-query attention over a KV cache */     \
    X(rope, "rope")                     /* rotary position embedding */                   \
    X(residual_add, "residual_add")     /* x + f(x) */                                    \
    X(smooth_mul, "smooth_mul")         /* SmoothQuant per-channel smoothing multiply */  \
    X(lm_head, "lm_head")                                                                 \
    X(argmax, "argmax")                                                                   \
    X(gelu_mul, "gelu_mul")             /* gelu_tanh(gate) * up (GeGLU) */                \
    X(logit_softcap, "logit_softcap")   /* c * tanh(x / c) on the logits (Gemma 2) */     \
    X(ssm_scan, "ssm_scan")             /* Mamba-2 selective state update (owns h) */     \
    X(relu2, "relu2")                   /* relu(x)^2 (Nemotron-H's ungated MLP) */       \
    X(gelu, "gelu")                     /* gelu_tanh(x) (StarCoder2's ungated MLP) */     \
    X(mul, "mul")                       /* a * b elementwise (LFM2's short-conv gates) */

// What executes a node: "cuda_core", "memory" (bandwidth-bound), "tensor_core:<mma>",
// "pe_array:<unit>" (a GPNPU processing-element array), or "host".
#define KBP_COMPUTES(X) \
    X(cuda_core, "cuda_core") X(memory, "memory") X(tensor_core, "tensor_core") X(pe_array, "pe_array") X(host, "host")

#define KBP_WHERES(X) X(device, "device") X(host, "host")

// Layer kinds (the attention flavour that defines a layer, or mlp for a layer that has none);
// the architectures' layer "kind"s are checked against it when they load (x-kbp-check layer-kind).
#define KBP_LAYER_KINDS(X)                                          \
    X(linear_attention, "linear_attention")                         \
    X(deepseek_sparse_attention, "deepseek_sparse_attention")       \
    X(full_attention, "full_attention")                             \
    X(multi_latent_attention, "multi_latent_attention")             \
    X(sliding_attention, "sliding_attention")                       \
    X(mlp, "mlp") /* one feed-forward block and no mixer (Nemotron-H's '-' layers) */

// State roles are "<state>:<action>" pairs; a node may own several ("index:write,tail:update").
#define KBP_STATE_NAMES(X) \
    X(conv, "conv") X(h, "h") X(latent, "latent") X(index, "index") X(tail, "tail") X(kv, "kv") X(k, "k") X(v, "v")
#define KBP_STATE_ACTIONS(X) X(update, "update") X(snapshot, "snapshot") X(write, "write") X(read, "read")

// Row spaces of an edge: one row per token, or one per (token, routed expert).
#define KBP_ROW_SPACES(X) X(n, "n") X(n_top_k, "n*top_k")

#define KBP_ARM_MODES(X) \
    X(decode, "decode") X(multi_seq, "multi_seq") X(verify, "verify") X(draft, "draft") X(prefill, "prefill")

// Where a re-quantization happens: in the producer's epilogue or in the reader's prologue.
#define KBP_REQUANT_ATS(X) X(producer, "producer") X(reader, "reader")
