// Nested data-dependent branches with stores on each side, a per-thread trip count with break,
// and early returns inside and outside divergent code.
extern "C" __global__ void diverge(int n, const unsigned* in, unsigned* a, unsigned* b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i], acc;
  if (x & 1) {
    if (x & 2) {
      acc = 3 * x;
      a[i] = acc;
    } else {
      if ((x & 12) == 12) return;
      acc = x + 7;
      a[i] = acc ^ 1;
    }
  } else {
    acc = x >> 1;
    a[i] = acc + 100;
  }
  for (unsigned k = 0; k < (x & 15); ++k) {
    acc += k * x;
    if (acc > 1000) break;
  }
  b[i] = acc;
}
