#!/usr/bin/python3
"""Seeded single mutations of kbp's planner data files and sample configs, each planned.

Usage:
    mutate_data.py --kbp PATH [--seed N] [--data N] [--configs N] [--timeout S] [--show N] [--keep DIR]

Each of the --data runs copies one data file of planner/data/ (every file in turn) with one
random mutation into a temporary catalog folder and plans, through `kbp plan --catalog DIR`, a
sample that reads that file (a random one when no sample does); each of the --configs runs
mutates one samples/*/config.json (every sample in turn) and plans it. A mutation is one of:
a member or item deleted, a member renamed to a near miss, a value replaced by one of another
type, an array or object emptied, a string replaced by a near miss or junk, a number made
negative, zero, fractional or huge. The arm is random among those the sample's target serves.

Every run ends in one of these outcomes:
    planned      exit 0, and `kbp check` accepts the plan written
    refused      exit 2 or 4 with the error located: "FILE: /json/pointer: message" or
                 "FILE:LINE:COL: message", FILE one of the run's inputs; counted apart when the
                 error names neither the mutated file nor a member of it ("elsewhere")
    FAILED       anything else: a signal, exit 134/139, an internal error, a time-out, an error
                 without a file and pointer, another exit code, or a plan `kbp check` rejects

Prints the counts per outcome for data files and configs, and the first --show failures (and
errors located elsewhere) with the mutation that caused them. Exit status: 0 no run FAILED,
1 some did, 2 usage or set-up trouble. Needs only the Python standard library.
"""

import argparse
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "planner", "data")
SKIPPED_KINDS = {"schemas"}  # built into kbp, not data a catalog folder overrides

ARMS = [("decode", 1), ("multi_seq", 2), ("multi_seq", 16), ("multi_seq", 64), ("verify", 4), ("draft", 1), ("prefill", 512)]
JUNK = ["", "x", "???", "re:(", "{", "{=1/0}", "*", "fp8/tokn", "linear:", "../../etc/passwd", "\u00e9\u00e9", "a" * 300, "0", "-1"]
HUGE = [2**31, 2**32, 2**53, 2**62, 2**63 - 1, 2**64, 10**30, 1e300]

ERROR_LINE = re.compile(r"^kbp \w+: error: ")
# A pointer runs to the ": " before the message: its tokens may hold spaces (an engine's
# "sources" are keyed by topic, "norm and activation quant fusion").
LOCATED = re.compile(r"^kbp \w+: error: (?P<file>[^\s]+?)(?::(?P<line>\d+):(?P<col>\d+)|: (?P<pointer>/.*?))(?:: |$)")


def data_files():
    out = []
    for dirpath, _, names in os.walk(DATA):
        for name in names:
            path = os.path.join(dirpath, name)
            relative = os.path.relpath(path, DATA)
            if name.endswith(".json") and relative.split(os.sep)[0] not in SKIPPED_KINDS:
                out.append(relative.replace(os.sep, "/"))
    return sorted(out)


def samples():
    out = []
    for name in sorted(os.listdir(os.path.join(ROOT, "samples"))):
        config = os.path.join(ROOT, "samples", name, "config.json")
        if os.path.isfile(config):
            ranges = os.path.join(ROOT, "samples", name, "ranges.json")
            out.append({"name": name, "config": config, "ranges": ranges if os.path.isfile(ranges) else None})
    return out


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
        return p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", ""


def plan_args(kbp, sample, config, arm, rows, out, catalog=None):
    cmd = [kbp, "plan", config, "--arm", arm, "--rows", str(rows), "-o", out, "--quiet"]
    if sample["ranges"]:
        cmd += ["--ranges", sample["ranges"]]
    if catalog:
        cmd += ["--catalog", catalog]
    return cmd


def served_arms(kbp, sample, scratch, timeout):
    """The arms the sample's target plans, found by planning each once."""
    arms = []
    for arm, rows in ARMS:
        code, _ = run(plan_args(kbp, sample, sample["config"], arm, rows, os.path.join(scratch, "probe.json")), timeout)
        if code == 0:
            arms.append((arm, rows))
    return arms


def readers(kbp, all_samples, scratch, timeout):
    """data file -> the samples whose plans read it (from the plans' provenance)."""
    out = {}
    for s in all_samples:
        path = os.path.join(scratch, "provenance.json")
        code, err = run(plan_args(kbp, s, s["config"], "decode", 1, path), timeout)
        if code != 0:
            raise SystemExit(f"mutate_data.py: the unmutated sample {s['name']} does not plan: {err.strip()}")
        with open(path) as f:
            plan = json.load(f)
        for entry in plan.get("provenance", {}).get("files", []):
            origin = entry.get("path", "")
            if origin.startswith("embedded:"):
                out.setdefault(origin[len("embedded:"):], []).append(s)
    return out


# ---- mutations ---------------------------------------------------------------------------

def places(value, pointer=""):
    """Every (pointer, value) in a JSON document, the root first."""
    yield pointer, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from places(v, pointer + "/" + k.replace("~", "~0").replace("/", "~1"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from places(v, pointer + "/" + str(i))


def resolve(doc, pointer):
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    parent, key = None, None
    node = doc
    for p in parts:
        parent, key = node, (int(p) if isinstance(node, list) else p)
        node = node[key]
    return parent, key, node


def near_miss(rng, text):
    if len(text) < 2:
        return text + "x"
    i = rng.randrange(len(text) - 1)
    how = rng.choice(["swap", "drop", "double", "change"])
    if how == "swap":
        return text[:i] + text[i + 1] + text[i] + text[i + 2:]
    if how == "drop":
        return text[:i] + text[i + 1:]
    if how == "double":
        return text[:i] + text[i] + text[i:]
    return text[:i] + rng.choice("aeioqxz_/:") + text[i + 1:]


def other_type(rng, value):
    choices = ["text", 7, -1, 2.5, True, None, [], {}, [1, "a"], {"a": 1}]
    return rng.choice([c for c in choices if type(c) is not type(value)])


def mutate(rng, doc):
    """One random mutation of `doc` (changed in place); returns what was done."""
    candidates = list(places(doc))
    for _ in range(100):
        pointer, value = rng.choice(candidates)
        parent, key, _ = resolve(doc, pointer) if pointer else (None, None, doc)
        kinds = []
        if parent is not None:
            kinds += ["delete", "type"]
            if isinstance(parent, dict):
                kinds.append("rename")
        if isinstance(value, (list, dict)) and value:
            kinds.append("empty")
        if isinstance(value, str) and parent is not None:
            kinds += ["near_miss", "near_miss", "junk"]
        if isinstance(value, (int, float)) and not isinstance(value, bool) and parent is not None:
            kinds += ["negative", "zero", "huge", "fraction"]
        if not kinds:
            continue
        kind = rng.choice(kinds)
        where = pointer or "(root)"
        if kind == "delete":
            del parent[key]
            return f"delete {where}"
        if kind == "rename":
            new = near_miss(rng, key)
            if new in parent:
                continue
            items = list(parent.items())
            parent.clear()
            for k, v in items:
                parent[new if k == key else k] = v
            return f"rename {where} -> '{new}'"
        if kind == "empty":
            value.clear()
            return f"empty {where}"
        replacement = {
            "type": lambda: other_type(rng, value),
            "near_miss": lambda: near_miss(rng, value),
            "junk": lambda: rng.choice(JUNK),
            "negative": lambda: -value if value else -1,
            "zero": lambda: 0,
            "huge": lambda: rng.choice(HUGE),
            "fraction": lambda: value + 0.5,
        }[kind]()
        parent[key] = replacement
        return f"{kind} {where} = {json.dumps(replacement)[:60]}"
    return "none"


# ---- outcomes ----------------------------------------------------------------------------

def classify(kbp, code, err, plan_path, mutated_names, timeout):
    """-> (outcome, detail): planned, refused, refused_elsewhere or FAILED."""
    if code == "timeout":
        return "FAILED", "timed out"
    if code == 0:
        check, check_err = run([kbp, "check", plan_path], timeout)
        if check == 0:
            return "planned", ""
        return "FAILED", "the plan written fails kbp check: " + (check_err.strip().splitlines() or ["?"])[0]
    lines = [l for l in err.splitlines() if ERROR_LINE.match(l)]
    if code not in (2, 4) or not lines:
        return "FAILED", f"exit {code}: " + (err.strip().splitlines() or ["(no message)"])[-1]
    line = lines[-1]
    m = LOCATED.match(line)
    if not m:
        return "FAILED", "error without a file and pointer: " + line
    where = m.group("file")
    if not (where.startswith("embedded:") or os.path.exists(where)):
        return "FAILED", "error naming no input file: " + line
    if any(name in line for name in mutated_names):
        return "refused", line
    return "refused_elsewhere", line


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kbp", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data", type=int, default=300, help="mutations of data files")
    ap.add_argument("--configs", type=int, default=300, help="mutations of sample configs")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--show", type=int, default=20, help="failures to print")
    ap.add_argument("--keep", help="keep the mutated files of failed runs under this folder")
    args = ap.parse_args()
    if not os.access(args.kbp, os.X_OK):
        print(f"mutate_data.py: {args.kbp} is not an executable", file=sys.stderr)
        return 2

    rng = random.Random(args.seed)
    scratch = tempfile.mkdtemp(prefix="kbp-mutate-")
    try:
        all_samples = samples()
        for s in all_samples:
            s["arms"] = served_arms(args.kbp, s, scratch, args.timeout)
        by_file = readers(args.kbp, all_samples, scratch, args.timeout)
        files = data_files()
        counts = {"data": Counter(), "configs": Counter()}
        shown = {"FAILED": [], "refused_elsewhere": []}

        def record(side, outcome, what, detail, folder):
            counts[side][outcome] += 1
            if outcome in shown and len(shown[outcome]) < args.show:
                shown[outcome].append(f"  [{side}] {what}\n      {detail}")
            if outcome == "FAILED" and args.keep:
                dest = os.path.join(args.keep, f"{side}-{sum(counts[side].values())}")
                shutil.copytree(folder, dest, dirs_exist_ok=True)
                with open(os.path.join(dest, "WHAT"), "w") as f:
                    f.write(what + "\n" + detail + "\n")

        for i in range(args.data):
            relative = files[i % len(files)]
            with open(os.path.join(DATA, relative)) as f:
                doc = json.load(f)
            what = mutate(rng, doc)
            folder = os.path.join(scratch, f"d{i}")
            target = os.path.join(folder, "catalog", relative)
            os.makedirs(os.path.dirname(target))
            with open(target, "w") as f:
                json.dump(doc, f, indent=1)
            sample = rng.choice(by_file.get(relative) or all_samples)
            arm, rows = rng.choice(sample["arms"])
            plan = os.path.join(folder, "plan.json")
            code, err = run(plan_args(args.kbp, sample, sample["config"], arm, rows, plan, os.path.join(folder, "catalog")), args.timeout)
            outcome, detail = classify(args.kbp, code, err, plan, [relative], args.timeout)
            record("data", outcome, f"{relative}: {what} (planning {sample['name']} {arm} {rows})", detail, folder)
            shutil.rmtree(folder, ignore_errors=True)

        for i in range(args.configs):
            sample = all_samples[i % len(all_samples)]
            with open(sample["config"]) as f:
                doc = json.load(f)
            what = mutate(rng, doc)
            folder = os.path.join(scratch, f"c{i}")
            os.makedirs(folder)
            config = os.path.join(folder, "config.json")
            with open(config, "w") as f:
                json.dump(doc, f, indent=1)
            arm, rows = rng.choice(sample["arms"])
            plan = os.path.join(folder, "plan.json")
            code, err = run(plan_args(args.kbp, sample, config, arm, rows, plan), args.timeout)
            outcome, detail = classify(args.kbp, code, err, plan, [config], args.timeout)
            record("configs", outcome, f"{sample['name']}/config.json: {what} ({arm} {rows})", detail, folder)
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"seed {args.seed}: {args.data} data-file and {args.configs} config mutations")
    for side in ("data", "configs"):
        c = counts[side]
        print(f"  {side:8} planned {c['planned']:4}  refused (located) {c['refused']:4}  "
              f"refused (located elsewhere) {c['refused_elsewhere']:4}  FAILED {c['FAILED']:4}")
    for outcome, items in shown.items():
        if items:
            print(f"\n{outcome}:")
            print("\n".join(items))
    return 1 if counts["data"]["FAILED"] or counts["configs"]["FAILED"] else 0


if __name__ == "__main__":
    sys.exit(main())
