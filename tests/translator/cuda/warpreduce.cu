// A warp sum with shuffles, and a ballot of the odd values; one result pair per warp.
extern "C" __global__ void warpreduce(const int* in, int* sums, unsigned* ballots) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  unsigned odd = __ballot_sync(0xffffffffu, in[i] & 1);
  if ((threadIdx.x & 31) == 0) {
    sums[i / 32] = v;
    ballots[i / 32] = odd;
  }
}
