#include "planner/ranges.hpp"

#include <cmath>

#include "planner/data_schema.hpp"
#include "schema/names.hpp"

namespace kbp::planner {
namespace {

Error bad(const DataFile& f, const std::string& pointer, std::string message) {
    return make_error(ErrorCode::invalid_input, f.origin + ": " + pointer, std::move(message));
}

// {"min": a, "max": b} with finite a <= b; `allowed` names the other members it may have.
Result<std::pair<double, double>> read_interval(const DataFile& f, const Json& v, const std::string& ptr,
                                                std::initializer_list<const char*> allowed) {
    if (!v.is_object()) return bad(f, ptr, "a range is an object {\"min\": number, \"max\": number}");
    for (const auto& [key, value] : v.items()) {
        bool known = key == "min" || key == "max";
        for (const char* a : allowed) known = known || key == a;
        if (!known) {
            std::string hint = key == "lo" || key == "low" || key == "minimum" ? " (did you mean 'min'?)"
                               : key == "hi" || key == "high" || key == "maximum" || key == "mx" ? " (did you mean 'max'?)"
                                                                                                  : "";
            return bad(f, ptr + "/" + pointer_token(key), "unknown member '" + key + "'" + hint);
        }
    }
    double lo = 0, hi = 0;
    for (const char* k : {"min", "max"}) {
        auto it = v.find(k);
        if (it == v.end()) return bad(f, ptr, std::string("missing '") + k + "'");
        if (!it->is_number()) return bad(f, ptr + "/" + k, "expected a number");
        double x = it->get<double>();
        if (!std::isfinite(x)) return bad(f, ptr + "/" + k, "not a finite number");
        (std::string(k) == "min" ? lo : hi) = x;
    }
    if (lo > hi) return bad(f, ptr, "min " + std::to_string(lo) + " is above max " + std::to_string(hi));
    return std::make_pair(lo, hi);
}

}  // namespace

int integer_bits(double max_abs) {
    if (!(max_abs > 1.0)) return 0;
    return static_cast<int>(std::ceil(std::log2(max_abs)));
}

Result<std::map<std::string, TensorRange>> read_ranges(const DataFile& f) {
    const Json& j = f.json;
    if (!j.is_object()) return bad(f, "/", "a ranges file is a JSON object");
    auto schema = j.find("schema");
    if (schema == j.end()) return bad(f, "/schema", "missing (\"kbp-ranges/v1\")");
    if (!schema->is_string() || *schema != "kbp-ranges/v1")
        return bad(f, "/schema", "expected \"kbp-ranges/v1\", found " +
                                     (schema->is_array() ? std::string("an array") : schema->is_object() ? std::string("an object") : schema->dump()));
    for (const auto& [key, value] : j.items())
        if (key != "schema" && key != "model" && key != "source" && key != "about" && key != "tensors")
            return bad(f, "/" + pointer_token(key), "unknown member '" + key + "' (members: schema, model, source, about, tensors)");
    auto tensors = j.find("tensors");
    if (tensors == j.end()) return bad(f, "/tensors", "missing (an object: tensor id -> {min, max})");
    if (!tensors->is_object()) return bad(f, "/tensors", "expected an object: tensor id -> {min, max}");
    std::map<std::string, TensorRange> out;
    for (const auto& [id, v] : tensors->items()) {
        std::string ptr = "/tensors/" + pointer_token(id);
        if (id.empty()) return bad(f, ptr, "empty tensor id");
        auto interval = read_interval(f, v, ptr, {"parts", "note"});
        if (!interval) return interval.error();
        TensorRange r;
        r.min = interval->first;
        r.max = interval->second;
        r.where = f.origin + ": " + ptr;
        if (auto note = v.find("note"); note != v.end() && !note->is_string()) return bad(f, ptr + "/note", "expected a string");
        if (auto parts = v.find("parts"); parts != v.end()) {
            if (!parts->is_array() || parts->empty()) return bad(f, ptr + "/parts", "expected a non-empty array of {min, max}");
            for (std::size_t i = 0; i < parts->size(); ++i) {
                auto part = read_interval(f, (*parts)[i], ptr + "/parts/" + std::to_string(i), {"name"});
                if (!part) return part.error();
                if (part->first < r.min || part->second > r.max)
                    return bad(f, ptr + "/parts/" + std::to_string(i), "lies outside the tensor's own range");
                r.parts.push_back(*part);
            }
        }
        out.emplace(id, std::move(r));
    }
    return out;
}

}  // namespace kbp::planner
