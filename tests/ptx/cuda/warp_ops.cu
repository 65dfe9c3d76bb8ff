// Warp shuffles and votes: a warp-level sum, a broadcast, a ballot and any/all.
extern "C" __global__ void warp_ops(const float* in, float* out, unsigned* ballots, int* flags) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  float first = __shfl_sync(0xffffffffu, v, 0);
  int x = __shfl_xor_sync(0xffffffffu, i, 1);
  int u = __shfl_up_sync(0xffffffffu, i, 2);
  unsigned b = __ballot_sync(0xffffffffu, v > 0.0f);
  out[i] = first + (float)(x + u);
  if ((threadIdx.x & 31) == 0) {
    ballots[i / 32] = b;
    flags[i / 32] = __any_sync(0xffffffffu, x > 3) + 2 * __all_sync(0xffffffffu, u >= 0) + __popc(b);
  }
}
