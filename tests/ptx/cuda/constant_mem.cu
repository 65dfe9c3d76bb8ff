// Constant and global variables with initializers, including pointers to other variables.
__constant__ float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__constant__ int table2d[2][3] = {{1, 2, 3}, {4, 5, 6}};
__device__ int counter = 42;
__device__ double dscale = 2.5;
__device__ int target_a, target_b;
__device__ int* pointers[2] = {&target_a, &target_b};
__device__ long long big = -9000000000LL;

extern "C" __global__ void poly(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float r = coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3]));
  y[i] = r * (float)dscale + (float)table2d[i & 1][i % 3] + (float)(counter + big);
  *pointers[i & 1] = i;
}
