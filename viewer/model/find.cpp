#include "viewer/model/find.hpp"

#include <algorithm>
#include <cctype>

#include "exporters/view.hpp"

namespace kbp::viewer {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool has(std::string_view haystack, const std::string& needle) { return lower(haystack).find(needle) != std::string::npos; }

struct Term {
    std::string field;  // "" = any
    std::string text;   // lower case
};

constexpr const char* fields[] = {"id", "op", "kernel", "family", "rule", "format"};

bool matches(const schema::Blueprint& b, const schema::Node& n, const Term& t) {
    auto want = [&](const char* f) { return t.field.empty() || t.field == f; };
    if (want("id") && has(n.id, t.text)) return true;
    if (want("op") && has(n.op.name(), t.text)) return true;
    const schema::Group* g = n.group >= 0 && static_cast<std::size_t>(n.group) < b.groups.size() ? &b.groups[static_cast<std::size_t>(n.group)] : nullptr;
    if (want("kernel")) {
        if (n.kernel && has(*n.kernel, t.text)) return true;
        // A fused op without a kernel of its own (the seed's quantizer inside an MoE GEMV's launch)
        // runs the group's kernels no member names as its own; a quantizer its quantizing
        // kernel, the others the rest (not the quantizer's kernel, nor the GEMV for a quantizer).
        if (g && !n.kernel) {
            std::vector<std::string> unclaimed;
            for (const auto& k : g->kernels) {
                bool claimed = false;
                for (auto m : g->nodes)
                    if (m >= 0 && static_cast<std::size_t>(m) < b.nodes.size() && b.nodes[static_cast<std::size_t>(m)].kernel == std::optional<schema::Sym>(k))
                        claimed = true;
                if (!claimed) unclaimed.push_back(std::string(k));
            }
            const bool quantizer = n.op.kind.id == schema::OpId::act_quant;
            auto quantizes = [](const std::string& k) {
                const std::string entry = k.substr(k.rfind(':') == std::string::npos ? 0 : k.rfind(':') + 1);
                return entry.find("quant") != std::string::npos && entry.find("gemv") == std::string::npos && entry.find("gemm") == std::string::npos;
            };
            const bool any_of_its_kind = std::any_of(unclaimed.begin(), unclaimed.end(), [&](const std::string& k) { return quantizes(k) == quantizer; });
            for (const std::string& k : unclaimed)
                if ((!any_of_its_kind || quantizes(k) == quantizer) && has(k, t.text)) return true;
        }
    }
    if (want("family") && has(n.family, t.text)) return true;
    if (want("rule") && g && has(g->rule, t.text)) return true;
    if (want("format")) {
        const auto& p = n.precision;
        if (p.weight && has(p.weight->name(), t.text)) return true;
        if (p.activation && has(p.activation->name(), t.text)) return true;
        if (p.output)
            for (const auto& f : *p.output)
                if (has(f.name(), t.text)) return true;
    }
    return false;
}

}  // namespace

FindResult find_nodes(const Document& doc, const FindRequest& request) {
    FindResult out;
    const auto& b = doc.plan();
    std::vector<Term> terms;
    std::string q = request.query;
    for (std::size_t at = 0; at < q.size();) {
        while (at < q.size() && std::isspace(static_cast<unsigned char>(q[at]))) ++at;
        std::size_t end = at;
        while (end < q.size() && !std::isspace(static_cast<unsigned char>(q[end]))) ++end;
        if (end == at) break;
        std::string word = q.substr(at, end - at);
        at = end;
        Term t;
        auto colon = word.find(':');
        std::string field = colon == std::string::npos ? "" : lower(word.substr(0, colon));
        if (colon != std::string::npos && std::find(std::begin(fields), std::end(fields), field) != std::end(fields)) {
            t.field = field;
            t.text = lower(word.substr(colon + 1));
        } else {
            t.text = lower(word);  // "linear:q" is an op, not a field
        }
        if (!t.text.empty()) terms.push_back(std::move(t));
    }
    std::optional<std::vector<std::int64_t>> layers;
    if (!request.layers.empty()) {
        auto parsed = exporters::parse_layer_list(request.layers, static_cast<std::int64_t>(b.layers.size()));
        if (!parsed) {
            out.error = parsed.error().message;
            auto cut = out.error.find("--layers ");
            if (cut == 0) out.error = "layers " + out.error.substr(9);
            return out;
        }
        layers = std::move(*parsed);
    }
    std::string block = lower(request.block);
    if (terms.empty() && !layers && block.empty()) return out;
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        const auto& n = b.nodes[i];
        if (layers && (!n.layer || !std::binary_search(layers->begin(), layers->end(), *n.layer))) continue;
        if (!block.empty() && lower(n.block_type.view()) != block) continue;
        if (std::all_of(terms.begin(), terms.end(), [&](const Term& t) { return matches(b, n, t); }))
            out.nodes.push_back(static_cast<std::int32_t>(i));
    }
    return out;
}

}  // namespace kbp::viewer
