#!/usr/bin/env bash
# On a Linux machine with an NVIDIA GPU and driver (an OpenCL loader and ICD
# file optional): makes NVIDIA's OpenCL platform visible, runs `netcl-bench
# --net vgg16` on the GPU, times cuDNN on the same layers in the same session
# and prints the ratio, then runs the test suite. The bench comes first: a
# lent GPU machine gives minutes, and the suite can be cut short
# (--suite-seconds) where the figures cannot.
#
#   bash tools/gpu/check.sh [--bundle DIR] [--out DIR] [--batches 1,8,32]
#                           [--strategies LIST] [--run NET/DIRECTION/DTYPE/BATCHES]...
#                           [--step-seconds S] [--suite-seconds S] [--suite-match REGEX]
#                           [--suite-only REGEX] [--suite-shards N] [--no-suite] [--bench ARGS]... [--cpu-dry-run]
#
# --bundle: what tools/gpu/bundle.sh made (default .dev/gpu-bundle)
# --out:    where logs and JSON go (default $OUT, else .dev/gpu-results); a lent
#           machine hands back at most 8 files, so with more than one --run
#           give a folder of your own and pack it
# --batches, --strategies: netcl-bench's (default 1,8,32 and its own default)
# --run:    a bench instead of the default vgg16/fwd/float32/BATCHES, e.g.
#           vgg16/train/float32/1 (the direction as netcl-bench takes it; the
#           cuDNN anchor times the same direction) or vgg16/fwd/float16/1
#           (netcl in half storage beside netcl's float32 selector; cuDNN stays
#           fp32); repeatable, run in the order given
# --bench:  a bench of netcl-bench's own arguments instead, e.g. "--shape
#           8,3,224,224,64,7,7,2,3 --direction bwd_data --strategies all" (one
#           layer on every variant); cuDNN is timed on it too; repeatable, after
#           the --run benches. Under a user profile where NETCL_PROFILE_DIR is
#           set for this script (a tuned value tried without a rebuild)
# --step-seconds: stop each bench and each anchor after S seconds, so a slow
#           step cannot take the lease's whole time (default: no limit)
# --suite-seconds: stop the suite after S seconds (default: no limit)
# --suite-match: after the benches, only the CTest entries matching REGEX
# --suite-only: no bench, and only the CTest entries matching REGEX (a rerun
#           of what a first run left failing or unrun, in what time is left)
# --suite-shards: run each matching gtest program as N gtest shards at once
#           instead of one CTest entry a core: NVIDIA's compiler takes seconds
#           a program, so test_winograd_conv (hundreds of programs) alone
#           outlasts a lease as one process (default 1: CTest). At most twice
#           the host's cores in processes; entries that are no gtest program
#           run through CTest after the shards
# --no-suite: the benches only
# --cpu-dry-run: no NVIDIA driver needed; runs the same steps on whatever
#           OpenCL device there is (to check this script on a CPU machine;
#           the anchor times PyTorch's CPU convolution).
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle="$repo/.dev/gpu-bundle"
out="${OUT:-$repo/.dev/gpu-results}"
dry_run=0
batches="1,8,32"
strategies=()
suite_seconds=0
step_seconds=0
suite_only=""
suite_match=""
runs=()
benches=()
suite_shards=1
no_suite=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle="$(cd "$2" && pwd)"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --batches) batches="$2"; shift 2 ;;
    --strategies) strategies=(--strategies "$2"); shift 2 ;;
    --run) runs+=("$2"); shift 2 ;;
    --bench) benches+=("$2"); shift 2 ;;
    --suite-shards) suite_shards="$2"; shift 2 ;;
    --no-suite) no_suite=1; shift ;;
    --step-seconds) step_seconds="$2"; shift 2 ;;
    --suite-seconds) suite_seconds="$2"; shift 2 ;;
    --suite-match) suite_match="$2"; shift 2 ;;
    --suite-only) suite_only="$2"; shift 2 ;;
    --cpu-dry-run) dry_run=1; shift ;;
    *) echo "usage: check.sh [--bundle DIR] [--out DIR] [--batches LIST] [--strategies LIST] [--run NET/DIRECTION/DTYPE/BATCHES]... [--step-seconds S] [--suite-seconds S] [--suite-match REGEX] [--suite-only REGEX] [--suite-shards N] [--no-suite] [--bench ARGS]... [--cpu-dry-run]" >&2; exit 2 ;;
  esac
done
[ -f "$bundle/BUILD_DIR" ] || { echo "check.sh: no bundle at $bundle; run tools/gpu/bundle.sh on the build machine" >&2; exit 2; }
mkdir -p "$out"
log() { echo "== $*" | tee -a "$out/check.log"; }

# 1. The build tree where it was built: CTest files and test programs name those paths.
built_at="$(cat "$bundle/BUILD_DIR")"
source_at="$(dirname "$built_at")"
if [ ! -e "$built_at/CTestTestfile.cmake" ]; then
  [ -e "$source_at" ] || { mkdir -p "$(dirname "$source_at")" && ln -s "$repo" "$source_at"; }
  [ -e "$built_at" ] || ln -s "$bundle/build" "$built_at"
fi
[ -e "$built_at/CTestTestfile.cmake" ] || { echo "check.sh: cannot place the build tree at $built_at" >&2; exit 1; }
bin="$built_at"

# 2. Shared libraries carried in the bundle; libstdc++ only where the host's is older.
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
host_cxx="$(ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/ {print $NF; exit}')"
needed_cxx="$(strings "$bundle/lib/cxx/libstdc++.so.6" 2>/dev/null | grep -o '^GLIBCXX_3\.4\.[0-9]*$' | sort -V | tail -1)"
if [ -z "$host_cxx" ] || { [ -n "$needed_cxx" ] && ! strings "$host_cxx" | grep -x "$needed_cxx" >/dev/null; }; then
  export LD_LIBRARY_PATH="$bundle/lib/cxx:$LD_LIBRARY_PATH"
  log "host libstdc++ lacks $needed_cxx: using the bundled one"
fi

# 3. An ICD entry for NVIDIA's OpenCL driver where the machine has none.
find_nvidia_opencl() {
  local p
  p="$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1/ {print $NF; exit}')"
  [ -n "$p" ] && { echo "$p"; return; }
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
    [ -e "$d/libnvidia-opencl.so.1" ] && { echo "$d/libnvidia-opencl.so.1"; return; }
  done
  find / -xdev -name 'libnvidia-opencl.so*' -not -path '/proc/*' 2>/dev/null | sort | head -1
}
if [ "$dry_run" -eq 0 ]; then
  if ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
    driver_lib="$(find_nvidia_opencl)"
    [ -n "$driver_lib" ] || { echo "check.sh: no libnvidia-opencl.so found: is the NVIDIA driver installed?" >&2; exit 3; }
    icd="$(mktemp -d)"
    echo "$driver_lib" > "$icd/nvidia.icd"
    export OCL_ICD_VENDORS="$icd"
    log "ICD entry $icd/nvidia.icd -> $driver_lib"
  fi
  export NETCL_DEVICE="${NETCL_DEVICE:-NVIDIA}"
fi

status=0
log "device"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/gpu.csv"
"$bin/netcl-info" | tee "$out/netcl-info.txt" || { echo "check.sh: netcl-info found no usable device" >&2; exit 1; }

[ ${#runs[@]} -gt 0 ] || [ ${#benches[@]} -gt 0 ] || runs=("vgg16/fwd/float32/$batches")
step=()
[ "$step_seconds" -gt 0 ] && step=(timeout --signal=INT "$step_seconds")
have_torch=0 have_torch_cuda=0
python3 -c 'import torch' 2>/dev/null && have_torch=1
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null && have_torch_cuda=1
anchor() {  # cuDNN on the layers of $out/$1.json
  log "cuDNN on the same layers (PyTorch, fp32, TF32 off)"
  if [ "$have_torch_cuda" -eq 1 ] || { [ "$dry_run" -eq 1 ] && [ "$have_torch" -eq 1 ]; }; then
    local where=()
    [ "$have_torch_cuda" -eq 1 ] || where=(--cpu)
    "${step[@]}" python3 "$repo/tools/gpu/cudnn_anchor.py" "${where[@]}" --netcl-json "$out/$1.json" \
        --json "$out/cudnn-$1.json" 2>&1 | tee "$out/cudnn-$1.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  else
    log "no CUDA-enabled PyTorch here: cuDNN anchor not run"
    [ "$dry_run" -eq 1 ] || status=1
  fi
}
if [ -z "$suite_only" ]; then
for spec in ${runs[@]+"${runs[@]}"}; do
  IFS=/ read -r net direction dtype run_batches <<< "$spec"
  [ -n "$run_batches" ] || { echo "check.sh: --run '$spec' is not NET/DIRECTION/DTYPE/BATCHES" >&2; exit 2; }
  name="$net-$direction-$dtype"
  [ "$name" = "vgg16-fwd-float32" ] && name=vgg16  # the file names of the first lendings
  run_strategies=("${strategies[@]}")
  [ "$dtype" = float16 ] && run_strategies=(--strategies selector,float32-selector)
  log "netcl-bench --net $net --direction $direction --dtype $dtype --batch $run_batches ${run_strategies[*]}"
  "${step[@]}" "$bin/netcl-bench" --net "$net" --direction "$direction" --dtype "$dtype" --batch "$run_batches" \
      "${run_strategies[@]}" --json "$out/$name.json" 2>&1 | tee "$out/bench-$name.txt"
  bench_rc="${PIPESTATUS[0]}"
  [ "$bench_rc" -eq 0 ] || { status=1; log "netcl-bench $spec: exit $bench_rc (124: stopped after $step_seconds s)"; continue; }

  anchor "$name"
done
for i in "${!benches[@]}"; do
  name="bench$((i + 1))"
  read -r -a bench_args <<< "${benches[$i]}"
  log "netcl-bench ${benches[$i]}${NETCL_PROFILE_DIR:+ (user profiles in $NETCL_PROFILE_DIR)}"
  "${step[@]}" "$bin/netcl-bench" "${bench_args[@]}" --json "$out/$name.json" 2>&1 | tee "$out/bench-$name.txt"
  bench_rc="${PIPESTATUS[0]}"
  [ "$bench_rc" -eq 0 ] || { status=1; log "netcl-bench ${benches[$i]}: exit $bench_rc (124: stopped after $step_seconds s)"; continue; }
  anchor "$name"
done
fi

[ "$no_suite" -eq 0 ] || { log "done (status $status, no suite asked for); results in $out"; exit $status; }
limit_text=""
[ "$suite_seconds" -gt 0 ] && limit_text=" (at most $suite_seconds s)"
log "test suite on ${NETCL_DEVICE:-the default device}$limit_text"
# NVIDIA's compiler builds on the host's cores: up to 8 entries at once where there are as many.
jobs="$(nproc)"
[ "$jobs" -gt 8 ] && jobs=8
# install_consumer needs the full build tree, oclgrind and the sanitizer builds run on the CPU in CI.
limit=()
[ "$suite_seconds" -gt 0 ] && limit=(timeout --signal=INT "$suite_seconds")
only=()
[ -n "$suite_only" ] && only=(-R "$suite_only")
[ -n "$suite_match" ] && only=(-R "$suite_match")
if [ "$suite_shards" -le 1 ]; then
  "${limit[@]}" ctest --test-dir "$built_at" -LE 'install|oclgrind|sanitize' "${only[@]}" --output-on-failure -j "$jobs" 2>&1 | tee "$out/ctest.log"
  suite="${PIPESTATUS[0]}"
else
  # Each matching gtest program as gtest shards, all at once (a failing shard's log kept whole in
  # ctest.log); the other matching entries (scripts, checks of an expected failure) through CTest as
  # they are, with their own environment and pass conditions.
  : > "$out/ctest.log"
  names="$(ctest --test-dir "$built_at" -N -LE 'install|oclgrind|sanitize' "${only[@]}" | sed -n 's/^ *Test *#[0-9]*: //p')"
  [ -n "$names" ] || { log "no CTest entry matches"; status=1; }
  programs=()
  others=()
  for name in $names; do
    if [[ "$name" == test_* ]] && [ -x "$built_at/tests/$name" ]; then programs+=("$name"); else others+=("$name"); fi
  done
  suite=0
  processes=$((${#programs[@]} * suite_shards))
  max_processes=$((2 * $(nproc)))
  if [ "$processes" -gt "$max_processes" ]; then
    log "--suite-shards $suite_shards over ${#programs[@]} programs would be $processes processes at once, more than $max_processes: narrow --suite-match or take fewer shards"
    suite=2
  fi
  pids=()
  for name in ${programs[@]+"${programs[@]}"}; do
    [ "$suite" -eq 0 ] || break
    for ((shard = 0; shard < suite_shards; shard++)); do
      NETCL_CACHE_DIR="$built_at/test-cache" GTEST_TOTAL_SHARDS="$suite_shards" GTEST_SHARD_INDEX="$shard" \
        "${limit[@]}" "$built_at/tests/$name" --gtest_color=no > "$out/shard-$name-$shard.log" 2>&1 &
      pids+=("$!:$name-$shard")
    done
  done
  for entry in ${pids[@]+"${pids[@]}"}; do
    wait "${entry%%:*}"; rc=$?
    shard_log="$out/shard-${entry#*:}.log"
    [ "$rc" -eq 0 ] || { [ "$suite" -eq 124 ] || suite="$rc"; }
    grep -E '^\[  (PASSED|FAILED) ' "$shard_log" | sed "s/^/${entry#*:}: /" | tee -a "$out/ctest.log"
    [ "$rc" -eq 0 ] || { echo "${entry#*:}: exit $rc" | tee -a "$out/ctest.log"; cat "$shard_log" >> "$out/ctest.log"; }
  done
  [ "$suite" -eq 130 ] && suite=124  # timeout's INT reaches the program: count it as the limit
  rm -f "$out"/shard-*.log
  if [ ${#others[@]} -gt 0 ] && [ "$suite" -ne 2 ]; then
    "${limit[@]}" ctest --test-dir "$built_at" -R "^($(IFS='|'; echo "${others[*]}"))\$" --output-on-failure \
        -j "$jobs" 2>&1 | tee -a "$out/ctest.log"
    rc="${PIPESTATUS[0]}"
    [ "$rc" -eq 0 ] || [ "$suite" -ne 0 ] || suite="$rc"
  fi
fi
if [ "$suite" -eq 124 ]; then
  if [ "$suite_shards" -le 1 ]; then
    log "suite stopped after $suite_seconds s: the tests ctest.log lists as not run did not run"
  else
    log "suite stopped after $suite_seconds s: a shard with no PASSED line in ctest.log was cut short"
  fi
fi
[ "$suite" -eq 0 ] || status=1
log "done (status $status); results in $out"
exit $status
