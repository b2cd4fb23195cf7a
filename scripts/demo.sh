#!/usr/bin/env bash
# Installs, builds, and runs kbp on the bundled sample plan (GLM-5.3-Flash, GB10, decode arm):
# validates it, summarizes it, and rewrites it canonically twice to show the bytes agree.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build -DKBP_BUILD_TESTS=OFF
plan=samples/glm-5.3-flash/decode.plan.json
kbp=build/cli/kbp
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

set -x
$kbp --version
$kbp check "$plan"
$kbp stats "$plan"
$kbp fmt "$plan" -o "$out/a.json"
$kbp fmt "$out/a.json" -o "$out/b.json"
cmp "$out/a.json" "$out/b.json"
$kbp collapse "$plan" --only -o "$out/collapsed.json"
$kbp expand "$out/collapsed.json" -o "$out/expanded.json"
$kbp check "$out/collapsed.json" "$out/expanded.json"
