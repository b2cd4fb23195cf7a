#include "exporters/stage.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "schema/file_io.hpp"
#include "schema/json_convert.hpp"
#include "schema/memory.hpp"
#include "schema/model_identity.hpp"
#include "schema/sha256.hpp"

namespace kbp::exporters {
namespace {

using J = nlohmann::ordered_json;
namespace fs = std::filesystem;

J fraction_bits(const schema::Format& f) {
    if (f.id != schema::FormatId::fx32) return nullptr;
    int bits = schema::fx32_fraction_bits(f);
    return bits < 0 ? J(nullptr) : J(bits);
}

std::string header_text(const schema::Blueprint& b, const char* key) {
    if (!b.provenance) return "";
    const auto* v = b.provenance->planner_header.find(key);
    return v && v->is_string() ? v->string() : "";
}

// The model of a plan whose stage record does not name it (planned before the tag named the
// model, or by another planner): what kbp's planner would have recorded, from the plan's own
// config path, symbols, described fields and layers; another planner's plan is named by the
// checkpoint its header names.
schema::ModelIdentity model_of(const schema::Blueprint& b) {
    const std::string architecture = header_text(b, "architecture");
    std::string config = b.provenance && b.provenance->kind == "kbp" && !b.provenance->files.empty() ? b.provenance->files.front().path : "";
    auto m = schema::model_identity(config, architecture, b.symbols.value_or(std::vector<schema::Symbol>{}),
                                    b.config_fields.value_or(schema::JsonObject{}), b.layers);
    if (config.empty()) {
        std::string checkpoint = header_text(b, "checkpoint");
        m.name = schema::folder_safe_name(checkpoint.substr(checkpoint.rfind('/') == std::string::npos ? 0 : checkpoint.rfind('/') + 1));
        if (m.name.empty()) m.name = architecture.empty() ? "model" : schema::folder_safe_name(architecture);
    }
    return m;
}

// The stage this plan feeds: the planner's record, else a GPU-style "launches" stage; its tag
// always begins with the model ("<name>-<digest8>_"), which a record without one gets here.
J stage_of(const schema::Blueprint& b) {
    J s;
    if (b.provenance)
        if (const auto* r = b.provenance->planner_header.find("stage"); r && r->is_object()) s = schema::to_ordered_json(*r);
    if (!s.is_object()) {
        s = J::object();
        s["name"] = "launches";
        s["tag"] = std::string(b.arm.mode.name()) + "-r" + std::to_string(b.arm.rows);
        s["knobs"] = J::object();
    }
    if (!s.contains("model") || !s["model"].is_object()) {
        auto m = model_of(b);
        s["tag"] = m.label() + "_" + (s.contains("tag") && s["tag"].is_string() ? s["tag"].get<std::string>() : std::string("default"));
        s["model"] = {{"name", m.name}, {"digest", m.digest}};
    }
    return s;
}

std::string role_of(const std::string& path) {
    // Catalog files are "embedded:<kind>/<name>.json" or "<dir>/<kind>/<name>.json".
    for (const char* kind : {"architectures", "recipes/parts", "recipes", "targets", "kernels", "fusion", "explain"})
        if (path.find(std::string(kind) + "/") != std::string::npos) return kind;
    return "input";
}

std::string text(const J& j) { return j.dump(2) + "\n"; }

}  // namespace

Result<StageFiles> stage_files(const schema::Blueprint& b, const StagePlan& plan) {
    auto open = schema::compute_memory(b).unknown_fixed_point;
    if (!open.empty())
        return make_error(ErrorCode::unsupported, plan.path,
                          std::to_string(open.size()) + " ops have FixedPoint32 bits or custom-op arguments no calibrated range decided (first: " +
                              open.front() + "): plan with --ranges first");
    J stage = stage_of(b);
    StageFiles files;
    files.stage = stage.value("name", std::string("launches"));
    files.tag = stage.value("tag", std::string("default"));
    if (files.stage.empty() || files.tag.empty() || files.stage.find('/') != std::string::npos || files.tag.find('/') != std::string::npos ||
        files.tag == "." || files.tag == "..")
        return make_error(ErrorCode::invalid_input, plan.path + ": /provenance/planner_header/stage", "a stage name and tag must be plain folder names");
    const J knobs = stage.contains("knobs") ? stage["knobs"] : J::object();
    const J model = stage["model"];

    J bk = J::object();
    bk["schema"] = "kbp-build-knobs/v1";
    bk["stage"] = files.stage;
    bk["tag"] = files.tag;
    bk["model"] = model;
    bk["knobs"] = knobs;
    files.build_knobs = text(bk);

    // Every node's inputs and outputs, from the edges (one output per tensor, in edge order).
    const std::size_t count = b.nodes.size();
    std::vector<J> inputs(count, J::array()), outputs(count, J::array());
    std::vector<std::vector<std::string>> written(count);
    for (const auto& e : b.edges) {
        if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= count || static_cast<std::size_t>(e.to) >= count) continue;
        inputs[e.to].push_back({{"tensor", e.id}, {"from", b.nodes[e.from].id}, {"format", std::string(e.format.name())}});
        auto& seen = written[e.from];
        if (std::find(seen.begin(), seen.end(), e.id) != seen.end()) continue;
        seen.push_back(e.id);
        outputs[e.from].push_back({{"tensor", e.id},
                                   {"format", std::string(e.format.name())},
                                   {"dim", e.dim_value},
                                   {"bytes_per_token", e.bytes_per_token ? J(*e.bytes_per_token) : J(nullptr)},
                                   {"leaves_launch", !e.fused}});
    }
    std::vector<const schema::Edge*> first_in(count, nullptr), first_out(count, nullptr);
    for (const auto& e : b.edges) {
        if (e.to >= 0 && static_cast<std::size_t>(e.to) < count && !first_in[e.to] && e.format.id != schema::FormatId::i32) first_in[e.to] = &e;
        if (e.from >= 0 && static_cast<std::size_t>(e.from) < count && !first_out[e.from]) first_out[e.from] = &e;
    }

    J launches = J::array();
    for (const auto& g : b.groups) {
        J nodes = J::array();
        std::map<std::string, std::string> signatures;
        for (auto k : g.nodes)
            if (k >= 0 && static_cast<std::size_t>(k) < count) {
                const auto& n = b.nodes[k];
                nodes.push_back(n.id);
                if (n.kernel && n.template_args) signatures.emplace(*n.kernel, schema::kernel_signature(*n.kernel, *n.template_args));
            }
        J sig = J::array();
        for (const auto& [_, s] : signatures) sig.push_back(s);
        launches.push_back({{"launch", g.id},
                            {"rule", g.rule},
                            {"kernels", g.kernels},
                            {"signatures", std::move(sig)},
                            {"where", std::string(g.where.name())},
                            {"compute", g.compute ? J(g.compute->name()) : J(nullptr)},
                            {"ops", std::move(nodes)}});
    }
    J ops = J::array();
    for (std::size_t i = 0; i < count; ++i) {
        const auto& n = b.nodes[i];
        J o = J::object();
        o["id"] = n.id;
        o["op"] = n.op.name();
        o["launch"] = n.group;
        o["kernel"] = n.kernel ? J(*n.kernel) : J(nullptr);
        if (n.template_args) {
            J args = J::object();
            for (const auto& a : *n.template_args) args[a.name] = a.value ? J(*a.value) : J(nullptr);
            o["template_args"] = std::move(args);
            o["signature"] = n.kernel ? J(schema::kernel_signature(*n.kernel, *n.template_args)) : J(nullptr);
        } else {
            o["template_args"] = nullptr;
            o["signature"] = nullptr;
        }
        J fb = J::object();
        fb["activation"] = n.precision.activation ? fraction_bits(*n.precision.activation) : J(nullptr);
        J outs = J::array();
        if (n.precision.output)
            for (const auto& f : *n.precision.output) outs.push_back(fraction_bits(f));
        fb["outputs"] = std::move(outs);
        o["fraction_bits"] = std::move(fb);
        if (n.precision.weight) {
            auto w = schema::weight_use(b, n, first_in[i], first_out[i]);
            J shape = J::array();
            if (w.kind == schema::WeightKind::matrix || w.kind == schema::WeightKind::experts) shape = {w.n, w.k};
            else if (w.kind == schema::WeightKind::vector) shape = {w.n};
            else if (w.kind == schema::WeightKind::table) shape = {w.matrices, w.n};
            if (w.kind == schema::WeightKind::experts) shape.insert(shape.begin(), w.matrices);
            o["weights"] = {{"format", std::string(n.precision.weight->name())}, {"shape", std::move(shape)}, {"bytes", w.stored_bytes}};
        } else {
            o["weights"] = nullptr;
        }
        o["inputs"] = std::move(inputs[i]);
        o["outputs"] = std::move(outputs[i]);
        o["point"] = schema::to_ordered_json(n.point);
        o["state"] = n.state ? J(schema::state_roles_name(*n.state)) : J(nullptr);
        ops.push_back(std::move(o));
    }
    J doc = J::object();
    doc["schema"] = "kbp-stage-ops/v1";
    doc["stage"] = files.stage;
    doc["tag"] = files.tag;
    doc["model"] = model;
    J from = J::object();
    from["blueprint_id"] = b.blueprint_id ? J(*b.blueprint_id) : J(nullptr);
    from["arm"] = {{"mode", std::string(b.arm.mode.name())}, {"rows", b.arm.rows}};
    if (b.provenance)
        if (const auto* t = b.provenance->planner_header.find("target"); t && t->is_string()) from["target"] = t->string();
    doc["plan"] = std::move(from);
    doc["launches"] = std::move(launches);
    doc["ops"] = std::move(ops);
    files.ops = text(doc);

    J record = J::object();
    record["schema"] = "kbp-stage/v1";
    record["stage"] = files.stage;
    record["tag"] = files.tag;
    record["model"] = model;
    record["knobs"] = knobs;
    J in = J::array();
    in.push_back({{"role", "plan"}, {"path", plan.path}, {"sha256", plan.sha256}});
    if (b.provenance) {
        const auto* ranges = b.provenance->planner_header.find("ranges");
        for (std::size_t i = 0; i < b.provenance->files.size(); ++i) {
            const auto& f = b.provenance->files[i];
            // kbp's planner names the model config first; the ranges file is in its header.
            std::string role = i == 0 && b.provenance->kind == "kbp"           ? "config"
                               : ranges && ranges->is_string() && ranges->string() == f.path ? "ranges"
                                                                                             : role_of(f.path);
            in.push_back({{"role", role}, {"path", f.path}, {"sha256", f.sha256}});
        }
    }
    record["inputs"] = std::move(in);
    record["outputs"] = J::array({{{"path", "build_knobs.json"}, {"sha256", schema::sha256_hex(files.build_knobs)}},
                                  {{"path", "ops.json"}, {"sha256", schema::sha256_hex(files.ops)}}});
    record["toolchain"] = {{"kbp", KBP_VERSION}};
    files.stage_record = text(record);
    return files;
}

namespace {

// The parts of a STAGE.json that decide whether a stage is current: knobs, the digests of its
// inputs and outputs, the toolchain (paths may move without the stage going stale).
J essence(const J& record) {
    J e = J::object();
    e["knobs"] = record.value("knobs", J::object());
    J digests = J::array();
    for (const auto& i : record.value("inputs", J::array())) digests.push_back({i.value("role", ""), i.value("sha256", "")});
    e["inputs"] = std::move(digests);
    e["outputs"] = record.value("outputs", J::array());
    e["toolchain"] = record.value("toolchain", J::object());
    return e;
}

Error damaged(const std::string& where, std::string message) {
    return make_error(ErrorCode::invalid_input, where, std::move(message) + "; remove the stage folder, or --force to rebuild it");
}

}  // namespace

Result<StageReport> export_stage(const schema::Blueprint& b, const StagePlan& plan, const std::string& out_dir, bool force) {
    auto files = stage_files(b, plan);
    if (!files) return files.error();
    StageReport report;
    const fs::path dir = fs::path(out_dir) / files->stage / files->tag;
    report.dir = dir.string();
    const fs::path record_path = dir / "STAGE.json";
    std::error_code ec;
    bool exists = fs::is_directory(dir, ec);
    if (!exists && fs::exists(dir, ec)) return make_error(ErrorCode::output, report.dir, "exists and is not a folder");

    if (exists && !force) {
        bool empty = fs::is_empty(dir, ec);
        if (!fs::exists(record_path, ec)) {
            if (!empty) return damaged(record_path.string(), "missing: the folder is not a kbp stage, or an export was interrupted");
        } else {
            auto old_text = read_file(record_path.string());
            if (!old_text) return damaged(record_path.string(), old_text.error().message);
            J old;
            try {
                old = J::parse(*old_text);
            } catch (const nlohmann::json::exception&) {
                return damaged(record_path.string(), "not valid JSON (edited?)");
            }
            if (!old.is_object() || old.value("schema", "") != "kbp-stage/v1" || !old.contains("outputs") || !old["outputs"].is_array())
                return damaged(record_path.string(), "not a kbp-stage/v1 record (edited?)");
            // Every recorded output must still be what kbp wrote.
            for (const auto& out : old["outputs"]) {
                std::string name = out.value("path", ""), want = out.value("sha256", "");
                fs::path p = dir / name;
                if (name.empty() || name.find('/') != std::string::npos) return damaged(record_path.string(), "names an output outside the folder");
                auto bytes = read_file(p.string());
                if (!bytes) return damaged(p.string(), "missing: the stage lost a file");
                if (schema::sha256_hex(*bytes) != want)
                    return damaged(p.string(), "edited since kbp wrote it (sha256 " + schema::sha256_hex(*bytes).substr(0, 12) +
                                                   ", STAGE.json records " + want.substr(0, 12) + ")");
            }
            J fresh = J::parse(files->stage_record);
            if (essence(old) == essence(fresh)) {
                report.action = StageAction::unchanged;
                return report;
            }
            report.action = StageAction::rebuilt;
            report.reason = essence(old)["inputs"] != essence(fresh)["inputs"]         ? "the plan or its inputs changed"
                            : essence(old)["toolchain"] != essence(fresh)["toolchain"] ? "another kbp version"
                                                                                      : "its contents changed";
        }
    } else if (exists) {
        report.action = StageAction::rebuilt;
        report.reason = "--force";
    }
    fs::create_directories(dir, ec);
    if (ec) return make_error(ErrorCode::output, report.dir, ec.message());
    // The record goes last: a folder with STAGE.json is complete.
    if (exists) fs::remove(record_path, ec);
    for (const auto& [name, bytes] : {std::pair<const char*, const std::string*>{"build_knobs.json", &files->build_knobs},
                                      {"ops.json", &files->ops},
                                      {"STAGE.json", &files->stage_record}})
        if (auto s = write_file_atomic((dir / name).string(), *bytes); !s) return s.error();
    return report;
}

}  // namespace kbp::exporters
