#!/usr/bin/env bash
# The showcase behind `./tsm demo`: the sample kernels through the assembler, the binary loader and
# the disassembler, the ISA summary, and the occupancy calculator for the G80 configuration.
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

section "Occupancy on g80 (10 registers/thread, no shared memory)"
for b in 16,16 8,8; do "$BIN/tsm-tool" occupancy --config g80 --block "$b" --regs 10; echo; done
echo "32x32 blocks:"
"$BIN/tsm-tool" occupancy --config g80 --block 32,32 --regs 10 || echo "(refused, as it must be: 1024 threads > 512)"
