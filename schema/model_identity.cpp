#include "schema/model_identity.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "schema/json_convert.hpp"
#include "schema/sha256.hpp"

namespace kbp::schema {
namespace {

bool is_commit(const std::string& s) {
    if (s.size() != 40) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

}  // namespace

// Letters, digits, '.', '-', '_' as they are; runs of anything else one '-'; no leading '.' or
// '-' (a hidden folder, an option); at most 48 characters.
std::string folder_safe_name(const std::string& s) {
    std::string out;
    for (char c : s) {
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
        if (plain) out += c;
        else if (!out.empty() && out.back() != '-') out += '-';
    }
    while (!out.empty() && (out.front() == '.' || out.front() == '-')) out.erase(out.begin());
    if (out.size() > 48) out.resize(48);
    while (!out.empty() && (out.back() == '.' || out.back() == '-')) out.pop_back();
    return out;
}

std::string ModelIdentity::label() const { return name + "-" + digest.substr(0, 8); }

std::string model_name(const std::string& config_path, const std::string& architecture) {
    namespace fs = std::filesystem;
    const fs::path p = fs::path(config_path).lexically_normal();
    std::string name;
    if (p.filename() == "config.json") {
        fs::path folder = p.parent_path();
        if (folder.empty() || folder == ".") folder = fs::current_path();  // ./config.json: the folder it is in
        name = folder.filename().string();
        // The Hugging Face cache: models--ORG--NAME/snapshots/<commit>/config.json.
        const fs::path up = folder.parent_path();
        if (is_commit(name) && up.filename() == "snapshots") {
            const std::string repo = up.parent_path().filename().string();
            if (auto cut = repo.rfind("--"); repo.rfind("models--", 0) == 0 && cut != std::string::npos) name = repo.substr(cut + 2);
        }
    } else {
        name = p.stem().string();
    }
    name = folder_safe_name(name);
    if (name.empty()) name = folder_safe_name(architecture);
    return name.empty() ? "model" : name;
}

ModelIdentity model_identity(const std::string& config_path, const std::string& architecture, const std::vector<Symbol>& symbols,
                             const JsonObject& config_fields, const std::vector<Layer>& layers) {
    // nlohmann::json keeps object keys sorted: the same values give the same bytes whatever the
    // order the config or the architecture lists them in.
    nlohmann::json what = nlohmann::json::object();
    what["architecture"] = architecture;
    nlohmann::json s = nlohmann::json::object();
    for (const auto& sym : symbols) s[sym.name] = sym.value;
    what["symbols"] = std::move(s);
    what["config_fields"] = nlohmann::json::parse(to_ordered_json(JsonValue(config_fields)).dump());
    nlohmann::json l = nlohmann::json::array();
    // A template's layout variant (".v2": a layer planned differently, by the precision or the
    // engine's cut of its layers) is the plan's, not the model's.
    auto without_variant = [](const std::string& name) {
        const auto dot = name.rfind(".v");
        const bool variant = dot != std::string::npos && dot + 2 < name.size() &&
                             name.find_first_not_of("0123456789", dot + 2) == std::string::npos;
        return variant ? name.substr(0, dot) : name;
    };
    for (const auto& layer : layers) l.push_back({std::string(layer.kind.name()), without_variant(layer.template_name)});
    what["layers"] = std::move(l);
    return {model_name(config_path, architecture), sha256_hex(what.dump())};
}

}  // namespace kbp::schema
