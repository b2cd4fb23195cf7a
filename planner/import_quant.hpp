// A checkpoint's own precision. A quantized checkpoint says how it is quantized: in config.json's
// quantization_config (top level, under text_config for wrapped models, or compression_config
// in older compressed-tensors checkpoints) or in an hf_quant_config.json beside it (ModelOpt).
// When the command names no recipe (neither --recipe nor the config's kbp.recipe), that is the
// precision kbp plans: each weighted op's formats follow from its Hugging Face module names as
// the engines resolve them (vLLM's compressed-tensors, modelopt, fp8, awq, gptq, mxfp4 and
// bitsandbytes loaders), the format correspondences being data (planner/data/quantizers/).
// Everything else (norms, routers, embeddings, the attention op) is planned as the bf16 recipe
// has it, and the KV cache takes the checkpoint's kv scheme.
//
// What kbp cannot honour is refused at the config field, exit 2: an unknown quant_method, a
// scheme with no kbp format, a target that names no module of the model, modules the engines
// load as one (q/k/v, gate/up, a layer's experts) given different schemes. An ignore entry that
// matches nothing is a warning: the engines load such checkpoints (a multimodal checkpoint's
// ignore list names its vision tower, which kbp does not plan).
#pragma once

#include <optional>

#include "planner/catalog.hpp"
#include "planner/ir.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

// The quantization config `config` declares, or one beside it (`config_path`'s folder); nullopt
// when the checkpoint declares none. An unknown quant_method is refused here.
Result<std::optional<QuantSource>> find_quant_source(const DataFile& config, const std::string& config_path, Catalog& catalog);

// The KV cache format the checkpoint declares ("fp8"), or nullopt (the model's dtype).
Result<std::optional<std::string>> quant_kv_cache_dtype(const QuantSource& source);

// The pass (after expand_layers): ir.imported for each weighted node, and the summary in
// ir.defaults_chosen. Does nothing without ir.quant.
Status import_precision(Ir& ir);

}  // namespace kbp::planner
