#include "cost/cost.hpp"

#include <filesystem>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "planner/catalog.hpp"
#include "planner/ir.hpp"  // is_quantized
#include "planner/state_bytes.hpp"
#include "planner/target_records.hpp"
#include "schema/bytes.hpp"
#include "schema/memory.hpp"
#include "schema/numbers.hpp"

namespace kbp::planner {
namespace {

using Json = nlohmann::ordered_json;

// The activation input of a weighted node: not an index tensor.
const schema::Edge* activation_input(const std::vector<const schema::Edge*>& in) {
    for (const auto* e : in)
        if (e->format.id != schema::FormatId::i32) return e;
    return nullptr;
}

// The target a plan was made for, as its provenance names it ("gb10" of "gb10/model/recipe"); "" when it names none.
std::string plan_target(const schema::Blueprint& b) {
    if (!b.provenance) return {};
    const auto* t = b.provenance->planner_header.find("target");
    if (!t || !t->is_string()) return {};
    const std::string& name = t->string();
    return name.substr(0, name.find('/'));
}

// The calibration file for `target` (its "target" member names it) and `engine` (its "engine"
// member; none: the target's pooled fit, a file without one), if the catalog has one. An engine
// asked for that has no fit on the target is an error naming the engines that have one.
Result<std::optional<Calibration>> calibration_of(const Catalog& catalog, const std::string& target, const std::optional<std::string>& engine) {
    std::string engines;
    for (const DataFile* f : catalog.all("calibrations")) {
        if (f->json.at("target").get<std::string>() != target) continue;
        const std::string its = f->json.value("engine", std::string());
        if (!its.empty()) engines += (engines.empty() ? "" : ", ") + its;
        if (its != engine.value_or(""))
            continue;
        Calibration c{f->json.at("bandwidth_efficiency").get<double>(), f->json.at("step_overhead_us").get<double>(),
                      f->json.at("origin").get<std::string>(), {}, std::nullopt, {}, std::nullopt};
        if (auto launch = f->json.find("launch_overhead_us"); launch != f->json.end()) c.launch_overhead_us = launch->get<double>();
        if (auto sync = f->json.find("all_reduce_us"); sync != f->json.end()) c.all_reduce_us = sync->get<double>();
        if (auto tps = f->json.find("fitted_tp"); tps != f->json.end())
            for (const auto& tp : *tps) c.fitted_tp.push_back(tp.get<std::int64_t>());
        if (auto families = f->json.find("family_efficiency"); families != f->json.end())
            for (const auto& [family, efficiency] : families->items()) c.family_efficiency[family] = efficiency.get<double>();
        return std::optional<Calibration>(std::move(c));
    }
    if (engine)
        return make_error(ErrorCode::invalid_input, "--engine " + *engine,
                          "target '" + target + "' has no calibration fitted on engine '" + *engine + "'" +
                              (engines.empty() ? std::string(" (it has none by engine)") : " (it has: " + engines + ")"));
    return std::optional<Calibration>();
}

// One group's time under `calibration`, and what bounds it: the memory time (at the fitted share
// of the bandwidth for its family), the compute time, whichever is longer, plus a launch for
// each kernel it launches (a group of a quantizer and a GEMV pays two); a host group moves its
// bytes and launches nothing.
std::pair<double, const char*> group_time(const GroupCost& gc, const Calibration& calibration, double launch_us) {
    if (gc.on_host) return {gc.memory_us, "host"};
    const double memory_us = gc.memory_us / calibration.efficiency_of(gc.family);
    const double busy = std::max(memory_us, gc.compute_us);
    const double launching = launch_us * static_cast<double>(gc.launches);
    return {busy + launching, launching > busy ? "launch" : memory_us >= gc.compute_us ? "memory" : "compute"};
}

double launch_us_of(const CostReport& r, const Calibration& calibration) { return calibration.launch_overhead_us.value_or(r.target_launch_us); }

// The step's collectives: their bytes over the link, and each one's latency, the interconnect's
// or, where the calibration fitted one, its all_reduce_us.
double communication_us(const TpCost& c, const Calibration& calibration) {
    if (!calibration.all_reduce_us) return c.time_us;
    return c.time_us - c.latency_us + static_cast<double>(c.collectives()) * *calibration.all_reduce_us;
}

}  // namespace

double step_time_us(const CostReport& r, const Calibration& calibration) {
    const double launch_us = launch_us_of(r, calibration);
    double total = 0;
    for (const GroupCost& gc : r.groups) total += group_time(gc, calibration, launch_us).first;
    total += communication_us(r.communication, calibration);
    total += calibration.step_overhead_us;
    return total;
}

namespace {

// Prices `r`'s groups under `calibration`: each group's time and bound, the step (step_time_us:
// what kbp calibrate re-prices is this figure), the tokens per second and the time by kernel family.
void price_step(CostReport& r, const Calibration& calibration) {
    const double launch_us = launch_us_of(r, calibration);
    std::map<std::string, double> family_time;
    for (GroupCost& gc : r.groups) {
        auto [time_us, bound] = group_time(gc, calibration, launch_us);
        gc.time_us = time_us;
        gc.bound = bound;
        family_time[gc.family] += time_us;
    }
    r.total.time_us = step_time_us(r, calibration);
    r.tokens_per_s = r.total.time_us > 0 ? static_cast<double>(r.rows) / (r.total.time_us * 1e-6) : 0;
    r.time_by_family.assign(family_time.begin(), family_time.end());
    std::stable_sort(r.time_by_family.begin(), r.time_by_family.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
}

}  // namespace

Result<CostReport> estimate_cost(const schema::Blueprint& b, const CostOptions& options) {
    auto catalog = Catalog::load(options.catalog_dir);
    if (!catalog) return catalog.error();
    return estimate_cost(*catalog, b, options);
}

Result<CostReport> estimate_cost(const Catalog& loaded, const schema::Blueprint& b, const CostOptions& options) {
    // A target named by path is read into this estimate's own share of the catalog.
    Catalog catalog = loaded.share();
    std::string target_name;
    if (options.target) {
        target_name = *options.target;
    } else if (b.provenance) {
        if (const auto* t = b.provenance->planner_header.find("target"); t && t->is_string()) target_name = t->string();
    }
    if (target_name.empty()) return make_error(ErrorCode::usage, "--target", "the plan names no target: pass --target NAME|FILE");
    auto target = catalog.get("targets", target_name);
    if (!target && target_name.find('/') != std::string::npos)  // "gb10/model/recipe" style names
        target = catalog.get("targets", target_name.substr(0, target_name.find('/')));
    if (!target) return target.error();
    if (options.target_sha256 && (*target)->sha256 != *options.target_sha256)
        return make_error(ErrorCode::invalid_input, (*target)->origin,
                          "not the target the plan was made with (its provenance records sha256 " + options.target_sha256->substr(0, 12) +
                              "...): pass --catalog DIR with the plan's target, or --target NAME|FILE to cost on another");
    const planner::TargetRecord& t = *(*target)->target_record;

    CostReport r;
    r.target = (*target)->name;
    // Costing on another device than the plan's is a what-if, labelled rather than refused: a
    // user sizing a deployment wants the figure (the same kernels' bytes and FLOPs on the other
    // device's bandwidth and peaks), and refusing would leave only re-planning, which a target
    // whose catalogs cannot serve the model does not allow. The label says what it ignores.
    if (std::string made_for = plan_target(b); !made_for.empty() && made_for != r.target) {
        r.what_if = true;
        r.what_if_reason = "costed on " + r.target + ", not " + made_for +
                           " the plan was made for: kernel availability is ignored (its kernels are priced as if " + r.target +
                           " ran them; 'kbp plan --target " + r.target + "' says whether " + r.target + "'s catalogs can serve the model)";
    }
    r.mode = std::string(b.arm.mode.name());
    r.rows = b.arm.rows;
    r.context = options.context;
    // A figure the target file leaves null is unknown (its `sources` say why): no estimate.
    // (The schema has seen that a given figure is above zero.)
    auto figure = [&](const std::optional<double>& value, const char* key) -> Result<double> {
        if (value) return *value;
        std::string why = "unknown";
        if (auto src = t.sources.find(key); src != t.sources.end())
            why = src->second.rfind("unknown", 0) == 0 ? src->second : "unknown (" + src->second + ")";
        return make_error(ErrorCode::unsupported, (*target)->origin + ": /" + key, why);
    };
    auto bandwidth_gbps = figure(t.memory_bandwidth_gbps, "memory_bandwidth_gbps");
    if (!bandwidth_gbps) return bandwidth_gbps.error();
    r.bandwidth_gbps = *bandwidth_gbps;
    const double bandwidth = r.bandwidth_gbps * 1e9;
    double cuda_core = t.cuda_core_tflops.value_or(10.0) * 1e12;
    if (t.kind == "gpnpu") {
        // The PE array: every PE's MACs each cycle, two operations per MAC.
        auto pe_count = figure(t.pe_count, "pe_count");
        if (!pe_count) return pe_count.error();
        auto macs_per_pe = figure(t.macs_per_pe, "macs_per_pe");
        if (!macs_per_pe) return macs_per_pe.error();
        auto clock_ghz = figure(t.clock_ghz, "clock_ghz");
        if (!clock_ghz) return clock_ghz.error();
        cuda_core = *pe_count * *macs_per_pe * 2.0 * *clock_ghz * 1e9;
        r.compute_tops = cuda_core / 1e12;
        if (t.ocm_bytes) r.ocm_bytes = *t.ocm_bytes;
    }
    if (options.calibration) {
        r.calibration = options.calibration;
    } else {
        auto found = calibration_of(catalog, r.target, options.engine);
        if (!found) return found.error();
        r.calibration = *found;
        // Without --engine the target's pooled fit stands, for a plan of any engine: its rows were
        // each planned with their own engine, and on the held-out rows it judges better than the
        // engines' own fits on two rows each (kbp calibrate prints both).
    }
    const Calibration calibration = r.calibration.value_or(Calibration{});
    auto memory = schema::compute_memory(b);
    r.largest_live_bytes = memory.largest_live_bytes;
    r.largest_live_at = memory.largest_live_at;
    r.reserved_bytes = memory.reserved_bytes;
    // On a GPNPU the activations between ops stay in on-chip memory when they fit: the step's
    // DDR traffic is then its weights and state alone.
    r.activations_on_chip = r.ocm_bytes && r.largest_live_bytes <= *r.ocm_bytes;
    const std::map<std::string, double>& peaks = t.peak_tflops;
    const double rows = static_cast<double>(b.arm.rows);
    // Sequences whose caches the step reads: one per row except when one sequence verifies or
    // prefills several tokens.
    const double sequences = (r.mode == "verify" || r.mode == "prefill") ? 1.0 : rows;

    const Wiring wiring = wire(b);
    const schema::PlanFigures figures = schema::plan_figures(b);
    // What the cost needs beyond the edges: the plan's node_costs (kbp's planner records them),
    // so a plan is costed from itself; a plan without them (another planner's) is costed from
    // the catalog's data over the plan's symbols and the widths its edges name, and says so.
    std::unordered_map<std::string_view, const schema::JsonValue*> recorded;
    if (b.node_costs)
        for (const auto& [id, value] : *b.node_costs) recorded.emplace(id, &value);
    std::optional<StateBytes> from_data;
    if (!b.node_costs) {
        from_data.emplace(b, catalog);
        r.notes.push_back("the plan records no node_costs: state and attention FLOPs from the catalog's data over its symbols and the widths its edges name");
        if (!from_data->note().empty()) r.notes.push_back(from_data->note());
    }
    auto measure = [&](std::size_t i, const StateValues& v, StateBytes::Measure m) -> Result<std::int64_t> {
        if (from_data) return from_data->of(b.nodes[i], v, m);
        auto it = recorded.find(b.nodes[i].id);
        if (it == recorded.end()) {
            if (m == StateBytes::flops) return std::int64_t{0};
            return make_error(ErrorCode::invalid_input, "/node_costs", "the plan's node_costs has no entry for it");
        }
        const auto* text = it->second->is_object() ? it->second->find(StateBytes::key(m)) : nullptr;
        if (!text || !text->is_string()) return std::int64_t{0};
        return eval_node_cost(text->string(), v.context, v.rows, v.sequences);
    };
    auto experts_of = [&](std::size_t node) -> std::optional<std::int64_t> {
        if (figures.experts) return figures.experts;
        for (std::size_t k = node; k-- > 0 && b.nodes[k].block == b.nodes[node].block;)
            if (b.nodes[k].op.kind.id == schema::OpId::router && !wiring.out[k].empty()) return wiring.out[k].front()->dim_value;
        return std::nullopt;
    };
    std::vector<std::pair<std::size_t, StateValues>> holders;  // nodes whose caches hold state

    std::vector<GroupCost> groups(b.groups.size());
    for (std::size_t g = 0; g < b.groups.size(); ++g) {
        groups[g].group = static_cast<std::int64_t>(g);
        groups[g].rule = b.groups[g].rule;
    }
    double resident = 0;  // state the caches hold at the context length
    std::vector<double> compute_peak(b.groups.size(), cuda_core);
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        const schema::Node& n = b.nodes[i];
        if (n.group < 0 || n.group >= static_cast<std::int64_t>(groups.size())) continue;
        GroupCost& gc = groups[n.group];
        const auto& p = n.precision;
        // Weights read this step and the FLOPs of a projection (schema/memory.hpp shapes them).
        if (p.weight) {
            const schema::Edge* in = activation_input(wiring.in[i]);
            const schema::Edge* out = wiring.out[i].empty() ? nullptr : wiring.out[i].front();
            auto w = schema::weight_use(b, n, in, out, &figures);
            double per_matrix = static_cast<double>(w.bytes_per_matrix);
            switch (w.kind) {
                case schema::WeightKind::table: {
                    // One row per token, unless the kernel says it streams the whole table.
                    const auto* reads = n.point.find("reads");
                    bool whole = reads && reads->is_string() && reads->string() == "table";
                    gc.weight_bytes += whole ? static_cast<double>(w.stored_bytes) : per_matrix * rows;
                    break;
                }
                case schema::WeightKind::vector: gc.weight_bytes += per_matrix; break;
                case schema::WeightKind::none: break;
                case schema::WeightKind::matrix:
                case schema::WeightKind::experts: {
                    // Latent attention's weights are counted when the plan gives their shape.
                    if (n.op.kind.id == schema::OpId::mla_attention && !n.point.find("weight_n")) break;
                    double k = static_cast<double>(w.k), nn = static_cast<double>(w.n);
                    double matrices = 1, row_factor = rows;
                    if (w.kind == schema::WeightKind::experts) {
                        double top_k = static_cast<double>(figures.top_k.value_or(8));
                        double e = static_cast<double>(experts_of(i).value_or(static_cast<std::int64_t>(top_k)));
                        // Expected distinct experts when each of `rows` tokens routes to top_k of e.
                        matrices = e * (1.0 - std::pow(1.0 - top_k / e, rows));
                        row_factor = rows * top_k;
                    }
                    gc.weight_bytes += per_matrix * matrices;
                    gc.flops += 2.0 * k * nn * row_factor;
                    // The tensor cores run at the peak of the quantized activation's format (W8A8, W4A4),
                    // else of the weight's, else of the activation's: a weight-only format (Marlin's
                    // int4 or NVFP4, bitsandbytes' NF4) is widened to the bf16 activation's format
                    // before the MMA, so it runs at the bf16 peak, not at the CUDA cores'.
                    if (n.compute && n.compute->kind.id == schema::ComputeId::tensor_core) {
                        std::vector<std::string> keys;
                        if (p.activation && is_quantized(*p.activation)) keys.emplace_back(p.activation->name());
                        keys.emplace_back(p.weight->name());
                        if (p.activation) keys.emplace_back(p.activation->name());
                        for (const auto& key : keys)
                            if (peaks.contains(key)) {
                                compute_peak[n.group] = std::max(compute_peak[n.group], peaks.at(key) * 1e12);
                                break;
                            }
                    }
                    break;
                }
            }
        }
        // Activations that cross between kernels: reads here, writes once per tensor.
        for (const auto* e : wiring.in[i])
            if (!e->fused) gc.activation_bytes += static_cast<double>(e->bytes_per_token.value_or(0)) * rows;
        std::vector<std::string> written;
        for (const auto* e : wiring.out[i])
            if (!e->fused && std::find(written.begin(), written.end(), e->id) == written.end()) {
                written.push_back(e->id);
                gc.activation_bytes += static_cast<double>(e->bytes_per_token.value_or(0)) * rows;
            }
        // What the data says the op reads, writes and computes beyond a weight (state_bytes.hpp).
        const StateValues v = state_values(b, wiring, i, options.context, b.arm.rows, static_cast<std::int64_t>(sequences));
        if (auto f = measure(i, v, StateBytes::flops); f && *f > 0) {
            gc.flops += static_cast<double>(*f);
            // Attention's products run on the tensor cores in bf16.
            if (n.compute && n.compute->kind.id == schema::ComputeId::tensor_core && !p.weight && peaks.contains("bf16"))
                compute_peak[n.group] = std::max(compute_peak[n.group], peaks.at("bf16") * 1e12);
        }
        if (n.state && !n.state->empty()) {
            auto bytes = measure(i, v, StateBytes::moved);
            auto held = measure(i, v, StateBytes::held);
            if (bytes && held) {
                gc.state_bytes += static_cast<double>(*bytes);
                resident += static_cast<double>(*held);
                holders.emplace_back(i, v);
            } else {
                if (!bytes) held = bytes;
                std::string note = n.op.name() + " state not costed: " + held.error().message;
                if (std::find(r.notes.begin(), r.notes.end(), note) == r.notes.end()) r.notes.push_back(note);
            }
        }
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
        GroupCost& gc = groups[g];
        const schema::Group& group = b.groups[g];
        double bytes = gc.weight_bytes + (r.activations_on_chip ? 0.0 : gc.activation_bytes) + gc.state_bytes;
        gc.memory_us = bytes / bandwidth * 1e6;
        gc.compute_us = gc.flops / compute_peak[g] * 1e6;
        // A group's time goes to its main family: its first weighted node's, else its first node's.
        for (auto k : group.nodes)
            if (k < static_cast<std::int64_t>(b.nodes.size()) && (gc.family.empty() || b.nodes[k].precision.weight)) {
                gc.family = b.nodes[k].family;
                if (b.nodes[k].precision.weight) break;
            }
        gc.on_host = group.where.id == schema::WhereId::host;
        gc.launches = schema::launches_of(group);
        r.total.launches += gc.launches;
        r.total.weight_bytes += gc.weight_bytes;
        r.total.activation_bytes += gc.activation_bytes;
        r.total.state_bytes += gc.state_bytes;
        r.total.flops += gc.flops;
    }
    r.groups = std::move(groups);
    r.communication = tp_communication(b);  // tensor parallelism's all-reduces (tp_cost.hpp)
    r.target_launch_us = t.launch_overhead_us.value_or(3.0);
    r.total.rule = "step";
    price_step(r, calibration);
    // Does it fit: every weight stored plus the caches at the context length.
    r.resident_state_bytes = resident;
    r.stored_weight_bytes = static_cast<double>(memory.weight_bytes);
    r.tied_head_bytes = static_cast<double>(memory.tied_head_bytes);
    if (const auto* p = b.config_field("max_position_embeddings"); p && p->is_integer() && p->integer() > 0)
        r.max_position_embeddings = p->integer();
    if (t.memory_bytes && *t.memory_bytes > 0) r.memory_bytes = static_cast<double>(*t.memory_bytes);
    // Activations live at once count against memory unless a GPNPU keeps them on chip.
    r.activation_memory_bytes = r.activations_on_chip ? 0.0 : static_cast<double>(r.largest_live_bytes);
    if (r.memory_bytes > 0) {
        r.headroom_bytes = r.memory_bytes - (r.stored_weight_bytes + r.resident_state_bytes + r.activation_memory_bytes);
        // The largest context that fits at the arm's rows: the caches grow with the context
        // (linearly, or up to a sliding window), the weights and activations do not, so the
        // answer is where weights + activations + caches(context) meet the memory.
        auto resident_at = [&](std::int64_t context) {
            double sum = 0;
            for (auto [i, v] : holders) {
                v.context = context;
                v.window = v.sliding_window > 0 ? std::min(context, v.sliding_window) : context;
                if (auto held = measure(i, v, StateBytes::held)) sum += static_cast<double>(*held);
            }
            return sum;
        };
        const double fixed = r.stored_weight_bytes + r.activation_memory_bytes;
        auto fits = [&](std::int64_t context) { return fixed + resident_at(context) <= r.memory_bytes; };
        constexpr std::int64_t beyond = std::int64_t{1} << 32;  // tokens no model is run at: the caches do not limit it
        if (!fits(0)) {
            r.max_context_tokens = 0;
        } else if (!fits(beyond)) {
            std::int64_t lo = 0, hi = beyond;  // fits(lo), !fits(hi)
            while (hi - lo > 1) {
                std::int64_t mid = lo + (hi - lo) / 2;
                (fits(mid) ? lo : hi) = mid;
            }
            r.max_context_tokens = lo;
        }
        r.memory_context_tokens = r.max_context_tokens;
        if (r.max_position_embeddings && (!r.max_context_tokens || *r.max_context_tokens > *r.max_position_embeddings))
            r.max_context_tokens = r.max_position_embeddings;
    }
    return r;
}

namespace {
// Decimal GB, or MB below one GB.
std::string gb(double bytes) {
    char s[64];
    if (std::abs(bytes) >= 1e9)
        std::snprintf(s, sizeof s, "%.1f GB", bytes / 1e9);
    else
        std::snprintf(s, sizeof s, "%.1f MB", bytes / 1e6);
    return s;
}

std::string mb(double bytes) {
    char s[64];
    std::snprintf(s, sizeof s, "%.2f MB", bytes / 1e6);
    return s;
}
}  // namespace

std::string what_if_line(const std::string& reason) { return reason.empty() ? "" : "  WHAT-IF: " + reason + "\n"; }

std::string memory_fit_text(const CostReport& r) {
    const double need = r.stored_weight_bytes + r.resident_state_bytes + r.activation_memory_bytes;
    std::string out = "needs " + gb(need) + " (weights stored " + gb(r.stored_weight_bytes) + " + state " + gb(r.resident_state_bytes) + " at " +
                      std::to_string(r.context) + " tokens x " + std::to_string(r.rows) + " rows + activations " + gb(r.activation_memory_bytes) +
                      ") of " + gb(r.memory_bytes) + ": " +
                      (r.headroom_bytes >= 0 ? "headroom " + gb(r.headroom_bytes) : "short by " + gb(-r.headroom_bytes));
    const bool capped = r.max_context_tokens && r.max_context_tokens != r.memory_context_tokens;
    if (!r.max_context_tokens)
        out += "; the caches do not limit the context";
    else if (*r.max_context_tokens == 0)
        out += "; it does not fit at any context";
    else
        out += "; the largest context that fits is " + schema::with_commas(*r.max_context_tokens) + " tokens x " + std::to_string(r.rows) + " rows";
    if (capped)
        out += r.memory_context_tokens ? " (the model's max_position_embeddings; memory would hold " + schema::with_commas(*r.memory_context_tokens) + ")"
                                       : " (the model's max_position_embeddings; the caches do not limit it)";
    return out;
}

std::string calibration_fixed_costs(const Calibration& c) {
    std::string fixed = c.launch_overhead_us ? schema::fixed(*c.launch_overhead_us, 2) + " us per kernel launch"
                                             : "+" + schema::fixed(c.step_overhead_us, 1) + " us per step";
    if (c.all_reduce_us) fixed += ", " + schema::fixed(*c.all_reduce_us, 2) + " us per all-reduce";
    return fixed;
}

std::string calibration_split_caveat(const Calibration& c, std::int64_t tp) {
    if (c.fitted_tp.empty() || std::find(c.fitted_tp.begin(), c.fitted_tp.end(), tp) != c.fitted_tp.end()) return "";
    std::string fitted;
    for (std::size_t i = 0; i < c.fitted_tp.size(); ++i)
        fitted += (i == 0 ? "" : i + 1 == c.fitted_tp.size() ? " or " : ", ") + std::to_string(c.fitted_tp[i]);
    const bool one = c.fitted_tp.size() == 1 && c.fitted_tp[0] == 1;
    return "the fit rows ran on " + fitted + (one ? " device" : " devices") + " each, this plan on " + std::to_string(tp) +
           ": beyond the all-reduces priced here, a split's cost (sync, smaller kernels) is in those figures as the fit rows paid it";
}

std::string cost_text(const CostReport& r, std::size_t top_groups) {
    char line[512];
    std::string out;
    std::snprintf(line, sizeof line, "cost on %s (%.0f GB/s), arm %s rows %lld, context %lld tokens\n", r.target.c_str(), r.bandwidth_gbps,
                  r.mode.c_str(), static_cast<long long>(r.rows), static_cast<long long>(r.context));
    out += line;
    // Right under the heading: every figure below is read in its light.
    if (r.what_if) out += what_if_line(r.what_if_reason);
    std::snprintf(line, sizeof line, "  per step: weights read %s, activations %s, state %s, %.3f GFLOP\n", mb(r.total.weight_bytes).c_str(),
                  mb(r.total.activation_bytes).c_str(), mb(r.total.state_bytes).c_str(), r.total.flops / 1e9);
    out += line;
    if (r.tied_head_bytes > 0)
        out += "  weights stored " + mb(r.stored_weight_bytes) + ": the LM head reads the tied embedding table (" + mb(r.tied_head_bytes) +
               "), stored once and read twice a step (the gather's rows, the head's whole table)\n";
    const bool calibrated = r.calibration && !r.calibration->is_bare();
    std::snprintf(line, sizeof line, "  %s step time %.1f us over %lld kernel launches in %zu groups -> %.1f tokens/s\n",
                  calibrated ? "calibrated" : "roofline", r.total.time_us, static_cast<long long>(r.total.launches), r.groups.size(), r.tokens_per_s);
    out += line;
    if (calibrated) {
        const std::string fixed = calibration_fixed_costs(*r.calibration);
        std::snprintf(line, sizeof line, "  calibration: %.0f%% of the datasheet bandwidth, %s (%s)\n", 100.0 * r.calibration->bandwidth_efficiency,
                      fixed.c_str(), r.calibration->origin.empty() ? "given" : r.calibration->origin.c_str());
        out += line;
        for (const auto& [family, efficiency] : r.calibration->family_efficiency) {
            std::snprintf(line, sizeof line, "    kernel family %s: %.0f%% of the datasheet bandwidth\n", family.c_str(), 100.0 * efficiency);
            out += line;
        }
        if (auto caveat = calibration_split_caveat(*r.calibration, r.communication.tp); !caveat.empty()) out += "    caveat: " + caveat + "\n";
    }
    TpCost communication = r.communication;
    if (r.calibration) communication.time_us = communication_us(r.communication, *r.calibration);
    out += tp_cost_line(communication);
    if (r.memory_bytes > 0) out += "  memory: " + memory_fit_text(r) + "\n";
    if (r.compute_tops > 0) {
        std::snprintf(line, sizeof line, "  PE array %.1f TOPS; persistent state reserved %s; most live activation %s (before %s)%s\n",
                      r.compute_tops, mb(static_cast<double>(r.reserved_bytes)).c_str(), mb(static_cast<double>(r.largest_live_bytes)).c_str(),
                      r.largest_live_at.c_str(),
                      !r.ocm_bytes            ? ""
                      : r.activations_on_chip ? (" within the " + mb(static_cast<double>(*r.ocm_bytes)) + " OCM: activations cost no DDR time").c_str()
                                              : (" OVER the " + mb(static_cast<double>(*r.ocm_bytes)) + " OCM: activations go through DDR").c_str());
        out += line;
    }
    for (const auto& note : r.notes) out += "  note: " + note + "\n";
    out += "\ntime by kernel family\n";
    for (const auto& [family, us] : r.time_by_family) {
        std::snprintf(line, sizeof line, "  %-28s %10.1f us  %5.1f%%\n", family.c_str(), us, 100.0 * us / r.total.time_us);
        out += line;
    }
    std::vector<const GroupCost*> slowest;
    for (const auto& g : r.groups) slowest.push_back(&g);
    std::stable_sort(slowest.begin(), slowest.end(), [](const auto* a, const auto* b) { return a->time_us > b->time_us; });
    out += "\nslowest groups\n";
    std::snprintf(line, sizeof line, "  %6s %-40s %11s %11s %11s %9s %9s %s\n", "group", "rule", "weights", "activations", "state",
                  "GFLOP", "us", "bound");
    out += line;
    for (std::size_t i = 0; i < std::min(top_groups, slowest.size()); ++i) {
        const auto* g = slowest[i];
        std::snprintf(line, sizeof line, "  %6lld %-40.40s %11s %11s %11s %9.3f %9.1f %s\n", static_cast<long long>(g->group),
                      g->rule.c_str(), mb(g->weight_bytes).c_str(), mb(g->activation_bytes).c_str(), mb(g->state_bytes).c_str(),
                      g->flops / 1e9, g->time_us, g->bound.c_str());
        out += line;
    }
    return out;
}

std::string cost_json(const CostReport& r) {
    Json o = Json::object();
    o["target"] = r.target;
    o["arm"] = {{"mode", r.mode}, {"rows", r.rows}};
    o["context"] = r.context;
    o["memory_bandwidth_gbps"] = r.bandwidth_gbps;
    if (r.compute_tops > 0) {
        o["compute_tops"] = r.compute_tops;
        o["ocm_bytes"] = r.ocm_bytes ? Json(*r.ocm_bytes) : Json(nullptr);
    }
    o["reserved_state_bytes"] = r.reserved_bytes;
    if (r.what_if) {
        o["what_if"] = true;
        o["what_if_reason"] = r.what_if_reason;
    }
    o["memory"] = {{"target_bytes", r.memory_bytes},
                   {"stored_weight_bytes", r.stored_weight_bytes},
                   {"tied_head_bytes", r.tied_head_bytes},
                   {"resident_state_bytes", r.resident_state_bytes},
                   {"activation_bytes", r.activation_memory_bytes},
                   {"headroom_bytes", r.memory_bytes > 0 ? Json(r.headroom_bytes) : Json(nullptr)},
                   {"max_context_tokens", r.max_context_tokens ? Json(*r.max_context_tokens) : Json(nullptr)},
                   {"memory_context_tokens", r.memory_context_tokens ? Json(*r.memory_context_tokens) : Json(nullptr)},
                   {"max_position_embeddings", r.max_position_embeddings ? Json(*r.max_position_embeddings) : Json(nullptr)}};
    o["largest_live_activation_bytes"] = r.largest_live_bytes;
    o["calibration"] = Json(nullptr);
    if (r.calibration) {
        Json families = Json::object();
        for (const auto& [family, efficiency] : r.calibration->family_efficiency) families[family] = efficiency;
        o["calibration"] = Json{{"bandwidth_efficiency", r.calibration->bandwidth_efficiency},
                                {"step_overhead_us", r.calibration->step_overhead_us},
                                {"family_efficiency", std::move(families)},
                                {"launch_overhead_us", r.calibration->launch_overhead_us ? Json(*r.calibration->launch_overhead_us) : Json(nullptr)},
                                {"all_reduce_us", r.calibration->all_reduce_us ? Json(*r.calibration->all_reduce_us) : Json(nullptr)},
                                {"origin", r.calibration->origin},
                                {"fitted_tp", r.calibration->fitted_tp}};
        const std::string caveat = calibration_split_caveat(*r.calibration, r.communication.tp);
        o["calibration"]["caveat"] = caveat.empty() ? Json(nullptr) : Json(caveat);
    }
    o["step"] = {{"weight_bytes", r.total.weight_bytes}, {"activation_bytes", r.total.activation_bytes}, {"launches", r.total.launches},
                 {"state_bytes", r.total.state_bytes},   {"flops", r.total.flops},
                 {"time_us", r.total.time_us},           {"tokens_per_s", r.tokens_per_s}};
    Json families = Json::object();
    for (const auto& [f, us] : r.time_by_family) families[f] = us;
    o["time_us_by_family"] = std::move(families);
    Json groups = Json::array();
    for (const auto& g : r.groups)
        groups.push_back({{"group", g.group}, {"rule", g.rule}, {"weight_bytes", g.weight_bytes}, {"activation_bytes", g.activation_bytes},
                          {"state_bytes", g.state_bytes}, {"flops", g.flops}, {"launches", g.launches}, {"time_us", g.time_us}, {"bound", g.bound}});
    o["groups"] = std::move(groups);
    if (!r.notes.empty()) o["notes"] = r.notes;
    if (r.communication.tp > 1)
        o["parallel"] = {{"tp", r.communication.tp}, {"all_reduces", r.communication.all_reduces},
                         {"all_reduce_bytes", r.communication.bytes},
                         {"time_us", r.calibration ? communication_us(r.communication, *r.calibration) : r.communication.time_us}};
    return o.dump(2) + "\n";
}

std::optional<std::string> memory_fit_warning(const Catalog& catalog, const schema::Blueprint& b, const std::string& config_path) {
    auto cost = estimate_cost(catalog, b, CostOptions{});
    if (!cost || cost->memory_bytes <= 0 || cost->headroom_bytes >= 0) return std::nullopt;
    std::string origin = cost->target;
    Catalog share = catalog.share();
    if (auto target = share.get("targets", cost->target)) origin = (*target)->origin;
    const std::string model = std::filesystem::path(config_path).parent_path().filename().string();
    std::string warning = origin + ": /memory_bytes: " + (model.empty() ? std::string("the model") : model) + " on " + cost->target + " " +
                          memory_fit_text(*cost);
    // How many devices' memory the weights alone need: what --tp must split them over.
    if (cost->stored_weight_bytes > cost->memory_bytes)
        warning += "; its weights need " + std::to_string(static_cast<long long>(std::ceil(cost->stored_weight_bytes / cost->memory_bytes))) +
                   " devices (kbp plan --tp N splits them)";
    return warning;
}

}  // namespace kbp::planner
