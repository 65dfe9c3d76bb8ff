// vecadd: c = a + b over n floats with a grid-stride loop. The host launches a small fixed grid,
// so every thread runs the loop several times and the last pass is partial (n is not a multiple
// of the grid's thread count). Host program and reference: firmware/host/vecadd.cpp.
extern "C" __global__ void vecadd(int n, const float* a, const float* b, float* c) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    c[i] = a[i] + b[i];
}
