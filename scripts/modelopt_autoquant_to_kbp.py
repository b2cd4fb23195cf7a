#!/usr/bin/python3
"""ModelOpt auto_quantize's per-layer scores as a kbp-sensitivity/v1 file (kbp tune --sensitivity).

usage: modelopt_autoquant_to_kbp.py INPUT -o OUT.json [--model TEXT] [--map MODELOPT_FORMAT=KEY ...]

INPUT is what ModelOpt's AutoQuantize search saves, in either form:
  - its search checkpoint: mtq.auto_quantize(..., checkpoint=PATH), or examples/llm_ptq/hf_ptq.py
    --auto_quantize_checkpoint PATH; torch.save() of the searcher's state_dict()
    (modelopt/torch/opt/searcher.py save_search_checkpoint), read here without torch: the zip
    archive's data.pkl is unpickled with every class but plain containers replaced by an inert
    stand-in (no code from the file runs);
  - JSON of the same state: {"candidate_stats": {...}} or the candidate_stats object alone, each
    format written as str(QuantRecipe) ("NVFP4_AWQ_LITE_CFG(effective-bits: 4.5)") or its name.

candidate_stats (modelopt/torch/quantization/algorithms.py, _AutoQuantizeBaseSearcher
.initialize_candidate_stats) maps "<module>.quant_recipe" -> {"formats": [QuantRecipe...],
"scores": [...], "costs": [...]}, one entry per search group: the modules TensorRT-LLM fuses
(quant_grouping_rules: q/k/v, gate/up, a layer's routed experts) share one hparam, named after
its first module, and its score is the sum over the group (QuantRecipeHparam.get_score). So the
output names a group once: q/k/v under q_proj, gate/up under gate_proj (kbp's unit_score counts
an unnamed member of a unit as adding nothing), and a layer's routed experts under the experts'
module ("model.layers.3.mlp.experts", by ModelOpt's own grouping patterns). Scores are kept as
ModelOpt computed them (the Fisher-weighted output change of method "gradient", or the KL
divergence of "kl_div"), after its own clamp that makes a group's scores fall as bits grow;
costs (weight bytes) are dropped: kbp counts bytes itself.

Formats become kbp keys by the table MODELOPT_KEYS below (a kbp recipe name where one has the
same weight and activation formats, else the weight format of a weight-only config); --map adds
or overrides one ("--map NONE=f16" for an fp16 checkpoint). A format with no key, or two formats
with one key, is refused: no score is filed under a candidate it was not measured for.

Exit status: 0 written; 2 the input cannot be read or converted (one line on stderr).
"""
import argparse
import collections
import io
import json
import math
import os
import pickle
import re
import sys
import tempfile
import zipfile

# ModelOpt quantization config (modelopt/torch/quantization/config.py) -> kbp key.
MODELOPT_KEYS = {
    # No quantization: the module stays as the checkpoint stores it (bf16 for kbp's samples).
    "NONE": "bf16",
    # E4M3 weight, one scale per tensor; E4M3 input, one calibrated scale: recipes/fp8-static.json.
    "FP8_DEFAULT_CFG": "fp8-static",
    # E4M3 weight per output channel (axis 0); E4M3 input per token, dynamic: recipes/fp8-dynamic.json.
    "FP8_PER_CHANNEL_PER_TOKEN_CFG": "fp8-dynamic",
    # E2M1 weight and input, an E4M3 scale per 16: recipes/nvfp4.json. The AWQ variants store the
    # same formats; their calibration moves activation scale into the weights (pre_quant_scale).
    "NVFP4_DEFAULT_CFG": "nvfp4",
    "NVFP4_AWQ_LITE_CFG": "nvfp4",
    "NVFP4_AWQ_CLIP_CFG": "nvfp4",
    "NVFP4_AWQ_FULL_CFG": "nvfp4",
    # Weight-only configs: the weight's format (the input stays bf16).
    "FP8_2D_BLOCKWISE_WEIGHT_ONLY_CFG": "fp8/b128",  # E4M3, a scale per 128 x 128 block
    "INT4_BLOCKWISE_WEIGHT_ONLY_CFG": "int4/g128",  # symmetric int4, a scale per 128
    "INT4_AWQ_CFG": "int4/g128",  # the same storage, AWQ-calibrated
    "INT8_WEIGHT_ONLY_CFG": "int8/channel",  # int8 per output channel (axis 0)
}

# ModelOpt's quant_grouping_rules for routed experts: group(1) is the experts' module.
EXPERT_GROUPS = [
    re.compile(r"^(.*?\.mlp\.experts)\.\d+\.(gate_proj|up_proj|down_proj)$"),  # Qwen3-MoE-like
    re.compile(r"^(.*?)\.(\d+\.(w1|w2|w3))$"),  # Mixtral: block_sparse_moe.experts.<i>.w1
]


class ConvertError(Exception):
    pass


# ---- reading a torch.save archive without torch --------------------------------------------

class Inert:
    """Stands in for any class of the pickle that is not a plain container."""

    def __init__(self, *args, **kwargs):
        self.args = args

    def __setstate__(self, state):
        self.state = state


_inert_classes = {}


def inert_class(module, name):
    key = (module, name)
    if key not in _inert_classes:
        _inert_classes[key] = type(name, (Inert,), {"__module__": "inert." + module})
    return _inert_classes[key]


def inert_reconstructor(cls, base, state):
    # copyreg._reconstructor (protocols 0 and 1) for a stand-in class only.
    if not (isinstance(cls, type) and issubclass(cls, Inert)):
        raise ConvertError("the checkpoint rebuilds a %r the converter does not allow" % (cls,))
    return cls()


SAFE_GLOBALS = {
    ("builtins", "dict"): dict, ("builtins", "list"): list, ("builtins", "tuple"): tuple,
    ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "int"): int,
    ("builtins", "float"): float, ("builtins", "str"): str, ("builtins", "bool"): bool,
    ("builtins", "bytes"): bytes, ("builtins", "complex"): complex,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("collections", "defaultdict"): collections.defaultdict,
    ("copyreg", "_reconstructor"): inert_reconstructor,
}


class InertUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        return SAFE_GLOBALS.get((module, name)) or inert_class(module, name)

    def persistent_load(self, pid):
        return Inert(pid)  # a tensor's storage: never needed for the scores


def load_checkpoint(path):
    with open(path, "rb") as f:
        head = f.read(4)
    if head != b"PK\x03\x04":
        raise ConvertError("not a torch.save zip archive (torch >= 1.6), nor JSON")
    with zipfile.ZipFile(path) as z:
        pickles = [n for n in z.namelist() if n == "data.pkl" or n.endswith("/data.pkl")]
        if len(pickles) != 1:
            raise ConvertError("a torch.save archive holds one data.pkl; this one holds %d" % len(pickles))
        return InertUnpickler(io.BytesIO(z.read(pickles[0]))).load()


def load_input(path):
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError as e:
        raise ConvertError(e.strerror or str(e))
    if text[:1] in (b"{", b" ", b"\n", b"\t", b"\r"):
        try:
            return json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ConvertError("not JSON: %s" % e)
    try:
        return load_checkpoint(path)
    except (zipfile.BadZipFile, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as e:
        raise ConvertError("cannot read the checkpoint: %s" % e)


# ---- candidate_stats -> kbp-sensitivity/v1 ---------------------------------------------------

def format_name(recipe):
    """ModelOpt's config name of a QuantRecipe, a str(QuantRecipe) or a plain name."""
    if isinstance(recipe, Inert):
        state = getattr(recipe, "state", None)
        text = state.get("_str_repr") if isinstance(state, dict) else None
        if not isinstance(text, str):
            raise ConvertError("a format of the checkpoint has no _str_repr (not a ModelOpt QuantRecipe)")
    elif isinstance(recipe, str):
        text = recipe
    else:
        raise ConvertError("a format is %s, not a QuantRecipe or its name" % type(recipe).__name__)
    return text.split("(effective-bits", 1)[0].strip()


def module_of(hparam_name):
    """'model.layers.3.mlp.experts.0.gate_proj.quant_recipe' -> 'model.layers.3.mlp.experts'."""
    name = hparam_name[: -len(".quant_recipe")] if hparam_name.endswith(".quant_recipe") else hparam_name
    for rule in EXPERT_GROUPS:
        m = rule.match(name)
        if m:
            return m.group(1)
    return name


def convert(state, keys, origin):
    stats = state.get("candidate_stats", state) if isinstance(state, dict) else None
    if not isinstance(stats, dict) or not stats:
        raise ConvertError("no candidate_stats (ModelOpt's AutoQuantize search state)")
    modules, used, clamped = {}, {}, 0
    for hparam, entry in stats.items():
        if not isinstance(entry, dict) or "formats" not in entry or "scores" not in entry:
            raise ConvertError("candidate_stats[%r] has no formats and scores" % hparam)
        formats, scores = list(entry["formats"]), list(entry["scores"])
        if len(formats) != len(scores):
            raise ConvertError("candidate_stats[%r]: %d formats, %d scores" % (hparam, len(formats), len(scores)))
        module = module_of(str(hparam))
        if module in modules:
            raise ConvertError("two search groups name the module %r" % module)
        out = {}
        for recipe, score in zip(formats, scores):
            name = format_name(recipe)
            if name not in keys:
                raise ConvertError("no kbp key for ModelOpt format %r: give one with --map %s=KEY "
                                   "(a kbp recipe name or weight format)" % (name, name))
            key = keys[name]
            if used.setdefault(key, name) != name:
                raise ConvertError("ModelOpt formats %r and %r both map to %r: give one another key with --map"
                                   % (used[key], name, key))
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise ConvertError("candidate_stats[%r]: the score of %s is %r, not a finite number" % (hparam, name, score))
            if score < 0:
                clamped += 1  # a KL divergence estimate a rounding below 0
                score = 0.0
            out[key] = float(score)
        modules[module] = out
    if clamped:
        print("modelopt_autoquant_to_kbp.py: %d negative scores written as 0" % clamped, file=sys.stderr)
    mapping = ", ".join("%s -> %s" % (name, key) for key, name in sorted(used.items(), key=lambda kv: kv[1]))
    source = ("ModelOpt auto_quantize candidate_stats of %s (modelopt/torch/quantization/algorithms.py), converted by "
              "scripts/modelopt_autoquant_to_kbp.py: formats %s; a fused group (q/k/v, gate/up, a layer's routed experts) "
              "is scored once, under its first module or the experts' module" % (os.path.basename(origin), mapping))
    return modules, source


def dump(modules, source, model):
    """kbp-sensitivity/v1 text: one module a line, modules and keys sorted."""
    head = {"schema": "kbp-sensitivity/v1"}
    if model:
        head["model"] = model
    head["source"] = source
    lines = ["{"] + ["  %s: %s," % (json.dumps(k), json.dumps(v)) for k, v in head.items()] + ['  "modules": {']
    names = sorted(modules)
    for i, name in enumerate(names):
        scores = ", ".join("%s: %s" % (json.dumps(k), json.dumps(modules[name][k])) for k in sorted(modules[name]))
        lines.append("    %s: {%s}%s" % (json.dumps(name), scores, "," if i + 1 < len(names) else ""))
    return "\n".join(lines + ["  }", "}"]) + "\n"


def write_atomic(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".kbp-sensitivity-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="ModelOpt auto_quantize search checkpoint (.pth) or its JSON")
    ap.add_argument("-o", "--output", required=True, help="the kbp-sensitivity/v1 file to write")
    ap.add_argument("--model", help="the model the scores were measured on (the file's 'model')")
    ap.add_argument("--map", action="append", default=[], metavar="FORMAT=KEY",
                    help="file ModelOpt format FORMAT under kbp key KEY (repeatable)")
    args = ap.parse_args(argv)
    keys = dict(MODELOPT_KEYS)
    for m in args.map:
        name, sep, key = m.partition("=")
        if not sep or not name or not key:
            ap.error("--map takes FORMAT=KEY, not %r" % m)
        keys[name] = key
    try:
        modules, source = convert(load_input(args.input), keys, args.input)
        write_atomic(args.output, dump(modules, source, args.model))
    except ConvertError as e:
        print("%s: %s" % (args.input, e), file=sys.stderr)
        return 2
    except OSError as e:
        print("%s: %s" % (args.output, e.strerror or e), file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
