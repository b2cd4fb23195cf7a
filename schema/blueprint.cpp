#include "blueprint.hpp"

namespace kbp::schema {

const JsonValue* JsonValue::find(std::string_view key) const {
    if (!is_object()) return nullptr;
    for (const auto& [k, v] : object())
        if (k == key) return &v;
    return nullptr;
}

Op Op::parse(std::string_view text) {
    auto colon = text.find(':');
    if (colon != std::string_view::npos && text.substr(0, colon) == "linear")
        return Op{Named<OpId>{OpId::linear, {}}, std::string(text.substr(colon + 1))};
    auto kind = Named<OpId>::parse(text);
    if (kind.id == OpId::linear) return Op{kind, {}};
    return Op{kind, {}};
}

std::string Op::name() const {
    if (kind.id == OpId::linear && !role.empty()) return "linear:" + role;
    return std::string(kind.name());
}

Compute Compute::parse(std::string_view text) {
    auto colon = text.find(':');
    if (colon != std::string_view::npos) {
        auto kind = Named<ComputeId>::parse(text.substr(0, colon));
        if (kind.known()) return Compute{kind, std::string(text.substr(colon + 1))};
        return Compute{Named<ComputeId>{ComputeId::unknown, std::string(text)}, {}};
    }
    return Compute{Named<ComputeId>::parse(text), {}};
}

std::string Compute::name() const {
    if (kind.known() && !unit.empty()) return std::string(kind.name()) + ":" + unit;
    return std::string(kind.name());
}

std::vector<StateRole> parse_state_roles(std::string_view text) {
    std::vector<StateRole> roles;
    while (true) {
        auto comma = text.find(',');
        auto item = text.substr(0, comma);
        auto colon = item.find(':');
        StateRole role;
        role.state = StateName::parse(item.substr(0, colon));
        role.action = colon == std::string_view::npos ? StateAction{}
                                                      : StateAction::parse(item.substr(colon + 1));
        roles.push_back(std::move(role));
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    return roles;
}

std::string state_roles_name(const std::vector<StateRole>& roles) {
    std::string out;
    for (const auto& r : roles) {
        if (!out.empty()) out += ',';
        out += r.state.name();
        if (!r.action.name().empty() || r.action.known()) {
            out += ':';
            out += r.action.name();
        }
    }
    return out;
}

std::string formats_name(const std::vector<Format>& formats) {
    std::string out;
    for (const auto& f : formats) {
        if (!out.empty()) out += ',';
        out += f.name();
    }
    return out;
}

std::string kernel_signature(const std::string& kernel, const TemplateArgs& args) {
    std::string out = kernel + "<";
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (i) out += ", ";
        out += args[i].value ? std::to_string(*args[i].value) : "?";
    }
    return out + ">";
}

const Template* Collapsed::find(std::string_view name) const {
    for (const auto& t : templates)
        if (t.name == name) return &t;
    return nullptr;
}

std::optional<std::int64_t> Blueprint::symbol(std::string_view name) const {
    if (!symbols) return std::nullopt;
    for (const auto& s : *symbols)
        if (s.name == name) return s.value;
    return std::nullopt;
}

const JsonValue* Blueprint::config_field(std::string_view name) const {
    if (!config_fields) return nullptr;
    for (const auto& [k, v] : *config_fields)
        if (k == name) return &v;
    return nullptr;
}

}  // namespace kbp::schema
