// __sad and __usad: nvcc and clang emit sad.s32 / sad.u32 (c + |a - b|). And the halving adds,
// whose 64-bit form clang 14 miscompiled with a constant operand (__hadd(-2, x)).
extern "C" __global__ void k(const int* a, const int* b, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[2*i] = __sad(a[i], b[i], (unsigned)i); out[2*i+1] = __usad((unsigned)a[i], (unsigned)b[i], 7u); }
}
extern "C" __global__ void halving(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[5 * i] = __hadd(-2, (int)(0u - (unsigned)a[i]));
  out[5 * i + 1] = __hadd(a[i], b[i]);
  out[5 * i + 2] = __rhadd(a[i], b[i]);
  out[5 * i + 3] = (int)__uhadd((unsigned)a[i], (unsigned)b[i]);
  out[5 * i + 4] = (int)__urhadd((unsigned)a[i], (unsigned)b[i]);
}
