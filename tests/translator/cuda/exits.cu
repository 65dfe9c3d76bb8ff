// Early returns among unrolled loops of switches (found by the random CUDA differential, seed 134):
// every branch around a `return` has the kernel's final store or `ret` as its immediate
// post-dominator, so without care every region nests in the next and the reconvergence stack
// overflows after a few unrolled iterations. `o[slot] = 0; return;` tails are merged by nvcc into
// the final store.
extern "C" __global__ void exits(const int* in, unsigned* out, int n, unsigned pb) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned* o = out + 8 * i;
  int a = in[i], b = in[(i * 7 + 3) % n];
  long long l = in[(i * 5 + 1) % n];
  for (int k = 0;; ++k) {
    if (k >= 3) break;
    if (a != 0 && k > (b >> (i & 31)) && -k < a) {
      switch (((a % 6) + 6) % 6) {
        case 1:
          l = 0;
        case 0:
        case 5:
          if ((static_cast<unsigned>(b) >> (k + 3)) & 1u) break;
          o[7] = 1u + k;
          return;
        case 2:
          o[6] = 2u;
          return;
      }
    }
    a = a * 3 + k;
    if (l == 2) break;
  }
  for (int k = 0; k < (i % 5); ++k) {
    switch (pb % 4u) {
      case 1: o[1] += 1u; break;
      case 3: if (a & 1) return; o[2] += static_cast<unsigned>(a); break;
    }
    if (((a >> k) & 3) == 3) {
      o[3] = static_cast<unsigned>(k);
      return;
    }
  }
  o[0] = static_cast<unsigned>(a) + static_cast<unsigned>(l);
}
