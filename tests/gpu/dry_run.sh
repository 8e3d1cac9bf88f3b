#!/usr/bin/env bash
# tools/gpu's scripts on this machine's OpenCL device (check.sh --cpu-dry-run),
# so they cannot rot between lendings: bundle.sh packs the build; check.sh runs
# a --bench of one layer (the anchor runs where PyTorch is installed, on the
# CPU), then a small program as two gtest shards at once (--suite-shards)
# beside an entry that is no gtest program (through CTest), and again with
# --no-suite. Each step's files are asserted on.
#
#   dry_run.sh BUILD_DIR WORK_DIR
set -euo pipefail
build="$1"
work="$2"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fail() { echo "gpu dry run: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"

bash "$repo/tools/gpu/bundle.sh" --no-build "$build" "$work/bundle" > "$work/bundle.log"
[ -f "$work/bundle/BUILD_DIR" ] && [ -x "$work/bundle/build/netcl-bench" ] || fail "bundle.sh made no bundle"

out="$work/out"
bash "$repo/tools/gpu/check.sh" --cpu-dry-run --bundle "$work/bundle" --out "$out" \
    --bench "--shape 2,3,9,9,4,3,3,2,1 --direction bwd_data --strategies selector,naive --repeat 2" \
    --suite-match '^(test_runtime_context|netcl-info_bad_netcl_device)$' --suite-shards 2 > "$work/check.log" 2>&1 ||
  { cat "$work/check.log"; fail "check.sh --bench --suite-shards 2 exited $?"; }
python3 - "$out/bench1.json" <<'PY' || fail "the --bench JSON is not the layer asked for"
import json, sys
layers = json.load(open(sys.argv[1]))["layers"]
assert len(layers) == 1 and layers[0]["shapes"]["direction"] == "backward_data", layers
ran = {r["candidate"]: r for r in layers[0]["results"] if r["ran"]}
assert {"naive"} <= set(ran) and all(r["within_tolerance"] for r in ran.values()), ran
PY
# Both shards passed, and between them ran every test of the program once.
listed="$("$build/tests/test_runtime_context" --gtest_list_tests | grep -c '^  ')"
ran=0
for shard in 0 1; do
  count="$(sed -n "s/^test_runtime_context-$shard: \[  PASSED  \] \([0-9]*\) tests\{0,1\}\.\$/\1/p" "$out/ctest.log")"
  [ -n "$count" ] && [ "$count" -gt 0 ] || { cat "$out/ctest.log"; fail "shard $shard of test_runtime_context did not pass"; }
  ran=$((ran + count))
done
[ "$ran" -eq "$listed" ] || fail "the shards ran $ran tests between them; test_runtime_context has $listed"
# An entry that is no gtest program runs through CTest, with its own pass condition.
grep -q "netcl-info_bad_netcl_device \.*   Passed" "$out/ctest.log" ||
  { cat "$out/ctest.log"; fail "netcl-info_bad_netcl_device did not run through CTest beside the shards"; }

bash "$repo/tools/gpu/check.sh" --cpu-dry-run --bundle "$work/bundle" --out "$work/out2" --no-suite \
    --bench "--shape 1,4,6,6,4,1,1 --strategies naive --repeat 1" > "$work/check2.log" 2>&1 ||
  { cat "$work/check2.log"; fail "check.sh --no-suite exited $?"; }
[ -f "$work/out2/bench1.json" ] && [ ! -e "$work/out2/ctest.log" ] || fail "--no-suite ran the suite or no bench"
echo "gpu dry run: bundle, --bench, --suite-shards and --no-suite as expected"
