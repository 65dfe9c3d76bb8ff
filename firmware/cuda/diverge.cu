// diverge: nested data-dependent branches with stores on each side, a loop whose trip count
// depends on the thread's data and that may break early, and early returns inside and outside
// divergent code. The same computation as firmware/asm/diverge.tsa; host program and reference:
// firmware/host/diverge.cpp.
extern "C" __global__ void diverge(unsigned n, const unsigned* in, unsigned* out_a, unsigned* out_b,
                                   unsigned* out_c) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = in[i];
  unsigned a;
  if (x & 1) {
    if (x & 2) {
      a = 3 * x;
    } else {
      if ((x & 12) == 12) return;
      a = x + 7;
    }
  } else {
    a = x >> 1;
  }
  out_a[i] = a;
  unsigned acc = 0;
  for (unsigned k = 0; k < (x & 15); ++k) {
    acc += k * x;
    if (acc > 1000) break;
  }
  out_b[i] = acc;
  if ((x & 7) == 3) return;
  out_c[i] = acc ^ x;
}
