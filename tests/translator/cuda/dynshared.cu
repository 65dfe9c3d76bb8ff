// Dynamic shared memory (extern __shared__, sized at launch): each block reverses its slice.
extern "C" __global__ void reverse(int n, const float* in, float* out) {
  extern __shared__ float buf[];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  const int base = blockIdx.x * blockDim.x, last = min(n - base, (int)blockDim.x) - 1;
  if (i < n) out[i] = buf[last - t];
}
