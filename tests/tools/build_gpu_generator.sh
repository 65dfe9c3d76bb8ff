#!/usr/bin/env bash
# Builds a device-side data generator (tests/refvec/refvec.cu, tests/sequences/gpu_vectors.cu) for
# sm_90 with cudart and zlib linked statically, so the device tool's machine needs nothing but the
# NVIDIA driver. Needs nvcc, not a GPU. Used by the generators' make_*.sh scripts.
# usage: build_gpu_generator.sh SOURCE.cu OUTPUT_BINARY C++STANDARD
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 SOURCE.cu OUTPUT_BINARY C++STANDARD" >&2; exit 2; }
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
mkdir -p "$(dirname "$2")"
"$nvcc" -std="$3" -O2 -arch=sm_90 --extended-lambda -cudart static \
  -o "$2" "$1" "$("${CXX:-g++}" -print-file-name=libz.a)"
echo "built $2"
