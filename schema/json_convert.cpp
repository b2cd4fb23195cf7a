#include "schema/json_convert.hpp"

namespace kbp::schema {

nlohmann::ordered_json to_ordered_json(const JsonValue& v) {
    using J = nlohmann::ordered_json;
    return std::visit(
        [](const auto& x) -> J {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::nullptr_t>) {
                return nullptr;
            } else if constexpr (std::is_same_v<T, JsonArray>) {
                J a = J::array();
                for (const auto& item : x) a.push_back(to_ordered_json(item));
                return a;
            } else if constexpr (std::is_same_v<T, JsonObject>) {
                J o = J::object();
                for (const auto& [k, item] : x) o[k] = to_ordered_json(item);
                return o;
            } else {
                return J(x);
            }
        },
        v.storage());
}

}  // namespace kbp::schema
