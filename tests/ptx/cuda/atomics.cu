// Integer and float atomics on global and shared memory: add, max, min, exch, cas, and, or.
extern "C" __global__ void histogram(const int* keys, int n, unsigned* bins, int* stats, float* fsum) {
  __shared__ unsigned local_bins[64];
  int t = threadIdx.x;
  if (t < 64) local_bins[t] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
    int k = keys[i];
    atomicAdd(&local_bins[k & 63], 1u);
    atomicMax(&stats[0], k);
    atomicMin(&stats[1], k);
    atomicAnd(&stats[2], k);
    atomicOr(&stats[3], k);
    atomicAdd(fsum, (float)k * 0.5f);
  }
  __syncthreads();
  if (t < 64) atomicAdd(&bins[t], local_bins[t]);
  if (t == 0) {
    int old = atomicExch(&stats[4], 7);
    while (atomicCAS(&stats[5], old, old + 1) != old) old = stats[5];
  }
}
