#include "viewer/model/document.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "exporters/text.hpp"
#include "exporters/view.hpp"
#include "schema/file_kind.hpp"
#include "schema/names.hpp"
#include "schema/reader.hpp"
#include "schema/templates.hpp"
#include "schema/validator.hpp"

namespace kbp::viewer {
namespace {

using schema::Blueprint;
using schema::Node;

std::string block_in_unit(const Node& n) {
    auto dot = n.block.find('.');
    return dot == std::string::npos ? n.block.str() : n.block.substr(dot + 1);
}

// Two instances are the same shape when their ops and edges are equal in every member of the
// model (Node's and Edge's operator==, so a member the format gains counts without a change
// here) once what names the layer is set aside: ids and blocks become local, order and layer are
// dropped, groups count from the instance's first, edge ends are local indices. Like the
// collapsed form's templates, layers that differ only in numbers (a GPNPU plan's fixed-point
// fractional bits and custom-op template arguments) are one shape: those are blanked too.
void blank(schema::Format& f) {
    if (f.id == schema::FormatId::fx32) f = schema::fx32_format(-1);
}

Node local_node(const Node& n, std::int64_t first_group) {
    Node out = n;
    out.id = exporters::local_name(n);
    out.block = block_in_unit(n);
    out.order = 0;
    out.layer.reset();
    out.group = n.group - first_group;
    auto& p = out.precision;
    if (p.weight) blank(*p.weight);
    if (p.activation) blank(*p.activation);
    // Interned lists are rebuilt whole, so only when they hold a number to blank (a million-op
    // plan's layers compare with no list rebuilt).
    if (p.output && std::any_of(p.output->begin(), p.output->end(), [](const schema::Format& f) { return f.id == schema::FormatId::fx32; })) {
        std::vector<schema::Format> output = p.output->vector();
        for (auto& f : output) blank(f);
        p.output = schema::FormatList(output);
    }
    if (out.template_args)
        for (auto& a : *out.template_args) a.value.reset();
    auto names_fx32 = [](std::string_view step) { return step.find("fx32/f") != std::string_view::npos; };
    if (std::none_of(out.steps.begin(), out.steps.end(), [&](const schema::Sym& step) { return names_fx32(step.view()); })) return out;
    std::vector<schema::Sym> steps;
    for (const auto& step : out.steps) {  // steps name the formats they work in: "act fx32/f24" -> "act fx32/f"
        std::string s = step;
        for (auto at = s.find("fx32/f"); at != std::string::npos; at = s.find("fx32/f", at + 6)) {
            auto end = at + 6;
            while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '?')) ++end;
            s.erase(at + 6, end - at - 6);
        }
        steps.push_back(s);
    }
    out.steps = schema::SymList(steps);
    return out;
}

schema::Edge local_edge(const schema::Edge& e, const std::vector<std::int32_t>& local_of) {
    schema::Edge out = e;
    out.id.clear();  // the tensor's name carries the layer's prefix
    out.from = local_of[static_cast<std::size_t>(e.from)];
    out.to = local_of[static_cast<std::size_t>(e.to)];
    blank(out.format);
    if (out.requant) {
        blank(out.requant->from);
        blank(out.requant->to);
    }
    return out;
}

// An instance in its local form: what two instances are compared by, made once per instance.
struct LocalForm {
    std::vector<Node> nodes;
    std::vector<schema::Edge> edges;
    bool operator==(const LocalForm&) const = default;
};

LocalForm local_form(const Blueprint& b, const Instance& x, const std::vector<std::int32_t>& local_of) {
    LocalForm out;
    std::int64_t first_group = b.nodes[static_cast<std::size_t>(x.nodes.front())].group;
    out.nodes.reserve(x.nodes.size());
    for (auto i : x.nodes) out.nodes.push_back(local_node(b.nodes[static_cast<std::size_t>(i)], first_group));
    out.edges.reserve(x.edges.size());
    for (auto e : x.edges) out.edges.push_back(local_edge(b.edges[static_cast<std::size_t>(e)], local_of));
    return out;
}

}  // namespace

std::optional<FileStamp> stamp_of(const std::string& path) {
    std::error_code ec;
    auto modified = std::filesystem::last_write_time(path, ec);
    if (ec) return std::nullopt;
    auto size = std::filesystem::file_size(path, ec);
    if (ec) return std::nullopt;
    return FileStamp{modified, size};
}

Document::Document(schema::Blueprint plan, std::string path) : plan_(std::move(plan)), path_(std::move(path)) { index_folded(); }

Document::Document(schema::Blueprint plan, std::string path, const std::function<void(const schema::Blueprint&)>& alongside)
    : plan_(std::move(plan)), path_(std::move(path)) {
    auto other = std::async(std::launch::async, [&] { alongside(plan_); });
    index_folded();
    other.get();
}

Document::Document(schema::Blueprint plan, std::string path, ListsToRead lists)
    : plan_(std::move(plan)), path_(std::move(path)), max_problems_(lists.max_problems) {
    lists_read_ = false;
    lists_after_ = true;
    index_folded();
}

Document::~Document() {
    if (background_.valid()) background_.wait();
}

void Document::complete_in_background() const {
    std::call_once(background_once_, [this] {
        started_ = true;
        background_ = std::async(std::launch::async, [this] {
            if (!lists_read_) read_lists();
            if (superseded()) return;  // the plan goes: nothing more to index
            (void)flat();
            progress_.store(lists_after_ ? 850 : 500, std::memory_order_relaxed);
            (void)cost();
            progress_.store(1000, std::memory_order_relaxed);
        });
    });
}

namespace {

LoadFailure invalid_plan(const std::string& path, const schema::Diagnostics& problems) {
    LoadFailure f{path, path + ": invalid blueprint (" + std::to_string(problems.total()) + " problems)", {}};
    for (const auto& d : problems.items()) f.problems.push_back(path + ": " + d.pointer + ": " + d.message);
    if (problems.total() > problems.items().size())
        f.problems.push_back(path + ": ... and " + std::to_string(problems.total() - problems.items().size()) + " more");
    return f;
}

}  // namespace

// The file's flat lists, read as `kbp check` reads the file, validated as it validates it
// (which compares them with the collapsed form), then compared with the expansion shown.
void Document::read_lists() const {
    schema::ReadOptions options;
    options.pieces_above = 1;  // in pieces, whatever its size: the progress bar moves (the result is the same)
    options.progress = [this](double share) { progress_.store(static_cast<int>(600 * share), std::memory_order_relaxed); };
    auto file = schema::load_blueprint(path_, options);
    progress_.store(600, std::memory_order_relaxed);
    if (!file) {
        const std::string text = schema::as_plan_error(file.error(), path_).text();
        late_failure_ = LoadFailure{path_, text, {text}};
    } else if (auto problems = schema::validate(*file, {.max_problems = max_problems_}); !problems.empty()) {
        late_failure_ = invalid_plan(path_, problems);
    } else {
        progress_.store(650, std::memory_order_relaxed);
        if (file->nodes != plan_.nodes || file->edges != plan_.edges || file->groups != plan_.groups) {
            auto doc = std::make_shared<Document>(std::move(*file), path_);
            doc->stamp = stamp;
            replacement_ = std::move(doc);
        }
    }
    progress_.store(700, std::memory_order_relaxed);
    lists_read_ = true;
}

void Document::work_out_cost() const {
    auto report = planner::estimate_cost(plan_, {});
    if (report) cost_ = std::move(*report);
    else cost_error_ = report.error().text();
    cost_done_ = true;
}

void Document::index_flat() const {
    const Blueprint& b = plan_;
    const std::size_t n = b.nodes.size();
    FlatIndex& f = flat_;
    // Per mille of completion(): 0-500, or 700-850 after the file's lists were read.
    const int base = lists_after_ ? 700 : 0;
    const double span = lists_after_ ? 150 : 500;
    f.in.assign(n, {});
    f.out.assign(n, {});
    for (std::size_t e = 0; e < b.edges.size(); ++e) {
        const auto& edge = b.edges[e];
        if (edge.from < 0 || edge.to < 0 || static_cast<std::size_t>(edge.from) >= n || static_cast<std::size_t>(edge.to) >= n) continue;
        f.out[static_cast<std::size_t>(edge.from)].push_back(static_cast<std::int32_t>(e));
        f.in[static_cast<std::size_t>(edge.to)].push_back(static_cast<std::int32_t>(e));
        if ((e & 0xffff) == 0)
            progress_.store(base + static_cast<int>(0.6 * span * static_cast<double>(e) / static_cast<double>(b.edges.size())),
                            std::memory_order_relaxed);
    }
    f.ids.reserve(n);
    for (std::size_t i = 0; i < n; ++i) f.ids.push_back({b.nodes[i].id, static_cast<std::int32_t>(i)});
    progress_.store(base + static_cast<int>(0.8 * span), std::memory_order_relaxed);
    std::sort(f.ids.begin(), f.ids.end());
    flat_done_ = true;
}

void Document::index_folded() {
    const Blueprint& b = plan_;
    const std::size_t n = b.nodes.size();
    instance_of_node_.assign(n, -1);
    local_of_node_.assign(n, -1);

    // Runs of ops: one per layer, one per block outside the layers.
    std::vector<std::vector<std::int32_t>> runs;
    for (std::size_t i = 0; i < n; ++i) {
        const Node& node = b.nodes[i];
        bool fresh = runs.empty();
        if (!fresh) {
            const Node& prev = b.nodes[static_cast<std::size_t>(runs.back().back())];
            fresh = node.layer != prev.layer || (!node.layer && node.block != prev.block);
        }
        if (fresh) runs.emplace_back();
        runs.back().push_back(static_cast<std::int32_t>(i));
        instance_of_node_[i] = static_cast<std::int32_t>(runs.size() - 1);
        local_of_node_[i] = static_cast<std::int32_t>(runs.back().size() - 1);
    }
    instances_.resize(runs.size());
    for (std::size_t e = 0; e < b.edges.size(); ++e) {
        const auto& edge = b.edges[e];
        if (edge.from < 0 || edge.to < 0 || static_cast<std::size_t>(edge.from) >= n || static_cast<std::size_t>(edge.to) >= n) continue;
        auto a = instance_of_node_[static_cast<std::size_t>(edge.from)], z = instance_of_node_[static_cast<std::size_t>(edge.to)];
        if (a == z) instances_[static_cast<std::size_t>(a)].edges.push_back(static_cast<std::int32_t>(e));
        else crossing_.push_back(static_cast<std::int32_t>(e));
    }

    // Units: instances of the same name and shape share one (compared with the unit's first).
    std::map<std::string, std::vector<std::int32_t>> units_by_name;  // lookup only
    std::map<std::int64_t, const std::string*> template_of_layer;      // the last layer of an index names it
    for (const auto& l : b.layers) template_of_layer[l.index] = &l.template_name;
    std::vector<LocalForm> unit_forms;  // each unit's first instance, local
    for (std::size_t r = 0; r < runs.size(); ++r) {
        Instance& inst = instances_[r];
        inst.nodes = std::move(runs[r]);
        const Node& first = b.nodes[static_cast<std::size_t>(inst.nodes.front())];
        inst.layer = first.layer;
        std::string name = first.block;
        if (first.layer) {
            auto t = template_of_layer.find(*first.layer);
            if (t != template_of_layer.end()) {
                name = *t->second;
            } else {
                name = "layer ";  // appended, not +: GCC 12 warns wrongly about the latter (-Wrestrict)
                name += std::to_string(*first.layer);
            }
        }
        auto& candidates = units_by_name[name];
        inst.unit = -1;
        LocalForm form = local_form(b, inst, local_of_node_);
        for (auto u : candidates)
            if (unit_forms[static_cast<std::size_t>(u)] == form) inst.unit = u;
        if (inst.unit < 0) {
            Unit u;
            u.name = candidates.empty() ? name : name + " (variant " + std::to_string(candidates.size() + 1) + ")";
            u.layered = first.layer.has_value();
            std::int64_t first_group = first.group;
            for (auto i : inst.nodes) {
                const Node& node = b.nodes[static_cast<std::size_t>(i)];
                u.nodes.push_back({exporters::local_name(node), block_in_unit(node), node.group - first_group});
            }
            for (auto e : inst.edges) {
                const auto& edge = b.edges[static_cast<std::size_t>(e)];
                u.edges.push_back({local_of_node_[static_cast<std::size_t>(edge.from)], local_of_node_[static_cast<std::size_t>(edge.to)]});
            }
            inst.unit = static_cast<std::int32_t>(units_.size());
            candidates.push_back(inst.unit);
            units_.push_back(std::move(u));
            unit_forms.push_back(std::move(form));
        }
        units_[static_cast<std::size_t>(inst.unit)].instances.push_back(static_cast<std::int32_t>(r));
    }
}

std::int64_t Document::find_node(std::string_view id) const {
    const auto& ids = flat().ids;
    auto it = std::lower_bound(ids.begin(), ids.end(), id, [](const auto& p, std::string_view v) { return p.first < v; });
    return it != ids.end() && it->first == id ? it->second : -1;
}

std::string Document::unknown_node(std::string_view id) const {
    std::vector<std::string> ids;
    ids.reserve(flat().ids.size());
    for (const auto& [name, index] : flat().ids) ids.push_back(std::string(name));
    // "l99.attn.q" in a plan of 36 layers: a layer number is not a spelling to correct.
    return "no op '" + std::string(id) + "' in " + path_ + schema::layered_name_hint(id, ids, "ops", "the plan");
}

std::int32_t Document::instance_of_layer(std::int64_t layer) const {
    for (std::size_t i = 0; i < instances_.size(); ++i)
        if (instances_[i].layer == layer) return static_cast<std::int32_t>(i);
    return -1;
}


namespace {

// A big plan shown before its flat lists are read (Document::ListsToRead), when it can be: read
// but for its lists, its collapsed form expanded losslessly in their place. Nothing when the
// file is small, has no flat lists or no collapsed form, or the collapsed form does not expand
// to every field (the seed's templates carry part of each op): it is read whole then.
std::shared_ptr<Document> load_lists_after(const std::string& path, const LoadOptions& options) {
    schema::ReadOptions read;
    read.pieces_above = std::max<std::size_t>(options.lists_after_above, 1);  // an empty file is not mapped
    auto b = schema::load_blueprint_without_lists(path, read);
    if (!b || !b->collapsed) return nullptr;
    auto flat = schema::expand_templates(*b);
    if (!flat || !flat->complete) return nullptr;
    b->nodes = std::move(flat->nodes);
    b->edges = std::move(flat->edges);
    b->groups = std::move(flat->groups);
    return std::make_shared<Document>(std::move(*b), path, Document::ListsToRead{options.max_problems});
}

}  // namespace

Loaded load_document(const std::string& path, const LoadOptions& options) {
    Loaded out;
    auto stamp = stamp_of(path);
    if (auto doc = load_lists_after(path, options)) {
        doc->stamp = stamp;
        out.document = std::move(doc);
        return out;
    }
    auto b = schema::load_blueprint(path);
    if (!b) {
        const std::string text = schema::as_plan_error(b.error(), path).text();
        out.failure = LoadFailure{path, text, {text}};
        return out;
    }
    // A plan with flat lists is validated while it is indexed (two cores: the first frame comes
    // one of the two sooner); a collapsed-only one is validated before its flat lists are made.
    schema::Diagnostics problems;
    auto validate = [&](const schema::Blueprint& plan) { problems = schema::validate(plan, {.max_problems = options.max_problems}); };
    auto invalid = [&] {
        out.failure = invalid_plan(path, problems);
        return out;
    };
    std::shared_ptr<Document> doc;
    if (b->collapsed_only) {
        validate(*b);
        if (!problems.empty()) return invalid();
        if (auto s = exporters::ensure_flat(*b); !s) {
            out.failure = LoadFailure{path, s.error().text(), {s.error().text()}};
            return out;
        }
        doc = std::make_shared<Document>(std::move(*b), path);
    } else {
        doc = std::make_shared<Document>(std::move(*b), path, validate);
        if (!problems.empty()) return invalid();
    }
    doc->stamp = stamp;
    out.document = std::move(doc);
    return out;
}

}  // namespace kbp::viewer
