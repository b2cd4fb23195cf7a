#!/usr/bin/env bash
# Installs, builds, and runs kbp's main job on the bundled samples: plans GLM-5.3-Flash NVFP4
# for a GB10 (decode arm), validates and summarizes the plan, prints its roofline cost and the
# decisions behind one node, compares the decode plan with the 64-row multi_seq one (kbp diff), and
# checks the collapsed form round-trips; then plans Sarashina2.2-3B for the Chimera QC-U GPNPU
# from its calibrated ranges, costs it, explains one custom op's template arguments and exports
# its compile stage (twice: the second rewrites nothing). (scripts/test.sh also builds the
# desktop viewer, build/viewer/app/kbp-view PLAN.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build -DKBP_BUILD_TESTS=OFF -DKBP_BUILD_BENCH=OFF -DKBP_BUILD_VIEWER=OFF -DKBP_UNITY=ON
kbp=build/cli/kbp
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

set -x
$kbp --version
$kbp plan samples/glm-5.3-flash/config.json --arm decode -o "$out/decode.plan.json"
$kbp check "$out/decode.plan.json"
$kbp stats "$out/decode.plan.json"
$kbp stats "$out/decode.plan.json" --cost --context 8192
$kbp why "$out/decode.plan.json" l3.moe.xn_quant
$kbp stats "$out/decode.plan.json" --cost --sweep context=1k..128k
$kbp calibrate samples/measurements.json
$kbp plan samples/glm-5.3-flash/config.json --arms all -o "$out/arms" --quiet
$kbp check --quiet "$out"/arms/*.plan.json
$kbp diff "$out/decode.plan.json" "$out/arms/multi_seq-r64.plan.json" --max-items 2 || [ $? -eq 1 ]  # 1: they differ
$kbp collapse "$out/decode.plan.json" --only -o "$out/collapsed.json"
$kbp expand "$out/collapsed.json" -o "$out/expanded.json"
$kbp check "$out/collapsed.json" "$out/expanded.json"
sara=samples/sarashina2.2-3b
$kbp plan $sara/config.json --ranges $sara/ranges.json -o "$out/sarashina.plan.json"
$kbp check "$out/sarashina.plan.json"
$kbp stats "$out/sarashina.plan.json" --cost --context 7
$kbp why "$out/sarashina.plan.json" l3.mlp.down
$kbp export stage "$out/sarashina.plan.json" --out "$out/stages"
$kbp export stage "$out/sarashina.plan.json" --out "$out/stages"
