// Barrier reductions: __syncthreads_count, __syncthreads_and, __syncthreads_or per block.
extern "C" __global__ void votes(int n, const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = i < n ? in[i] : 0;
  const int count = __syncthreads_count(v > 0);
  const int all = __syncthreads_and(v >= 0);
  const int any = __syncthreads_or(v > 900);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = count;
    out[3 * blockIdx.x + 1] = all;
    out[3 * blockIdx.x + 2] = any;
  }
}
