#!/usr/bin/env python3
"""Turn the Chimera Graph Compiler's range table into kbp's calibrated ranges (kbp-ranges/v1).

CGC prints, while it quantizes a graph, one row per op: its ONNX name, the relay op, the
output range and the fractional bits it chose ("Source name  Op  Output 0 Range  Output 0 Frac
Bits ..."). This script reads such a log (a Llama-architecture decoder, as the Sarashina2.2-3B
pipeline compiles it) and writes the ranges `kbp plan --ranges` needs, keyed by kbp's tensor ids.

Where the table prints a real calibrated range (norms, adds, the smoothing multiplies, the
w4a16NBitsMatMul outputs, the attention output), the range is copied. A packed projection's
row shows only the range its FixedPoint32<F> can represent, and its members' smoothed inputs
do not appear at all (the op absorbs them); for those the script records the widest range the
printed template arguments allow at the build's headroom, and says so in the entry's note:
  output of w4a16PackedProj<N, F, a, b>: |x| <= 2^(31 - F - headroom)
  smoothed input with argument F_in:     |x| <= 2^(35 - F_in)   (16 when F_in = 31)
so that kbp reproduces the compiler's arguments for them exactly; the real ranges are tighter.

usage: cgc_ranges_to_kbp.py CGC_LOG [--headroom 2] [--model NAME] [-o OUT]
"""
import argparse
import json
import re
import sys

ROW = re.compile(r"^(?P<name>.+?) (?P<op>\S+) [\[\(](?P<lo>[-+0-9.eE]+)f?, (?P<hi>[-+0-9.eE]+)f?[\]\)] (?P<bits>\d+) \S+ \S+$")
LAYER = re.compile(r"^/model/layers\.(\d+)/")
TEMPLATE = re.compile(r"nn_custom::(w4a16\w+)<([^>]*)>")


def rows(text):
    for line in text.splitlines():
        m = ROW.match(line.strip())
        if m:
            yield m.group("name"), m.group("op"), float(m.group("lo")), float(m.group("hi")), int(m.group("bits"))


def bound(magnitude):
    return {"min": -magnitude, "max": magnitude}


def convert(text, headroom, model):
    tensors = {}
    layer = None          # the layer the last named row belonged to
    block = "attn"        # the block a custom op row falls in: after input_layernorm, attn; after post_attention_layernorm, mlp
    pending = None        # the tensor a w4a16NBitsMatMul row's output is: set by the smoothing multiply before it
    named = {
        "input_layernorm/Mul_1": ("attn", "xn"),
        "self_attn/MatMul_1_output_0_DequantizeLinear": ("attn", "a"),
        "self_attn/o_proj/MatMul_smooth_mul": ("attn", "o_smooth"),
        "post_attention_layernorm/Mul_1": ("mlp", "xn"),
        "mlp/Mul": ("mlp", "a"),
        "mlp/down_proj/MatMul_smooth_mul": ("mlp", "down_smooth"),
    }
    outputs_after = {"o_smooth": "o", "down_smooth": "f", "lm_head_smooth": "logits"}
    for name, op, lo, hi, bits in rows(text):
        m = LAYER.match(name)
        if m:
            layer = int(m.group(1))
            rest = name[m.end():]
            if rest in named:
                block, tensor = named[rest]
                prefix = "l%d.%s." % (layer, block)
                tensors[prefix + tensor] = {"min": lo, "max": hi}
                pending = prefix + outputs_after[tensor] if tensor in outputs_after else None
            elif rest == "Add":
                tensors["l%d.attn.h" % layer] = {"min": lo, "max": hi}
            elif rest == "Add_1":
                tensors["l%d.mlp.h" % layer] = {"min": lo, "max": hi}
            continue
        if name == "/model/embed_tokens/Gather":
            tensors["embed.h"] = {"min": lo, "max": hi}
        elif name == "/model/norm/Mul_1":
            tensors["head.xn"] = {"min": lo, "max": hi}
            layer = None
        elif name == "/lm_head/MatMul_smooth_mul":
            tensors["head.lm_head_smooth"] = {"min": lo, "max": hi}
            pending = "head.logits"
        elif name.startswith("CustomOp/"):
            t = TEMPLATE.search(name)
            if not t:
                continue
            kind, args = t.group(1), [int(a) for a in t.group(2).split(",")]
            if kind == "w4a16NBitsMatMul":
                if pending is None:
                    sys.exit("cgc_ranges_to_kbp: %s follows no smoothing multiply" % name)
                tensors[pending] = {"min": lo, "max": hi}
                pending = None
            elif kind == "w4a16PackedProj" and layer is not None:
                members, f_out, f_in_a, f_in_b = args
                out = bound(2.0 ** (31 - f_out - headroom))
                out["note"] = "bound: the table prints only FixedPoint32<%d>'s span; |x| <= 2^(31-%d-%d)" % (f_out, f_out, headroom)

                def smoothed(f_in):
                    r = bound(16.0 if f_in >= 31 else 2.0 ** (35 - f_in))
                    r["note"] = "bound: absorbed into %s<%s>; F_in %d allows |x| <= %g" % (kind, t.group(2), f_in, r["max"])
                    return r
                if members == 3:
                    prefix = "l%d.attn." % layer
                    for m_ in ("q", "k", "v"):
                        tensors[prefix + m_] = dict(out)
                    tensors[prefix + "q_smooth"] = smoothed(f_in_a)
                    tensors[prefix + "k_smooth"] = smoothed(f_in_a)
                    tensors[prefix + "v_smooth"] = smoothed(f_in_b)
                elif members == 2:
                    prefix = "l%d.mlp." % layer
                    tensors[prefix + "gu"] = dict(out)
                    gate, up = smoothed(f_in_a), smoothed(f_in_b)
                    whole = max(gate["max"], up["max"])
                    tensors[prefix + "gate_up_smooth"] = {
                        "min": -whole, "max": whole,
                        "parts": [{"name": "gate", "min": gate["min"], "max": gate["max"]},
                                  {"name": "up", "min": up["min"], "max": up["max"]}],
                        "note": "bound: absorbed into %s<%s>; F_in_a %d (gate), F_in_b %d (up)" % (kind, t.group(2), f_in_a, f_in_b)}
    return {
        "schema": "kbp-ranges/v1",
        "model": model,
        "source": "CGC range table (scripts/cgc_ranges_to_kbp.py, headroom %d for bounds)" % headroom,
        "tensors": dict(sorted(tensors.items(), key=lambda kv: order_key(kv[0]))),
    }


def order_key(tensor):
    m = re.match(r"l(\d+)\.", tensor)
    if tensor.startswith("embed."):
        return (-1, tensor)
    if tensor.startswith("head."):
        return (1 << 30, tensor)
    return (int(m.group(1)), tensor) if m else (1 << 29, tensor)


def dump(doc):
    """One tensor per line: the file is read by people as much as by kbp."""
    head = ",\n".join("  %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in doc.items() if k != "tensors")
    body = ",\n".join("    %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in doc["tensors"].items())
    return "{\n%s,\n  \"tensors\": {\n%s\n  }\n}\n" % (head, body)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("log")
    p.add_argument("--headroom", type=int, default=2, help="the build's IMF headroom, for the packed ops' bounds")
    p.add_argument("--model", default="")
    p.add_argument("--source", default="", help="what the log is, recorded in the file")
    p.add_argument("-o", "--output", default="-")
    a = p.parse_args()
    with open(a.log, encoding="utf-8") as f:
        doc = convert(f.read(), a.headroom, a.model)
    if a.source:
        doc["source"] = a.source
    text = dump(doc)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
