#!/usr/bin/env bash
# Installs, builds, and runs kbp's main job on the bundled sample: plans GLM-5.3-Flash NVFP4
# for a GB10 (decode arm), validates and summarizes the plan, prints its roofline cost and the
# decisions behind one node, compares the decode plan with the 64-row multi_seq one (kbp diff), and
# checks the collapsed form round-trips. (scripts/test.sh also builds the desktop viewer,
# build/viewer/app/kbp-view PLAN.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build -DKBP_BUILD_TESTS=OFF -DKBP_BUILD_BENCH=OFF -DKBP_BUILD_VIEWER=OFF
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
$kbp plan samples/glm-5.3-flash/config.json --arms all -o "$out/arms" --quiet
$kbp check --quiet "$out"/arms/*.plan.json
$kbp diff "$out/decode.plan.json" "$out/arms/multi_seq-r64.plan.json" --max-items 2 || [ $? -eq 1 ]  # 1: they differ
$kbp collapse "$out/decode.plan.json" --only -o "$out/collapsed.json"
$kbp expand "$out/collapsed.json" -o "$out/expanded.json"
$kbp check "$out/collapsed.json" "$out/expanded.json"
