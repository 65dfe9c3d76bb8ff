// A polynomial with __constant__ coefficients that the host writes before the launch.
__constant__ float coeffs[4];
extern "C" __global__ void poly(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = fmaf(fmaf(fmaf(coeffs[3], v, coeffs[2]), v, coeffs[1]), v, coeffs[0]);
  }
}
