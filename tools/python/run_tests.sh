#!/usr/bin/env bash
# netcl's Python suite: install what is missing, build the package, run pytest.
#
#   bash tools/python/run_tests.sh [pytest args]
#
# Everything lives in a virtual environment under the build folder (so a
# Debian python3, which refuses pip installs into itself, works as well as any
# other): its first run installs the PyPI packages there and builds libnetcl
# and the extension; later runs reinstall nothing that is present and rebuild
# only what changed (the CMake build folder is kept beside the venv).
# Needs the Debian packages of tools/netcl.sh plus python3-dev and python3-venv.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${NETCL_BUILD_DIR:-$here/build}"
venv="${NETCL_PYTHON_VENV:-$build/python-venv}"
python="${NETCL_PYTHON:-python3}"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"

# PoCL compiles kernels into POCL_CACHE_DIR and netcl keeps its binaries in
# NETCL_CACHE_DIR: both must be writable, and both make a second run fast.
cache="${XDG_CACHE_HOME:-$HOME/.cache}"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$cache/pocl}"
export NETCL_CACHE_DIR="${NETCL_CACHE_DIR:-$cache/netcl}"
mkdir -p "$POCL_CACHE_DIR" "$NETCL_CACHE_DIR"

start=$SECONDS
step() { printf 'netcl python: %-28s %4ds\n' "$1" $((SECONDS - start)); start=$SECONDS; }

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
py="$venv/bin/python"

# Build tools and test dependencies, from PyPI, only when missing.
# torch and torchvision for netcl.torch's suite (PyPI's Linux wheel brings
# NVIDIA's CUDA libraries, about 5 GB in the venv; it runs on the CPU without a GPU).
requirements=("nanobind>=2,<3" "scikit-build-core>=0.10" "numpy>=1.21" pyopencl onnx pytest torch torchvision)
# (A fresh venv lacks `packaging`, which the check imports: that also means "install".)
if ! "$py" - "${requirements[@]}" 2>/dev/null <<'EOF'
import sys
from importlib.metadata import PackageNotFoundError, version
from packaging.requirements import Requirement
for spec in sys.argv[1:]:
    r = Requirement(spec)
    try:
        if not r.specifier.contains(version(r.name), prereleases=True):
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
EOF
then
  "$py" -m pip install --quiet --upgrade pip packaging
  "$py" -m pip install --quiet "${requirements[@]}"
fi
step "python packages"

# No build isolation: the build tools are the ones just checked, and the
# build folder under $build stays valid between runs.
"$py" -m pip install --quiet --no-build-isolation --config-settings=build-dir="$build/python" "$here/tools/python"
step "pip install ./tools/python"

cd "$here/tests/python"
status=0
"$py" -m pytest "$@" || status=$?
step "pytest tests/python"
exit $status
