// check_budgets: memory the target must reserve for the plan, against what the settings give
// it. A kernel file's `budgets` name a knob of the nodes' points that counts reserved bytes
// (the GPNPU attention op's `reserved_ext`: seq_len positions x kv_heads x head_dim x K and V,
// int8) and the limit (`kv_persist_mb`). A plan that needs more than the limit is refused, with
// by how much: the compiled kernel would overrun its persistent DDR region.
#include <algorithm>
#include <cstdint>

#include "planner/passes.hpp"
#include "schema/numbers.hpp"

namespace kbp::planner {

Status check_budgets(Ir& ir) {
    for (const DataFile* f : ir.kernels) {
        const auto& budgets = f->kernel_catalog->budgets;
        for (std::size_t b = 0; b < budgets.size(); ++b) {
            const KernelBudget& budget = budgets[b];
            const std::string where = f->origin + ": /budgets/" + std::to_string(b);
            const std::string& knob = budget.point;
            std::int64_t total = 0, users = 0, each = 0;
            for (const auto& n : ir.nodes) {
                const auto* v = n.node.point.find(knob);
                if (!v || !v->is_integer()) continue;
                if (__builtin_add_overflow(total, v->integer(), &total)) total = INT64_MAX;
                each = v->integer();
                ++users;
            }
            if (users == 0) continue;
            // "{=expr}" or a number, over the recipe's settings and the symbols.
            std::string limit_text = std::holds_alternative<std::string>(budget.limit_bytes) ? std::get<std::string>(budget.limit_bytes)
                                                                                              : std::to_string(std::get<std::int64_t>(budget.limit_bytes));
            if (limit_text.size() > 3 && limit_text.rfind("{=", 0) == 0 && limit_text.back() == '}') limit_text = limit_text.substr(2, limit_text.size() - 3);
            auto limit = ir.eval(ir.fill(limit_text));
            if (!limit)
                return make_error(ErrorCode::invalid_input, where + "/limit_bytes",
                                  limit.error().message + " (it may name the symbols and the settings of " + ir.recipe->origin + ": /settings)");
            if (total <= *limit) continue;
            const std::string& setting = budget.setting;
            const std::string name = budget.name.value_or(knob);
            auto it = ir.settings.find(setting);
            // The limit's setting where it was given: --set, else the recipe.
            bool flag = std::any_of(ir.request.settings.begin(), ir.request.settings.end(), [&](const auto& kv) { return kv.first == setting; });
            return make_error(ErrorCode::invalid_input, flag || !ir.recipe->recipe_record->setting(setting)
                                                            ? "--set " + setting
                                                            : ir.recipe->origin + ": /settings/" + setting,
                              "the " + name + " needs " + schema::with_commas(total) + " B (" + std::to_string(users) + " x " + schema::with_commas(each) +
                                  " B, " + schema::mebibytes(static_cast<double>(total)) + "); " + setting + "=" + (it == ir.settings.end() ? "?" : it->second) + " gives " +
                                  schema::with_commas(*limit) + " B: " + schema::with_commas(total - *limit) + " B (" + schema::mebibytes(static_cast<double>(total - *limit)) + ") short" +
                                  " for the model of " + ir.config->origin);
        }
    }
    return Ok{};
}

}  // namespace kbp::planner
