// Generic addressing: one device function, called with a shared and with a global pointer.
__device__ __noinline__ float sum3(const float* p) { return p[0] + p[1] + p[2]; }

extern "C" __global__ void generic(int n, const float* in, float* out) {
  __shared__ float tile[258];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  tile[t] = i < n ? in[i] : 0.0f;
  if (t < 2) tile[blockDim.x + t] = i + blockDim.x < n ? in[i + blockDim.x] : 0.0f;
  __syncthreads();
  if (i + 2 < n) out[2 * i] = sum3(&tile[t]), out[2 * i + 1] = sum3(&in[i]);
}
