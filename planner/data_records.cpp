#include "planner/data_records.hpp"

#include <algorithm>
#include <memory>

namespace kbp::planner {

namespace {

// `slot` = the file read as a T; `then` finishes what the table cannot say.
template <class T> Status read_into(const DataFile& file, std::shared_ptr<const T>& slot, void (*then)(T&, const Json&) = nullptr) {
    auto records = std::make_shared<T>();
    if (auto s = read_record(file.json, *records, file.origin); !s) return s;
    if (then) then(*records, file.json);
    slot = std::move(records);
    return Ok{};
}

// Each row keeps the text it was read from: `kbp why` shows the row as the file has it.
void keep_rows_text(KernelCatalog& catalog, const Json& json) {
    const Json& rows = json.at("table");
    for (std::size_t r = 0; r < catalog.table.size(); ++r) catalog.table[r].json = &rows[r];
}

}  // namespace

Status read_records(DataFile& file) {
    if (file.kind == "kernels") return read_into(file, file.kernel_catalog, keep_rows_text);
    if (file.kind == "fusion") return read_into(file, file.fusion_catalog);
    if (file.kind == "targets") return read_into(file, file.target_record);
    if (file.kind == "recipes") return read_into(file, file.recipe_record);
    if (file.kind == "recipes/parts") return read_into(file, file.recipe_part);
    return Ok{};
}

bool applies(const std::optional<AppliesTo>& applies_to, const std::string& architecture, const std::string& target) {
    if (!applies_to) return true;
    auto among = [](const std::optional<std::vector<std::string>>& list, const std::string& name) {
        return !list || std::find(list->begin(), list->end(), name) != list->end();
    };
    return among(applies_to->architectures, architecture) && among(applies_to->targets, target);
}

std::string applies_to_text(const std::optional<AppliesTo>& applies_to) {
    Json text = Json::object();
    if (applies_to && applies_to->architectures) text["architectures"] = *applies_to->architectures;
    if (applies_to && applies_to->targets) text["targets"] = *applies_to->targets;
    return text.dump();
}

}  // namespace kbp::planner
