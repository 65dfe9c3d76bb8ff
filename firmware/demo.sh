#!/usr/bin/env bash
# The showcase behind `./tsm demo`, in the order a newcomer wants it: saxpy in CUDA C compiled by our
# toolchain and checked on the golden model against C++ (the first result), its translation, the
# generic launcher with buffers from files, the same kernel on the SM's RTL (small) in lockstep with
# the golden model (tsm-tool builds that model on first use under ./tsm), the hand-written assembly
# through the assembler, the binary loader and the disassembler, two kernels of the CUDA suite
# (printf, the float math library), the configurations, the ISA summary, and the occupancy
# calculator for G80.
set -euo pipefail
BIN="$1"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

section() { printf '\n== %s\n' "$*"; }

echo "TeslaSM demo: a CUDA kernel compiled and checked on the golden model first, then the same kernel"
echo "on the SM's RTL in lockstep. The first time, ./tsm builds the tools (about 2 minutes on 2 cores)"
echo "before the first result and the RTL model of small (about 1 more) before the RTL section."

section "CUDA C (firmware/cuda/saxpy.cu) compiled by the project's toolchain, run on the golden model, checked against C++"
"$BIN/tsm-tool" run saxpy --config g80

section "The translation: front end, PTX, our translator, native code"
"$BIN/tsm-tool" compile "$HERE/cuda/saxpy.cu" -o "$OUT/saxpy_cuda.tsb" --stats

section "The same kernel through the generic launcher: x = 0, 1, 2, ..., y = 1, made on the command line"
"$BIN/tsm-tool" launch "$OUT/saxpy_cuda.tsb" --grid 4 --block 256 \
  --arg i32:1000 --arg f32:2 --arg "iota:f32:1000:$OUT/x.bin" --arg "fill:f32:1000:1:$OUT/y_cuda.bin" --print 4:f32:16
echo "(y = 2*x + 1; the buffers went to files too: ./tsm dump FILE --type f32 prints one)"

section "The same saxpy on the SM's RTL (Verilator, configuration small: 2 SMs), every retired warp instruction checked against the golden model"
"$BIN/tsm-tool" run saxpy --backend rtl --config small --block 256
echo "(g80's RTL, gt200's and the Yosys netlist of small's GPU top run the same way, each built on first use:"
echo " ./tsm run saxpy --backend rtl --config g80; ./tsm run saxpy --backend netlist --config small)"

section "Native assembly: firmware/asm/saxpy.tsa assembled, and through the launcher with the same buffers"
"$BIN/tsm-tool" launch "$HERE/asm/saxpy.tsa" --grid 4 --block 256 \
  --arg u32:1000 --arg f32:2 --arg "buf:$OUT/x.bin" --arg "fill:f32:1000:1:$OUT/y_out.bin"
cmp -s "$OUT/y_out.bin" "$OUT/y_cuda.bin" && echo "the compiled CUDA kernel gives the same bytes as the hand-written one"

for k in saxpy divergence reduce; do
  section "Assemble firmware/asm/$k.tsa, load the binary back, disassemble it"
  "$BIN/tsm-tool" asm "$HERE/asm/$k.tsa" -o "$OUT/$k.tsb"
  "$BIN/tsm-tool" disasm "$OUT/$k.tsb" -o "$OUT/$k.dis.tsa"
  "$BIN/tsm-tool" asm "$OUT/$k.dis.tsa" -o "$OUT/$k.again.tsb" 2>/dev/null
  cmp -s "$OUT/$k.tsb" "$OUT/$k.again.tsb" && echo "round trip: the disassembly re-assembles to the identical binary"
done
section "Disassembly of reduce"
cat "$OUT/reduce.dis.tsa"

section "CUDA kernel suite: device printf, and the float math library without a DP unit"
"$BIN/tsm-tool" run printf_hello --block 64 -n 100
"$BIN/tsm-tool" run mathlib --block 256 | tail -4
echo "(every suite kernel: ./tsm run NAME --block all; list: ./tsm run --help)"

section "Named SM configurations"
"$BIN/tsm-tool" configs

section "Instruction set ($("$BIN/tsm-tool" isa | tail -1 | cut -d';' -f1))"
"$BIN/tsm-tool" isa FFMA

section "Occupancy on g80 (10 registers/thread, no shared memory)"
for b in 16,16 8,8; do "$BIN/tsm-tool" occupancy --config g80 --block "$b" --regs 10; echo; done
echo "32x32 blocks:"
"$BIN/tsm-tool" occupancy --config g80 --block 32,32 --regs 10 || echo "(refused, as it must be: 1024 threads > 512)"
