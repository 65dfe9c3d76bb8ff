// warpreduce: per-warp sum with a __shfl_down_sync tree, and a per-warp __ballot_sync of a
// predicate with its __popc. The shuffle/vote mask names exactly the threads the warp has: all 32,
// or for the last warp of a block whose size is not a multiple of 32 (e.g. 100 = 3 * 32 + 4) only
// its low lanes, as CUDA requires every thread named in the mask to take part. Threads past n
// take part with the value 0 and a false predicate. A shuffle from a lane outside the warp's
// threads is undefined, so those contributions are skipped. Outputs, per warp of the grid (block
// b, warp w: index b * warps_per_block + w): the sum, the ballot and its population count.
// Host program and reference: firmware/host/warpreduce.cpp.
extern "C" __global__ void warpreduce(int n, int threshold, const int* in, int* warp_sum,
                                      unsigned* warp_ballot, int* warp_count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  const unsigned lanes = min(blockDim.x - warp * warpSize, (unsigned)warpSize);
  const unsigned mask = lanes == warpSize ? 0xffffffffu : (1u << lanes) - 1;

  const int v = i < n ? in[i] : 0;
  const unsigned ballot = __ballot_sync(mask, i < n && v > threshold);
  int sum = v;
  for (unsigned offset = warpSize / 2; offset > 0; offset /= 2) {
    const int other = __shfl_down_sync(mask, sum, offset);
    if (lane + offset < lanes) sum += other;
  }
  if (lane == 0) {
    const unsigned w = blockIdx.x * ((blockDim.x + warpSize - 1) / warpSize) + warp;
    warp_sum[w] = sum;
    warp_ballot[w] = ballot;
    warp_count[w] = __popc(ballot);
  }
}
