// Block reduction in static shared memory with barriers, then one atomicAdd per block.
extern "C" __global__ void reduce_sum(const float* in, float* out, int n) {
  __shared__ float partial[256];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x * 2 + t;
  float s = 0.0f;
  if (i < n) s = in[i];
  if (i + blockDim.x < n) s += in[i + blockDim.x];
  partial[t] = s;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, partial[0]);
}
