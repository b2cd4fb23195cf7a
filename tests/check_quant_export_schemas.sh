#!/usr/bin/env bash
# The files `kbp export quant` writes validate against their published JSON Schemas
# (exporters/schemas/): compressed-tensors and ModelOpt of Llama-3.1-8B's fp8-dynamic and nvfp4
# plans and of a mixed plan (attention NVFP4, the MLP FP8), llama-quantize
# of its gguf-q8_0 and bf16 plans.
# usage: check_quant_export_schemas.sh KBP REPO_ROOT
set -euo pipefail
kbp=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check="/usr/bin/python3 $root/tests/schema/check_json_schema.py"
llama="$root/samples/llama-3.1-8b/config.json"
"$kbp" plan "$llama" --recipe fp8-dynamic --target h100 -o "$tmp/fp8.json" 2>/dev/null
"$kbp" plan "$llama" --recipe nvfp4 --target b200 -o "$tmp/nvfp4.json" 2>/dev/null
"$kbp" plan "$llama" --recipe gguf-q8_0 --target gb10 -o "$tmp/q8.json" 2>/dev/null
"$kbp" plan "$llama" --recipe bf16 --target h100 -o "$tmp/bf16.json" 2>/dev/null
mkdir "$tmp/mixed"
grep -v '"_about"' "$root/tests/configs/small-llama.json" >"$tmp/mixed/config.json"
/usr/bin/python3 - "$tmp/mixed/hf_quant_config.json" <<'PY'
import json, sys
layers = {f"model.layers.{l}.{m}": ({"quant_algo": "NVFP4", "group_size": 16} if m.startswith("self_attn") else {"quant_algo": "FP8_PER_CHANNEL_PER_TOKEN"})
          for l in (0, 1) for m in ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")}
json.dump({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "MIXED_PRECISION", "kv_cache_quant_algo": "FP8", "quantized_layers": layers}}, open(sys.argv[1], "w"))
PY
"$kbp" plan "$tmp/mixed/config.json" --target b200 -o "$tmp/mixed.json" 2>/dev/null
for plan in fp8 nvfp4 mixed; do
  "$kbp" export quant "$tmp/$plan.json" --to compressed-tensors -o "$tmp/$plan.ct.json" 2>/dev/null
  "$kbp" export quant "$tmp/$plan.json" --to modelopt -o "$tmp/$plan.modelopt.json" 2>/dev/null
done
for plan in q8 bf16; do
  "$kbp" export quant "$tmp/$plan.json" --to llama-quantize -o "$tmp/$plan.gguf.json" 2>/dev/null
done
grep -q MIXED_PRECISION "$tmp/mixed.modelopt.json"
grep -q mixed-precision "$tmp/mixed.ct.json"
$check "$root/exporters/schemas/compressed-tensors.schema.json" "$tmp"/*.ct.json
$check "$root/exporters/schemas/modelopt.schema.json" "$tmp"/*.modelopt.json
$check "$root/exporters/schemas/llama-quantize.schema.json" "$tmp"/*.gguf.json
# ... and the schemas are not blind: a group without targets, an unknown algorithm, a pattern with '='.
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
ct = json.load(open(f"{d}/fp8.ct.json")); ct["config_groups"]["group_0"]["targets"] = []; json.dump(ct, open(f"{d}/bad.ct.json", "w"))
mo = json.load(open(f"{d}/fp8.modelopt.json")); mo["quantization"]["quant_algo"] = "FP9"; json.dump(mo, open(f"{d}/bad.modelopt.json", "w"))
g = json.load(open(f"{d}/q8.gguf.json")); g["tensor_types"] = [{"pattern": "a=b", "type": "q8_0"}]; json.dump(g, open(f"{d}/bad.gguf.json", "w"))
PY
$check --expect invalid "$root/exporters/schemas/compressed-tensors.schema.json" "$tmp/bad.ct.json"
$check --expect invalid "$root/exporters/schemas/modelopt.schema.json" "$tmp/bad.modelopt.json"
$check --expect invalid "$root/exporters/schemas/llama-quantize.schema.json" "$tmp/bad.gguf.json"
