// kbp tune: per-module mixed precision chosen by what it costs on the device. The model is
// planned once with the base recipe and once with each candidate (the same target, arm, rows,
// engine, context and KV cache format); in each plan every decision unit (units.hpp) is priced
// by the kernel groups it owns: its own GEMMs and the groups whose outputs only it reads (the
// quantizer before it, a norm or SiLU·mul that carries its input's quantization), at kbp's
// calibrated cost. Those prices add up over the units (what no unit owns is fixed), so a choice
// is found without planning it (search.hpp), and the chosen assignment is planned once at the
// end: its cost is stated beside the estimate, and the plan is an ordinary plan whose nodes carry
// their unit's choice (PlanRequest::node_formats) and whose provenance records the tuning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "planner/plan.hpp"
#include "schema/result.hpp"
#include "tune/units.hpp"

namespace kbp::tune {

// What a budget limits or the objective minimises.
enum class Measure { time, memory, effective_bits, sensitivity, tokens_s };
std::string_view measure_name(Measure m);  // "time", "memory", "effective_bits", ...

struct Budget {
    Measure kind = Measure::memory;
    double value = 0;  // bytes, bits per weight, a score, tokens/s
    std::string text;  // as given: "memory=40GB"
};
// "memory=40GB" (GB, GiB, MB, MiB or bytes), "effective_bits=4.8", "sensitivity=0.05",
// "tokens_s=150". An error says what is accepted.
Result<Budget> parse_budget(std::string_view text);
// "time", "memory" or "sensitivity".
std::optional<Measure> parse_objective(std::string_view text);

struct TuneRequest {
    planner::PlanRequest base;  // the model, target, arm, rows, engine, tp, settings; recipe = the base (default bf16)
    std::vector<std::string> candidates;  // recipe names or paths
    std::optional<std::string> sensitivity;  // a kbp-sensitivity/v1 file; without it, llama.cpp's layer rule as a prior
    Budget budget;
    Measure objective = Measure::time;
    std::int64_t context = 4096;  // tokens in the cache, for the step time and the memory fit
};

// One unit's option: the base (index 0) or a candidate, as its plan prices it.
struct UnitOption {
    std::string candidate;       // recipe name
    bool available = true;       // planned, with a kernel for every node of the unit
    std::string why_not;         // when not available
    double time_us = 0;          // the groups it owns, a step
    double stored_bytes = 0;     // its weights as stored
    double parameters = 0;       // weight elements
    double score = 0;            // sensitivity
    std::int64_t quant_points = 0;  // inserted quantizers in the groups it owns
    std::vector<std::pair<std::string, planner::NodeFormats>> formats;  // node id -> its formats
};

struct TunedUnit {
    Unit unit;
    std::vector<UnitOption> options;  // base first, then the candidates in order
    int chosen = 0;
    bool scored = true;  // the sensitivity file names it (else it stays at the base)
};

// A plan's figures on the four measures a budget can name (and tokens/s).
struct Figures {
    double time_us = 0, memory_bytes = 0, effective_bits = 0, sensitivity = 0, tokens_s = 0;
};

struct TuneResult {
    planner::PlanOutput plan;             // the tuned plan, ready to write
    std::vector<TunedUnit> units;
    std::vector<std::string> options;     // base, then the candidates that planned
    std::vector<std::string> notes;       // candidates skipped and why, the prior used
    Figures estimated;                    // by the units' prices
    Figures planned;                      // of the tuned plan, costed whole
    Figures base;                         // the base recipe's plan
    // A bits-only allocation at the tuned plan's effective bits, for comparison: units lowered
    // greedily by the least score per bit saved (how ModelOpt's auto_quantize ranks; with the
    // prior as the scores, llama.cpp's layer rule), then planned and costed whole.
    std::optional<Figures> bits_only;
    std::vector<int> bits_only_pick;
    std::vector<Figures> frontier;        // every Pareto point of (objective, budget measure)
    double gap = 0;                       // objective units: how far from optimal at most
    bool thinned = false;
    std::string sensitivity_origin;
    Budget budget;
    Measure objective = Measure::time;
    int plans_made = 0;
};

// Exit 2 (invalid_input) for a budget no choice meets, naming the smallest achievable, and for a
// sensitivity file that is malformed or names modules the model lacks.
Result<TuneResult> tune(const planner::Planner& planner, const TuneRequest& request);

// The summary, the frontier (at most `frontier_rows` points, spread) and the units that moved.
std::string tune_text(const TuneResult& result, std::size_t frontier_rows = 12);
// kbp-frontier/v1: the budget, the objective, every frontier point and the chosen one.
std::string frontier_json(const TuneResult& result);

}  // namespace kbp::tune
