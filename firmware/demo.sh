#!/usr/bin/env bash
# The showcase behind `./tsm demo`: the sample kernels through the assembler, the binary loader and
# the disassembler, saxpy on the golden model (checked against C++, and through the generic
# launcher), the same kernel written in CUDA C and compiled by our toolchain, saxpy on the SM's RTL
# in lockstep with the golden model, two kernels of the CUDA suite (printf, the float math
# library), the ISA summary, and the occupancy calculator for G80.
set -euo pipefail
BIN="$1"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

section() { printf '\n== %s\n' "$*"; }

section "Named SM configurations"
"$BIN/tsm-tool" configs

section "Instruction set ($("$BIN/tsm-tool" isa | tail -1 | cut -d';' -f1))"
"$BIN/tsm-tool" isa FFMA

for k in saxpy divergence reduce; do
  section "Assemble firmware/asm/$k.tsa, load the binary back, disassemble it"
  "$BIN/tsm-tool" asm "$HERE/asm/$k.tsa" -o "$OUT/$k.tsb"
  "$BIN/tsm-tool" disasm "$OUT/$k.tsb" -o "$OUT/$k.dis.tsa"
  "$BIN/tsm-tool" asm "$OUT/$k.dis.tsa" -o "$OUT/$k.again.tsb" 2>/dev/null
  cmp -s "$OUT/$k.tsb" "$OUT/$k.again.tsb" && echo "round trip: the disassembly re-assembles to the identical binary"
done
section "Disassembly of reduce"
cat "$OUT/reduce.dis.tsa"

section "Run saxpy on the golden model and check it against the C++ reference"
"$BIN/tsm-tool" run saxpy --config g80

section "The same kernel through the generic launcher, with buffers from files"
python3 - "$OUT" <<'PY'
import struct, sys
n = 1000
open(f"{sys.argv[1]}/x.bin", "wb").write(struct.pack(f"<{n}f", *[float(i) for i in range(n)]))
open(f"{sys.argv[1]}/y.bin", "wb").write(struct.pack(f"<{n}f", *[1.0] * n))
PY
"$BIN/tsm-tool" launch "$HERE/asm/saxpy.tsa" --grid 4 --block 256 \
  --arg u32:1000 --arg f32:2 --arg "buf:$OUT/x.bin" --arg "buf:$OUT/y.bin:$OUT/y_out.bin"
python3 - "$OUT" <<'PY'
import struct, sys
y = struct.unpack("<1000f", open(f"{sys.argv[1]}/y_out.bin", "rb").read())
assert all(y[i] == 2.0 * i + 1.0 for i in range(1000)), "launcher output differs from 2*x + 1"
print(f"y_out.bin: y[0] = {y[0]}, y[999] = {y[999]} (2*x + 1, as expected)")
PY

section "CUDA C through a front end and the translator, then the golden model"
"$BIN/tsm-tool" compile "$HERE/cuda/saxpy.cu" -o "$OUT/saxpy_cuda.tsb" --stats
"$BIN/tsm-tool" launch "$OUT/saxpy_cuda.tsb" --grid 4 --block 256 \
  --arg i32:1000 --arg f32:2 --arg "buf:$OUT/x.bin" --arg "buf:$OUT/y.bin:$OUT/y_cuda.bin"
cmp -s "$OUT/y_out.bin" "$OUT/y_cuda.bin" && echo "the compiled CUDA kernel gives the same bytes as the hand-written one"

section "The same saxpy on the SM's RTL (Verilator), every retired warp instruction checked against the golden model"
"$BIN/tsm-tool" run saxpy --backend rtl --config g80 --block 256
echo "(the Yosys netlist of small's GPU top runs the same way: ./tsm run saxpy --backend netlist --config small)"

section "CUDA kernel suite: device printf, and the float math library without a DP unit"
"$BIN/tsm-tool" run printf_hello --block 64 -n 100
"$BIN/tsm-tool" run mathlib --block 256 | tail -4
echo "(every suite kernel: ./tsm run NAME --block all; list: ./tsm run --help)"

section "Occupancy on g80 (10 registers/thread, no shared memory)"
for b in 16,16 8,8; do "$BIN/tsm-tool" occupancy --config g80 --block "$b" --regs 10; echo; done
echo "32x32 blocks:"
"$BIN/tsm-tool" occupancy --config g80 --block 32,32 --regs 10 || echo "(refused, as it must be: 1024 threads > 512)"
