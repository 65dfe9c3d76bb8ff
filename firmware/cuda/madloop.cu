// MAD-bound: each thread runs `iters` rounds of eight independent fused multiply-add chains on
// registers, then one store. With several warps resident, the SP lanes are the bottleneck (the
// throughput case of SPEC §5; ./tsm bench reports its IPC and SP busy).
extern "C" __global__ void madloop(int n, int iters, float m, float c, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a0 = x[i], a1 = a0 * 0.5f, a2 = a0 * 0.25f, a3 = a0 * 0.125f;
  float a4 = a0 + 1.0f, a5 = a0 + 2.0f, a6 = a0 + 3.0f, a7 = a0 + 4.0f;
  for (int k = 0; k < iters; ++k) {
    a0 = fmaf(a0, m, c);
    a1 = fmaf(a1, m, c);
    a2 = fmaf(a2, m, c);
    a3 = fmaf(a3, m, c);
    a4 = fmaf(a4, m, c);
    a5 = fmaf(a5, m, c);
    a6 = fmaf(a6, m, c);
    a7 = fmaf(a7, m, c);
  }
  y[i] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
}
