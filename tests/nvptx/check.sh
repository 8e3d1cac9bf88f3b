#!/usr/bin/env bash
# The nvptx check (CTest label nvptx): every OpenCL program netcl builds for
# the shipped nvidia-gpu profile on the VGG-16, ResNet-50 and v3d (3-D) layers (with and
# without bias), exactly as netcl would build it (netcl-info --programs:
# ConvImplementation::programs), compiled OpenCL C 1.2 -> PTX by clang-15 with
# libclc, then by ptxas -arch=sm_90; registers, spills, stack, shared memory
# and H100 occupancy held to the profile's "budget" (nvptx_check.py).
#
#   check.sh NETCL_INFO WORK_DIR
#
# Exit 77 (CTest: skipped, listed as such) when clang-15 with NVPTX, libclc or
# ptxas is missing; the checker prints what to install.
set -euo pipefail
info="$1"
work="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$work"
"$info" --programs "$work" --profile nvidia-gpu --net vgg16 --net resnet50 --net v3d
python3 "$here/nvptx_check.py" "$work/manifest.json" --markdown | tee "$work/table.md"
