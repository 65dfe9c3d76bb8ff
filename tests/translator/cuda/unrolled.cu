// A fully unrolled loop with a data-dependent early exit in every iteration: one reconvergence
// point shared by sixteen divergent branches.
extern "C" __global__ void unrolled(int n, const unsigned* in, unsigned* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = in[i], count = x & 15;
  unsigned acc = x;
#pragma unroll
  for (unsigned k = 0; k < 16; ++k) {
    if (k >= count) break;
    acc = acc * 3 + k;
  }
  out[i] = acc;
}
