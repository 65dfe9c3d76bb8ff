// reduce: *total += sum(in[0..n)) with a shared-memory tree per block behind __syncthreads and one
// atomicAdd per block; also counts finished blocks in a __device__ variable. Any block size up to
// 512 threads (__launch_bounds__ keeps its registers within what a 512-thread block may use): the
// tree starts at the next power of two and skips partners past the block's end.
// Host program and reference: firmware/host/reduce.cpp.
__device__ unsigned blocks_done;

extern "C" __global__ void __launch_bounds__(512) reduce(const unsigned* in, unsigned* total, unsigned n) {
  __shared__ unsigned partial[512];
  const unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0;
  __syncthreads();
  unsigned width = 1;
  while (width < blockDim.x) width <<= 1;
  for (unsigned stride = width / 2; stride > 0; stride >>= 1) {
    if (t < stride && t + stride < blockDim.x) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    atomicAdd(total, partial[0]);
    atomicAdd(&blocks_done, 1u);
  }
}
