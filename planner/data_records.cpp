#include "planner/data_records.hpp"

#include <algorithm>
#include <memory>

namespace kbp::planner {

Status read_records(DataFile& file) {
    if (file.kind == "kernels") {
        auto records = std::make_shared<KernelCatalog>();
        if (auto s = read_record(file.json, *records, file.origin); !s) return s;
        // Each row keeps the text it was read from: `kbp why` shows the row as the file has it.
        const Json& rows = file.json.at("table");
        for (std::size_t r = 0; r < records->table.size(); ++r) records->table[r].json = &rows[r];
        file.kernel_catalog = std::move(records);
    } else if (file.kind == "fusion") {
        auto records = std::make_shared<FusionCatalog>();
        if (auto s = read_record(file.json, *records, file.origin); !s) return s;
        file.fusion_catalog = std::move(records);
    } else if (file.kind == "targets") {
        auto records = std::make_shared<TargetRecord>();
        if (auto s = read_record(file.json, *records, file.origin); !s) return s;
        file.target_record = std::move(records);
    }
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
