#include "cli/commands.hpp"

#include <array>
#include <iostream>

namespace kbp::cli {
namespace {

const std::array<Command, 14> table{{
    {"plan", "plan a model's inference as kernels",
     "usage: kbp plan CONFIG [--arm MODE] [--rows N] [--target NAME|FILE] [--recipe NAME|FILE] [--engine NAME]\n"
     "                [--set key=value]... [--ranges FILE] [--tp N] [--catalog DIR] [-o OUT] [--compact] [-v]\n"
     "       kbp plan CONFIG --arms all|ARM[:ROWS],... -o DIR\n\n"
     "Turns a HuggingFace-style config.json into a kbp-graph/v2 blueprint for one arm (--arm, default\n"
     "decode) at its rows (--rows): decode (default 1) 1 row, multi_seq (default 8) 2-128,\n"
     "verify (default 4) 2-8, draft (default 1) 1, prefill (default 512) the prompt length. The\n"
     "recipe defaults to the config's \"kbp\" hint, else the architecture's default; the target to\n"
     "the config's hint, else the recipe's, else the architecture's; kbp plan says on stderr which\n"
     "it chose when not given ('kbp catalog' lists them). --set overrides a recipe setting; --catalog DIR\n"
     "adds or replaces data files (architectures/, recipes/, targets/, engines/, kernels/, fusion/,\n"
     "explain/, ops/, vocabulary/), each checked against its kind's schema as it loads (a problem:\n"
     "FILE: /pointer: message).\n"
     "--engine NAME plans the launches that engine runs (engines/NAME.json: its kernel tables and fusion\n"
     "rules, each citing the engine's source): vllm, sglang, trtllm, llama.cpp on the GPUs; the\n"
     "default is the recipe's engine, else the target's first (its 'engines' list). The plan records\n"
     "it (provenance.planner_header.engine) and 'kbp stats --cost' applies the calibration fitted on it.\n"
     "-o FILE writes the plan (-o - to standard output); without -o, on a terminal, kbp plan prints a\n"
     "short summary instead (layers, ops, launches, quantization points, weights, the step's cost), and\n"
     "into a pipe the plan's JSON as before.\n"
     "--arms writes one file per arm into DIR ('all' = the 17 arms decode, multi_seq 2-128, verify\n"
     "2-8, draft). Every plan is validated before it is written.\n\n"
     "--tp N (tensor parallelism, default 1) plans one of N devices of the target: the query and KV\n"
     "heads and the MLP / expert intermediate widths are divided by N (a config field N does not\n"
     "divide is refused, naming it), and arm.parallel records the all-reduce after o_proj and after\n"
     "down_proj over the target's interconnect, which 'kbp stats --cost' adds to the step time.\n\n"
     "GPNPU targets (qc-n, qc-p, qc-u; recipe chimera-w4a16) plan FixedPoint32 activations: --ranges\n"
     "FILE gives the calibrated tensor ranges (kbp-ranges/v1) their fractional bits and the custom\n"
     "ops' template arguments follow from; without it they stay unknown (fx32/f?). Knobs: --set\n"
     "proj_mode=packed|fused, imf_headroom=N, fuse_v=true|false, kv_persist_mb=N, seq_len=N.\n\n"
     "--set KEY=VALUE overrides a recipe setting; every setting and its values are in\n"
     "planner/data/vocabulary/settings.json (kv_cache_dtype bf16|f16|fp8|int8, lm_head_dtype a format\n"
     "the target lists, ...): an unknown setting or value, or a format the target lacks, is exit 2.\n"
     "-v names the config fields kbp did not read (the plan lists them in config_fields.unread) and\n"
     "those it took as metadata.\n",
     run_plan},
    {"why", "show the decisions behind one node of a plan",
     "usage: kbp why PLAN NODE_ID [--config FILE] [--catalog DIR]\n\n"
     "Replays the planning recorded in PLAN's provenance and prints, for NODE_ID, the recipe entry\n"
     "that chose its formats, the kernel table row that chose its kernel, the fusion rule that\n"
     "formed its group with the rules it beat, and on a GPNPU how each FixedPoint32 fractional-bit\n"
     "count and custom-op template argument followed from the calibrated ranges.\n\n"
     "The replay reads the plan's inputs again: the config where the plan records it, looked for\n"
     "beside the plan, then from the current directory (--config FILE names it), and every input\n"
     "must have the sha256 the plan records: an edited file is refused, naming it. A plan kbp did\n"
     "not make records no decisions: re-plan its config with kbp plan first.\n",
     run_why},
    {"catalog", "list the targets, recipes and architectures kbp plans with",
     "usage: kbp catalog [targets|recipes|architectures] [--catalog DIR]\n\n"
     "Lists what the planner knows by name, a line each: the name, the first phrase of its\n"
     "description, a recipe's own target, an architecture's model_type values and its default\n"
     "recipe and target. With --catalog DIR, the files DIR adds or replaces are listed with it, and\n"
     "their path is shown. kbp plan --target NAME / --recipe NAME take these names.\n",
     run_catalog},
    {"check", "validate blueprints",
     "usage: kbp check FILE... [--max-problems N] [--quiet]\n\n"
     "Validates each kbp-graph/v2 blueprint: JSON syntax and encoding, member types and ranges,\n"
     "and every invariant of the format (groups, edges, bytes per token, requant, templates,\n"
     "explain). Each problem is printed on stderr as 'FILE: /json/pointer: message' (syntax errors\n"
     "as 'FILE:LINE:COL: message'), at most N per file (default 50) and then a count. A valid GPNPU\n"
     "plan whose FixedPoint32 bits are not all decided (planned without --ranges for some tensors)\n"
     "gets a note on stderr listing those ops.\n"
     "Exit: 0 all valid, 2 some file invalid, 1 usage error.\n",
     run_check},
    {"stats", "summarize a blueprint",
     "usage: kbp stats FILE [--json] [-o OUT]\n"
     "       kbp stats FILE --cost [--context N] [--target NAME|FILE] [--catalog DIR] [--engine NAME] [--json]\n"
     "       kbp stats FILE --cost --sweep context=1k..128k|rows=1..128 [--context N] [--json]\n\n"
     "Prints layers by kind and template, nodes by op / family / compute, groups by fusion rule,\n"
     "inserted quantization points, edges by format, the bytes per token that move between\n"
     "kernels (fused edges excluded) and the state roles by layer. --json prints the same for\n"
     "scripts.\n\n"
     "--cost prints the roofline cost on the target the plan was made with (the file its provenance\n"
     "records, with that sha256; a --catalog DIR target is found by name in DIR; --target costs on\n"
     "another): per step the weight bytes read (MoE: the experts the rows route to), activation\n"
     "bytes between kernels, state bytes (KV / latent cache at --context tokens, default 4096;\n"
     "recurrent and conv state), FLOPs, the time of each group (max of bytes / bandwidth and\n"
     "FLOPs / peak, plus a launch overhead for each kernel the group launches) and the implied\n"
     "tokens/s. A target with a calibration (calibrations/<target>.json, made by kbp calibrate) has\n"
     "its bandwidth efficiency and step or launch overhead applied, and the output says so; --engine\n"
     "NAME applies the fit on that engine's rows alone (calibrations/<target>.<engine>.json) instead.\n"
     "--sweep costs the plan along one axis (doubling from\n"
     "the first value to the last, or a list: context=1024,8192): tokens/s, step time, the share of\n"
     "it that is compute-bound and the memory weights and caches need, with where the step turns\n"
     "compute-bound and where it stops fitting; rows re-costs the plan's own kernels. --json of a\n"
     "sweep is what kbp render draws as a line chart. --context, --target, --catalog, --sweep and\n"
     "--engine go with --cost only.\n",
     run_stats},
    {"calibrate", "fit the cost's efficiency figures on published measurements",
     "usage: kbp calibrate MEASUREMENTS [-o DIR] [--catalog DIR] [--markdown]\n\n"
     "Reads a kbp-measurements/v1 file (samples/measurements.json: published single-request decode\n"
     "throughput, each row with its source and a `split`), plans every row kbp can (its kbp_sample\n"
     "config, its own kbp_recipe or the one kbp_recipes gives its precision, its device as the\n"
     "target, its devices all tensor-parallel: --tp) for\n"
     "its batch as a decode arm, and costs it at its mean context (prompt + half the output). For each\n"
     "target it fits, on that target's `fit` rows alone, the fraction of the datasheet bandwidth\n"
     "memory-bound kernels reach and, on more than two rows, a fixed overhead per step or per\n"
     "kernel launch, with a cost per all-reduce where its rows split models over several devices.\n"
     "Each row is planned with the engine it was measured on (engines/*.json's\n"
     "measured_as names it), so the launches it is fitted on are that engine's; an engine with two or\n"
     "more of a target's fit rows (not all) gets a fit of its own, applied by kbp stats --cost\n"
     "--engine. `held_out` rows are only judged, and each fit\n"
     "row is also priced by a fit on its target's other fit rows (left out).\n"
     "Prints every row: measured tok/s, the bare roofline, the fitted estimate, ratio and error, the\n"
     "engine's and the left-out estimates, and why a row was not costed; then the figures per target\n"
     "and the errors on rows a fit never saw, and each configuration measured twice with how far\n"
     "apart its rows are beyond what the fit explains (--markdown: as a table). -o DIR writes DIR/calibrations/<target>.json (and <target>.<engine>.json), which\n"
     "--catalog DIR (or a copy in\n"
     "planner/data/calibrations/) makes kbp stats --cost apply.\n",
     run_calibrate},
    {"tune", "choose each module's format by what it costs on the device, within a budget",
     "usage: kbp tune CONFIG --candidates R1,R2,... --budget KIND=VALUE -o PLAN [--recipe BASE] [--target T]\n"
     "                [--arm A] [--rows N] [--engine E] [--tp N] [--context C] [--set k=v]... [--sensitivity FILE]\n"
     "                [--objective time|memory|sensitivity] [--frontier OUT.json] [--json] [--catalog DIR]\n\n"
     "Plans the model with the base recipe (--recipe, default bf16) and once with each candidate recipe,\n"
     "prices every decision unit in each (the modules an engine runs as one: a layer's q/k/v, its\n"
     "gate/up, o_proj, down_proj, its routed experts, a shared expert, lm_head; routers, norms and the\n"
     "embedding stay at the base) by the kernel groups it owns at kbp's calibrated cost, and chooses\n"
     "one option per unit that minimises the objective (default: the step time) within the budget:\n"
     "memory=40GB (weights and state at --context, default 4096, as the memory fit counts them),\n"
     "effective_bits=4.8 (ModelOpt's: bits per weight over the units' parameters), sensitivity=X\n"
     "(the chosen options' scores summed) or tokens_s=N. The search is exact over Pareto fronts (it\n"
     "says so, or the gap to optimal when it had to thin them). Every candidate plan keeps the base's\n"
     "KV cache format; a candidate the target cannot plan is said and skipped, as is an option with\n"
     "no kernel for a unit at the arm's rows.\n\n"
     "--sensitivity FILE (kbp-sensitivity/v1: Hugging Face module -> candidate or format -> score)\n"
     "scores the options; modules it does not name stay at the base. Without it, llama.cpp's\n"
     "use_more_bits layer rule is the prior (a heuristic, said on the output).\n\n"
     "Writes the tuned plan to -o (an ordinary plan: each moved node's formats and why, the budget,\n"
     "the chosen point and the sensitivity file's digest under provenance.planner_header.tune) and\n"
     "prints the base, estimated and planned figures, the frontier and the units that moved (--json:\n"
     "kbp-frontier/v1, also written by --frontier). A budget no choice meets is exit 2, naming the\n"
     "least any choice reaches.\n",
     run_tune},
    {"fmt", "rewrite a blueprint canonically",
     "usage: kbp fmt FILE [-o OUT] [--compact] [--force]\n\n"
     "Writes FILE in canonical form: members in the format's order, 2-space indentation (or one\n"
     "line with --compact), a final newline. The same blueprint always gives the same bytes.\n"
     "OUT defaults to '-' (stdout); a file is written to a temporary name and renamed. An invalid\n"
     "blueprint is refused unless --force.\n",
     run_fmt},
    {"expand", "flat form from the collapsed form",
     "usage: kbp expand FILE -o OUT [--compact]\n\n"
     "Expands the collapsed form (layer templates + layout) into the flat nodes, edges and groups.\n"
     "When FILE also has flat lists, they must equal the expansion; the result is validated\n"
     "before it is written.\n",
     run_expand},
    {"collapse", "collapsed form from the flat form",
     "usage: kbp collapse FILE -o OUT [--only] [--compact]\n\n"
     "Rebuilds the collapsed form from the flat lists: one template per layer shape, with the\n"
     "detail (steps, tensors, group rules) that makes it expand back losslessly; the expansion is\n"
     "checked equal to the flat lists before writing. --only leaves the flat lists out.\n",
     run_collapse},
    {"export", "write a plan as DOT, JSON, Model Explorer JSON, a compile stage's input or a quantization config",
     "usage: kbp export dot|json|model-explorer PLAN [-o OUT] [--view flat|groups|collapsed]\n"
     "                  [--layers 3-7] [--block dsa] [--color MODE] [--title TEXT] [--no-legend]\n"
     "       kbp export stage PLAN --out DIR [--force]\n"
     "       kbp export quant PLAN --to compressed-tensors|modelopt|llama-quantize [-o OUT] [--catalog DIR]\n\n"
     "dot: Graphviz DOT (read back by Graphviz's own parser). --view flat (the default) draws every op, clustered\n"
     "layer > block > fused group; groups draws one box per kernel launch (rule, kernels, member\n"
     "ops); collapsed draws one cluster per layer template ('kda+moe x 31') and the port edges\n"
     "between templates. --layers (a range or list: 3, 3-7, 0-2,7) and --block (a block type such\n"
     "as dsa, or an id such as l3.dsa) cut a piece out; ops outside the cut that an edge reaches\n"
     "are drawn as dashed stubs. --color precision|family|compute|where|state picks what the fill\n"
     "shows (default precision: the narrowest format an op touches); quantization points and\n"
     "state-owning ops stand out in every mode; edges carry format and bytes per token.\n"
     "json: the same view for scripts (kbp-view/v1). model-explorer: the flat view as Google Model\n"
     "Explorer graph JSON (namespaces layer/block/group; attributes precision, kernel, bytes).\n"
     "OUT defaults to '-' (stdout). The same plan and options always give the same bytes.\n\n"
     "stage: the input of a staged compile pipeline's stage in DIR/<stage>/<tag>/: build_knobs.json,\n"
     "ops.json (launches; per op its kernel or custom op, template arguments, fractional bits,\n"
     "weights, inputs and outputs) and STAGE.json (every input's and output's sha256, the knobs, kbp's\n"
     "version). The tag is the model (its config's folder and a digest of what kbp read from the\n"
     "config), then the knobs, so two models' stages sit side by side: a GPNPU plan feeds\n"
     "custom_op/<model>_<knob tag> (sarashina2.2-3b-<8 hex>_packed_hr2), a GPU plan\n"
     "launches/<model>_<recipe>_<arm>-r<rows>.\n"
     "Unchanged inputs rewrite nothing; other knobs write beside it under another tag; a stage whose\n"
     "files were edited or lost is refused (exit 2) unless --force rebuilds it. A plan whose\n"
     "FixedPoint32 bits are not all decided (no --ranges) is refused (exit 4).\n\n"
     "quant: the plan's precision under the checkpoint's module names (the plan's modules), as the\n"
     "quantization_config llm-compressor writes and vLLM reads (compressed-tensors: one group per\n"
     "weight x activation scheme, 'Linear' or re: targets, ignore, kv_cache_scheme), as ModelOpt's\n"
     "hf_quant_config.json (modelopt: quant_algo or MIXED_PRECISION with quantized_layers,\n"
     "exclude_modules, kv_cache_quant_algo), or as llama.cpp's llama-quantize arguments (JSON with\n"
     "the command line: --pure, the base type, --tensor-type per GGUF tensor group). Put the first in\n"
     "config.json's quantization_config, the second beside it, and kbp plan without --recipe plans\n"
     "the same formats. A format the form has no row for (planner/data/quantizers/) is refused,\n"
     "naming the node and module (exit 2); a plan without module names or quantized modules, exit 4.\n"
     "Exit: 0 ok, 1 usage error, 2 invalid plan or damaged stage, 3 output not written, 4 plan not finished.\n",
     run_export},
    {"render", "draw a plan, a cost sweep or a tune frontier as SVG or PNG (Graphviz)",
     "usage: kbp render PLAN -o OUT.svg|OUT.png [--format svg|png] [--view flat|groups|collapsed]\n"
     "                  [--layers 3-7] [--block dsa] [--color MODE] [--title TEXT] [--no-legend] [--force]\n"
     "       kbp render SWEEP|FRONTIER -o OUT.svg|OUT.png [--title TEXT]\n\n"
     "Lays out the view 'kbp export dot' writes with Graphviz's dot engine and renders it (PNG\n"
     "through cairo). Layout time grows with the square of the view: past 1,000 nodes kbp says how\n"
     "long it will take (the seed's 1,740-op flat view: ~7 s) and what is quicker; past 2,000 nodes\n"
     "it does not lay out (exit 4) and suggests --view collapsed, --view groups, --layers or\n"
     "--block; --force lays it out anyway. The format follows OUT's extension unless --format.\n"
     "--block TYPE (dsa) draws each distinct block of that type once, titled with how many it stands\n"
     "for ('l3.dsa × 11'); --block ID (l7.dsa) that block. --layers with a gap (0-1,3) notes the\n"
     "layers not shown between the ones drawn.\n"
     "A cost sweep (kbp stats --cost --sweep ... --json) is drawn as a line chart of tokens/s,\n"
     "memory- and compute-bound points coloured, where it does not fit shaded. A frontier (kbp tune\n"
     "--frontier, kbp-frontier/v1) is drawn as its Pareto points over the budget's measure, tokens/s\n"
     "up (or the objective, memory or sensitivity), joined as a step line; the base recipe, the chosen\n"
     "point and the budget marked. A chart's PNG is its SVG drawn by Graphviz's cairo renderer.\n"
     "Exit: 0 ok, 1 usage error, 2 invalid plan, sweep or frontier, 3 output not written, 4 too large or\n"
     "not rendered.\n",
     run_render},
    {"diff", "what changed between two plans",
     "usage: kbp diff A B [--json] [-o OUT] [--max-items N] [--each-layer]\n\n"
     "Matches the nodes of plans A and B by id, their groups by the first node of each, their edges\n"
     "by tensor and ends, and reports what was added, removed and changed: every field that differs\n"
     "(formats, kernel, family, steps, group rule and members, bytes per token in and out, ...) with\n"
     "its old and new value, and the totals that moved (kernel launches, quantization points, bytes\n"
     "per token between kernels, ...). --json writes the same as kbp-diff/v1 JSON\n"
     "(diff/kbp-diff-v1.schema.json); --max-items lists at most N items of each kind (default 40,\n"
     "0 = all) in the report. The report lists a change made the same way in several layers once,\n"
     "with those layers ('~ l*.attn.q  in 36 layers: 0-35'; ids relative to the layer, l*+1 the next);\n"
     "--each-layer lists every layer's items on their own. The same two plans always give the same bytes.\n"
     "Exit (as diff and cmp): 0 equal, 1 different, 2 trouble (usage error, unreadable or invalid\n"
     "plan), 3 output not written. A CI job can guard a plan: kbp diff expected.json new.json.\n",
     run_diff},
    {"view", "open plans in the desktop viewer (kbp-view)",
     "usage: kbp view PLAN [PLAN2] [kbp-view options]\n\n"
     "Starts kbp-view, the desktop viewer: the plan top to bottom with layers folded into their\n"
     "templates, colour by precision / family / compute / where / state / bytes / roofline bound, an\n"
     "inspector, find, overview panels and, with two plans, their diff. 'kbp-view --help' lists its\n"
     "options. kbp itself needs no display; kbp-view does.\n",
     run_view},
}};

}  // namespace

std::span<const Command> commands() { return table; }

const Command* find_command(const std::string& name) {
    for (const auto& c : table)
        if (name == c.name) return &c;
    return nullptr;
}

std::vector<std::string> command_names() {
    std::vector<std::string> out;
    for (const auto& c : table) out.push_back(c.name);
    return out;
}

namespace {
std::string running_command;
}  // namespace

void set_running(const char* command) { running_command = command; }

std::string prefix(const char* severity) {
    return (running_command.empty() ? std::string("kbp") : "kbp " + running_command) + ": " + severity + ": ";
}

int report(const Error& error) {
    std::cerr << prefix("error") << error.text() << "\n";
    return exit_code(error.code);
}

int usage_error(const std::string& command, const std::string& message) {
    std::cerr << "kbp " << command << ": error: " << printable(message) << " (see 'kbp " << command << " --help')\n";
    return exit_code(ErrorCode::usage);
}

void warn(const std::string& text) { std::cerr << prefix("warning") << printable(text) << "\n"; }

}  // namespace kbp::cli
