#include "schema/file_kind.hpp"

#include <regex>

#include "schema/file_io.hpp"

#include <nlohmann/json.hpp>

namespace kbp::schema {
namespace {

// A YAML mapping or document: its first line that is not blank or a comment is "---" or "key:".
bool looks_like_yaml(std::string_view text) {
    static const std::regex key(R"(^(---|[A-Za-z_][A-Za-z0-9_.-]*:(\s.*)?)$)");
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        std::string line(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (!line.empty() && line.back() == '\r') line.pop_back();
        auto first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line[first] != '#') return std::regex_match(line, key);
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return false;
}

}  // namespace

FileKind file_kind(std::string_view text) {
    auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded()) return looks_like_yaml(text) ? FileKind::yaml : FileKind::unknown;
    if (!j.is_object()) return FileKind::unknown;
    if (auto s = j.find("schema"); s != j.end() && s->is_string()) {
        const auto& name = s->get_ref<const std::string&>();
        if (name == "kbp-graph/v2") return FileKind::plan;
        if (name == "kbp-ranges/v1") return FileKind::ranges;
        if (name == "kbp-sensitivity/v1") return FileKind::sensitivity;
        if (name == "kbp-frontier/v1") return FileKind::frontier;
        if (name == "kbp-view/v1") return FileKind::view;
        if (name == "kbp-diff/v1") return FileKind::diff;
        if (name.rfind("kbp-stage", 0) == 0 || name.rfind("kbp-build-knobs", 0) == 0) return FileKind::stage;
        return FileKind::unknown;
    }
    if (j.contains("model_types") && (j.contains("blocks") || j.contains("extends"))) return FileKind::architecture;
    if (j.contains("model_type")) return FileKind::model_config;
    if (j.contains("entries") && j["entries"].is_array()) return FileKind::recipe;
    if (j.contains("memory_bandwidth_gbps")) return FileKind::target;
    if (j.contains("instances") && j.contains("table")) return FileKind::kernels;
    if (j.contains("rules") && j.contains("applies_to")) return FileKind::fusion;
    if (j.contains("ops") && j["ops"].is_object()) return FileKind::ops;
    return FileKind::unknown;
}

std::string describe(FileKind kind) {
    switch (kind) {
        case FileKind::plan: return "a kbp plan (kbp-graph/v2)";
        case FileKind::model_config: return "a model config (config.json with model_type)";
        case FileKind::ranges: return "a ranges file (kbp-ranges/v1)";
        case FileKind::sensitivity: return "a sensitivity file (kbp-sensitivity/v1)";
        case FileKind::frontier: return "a Pareto frontier (kbp-frontier/v1, from kbp tune --frontier)";
        case FileKind::view: return "a view (kbp-view/v1, from kbp export json)";
        case FileKind::diff: return "a plan diff (kbp-diff/v1, from kbp diff --json)";
        case FileKind::stage: return "a compile stage's file (from kbp export stage)";
        case FileKind::recipe: return "a recipe data file (recipes/)";
        case FileKind::target: return "a target data file (targets/)";
        case FileKind::kernels: return "a kernels data file (kernels/)";
        case FileKind::fusion: return "a fusion rules data file (fusion/)";
        case FileKind::ops: return "an ops data file (ops/)";
        case FileKind::architecture: return "an architecture data file (architectures/)";
        case FileKind::yaml: return "YAML";
        case FileKind::unknown: break;
    }
    return "a file of unknown kind";
}

std::string wrong_kind(std::string_view text, FileKind expected) {
    FileKind found = file_kind(text);
    if (found == FileKind::unknown || found == expected) return "";
    if (found == FileKind::yaml) return "this looks like YAML: kbp reads JSON (here, " + describe(expected) + ")";
    std::string advice;
    if (found == FileKind::model_config && expected == FileKind::plan) advice = ": plan it first with 'kbp plan CONFIG -o PLAN'";
    if (found == FileKind::plan && expected == FileKind::model_config) advice = ": kbp plan reads the model's config.json";
    if (found == FileKind::frontier && expected == FileKind::plan) advice = ": kbp render draws it as a chart (-o OUT.svg)";
    return "this is " + describe(found) + ", not " + describe(expected) + advice;
}

Error as_plan_error(const Error& error, const std::string& file) {
    if (file == "-") return error;
    auto text = read_file(file);
    if (!text) return error;
    if (auto what = wrong_kind(*text, FileKind::plan); !what.empty()) return make_error(ErrorCode::invalid_input, file + ": /", what);
    return error;
}

}  // namespace kbp::schema
