// Sum of n integers: a shared-memory tree per block behind barriers, one atomicAdd per block.
extern "C" __global__ void reduce(const int* in, int* total, int n) {
  __shared__ int s[512];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) atomicAdd(total, s[0]);
}
