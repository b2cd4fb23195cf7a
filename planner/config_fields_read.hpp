// Which of a config's fields kbp plans from, and which it did not read. A field is read when
// the architecture names it (a symbol's expression or field, a check's field, `describes`,
// `config_defaults`, a layer rule's field, `layer_types` where choices name layer types) or
// planner/data/vocabulary/config-fields.json lists it under `read` (model_type, kbp, the
// quantization importer's fields); it is metadata when that file lists it (or a glob of it)
// under `metadata` (tokenizer ids, transformers bookkeeping, training-only knobs); every other
// field is unread: the plan lists it (config_fields.unread) and `kbp plan -v` names it, so that
// a field that changes the computation is never silently ignored.
#pragma once

#include <string>
#include <vector>

#include "planner/catalog.hpp"

namespace kbp::planner {

struct ConfigFieldsRead {
    std::vector<std::string> unread;    // sorted
    std::vector<std::string> metadata;  // sorted
};

ConfigFieldsRead config_fields_read(const nlohmann::ordered_json& config, const nlohmann::ordered_json& architecture, const Catalog& catalog);

}  // namespace kbp::planner
