// c = a + b with a grid-stride loop: a loop whose trip count differs between threads.
extern "C" __global__ void vecadd(int n, const float* a, const float* b, float* c) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = a[i] + b[i];
}
