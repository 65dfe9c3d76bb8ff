#!/usr/bin/env bash
# Reference vectors from a real NVIDIA GPU: build the generator here, run it on a machine with
# the GPU (the device tool's), install the data it returns. See docs/reference-vectors.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin_dir="${REFVEC_BIN_DIR:-$root/build/refvec-gen}"
bin="$bin_dir/refvec"
data_dir="$here/data"

usage() {
  cat >&2 <<EOF
usage: $0 build            compile refvec.cu for sm_90 into $bin (nvcc, no GPU needed)
       $0 run OUTDIR       run it on a machine with an NVIDIA GPU; writes OUTDIR/refvec-data.tar
       $0 install TARFILE  replace tests/refvec/data with the files in TARFILE
EOF
  exit 2
}

case "${1:-}" in
  build)
    [[ $# -eq 1 ]] || usage
    "$root/tests/tools/build_gpu_generator.sh" "$here/refvec.cu" "$bin" c++20
    ;;
  run)
    [[ $# -eq 2 ]] || usage
    [[ -x "$bin" ]] || { echo "error: $bin missing: run '$0 build' first (and carry its folder)" >&2; exit 1; }
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    "$bin" "$work"
    ls -l "$work"
    mkdir -p "$2"
    # One archive, because the device tool returns at most eight files.
    tar -C "$work" -cf "$2/refvec-data.tar" .
    ;;
  install)
    [[ $# -eq 2 ]] || usage
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    tar -C "$work" -xf "$2"
    [[ -f "$work/MANIFEST.json" ]] || { echo "error: $2 holds no MANIFEST.json" >&2; exit 1; }
    mkdir -p "$data_dir"
    rm -f "$data_dir"/*.bin.gz "$data_dir/MANIFEST.json"
    cp "$work"/*.bin.gz "$work/MANIFEST.json" "$data_dir/"
    for f in "$data_dir"/*.bin.gz; do
      size=$(stat -c %s "$f")
      ((size <= 1572864)) || echo "warning: $f is $size bytes, above 1.5 MB: split its family in refvec.cu" >&2
    done
    ls -l "$data_dir"
    ;;
  *) usage ;;
esac
