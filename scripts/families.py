#!/usr/bin/env python3
"""Plan every bundled model family on every arm and print what issue 10 asks to see.

For each sample under samples/ (a config.json whose "kbp" member names its published parameter
counts) and each (target, recipe) pair and arm, `kbp plan` runs; the table gives its exit code,
nodes, groups, the weight bytes one step reads, the plan's parameter counts against the model
card, and the KV (or latent) cache bytes one token adds to one layer against the formula from the
config alone (2 x kv_heads x head_dim, or kv_lora_rank + qk_rope_head_dim for latent attention).
B/param divides a decode step's weight bytes by the parameters one token reads by the card: all of
them but the embedding table (which it reads one row of; tied, the LM head reads it all) for a
dense model (counted from kbp's own total where the card rounds coarsely and gives a
total_tolerance), the card's active count for a MoE. With the bf16 recipe it must be 2.00 within 1 %
for a dense model (the card's counts of MoE active parameters are rounded).

usage: scripts/families.py [--kbp build/cli/kbp] [--samples DIR]
Exit 1 when a plan fails or a count is off (parameters beyond 0.1 % of a published count, or the
card's own "total_tolerance" where its count is rounded and says why (GLM-4.6's 355B),
active beyond 2.5 % of a rounded one; KV not equal to the formula; bf16 bytes per parameter).
"""
import argparse, json, os, subprocess, sys, tempfile

ARMS = [("decode", None), ("multi_seq", 64), ("prefill", 512)]
PAIRS = [("h100", "bf16"), ("h100", "fp8-dynamic"), ("b200", "nvfp4")]
CACHE_BYTES = {"fp8": 1, "bf16": 2, "f16": 2, "f32": 4, "int8": 1}


def language_config(cfg, architectures):
    """The config kbp plans: a wrapper's text_config (gemma3, llava, ...), under the defaults its
    architecture gives for fields the config leaves out (config_defaults: Gemma3TextConfig's)."""
    text = cfg.get("text_config") or cfg
    for arch in architectures:
        if text.get("model_type") in arch.get("model_types", []):
            return {**arch.get("config_defaults", {}), **text}
    return text


def kv_formula(cfg):
    if "kv_lora_rank" in cfg:
        return cfg["kv_lora_rank"] + cfg["qk_rope_head_dim"]
    if cfg.get("model_type") == "deepseek_v4":
        return cfg["head_dim"]  # one shared key, which is also the value
    heads = cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads") or heads
    hd = cfg.get("head_dim") or cfg["hidden_size"] // heads
    return 2 * kv * hd


def plan_figures(plan):
    nodes, edges = plan["nodes"], plan["edges"]
    kv_values, cache = 0, None
    # The first layer with a cache: layer 0, but for a hybrid whose first layers are linear attention.
    for i, n in enumerate(nodes):
        if n.get("op") == "kv_write" and n.get("layer") is not None:
            kv_values = sum(e["dim_value"] for e in edges if e["to"] == i)
            cache = next((s.split()[1] for s in n.get("steps", []) if s.startswith("cache ")), None)
            break
    return len(nodes), len(plan.get("groups", [])), kv_values, cache


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--kbp", default=os.path.join(root, "build", "cli", "kbp"))
    ap.add_argument("--samples", default=os.path.join(root, "samples"))
    a = ap.parse_args()
    arch_dir = os.path.join(root, "planner", "data", "architectures")
    architectures = [json.load(open(os.path.join(arch_dir, f))) for f in sorted(os.listdir(arch_dir)) if f.endswith(".json")]
    # An architecture that extends another inherits its config_defaults (planner/architecture_extends.hpp).
    by_name = {arch["name"]: arch for arch in architectures}
    def inherited_defaults(arch):
        parent = by_name.get(arch.get("extends"), {})
        merged = {**(inherited_defaults(parent) if parent else {}), **arch.get("config_defaults", {})}
        return {k: v for k, v in merged.items() if v is not None}
    for arch in architectures:
        arch["config_defaults"] = inherited_defaults(arch)
    bad = 0
    print(f"{'sample':<21} {'model_type':<12} {'target/recipe':<20} {'arm':<13} {'exit':>4} {'nodes':>6} {'groups':>6} "
          f"{'weights/step':>13} {'B/param':>7} {'params (card)':>26} {'active (card)':>24} {'KV B/tok/layer (formula)':>25}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(a.samples)):
            path = os.path.join(a.samples, name, "config.json")
            if not os.path.exists(path):
                continue
            cfg = json.load(open(path))
            card = cfg.get("kbp", {}).get("parameters")
            if not card or cfg.get("model_type") == "llama" and cfg.get("kbp", {}).get("target", "").startswith("qc-"):
                continue
            hint = (cfg["kbp"].get("target"), cfg["kbp"].get("recipe"))
            pairs = list(PAIRS) + ([hint] if hint[0] and hint not in PAIRS else [])
            for target, recipe in pairs:
                for arm, rows in ARMS:
                    out = os.path.join(tmp, "p.json")
                    # No recipe hint: the checkpoint's own precision (its quantization_config).
                    cmd = [a.kbp, "plan", path, "--arm", arm, "--target", target, "-o", out] + (["--recipe", recipe] if recipe else [])
                    if rows:
                        cmd += ["--rows", str(rows)]
                    rc, _, err = run(cmd)
                    label = f"{arm}" + (f" {rows}" if rows else "")
                    if rc != 0:
                        bad += 1
                        print(f"{name:<21} {cfg['model_type']:<12} {target + '/' + (recipe or 'own'):<20} {label:<13} {rc:>4}  {err.strip()[:160]}")
                        continue
                    plan = json.load(open(out))
                    nodes, groups, kv_values, cache = plan_figures(plan)
                    rc2, stats, _ = run([a.kbp, "stats", out, "--cost", "--json"])
                    st = json.loads(stats) if rc2 == 0 else {}
                    wbytes = st.get("step", {}).get("weight_bytes", float("nan"))
                    rc3, summary, _ = run([a.kbp, "stats", out, "--json"])
                    memory = json.loads(summary)["memory"] if rc3 == 0 else {}
                    total, active = memory.get("parameters"), memory.get("active_parameters")
                    # A wrapper's card counts its vision tower too, which kbp does not plan ("unplanned").
                    planned_total = card["total"] - card.get("unplanned", 0)
                    p_err = (total - planned_total) / planned_total if total else float("nan")
                    a_err = (active - card["active"]) / card["active"] if card.get("active") else 0.0
                    kv_b = kv_values * CACHE_BYTES.get(cache, 0)
                    kv_f = kv_formula(language_config(cfg, architectures)) * CACHE_BYTES.get(cache, 0)
                    ok = abs(p_err) <= card.get("total_tolerance", 0.001) and abs(a_err) <= card.get("active_tolerance", 0.025) and kv_b == kv_f
                    # The parameters a decode step reads, by the card (kbp's own active count for a MoE
                    # whose card gives none: Qwen3-Next's "3B" is its name, not a count; kbp's own total
                    # for a dense model whose card rounds to whole billions and says so with a
                    # total_tolerance: Nemotron-H's "8B" and "9B" are 8.10B and 8.89B).
                    moe = any((cfg.get(k) or 0) > 0 for k in ("num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts"))
                    lang = language_config(cfg, architectures)
                    tied = lang.get("tie_word_embeddings", lang["model_type"].startswith("gemma"))
                    if card.get("active"):
                        reads = card["active"]
                    elif moe:
                        reads = active
                    else:
                        whole = total if card.get("total_tolerance") else planned_total
                        reads = whole - (0 if tied else lang["vocab_size"] * lang["hidden_size"])
                    per_param = wbytes / reads if arm == "decode" else float("nan")
                    if arm == "decode" and recipe == "bf16" and not card.get("active") and not moe:
                        ok = ok and abs(per_param / 2 - 1) <= 0.01
                    bad += not ok
                    act = f"{active / 1e9:.3f}B ({card['active'] / 1e9:.2f}B {a_err:+.1%})" if card.get("active") else "-"
                    print(f"{name:<21} {cfg['model_type']:<12} {target + '/' + (recipe or 'own'):<20} {label:<13} {rc:>4} {nodes:>6} {groups:>6} "
                          f"{wbytes / 1e6:>10.1f} MB {'' if per_param != per_param else f'{per_param:.3f}':>7} {total / 1e9:>9.3f}B ({card['card']:>6} {p_err:+.2%}) {act:>24} "
                          f"{kv_b:>10} ({kv_f}, {cache}){'' if ok else '  <-- off'}")
    print(f"\n{'all plans formed and every count holds' if not bad else str(bad) + ' problems'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
