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

configure_and_build() {  # build dir, extra cmake args...
  local dir="$1"; shift
  cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
}

# PoCL keeps compiled kernels here; netcl keeps its own binaries in $XDG_CACHE_HOME/netcl.
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl}"

case "${1:-}" in
  run)
    shift
    install_missing
    configure_and_build "$build"
    "$build/netcl-info"
    if [ -x "$build/netcl-bench" ]; then
      if [ $# -eq 0 ]; then set -- --net vgg16 --plot "$build/vgg16.png" --json "$build/vgg16.json"; fi
      "$build/netcl-bench" "$@"
    fi
    ;;
  test)
    install_missing
    configure_and_build "$build"
    ctest --test-dir "$build" --output-on-failure -j "$jobs"
    ;;
  *)
    echo "usage: bash tools/netcl.sh run [netcl-bench args] | bash tools/netcl.sh test" >&2
    exit 2
    ;;
esac
