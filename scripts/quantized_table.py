#!/usr/bin/env python3
"""The table of published quantized checkpoints as kbp plans them from their own config.

For every sample that declares its precision (a quantization_config in config.json, or an
hf_quant_config.json beside it): plan it with no recipe (on its default target, else on the first
of --targets whose formats and kernels serve it), and print kbp's formats by module kind
(attention, MLP, experts, shared experts, router, LM head, KV cache) and the weight bytes the plan
stores against the checkpoint's published size on disk (samples/quantized/sizes.json), where known.

Usage: scripts/quantized_table.py --kbp build/cli/kbp [--samples samples] [--json OUT]
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

KINDS = ["attention", "mamba", "mlp", "experts", "shared", "router", "lm_head"]


def declares_precision(config_path):
    with open(config_path) as f:
        c = json.load(f)
    if any(k in c for k in ("quantization_config", "compression_config")):
        return True
    if isinstance(c.get("text_config"), dict) and "quantization_config" in c["text_config"]:
        return True
    return os.path.exists(os.path.join(os.path.dirname(config_path), "hf_quant_config.json"))


def kind_of(node):
    op = node["op"]
    block = node.get("block_type", "")
    if op == "lm_head":
        return "lm_head"
    if op == "router":
        return "router"
    if op.startswith("expert_"):
        return "experts"
    if not op.startswith("linear:"):
        return None
    if block in ("attn", "mla", "dsa", "kda", "gattn", "swa") or "attn" in block:
        return "attention"
    if "mamba" in block:
        return "mamba"
    if block == "moe" or "shared" in node["id"]:
        return "shared"
    return "mlp"


def summarize(plan):
    by_kind = collections.defaultdict(collections.Counter)
    kv = collections.Counter()
    for n in plan["nodes"]:
        p = n.get("precision", {})
        if n["op"] == "kv_write":
            for s in n.get("steps", []):
                if s.startswith("cache "):
                    kv[s[6:]] += 1
        k = kind_of(n)
        if k is None or "weight" not in p:
            continue
        by_kind[k][p["weight"] + (" x " + p["activation"] if p.get("activation") and p["activation"] != "bf16" else "")] += 1
    cells = {}
    for k in KINDS:
        c = by_kind.get(k)
        cells[k] = ", ".join(f if len(c) == 1 else f"{f} ({n})" for f, n in sorted(c.items(), key=lambda x: -x[1])) if c else ""
    cells["kv_cache"] = ", ".join(sorted(kv)) if kv else ""
    return cells


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kbp", required=True)
    ap.add_argument("--samples", default=os.path.join(os.path.dirname(__file__), "..", "samples"))
    ap.add_argument("--targets", default="b200", help="targets to try, in order, when the default cannot serve the checkpoint")
    ap.add_argument("--json", help="also write the rows as JSON")
    args = ap.parse_args()
    sizes_path = os.path.join(args.samples, "quantized", "sizes.json")
    sizes = json.load(open(sizes_path)).get("sizes", {}) if os.path.exists(sizes_path) else {}
    configs = sorted(glob.glob(os.path.join(args.samples, "quantized", "*", "config.json")) + glob.glob(os.path.join(args.samples, "*", "config.json")))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for config in configs:
            if not declares_precision(config):
                continue
            name = os.path.basename(os.path.dirname(config))
            out = os.path.join(tmp, name + ".json")
            tried, result, target = [None] + args.targets.split(","), None, None
            for t in tried:
                cmd = [args.kbp, "plan", config, "-o", out] + (["--target", t] if t else [])
                result = run(cmd)
                if result.returncode == 0:
                    target = t or "default"
                    break
            row = {"sample": name}
            if result.returncode != 0:
                row["refused"] = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else f"exit {result.returncode}"
                rows.append(row)
                continue
            plan = json.load(open(out))
            defaults = [l for l in result.stderr.splitlines() if "precision from" in l]
            row["target"] = plan.get("provenance", {}).get("commands", [""])[0].split("--target ")[-1].split()[0] if target != "default" else target
            row["how"] = defaults[0].split("precision from ", 1)[1].split(": ", 1)[0] if defaults else ""
            row.update(summarize(plan))
            stats = run([args.kbp, "stats", out, "--cost", "--json"])
            weights = json.loads(stats.stdout)["memory"]["stored_weight_bytes"] if stats.returncode == 0 else None
            row["weight_bytes"] = weights
            if name in sizes:
                row["published_bytes"] = sizes[name]["bytes"]
                row["delta_percent"] = round(100.0 * (weights - sizes[name]["bytes"]) / sizes[name]["bytes"], 2) if weights else None
            rows.append(row)
    head = ["sample", "target", "attention", "mamba", "mlp", "experts", "shared", "router", "lm_head", "kv_cache", "weights GB", "published GB", "Δ"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        if "refused" in r:
            print(f"| {r['sample']} | refused: {r['refused']} |" + " |" * (len(head) - 2))
            continue
        gb = lambda b: f"{b / 1e9:.2f}" if b else "—"
        delta = f"{r['delta_percent']:+.2f} %" if r.get("delta_percent") is not None else "—"
        print("| " + " | ".join([r["sample"], r["target"]] + [r[k] or "—" for k in KINDS + ["kv_cache"]] + [gb(r["weight_bytes"]), gb(r.get("published_bytes")), delta]) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if all("refused" not in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
