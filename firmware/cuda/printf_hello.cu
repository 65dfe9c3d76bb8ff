// printf_hello: formatted output from several threads of several blocks: integers, a float
// (promoted to double), a string chosen per thread, and a per-block summary line from thread 0.
// Host program and reference: firmware/host/printf_hello.cpp.
extern "C" __global__ void printf_hello(unsigned n, const float* values) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) printf("block %u: %u threads, first element %u\n", blockIdx.x, blockDim.x, i);
  if (i >= n || i % 7 != 0) return;
  printf("Hello from thread %u (block %u, warp %u, lane %2u): value %8.3f is %s\n", i, blockIdx.x, threadIdx.x / warpSize,
         threadIdx.x % warpSize, values[i], values[i] < 0.0f ? "negative" : "non-negative");
}
