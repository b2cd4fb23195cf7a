#!/usr/bin/python3
"""Writes a ModelOpt AutoQuantize search checkpoint as torch.save lays it out, without torch or
ModelOpt, for the converter's test: a zip archive ("<stem>/data.pkl", "<stem>/byteorder",
"<stem>/version", "<stem>/.data/serialization_id"; torch/serialization.py _save) whose pickle
(protocol 2, torch's default) holds the searcher's state_dict() with each format a
modelopt.torch.quantization.algorithms.QuantRecipe, its config a pydantic-like QuantizeConfig,
candidate_stats a defaultdict(dict), and one tensor storage reference (persistent id) in "best".

usage: make_modelopt_checkpoint.py STATE.json OUT.pth"""
import collections
import io
import json
import os
import pickle
import re
import sys
import types
import zipfile


def fake_class(module, name):
    """A class pickle writes as module.name: registered under that module in sys.modules."""
    parts = module.split(".")
    for i in range(1, len(parts) + 1):  # pickle imports the module, its packages first
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    mod = sys.modules[module]
    cls = type(name, (), {"__module__": module, "__qualname__": name})
    setattr(mod, name, cls)
    return cls


QuantRecipe = fake_class("modelopt.torch.quantization.algorithms", "QuantRecipe")
QuantizeConfig = fake_class("modelopt.torch.quantization.config", "QuantizeConfig")
FloatStorage = fake_class("torch", "FloatStorage")


def recipe(text):
    bits = float(re.search(r"effective-bits: ([0-9.]+)", text).group(1))
    r = QuantRecipe()
    config = QuantizeConfig()
    # pydantic v2's BaseModel.__getstate__ layout.
    config.__dict__.update({"__dict__": {"quant_cfg": {"*weight_quantizer": {"num_bits": (2, 1), "block_sizes": {-1: 16}}},
                                         "algorithm": "max"},
                            "__pydantic_fields_set__": {"quant_cfg", "algorithm"}})
    r.__dict__.update({"config": config, "compression": bits / 16, "_str_repr": text})
    return r


class TorchLikePickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, FloatStorage):
            return ("storage", FloatStorage, "0", "cpu", 1)
        return None


def main(src, out):
    state = json.load(open(src))
    stats = collections.defaultdict(dict)
    for name, entry in state["candidate_stats"].items():
        stats[name] = {"formats": [recipe(f) for f in entry["formats"]], "scores": entry["scores"], "costs": entry["costs"]}
    best = dict(state["best"])
    best["recipe"] = {name: stats[name]["formats"][0] for name in list(stats)[:1]}
    best["importance"] = FloatStorage()
    buffer = io.BytesIO()
    TorchLikePickler(buffer, protocol=2).dump({"candidate_stats": stats, "best": best})
    stem = os.path.splitext(os.path.basename(out))[0]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr(stem + "/data.pkl", buffer.getvalue())
        z.writestr(stem + "/byteorder", "little")
        z.writestr(stem + "/data/0", b"\0\0\0\0")
        z.writestr(stem + "/version", "3\n")
        z.writestr(stem + "/.data/serialization_id", "0")


if __name__ == "__main__":
    main(*sys.argv[1:3])
