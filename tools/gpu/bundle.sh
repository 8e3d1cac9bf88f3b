#!/usr/bin/env bash
# Packs a netcl build for a GPU machine that may have no package registry and
# no OpenCL loader: the build tree's executables, libnetcl and CTest files at
# their original relative paths, plus the shared libraries they need that a
# bare machine lacks (the ICD loader, CLBlast, spdlog, fmt; libstdc++ apart).
#
#   bash tools/gpu/bundle.sh [--no-build] [BUILD_DIR] [BUNDLE_DIR]   (defaults: build, .dev/gpu-bundle)
#
# It builds BUILD_DIR first (a no-op when it is current; --no-build: not, as
# the suite's own dry run, which must not rebuild the tree under the tests
# running beside it). Then carry BUNDLE_DIR to the GPU machine and run
# tools/gpu/check.sh there.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_first=1
[ "${1:-}" = --no-build ] && { build_first=0; shift; }
build="$(cd "${1:-$here/build}" && pwd)"
bundle="${2:-$here/.dev/gpu-bundle}"

# The build brought up to date with the sources first: the fifth lending's
# second call carried a build older than its tree (a trial left in the
# binaries, undone in the sources only), and its figures were the trial's.
[ "$build_first" -eq 0 ] || cmake --build "$build" --parallel "$(nproc)"

rm -rf "$bundle"
mkdir -p "$bundle/build" "$bundle/lib/cxx"

# The build tree's runnable parts, at the same relative paths, so the CTest
# files (which name absolute paths) work once the tree sits where it was built.
(cd "$build" && find . -path ./CMakeFiles -prune -o -path '*/CMakeFiles' -prune -o \
    \( \( -type f -o -type l \) \( -perm -u+x -o -name '*.so*' -o -name 'CTestTestfile.cmake' \) \) -print) |
  grep -v -E '^\./(consumer-check|test-cache|_deps|python-venv|python|readme|gpu-dry-run|nvptx)/' |
  while read -r f; do
    mkdir -p "$bundle/build/$(dirname "$f")"
    cp -a "$build/$f" "$bundle/build/$f"
  done

# Shared libraries: everything ldd resolves outside the build tree, except the C
# library family (the GPU machine's own must be used) and the NVIDIA driver.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libnvidia|libcuda)'
find "$bundle/build" -type f \( -perm -u+x -o -name '*.so*' \) -exec ldd {} \; 2>/dev/null |
  awk '/=> \// {print $1, $3}' | sort -u |
  while read -r name path; do
    [[ "$name" =~ $skip ]] && continue
    [[ "$path" == "$build"* ]] && continue
    case "$name" in
      libstdc++*|libgcc_s*) cp -L "$path" "$bundle/lib/cxx/$name" ;;  # used only where the host's are older
      *) cp -L "$path" "$bundle/lib/$name" ;;
    esac
  done

echo "$build" > "$bundle/BUILD_DIR"
git -C "$here" rev-parse --short HEAD > "$bundle/REVISION" 2>/dev/null || echo unknown > "$bundle/REVISION"
du -sh "$bundle"
echo "bundle: $bundle (built at $build, revision $(cat "$bundle/REVISION"))"
