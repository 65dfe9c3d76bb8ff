// dot: per-block partial sums of a.b over n integers. Each thread accumulates a grid-stride slice
// (the host launches a capped grid), the block folds its threads' sums in a shared-memory tree
// behind __syncthreads() -- a halving fold that handles any block size, not only powers of two --
// and thread 0 writes the block's partial; the host adds the partials. Integer inputs: integer
// addition is associative, so the result does not depend on the tree's shape or the block size
// and is exact (the host bounds |a|, |b| so that no partial overflows). Dynamic shared memory:
// blockDim.x * 4 bytes. Host program and reference: firmware/host/dot.cpp.
extern "C" __global__ void dot(int n, const int* a, const int* b, int* partial) {
  extern __shared__ int sums[];
  const unsigned t = threadIdx.x;
  int acc = 0;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) acc += a[i] * b[i];
  sums[t] = acc;
  __syncthreads();
  // Fold the upper half onto the lower half; with an odd count the middle element stays put.
  for (unsigned count = blockDim.x; count > 1;) {
    const unsigned half = (count + 1) / 2;
    if (t < count - half) sums[t] += sums[t + half];
    __syncthreads();
    count = half;
  }
  if (t == 0) partial[blockIdx.x] = sums[0];
}
