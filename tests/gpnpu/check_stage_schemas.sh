#!/usr/bin/env bash
# The files `kbp export stage` writes validate against their published JSON Schemas, for a
# GPNPU plan (custom_op) and a GPU plan (launches); so do the GPNPU plan and the sample ranges.
# usage: check_stage_schemas.sh KBP REPO_ROOT
set -euo pipefail
kbp=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check="/usr/bin/python3 $root/tests/schema/check_json_schema.py"
"$kbp" plan "$root/samples/sarashina2.2-3b/config.json" --ranges "$root/samples/sarashina2.2-3b/ranges.json" -o "$tmp/gpnpu.json"
"$kbp" plan "$root/samples/sarashina2.2-3b/config.json" -o "$tmp/gpnpu-open.json"
"$kbp" plan "$root/samples/llama-3.1-8b/config.json" -o "$tmp/gpu.json" 2>/dev/null
"$kbp" export stage "$tmp/gpnpu.json" --out "$tmp/stages" 2>/dev/null
"$kbp" export stage "$tmp/gpu.json" --out "$tmp/stages" 2>/dev/null
$check "$root/schema/kbp-graph-v2.schema.json" "$tmp/gpnpu.json" "$tmp/gpnpu-open.json"
$check "$root/schema/kbp-ranges-v1.schema.json" "$root/samples/sarashina2.2-3b/ranges.json"
$check "$root/schema/kbp-build-knobs-v1.schema.json" "$tmp"/stages/*/*/build_knobs.json
$check "$root/schema/kbp-stage-ops-v1.schema.json" "$tmp"/stages/*/*/ops.json
$check "$root/schema/kbp-stage-v1.schema.json" "$tmp"/stages/*/*/STAGE.json
