#include "planner/model_types.hpp"

#include <algorithm>
#include <vector>

#include "schema/names.hpp"

namespace kbp::planner {
namespace {

using Json = nlohmann::ordered_json;

struct Planned {
    std::vector<std::string> types;  // sorted
    std::vector<const DataFile*> by;  // the architecture of each, in the same order
};

Planned planned(const Catalog& catalog) {
    std::vector<std::pair<std::string, const DataFile*>> all;
    for (const DataFile* a : catalog.all("architectures"))
        for (const auto& t : a->json.value("model_types", Json::array())) all.emplace_back(t.get<std::string>(), a);
    std::sort(all.begin(), all.end());
    Planned out;
    for (auto& [t, a] : all) out.types.push_back(t), out.by.push_back(a);
    return out;
}

// planner/data/vocabulary/model-types.json, when the catalog has it.
const Json* model_types_file(const Catalog& catalog) {
    for (const DataFile* f : catalog.all("vocabulary"))
        if (f->name == "model-types") return &f->json;
    return nullptr;
}

// The model types of model-types.json that no architecture plans: transformers' and those of
// checkpoints with their own modeling code (`remote`).
struct Known {
    std::vector<std::string> transformers, remote;
};

Known known(const Catalog& catalog, const std::vector<std::string>& planned_types) {
    Known out;
    auto unplanned = [&](const std::string& t) { return !std::binary_search(planned_types.begin(), planned_types.end(), t); };
    if (const Json* f = model_types_file(catalog)) {
        for (const auto& t : f->at("transformers").at("model_types"))
            if (unplanned(t.get<std::string>())) out.transformers.push_back(t.get<std::string>());
        for (const auto& [t, _] : f->at("remote_code").at("model_types").items())
            if (unplanned(t)) out.remote.push_back(t);
    }
    return out;
}

// The text_config of a config, and the model_type it names (else the wrapper's default).
std::pair<const Json*, std::string> text_config_of(const Json& config, const Json* wrapper) {
    auto t = config.find("text_config");
    if (t == config.end() || !t->is_object()) return {nullptr, ""};
    std::string type = t->value("model_type", std::string());
    if (type.empty() && wrapper) type = wrapper->value("text_model_type", std::string());
    return {&*t, type};
}

const Json* wrapper_entry(const Catalog& catalog, const std::string& model_type) {
    const Json* f = model_types_file(catalog);
    if (!f) return nullptr;
    const Json& all = f->at("wrappers").at("model_types");
    auto w = all.find(model_type);
    return w == all.end() ? nullptr : &*w;
}

}  // namespace

const DataFile* architecture_for(const Catalog& catalog, const std::string& model_type) {
    for (const DataFile* a : catalog.all("architectures"))
        for (const auto& t : a->json.value("model_types", Json::array()))
            if (t == model_type) return a;
    return nullptr;
}

std::optional<WrappedModel> wrapped_model(const Catalog& catalog, const DataFile& config, const std::string& model_type) {
    const Json* wrapper = wrapper_entry(catalog, model_type);
    if (!wrapper) return std::nullopt;
    auto [text, text_type] = text_config_of(config.json, wrapper);
    const DataFile* architecture = text ? architecture_for(catalog, text_type) : nullptr;
    if (!architecture) return std::nullopt;
    auto lifted = std::make_shared<DataFile>(config);
    lifted->json = *text;
    WrappedModel out;
    out.config = std::move(lifted);
    out.architecture = architecture;
    for (const auto& [from, to] : wrapper->at("modules").items()) out.module_roots.emplace_back(from, to.get<std::string>());
    out.said = "the language model of this " + model_type + " config: its text_config (model_type " + text_type +
               (text->contains("model_type") ? "" : ", the " + model_type + " default") + "); the vision encoder and projector are not planned";
    return out;
}

std::string unplanned_model_type(const Catalog& catalog, const Json& config, const std::string& model_type) {
    const Planned p = planned(catalog);
    std::string plans;
    for (const auto& t : p.types) plans += (plans.empty() ? "" : ", ") + t;
    const Known k = known(catalog, p.types);
    auto listed = [&](const std::vector<std::string>& names) { return std::find(names.begin(), names.end(), model_type) != names.end(); };
    // A multimodal wrapper kbp does not know, around a text model it plans: what is missing is where
    // the wrapper keeps that model's modules.
    if (auto [text, text_type] = text_config_of(config, nullptr); text && !text_type.empty() && !wrapper_entry(catalog, model_type))
        if (architecture_for(catalog, text_type))
            return "model_type '" + model_type + "' is a model kbp does not plan yet (its text_config is a " + text_type +
                   ", which kbp plans, but where a " + model_type + " checkpoint keeps that model's modules is not in model-types.json /wrappers; kbp plans: " +
                   plans + ")";
    if (listed(k.transformers)) return "model_type '" + model_type + "' is a model kbp does not plan yet (kbp plans: " + plans + ")";
    if (listed(k.remote))
        return "model_type '" + model_type + "' is a model kbp does not plan yet (its checkpoints ship their own modeling code; kbp plans: " + plans + ")";
    std::vector<std::string> rivals = k.transformers;
    rivals.insert(rivals.end(), k.remote.begin(), k.remote.end());
    // A near miss names the architecture file that has it: a misspelled model_types entry shows.
    const std::string near = schema::closest_unrivalled(model_type, p.types, rivals);
    if (near.empty()) return "unknown model_type '" + model_type + "' (kbp plans: " + plans + ")";
    const auto at = std::lower_bound(p.types.begin(), p.types.end(), near) - p.types.begin();
    return "unknown model_type '" + model_type + "' (did you mean '" + near + "' of " + p.by[static_cast<std::size_t>(at)]->origin + "?)";
}

}  // namespace kbp::planner
