// Warp vote and shuffle: int, unsigned and float, every shuffle mode, sub-warp widths.

extern "C" __global__ void vote(int* out, const int* in) {
  const int v = in[threadIdx.x];
  const unsigned active = __activemask();
  out[threadIdx.x] = __all_sync(0xffffffffu, v > 0) + 2 * __any_sync(active, v < 0);
  out[threadIdx.x + 32] = static_cast<int>(__ballot_sync(0xffffffffu, v & 1));
}

extern "C" __global__ void shuffle(float* f, int* i, unsigned* u) {
  const unsigned lane = threadIdx.x % 32;
  float sum = f[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  f[threadIdx.x] = __shfl_sync(0xffffffffu, sum, 0);
  i[threadIdx.x] = __shfl_up_sync(0xffffffffu, i[threadIdx.x], 1, 16) + __shfl_xor_sync(0xffffffffu, static_cast<int>(lane), 4);
  u[threadIdx.x] = __shfl_sync(0xffffffffu, u[threadIdx.x], static_cast<int>(lane ^ 1u), 8) +
                   __shfl_xor_sync(0xffffffffu, u[threadIdx.x], 2) + __shfl_down_sync(0xffffffffu, u[threadIdx.x], 1);
  f[threadIdx.x + 32] = __shfl_up_sync(0xffffffffu, sum, 2) + __shfl_xor_sync(0xffffffffu, sum, 1, 16);
}
