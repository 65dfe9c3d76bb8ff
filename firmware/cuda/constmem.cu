// constmem: a 9-tap FIR filter whose taps live in __constant__ memory, written by the host with
// write_symbol (cudaMemcpyToSymbol), then a per-element gain from a small __constant__ table
// indexed by the element (a thread-dependent constant index). Out-of-range neighbours are skipped
// (zero padding). y[i] = gain[i % 16] * sum_k taps[k] * x[i + k - 4], accumulated with fmaf in tap
// order, so the host reference (std::fma in the same order) is bit-exact.
// Host program and reference: firmware/host/constmem.cpp.
#define RADIUS 4
#define TAPS (2 * RADIUS + 1)
#define GAINS 16

__constant__ float taps[TAPS];
__constant__ float gain[GAINS];

extern "C" __global__ void constmem(int n, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < TAPS; ++k) {
    const int j = i + k - RADIUS;
    if (j >= 0 && j < n) acc = fmaf(taps[k], x[j], acc);
  }
  y[i] = acc * gain[i % GAINS];
}
