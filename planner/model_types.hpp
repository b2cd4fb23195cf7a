// Which architecture plans a config's model_type, and what kbp says of one none plans: a model
// type transformers knows (or one whose checkpoints ship their own modeling code) is a model kbp
// does not plan yet, never a misspelling of another (gemma3 is not gemma2, nor llava llama); a
// did-you-mean is offered only for a near miss of a planned model_type that no known model type
// is as near. The known model types are data: planner/data/vocabulary/model-types.json.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "planner/catalog.hpp"

namespace kbp::planner {

// The architecture file whose model_types list `model_type`, or null.
const DataFile* architecture_for(const Catalog& catalog, const std::string& model_type);

// A wrapper's language model (model-types.json /wrappers: gemma3, llava, mistral3, llama4, ...):
// its text_config, planned in place of the config, and where the wrapper keeps its modules.
struct WrappedModel {
    std::shared_ptr<const DataFile> config;  // the text_config as a config: the file's origin and digest, text_config's fields
    const DataFile* architecture = nullptr;  // the architecture of its model_type
    std::string pointer = "/text_config";
    std::vector<std::pair<std::string, std::string>> module_roots;  // "model." -> "model.language_model."
    std::string said;  // what `kbp plan` tells on stderr
};

// The language model of `config` when its model_type (`model_type`, which no architecture plans)
// is a wrapper model-types.json lists and its text_config a model_type kbp plans; nullopt else.
std::optional<WrappedModel> wrapped_model(const Catalog& catalog, const DataFile& config, const std::string& model_type);

// Why no architecture plans the config's `model_type`: "model_type 'gemma3' is a model kbp does
// not plan yet (kbp plans: ...)", "unknown model_type 'llamma' (did you mean 'llama' of <file>?)"
// or "unknown model_type 'x' (kbp plans: ...)"; a wrapper kbp does not know whose text_config
// it would plan says so.
std::string unplanned_model_type(const Catalog& catalog, const nlohmann::ordered_json& config, const std::string& model_type);

}  // namespace kbp::planner
