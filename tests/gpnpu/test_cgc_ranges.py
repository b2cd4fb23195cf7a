#!/usr/bin/python3
"""scripts/cgc_ranges_to_kbp.py on an excerpt of the Chimera compiler's range table (layers 0
and 31 and the head of the Sarashina2.2-3B compile): real ranges are copied to the right kbp
tensor ids, packed projections get the bounds their template arguments allow, and the output
validates against schema/kbp-ranges-v1.schema.json.

usage: test_cgc_ranges.py REPO_ROOT"""
import json
import subprocess
import sys
import tempfile

root = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    out = tmp + "/ranges.json"
    subprocess.run([sys.executable, root + "/scripts/cgc_ranges_to_kbp.py", root + "/tests/gpnpu/cgc_table_excerpt.txt",
                    "--model", "excerpt", "-o", out], check=True)
    doc = json.load(open(out))
    t = doc["tensors"]
    failures = []

    def expect(tensor, lo, hi):
        got = t.get(tensor)
        if got is None or got["min"] != lo or got["max"] != hi:
            failures.append("%s: expected [%g, %g], got %s" % (tensor, lo, hi, got))

    expect("embed.h", -8.1875, 6.34375)
    expect("l0.attn.xn", -18.9287, 28.7483)
    expect("l0.attn.a", -10.6596, 11.3762)
    expect("l0.attn.o_smooth", -1.70659, 1.93791)
    expect("l0.attn.o", -11.0497, 9.87976)
    expect("l0.attn.h", -10.8817, 11.1882)
    expect("l0.mlp.a", -40.6006, 27.927)
    expect("l0.mlp.down_smooth", -4.60692, 2.82909)
    expect("l0.mlp.f", -22.287, 22.9399)
    expect("l0.mlp.h", -28.9546, 28.4438)
    expect("l31.mlp.f", -780.54, 616.187)
    expect("head.xn", -299.409, 257.785)
    expect("head.lm_head_smooth", -4.66097, 4.65724)
    expect("head.logits", -29.1443, 37.6655)
    # Bounds from the packed ops' template arguments at headroom 2.
    expect("l0.attn.q", -256.0, 256.0)      # <3, 21, 31, 31>: 2^(31-21-2)
    expect("l0.mlp.gu", -32.0, 32.0)        # <2, 24, 31, 31>: 2^(31-24-2)
    expect("l31.mlp.gu", -1024.0, 1024.0)   # <2, 19, 30, 31>
    expect("l0.attn.v_smooth", -16.0, 16.0)  # F_in 31
    gu = t.get("l31.mlp.gate_up_smooth", {})
    if [p["max"] for p in gu.get("parts", [])] != [32.0, 16.0]:
        failures.append("l31.mlp.gate_up_smooth parts: expected gate 32 (F_in_a 30), up 16 (F_in_b 31), got %s" % gu)
    if "note" not in t.get("l0.attn.q", {}):
        failures.append("a bound must say it is one")
    if "/Gather" in json.dumps(t) or any(k.startswith("/") for k in t):
        failures.append("ONNX names leaked into the tensor ids")
    check = subprocess.run([sys.executable, root + "/tests/schema/check_json_schema.py", root + "/schema/kbp-ranges-v1.schema.json", out],
                           capture_output=True, text=True)
    if check.returncode != 0:
        failures.append("schema: " + check.stdout + check.stderr)
    for f in failures:
        print("FAIL", f)
    print("%d tensors, %d failures" % (len(t), len(failures)))
    sys.exit(1 if failures else 0)
