// Dynamic (extern) shared memory: reverse a block of integers in place.
extern __shared__ int dyn_buf[];

extern "C" __global__ void reverse_block(int* data, int n) {
  int t = threadIdx.x;
  int base = blockIdx.x * blockDim.x;
  if (base + t < n) dyn_buf[t] = data[base + t];
  __syncthreads();
  int r = blockDim.x - 1 - t;
  if (base + r < n) data[base + t] = dyn_buf[r];
}
