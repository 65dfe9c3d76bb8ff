// 16-bit arithmetic whose result depends on the upper bits of the 32-bit registers that hold it:
// nvcc divides small values (popcounts, remainders) by a constant in 16 bits, `mul.wide.u16` with a
// 16-bit immediate. Narrow registers are not kept clean (add, and, shl need only their low bits),
// so such instructions extend their operands first. Found by the random CUDA differential (seed 4):
// `-13107` as a .u16 immediate is 0xCCCD, and the operand had stray upper bits.
extern "C" __global__ void narrow16(const unsigned* in, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned v = in[i];
  unsigned r = v;
  switch (((((int)v % 5) + 5) % 5)) {
    case 1:
      switch (((__popc(v ^ (unsigned)i) % 5) + 5) % 5) {
        case 4: break;
        default: r = 0u;
      }
  }
  const unsigned short h = (unsigned short)(v >> 7), l = (unsigned short)v;
  out[3 * i] = r;
  out[3 * i + 1] = (unsigned)(unsigned short)(h - l) / 7u + (unsigned)((short)(h - l) < 0);
  out[3 * i + 2] = (unsigned)(__popc(v) % 3) * 100u + (unsigned)(__clz(v | 1u) / 5);
}
