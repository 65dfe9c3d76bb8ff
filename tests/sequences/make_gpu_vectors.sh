#!/usr/bin/env bash
# GPU vectors for the lowering sequences: build the generator here, run it on a machine with an
# NVIDIA GPU (the device tool's), install the file it writes. See docs/lowering-sequences.md §5.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# Like tests/refvec/make_vectors.sh: the binary goes to an ignored folder that the device tool's
# run carries (carry: ["build/sequences-gpu-vectors"]).
bin_dir="${GPU_VECTORS_BIN_DIR:-$root/build/sequences-gpu-vectors}"
bin="$bin_dir/gpu_vectors"

usage() {
  cat >&2 <<USAGE
usage: $0 build            compile gpu_vectors.cu for sm_90 into $bin (nvcc, no GPU needed)
       $0 run OUTDIR       run it on a machine with an NVIDIA GPU; writes OUTDIR/gpu_vectors.bin.gz
       $0 install FILE     copy FILE to $here/data/gpu_vectors.bin.gz
USAGE
  exit 2
}

case "${1:-}" in
  build)
    [[ $# -eq 1 ]] || usage
    "$root/tests/tools/build_gpu_generator.sh" "$here/gpu_vectors.cu" "$bin" c++17
    ;;
  run)
    [[ $# -eq 2 ]] || usage
    [[ -x "$bin" ]] || { echo "error: $bin missing: run '$0 build' first" >&2; exit 1; }
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    mkdir -p "$2"
    "$bin" "$2/gpu_vectors.bin.gz"
    ;;
  install)
    [[ $# -eq 2 ]] || usage
    mkdir -p "$here/data"
    cp "$2" "$here/data/gpu_vectors.bin.gz"
    ls -l "$here/data"
    ;;
  *) usage ;;
esac
