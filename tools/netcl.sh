#!/usr/bin/env bash
# netcl's set-up and run script: the README's two commands.
#
#   bash tools/netcl.sh run  [netcl-bench args]   install what is missing, build, run the benchmark
#   bash tools/netcl.sh test                      install what is missing, build, run every test
#
# Installing is idempotent: Debian packages already present are not touched.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NETCL_BUILD_DIR:-$here/build}"
jobs="$(nproc 2>/dev/null || echo 2)"

packages=(
  cmake g++ make pkg-config
  ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  libclblast-dev libspdlog-dev libgtest-dev nlohmann-json3-dev libcli11-dev
  oclgrind valgrind python3 python3-matplotlib
  python3-dev python3-venv  # the Python package: headers to build it, a venv to pip-install into
  clang-15 libclc-15 libdnnl-dev
)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "netcl: all packages present"
    return
  fi
  echo "netcl: installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "netcl: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# netcl-bench's newest oneDNN peer: PyPI's CPU build with GNU OpenMP (oneDNN 3.2,
# the newest CPU-only wheel; PyPI's "onednn" 2025+ wheels need Intel's SYCL and
# TBB runtimes), installed under the build folder with a venv's pip. Debian's
# libdnnl-dev (2.6) stays beside it: netcl-bench times both, the faster is the
# peer. Without PyPI the bench runs with Debian's alone and says so.
onednn_pypi=("onednn-cpu-gomp==2023.2.0" "onednn-devel-cpu-gomp==2023.2.0")
onednn_root="$build/onednn-pypi"
install_onednn_pypi() {
  [ -f "$onednn_root/include/oneapi/dnnl/dnnl.hpp" ] && [ -f "$onednn_root/lib/libdnnl.so" ] && return
  local venv="$build/python-venv"  # the Python suite's venv (tools/python/run_tests.sh), made here if missing
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  # Short timeouts: a machine without PyPI gives up in seconds, not minutes.
  if ! "$venv/bin/python" -m pip install --quiet --timeout 20 --retries 1 --no-deps --prefix "$onednn_root" \
      "${onednn_pypi[@]}"; then
    echo "netcl: WARNING: could not install ${onednn_pypi[*]} from PyPI: netcl-bench's oneDNN 3 peer is" \
         "missing; it times Debian's oneDNN only" >&2
  fi
}

configure_and_build() {  # build dir, extra cmake args... [-- extra build args...]
  local dir="$1"; shift
  local configure=() build_args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do configure+=("$1"); shift; done
  [ $# -gt 0 ] && shift && build_args=("$@")
  cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Release "-DNETCL_ONEDNN_ROOTS=$onednn_root" "${configure[@]}" >/dev/null
  cmake --build "$dir" -j "$jobs" "${build_args[@]}"
}

# PoCL keeps compiled kernels here; netcl keeps its own binaries in $XDG_CACHE_HOME/netcl.
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl}"

case "${1:-}" in
  run)
    shift
    install_missing
    install_onednn_pypi
    configure_and_build "$build"
    "$build/netcl-info"
    if [ -x "$build/netcl-bench" ]; then
      if [ $# -eq 0 ]; then set -- --net vgg16 --plot "$build/vgg16.png" --json "$build/vgg16.json"; fi
      "$build/netcl-bench" "$@"
    fi
    ;;
  test)
    # 1. Release build, every CTest entry (the oclgrind label included) but the
    #    soak, the soak for 60 s (its label runs 10 minutes by itself:
    #    ctest -L soak), then the Python suite (tools/python/run_tests.sh).
    # 2. AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer with it)
    #    build, every entry but the oclgrind ones (oclgrind preloads its own
    #    runtime) and the install check (it builds an unsanitized consumer).
    #    3. ThreadSanitizer build of the selector, runtime (program cache) and
    #    threads suites. Suppressions cover the OpenCL driver only, each with its
    #    reason: tests/sanitizers/*.supp. NETCL_TEST_SANITIZERS=0 skips 2 and 3.
    install_missing
    san="$here/tests/sanitizers"
    timings=()
    timed() {  # label, command...
      local label="$1" start=$SECONDS; shift
      "$@"
      timings+=("$(printf '%-34s %4ds' "$label" $((SECONDS - start)))")
    }
    report() { echo "netcl test: time per step"; printf '  %s\n' "${timings[@]}"; }
    trap report EXIT

    timed "oneDNN 3 from PyPI" install_onednn_pypi
    timed "build (Release)" configure_and_build "$build"
    timed "ctest (Release, all labels)" ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE "^soak$"
    timed "ctest (soak, 60 s)" env NETCL_SOAK_SECONDS=60 ctest --test-dir "$build" --output-on-failure -L "^soak$"
    # The Python package: a venv under $build, its PyPI packages, pip install
    # ./tools/python (libnetcl built again, in $build/python), pytest tests/python.
    # Its programs come from the suites' program cache, as the sanitized suites'
    # do below (same sources, options and device; keyed and checksummed): from an
    # empty cache the Python suite built its own and took 581 s, from the
    # Release suites' 77 s (26 programs of its own; Zen 3, 2026-12-01).
    timed "python (pip install + pytest)" env NETCL_BUILD_DIR="$build" CMAKE_BUILD_PARALLEL_LEVEL="$jobs" \
      NETCL_CACHE_DIR="$build/test-cache" bash "$here/tools/python/run_tests.sh"

    if [ "${NETCL_TEST_SANITIZERS:-1}" != 0 ]; then
      # -O1 with line tables: about half the compile time of RelWithDebInfo
      # on 2 cores, and stack traces still name file and line.
      sanitizer_build=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g1")
      # --repeat until-pass:2 below: LeakSanitizer's own tracer now and then
      # segfaults at exit while PoCL's worker threads are torn down ("Tracer
      # caught signal 11 ... LeakSanitizer has encountered a fatal error"; seen
      # once in 7 runs of test_conv_naive, never reproduced alone). That is no
      # finding; a real ASan/UBSan/LSan report fails both runs.
      # use_tls=0: the same crash, but every time, once a process has loaded
      # a certain set of PoCL's kernel objects (dlopen'ed, with dynamic TLS):
      # test_conv_im2col's workspace test from a given PoCL cache crashed the
      # tracer on every run at f079a11, and not with use_tls=0. It is the
      # sanitizer runtime's known DTLS bug with glibc >= 2.32
      # (google/sanitizers#1342, #1322; their workaround). Not scanning TLS can
      # only add leak reports (a block reachable from TLS alone), never hide one.
      timed "build (ASan+UBSan)" configure_and_build "$build-asan" "${sanitizer_build[@]}" \
        -DNETCL_SANITIZE=address,undefined
      # The sanitized suites build the same programs (sources, options,
      # device) as the Release suites just did: their program cache starts
      # from the Release one's, so PoCL compiles each once per CI run, not
      # twice (the cache is keyed and checksummed: a stale entry is rebuilt).
      # The sanitizers watch netcl's host code, which runs the same either way.
      if [ -d "$build/test-cache" ]; then
        mkdir -p "$build-asan/test-cache"
        cp -a "$build/test-cache/." "$build-asan/test-cache/"
      fi
      timed "ctest (ASan+UBSan+LSan)" env \
        ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1" \
        LSAN_OPTIONS="suppressions=$san/lsan.supp:print_suppressions=0:use_tls=0" \
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        ctest --test-dir "$build-asan" --output-on-failure -j "$jobs" -LE "^(oclgrind|install|soak)$" \
          --repeat until-pass:2

      timed "build (TSan, selector+runtime)" configure_and_build "$build-tsan" "${sanitizer_build[@]}" \
        -DNETCL_SANITIZE=thread -- --target netcl_tsan_suites
      timed "ctest (TSan)" env \
        TSAN_OPTIONS="suppressions=$san/tsan.supp:halt_on_error=1:second_deadlock_stack=1" \
        ctest --test-dir "$build-tsan" --output-on-failure -j "$jobs" \
          -R "^(test_selector|test_runtime|test_reliability_threads|no_opencl_platform)"
    fi
    ;;
  *)
    echo "usage: bash tools/netcl.sh run [netcl-bench args] | bash tools/netcl.sh test" >&2
    exit 2
    ;;
esac
