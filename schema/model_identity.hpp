// Which model a plan is of, in a form a compile pipeline can put in a folder name: the name a
// person knows it by and a digest of what kbp planned from its config. `kbp export stage` puts
// both in the stage's tag (DIR/<stage>/<name>-<digest8>_<knob tag>/), so two models' stages
// never share a folder.
//
// The name is where the config sits, not what it says: the folder of a file named config.json
// (samples/sarashina2.2-3b/config.json -> sarashina2.2-3b; a Hugging Face cache snapshot,
// models--ORG--NAME/snapshots/<commit>/config.json -> NAME), else the file's stem
// (tests/configs/small-llama.json -> small-llama); characters other than letters, digits, '.',
// '-' and '_' become '-', at most 48 are kept; the architecture's name when nothing is left.
//
// The digest is sha256 over what the plan took from the config: the architecture, every symbol
// (name and value: widths, counts, heads, per device under --tp), the fields it records as
// describing the plan (config_fields: rope scaling, tied embeddings, windows) and each layer's
// kind and template. A field kbp does not read (transformers_version, initializer_range,
// _name_or_path, token ids) leaves it unchanged; a width, a layer count, a layer's kind or a
// described field changes it.
#pragma once

#include <string>
#include <vector>

#include "schema/blueprint.hpp"

namespace kbp::schema {

struct ModelIdentity {
    std::string name;    // "sarashina2.2-3b"
    std::string digest;  // 64 lowercase hex digits
    // "sarashina2.2-3b-5f1c9a2e": the name and the digest's first 8 digits.
    std::string label() const;
};

// The name a model's config path gives it; `architecture` when the path gives none.
std::string model_name(const std::string& config_path, const std::string& architecture);

// `text` as a folder-safe name (the rule above): "nvidia/GLM-5.3-Flash-NVFP4" -> "nvidia-GLM-5.3-Flash-NVFP4".
std::string folder_safe_name(const std::string& text);

ModelIdentity model_identity(const std::string& config_path, const std::string& architecture, const std::vector<Symbol>& symbols,
                             const JsonObject& config_fields, const std::vector<Layer>& layers);

}  // namespace kbp::schema
