// kbp export quant: a plan's precision in the forms the quantizers and engines read, module by
// module under the checkpoint's own (Hugging Face) names, the plan's `modules` member.
//
//   compressed-tensors  the quantization_config llm-compressor writes and vLLM reads: one group
//                       per (weight, activation) scheme, "Linear" as its target when it is the
//                       only one, else compact re: patterns; ignore; kv_cache_scheme
//   modelopt            ModelOpt's hf_quant_config.json: one quant_algo, or MIXED_PRECISION with
//                       quantized_layers; exclude_modules as wildcards; kv_cache_quant_algo
//   llama-quantize      llama.cpp's llama-quantize arguments (--tensor-type pattern=type per
//                       GGUF tensor group, the base file type), as JSON with the command line
//
// The correspondences are the quantizer tables (planner/data/quantizers/), the ones kbp plan
// reads a checkpoint's config with, so an export read back plans the same formats. A format a
// form has no row for is refused, naming the node and the module (exit 2).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "planner/catalog.hpp"
#include "schema/blueprint.hpp"
#include "schema/result.hpp"

namespace kbp::planner {

enum class QuantForm { compressed_tensors, modelopt, llama_quantize };

std::optional<QuantForm> parse_quant_form(std::string_view name);
std::vector<std::string> quant_form_names();

struct QuantExport {
    std::string text;     // the file's bytes (JSON, a final newline)
    std::string summary;  // one line for the terminal: what was written
};

// `plan_file` names the plan in refusals ("p.json: /nodes/12: ...").
Result<QuantExport> export_quant(const schema::Blueprint& plan, QuantForm form, const Catalog& catalog, const std::string& plan_file);

}  // namespace kbp::planner
