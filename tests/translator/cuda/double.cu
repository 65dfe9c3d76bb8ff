// Double precision on the gt200 configuration's DP unit: add, multiply, fma, compare, conversions.
extern "C" __global__ void dp(int n, const double* a, const double* b, double* out, int* cmp) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double x = a[i], y = b[i];
  out[4 * i] = x + y;
  out[4 * i + 1] = x * y;
  out[4 * i + 2] = fma(x, y, -x);
  out[4 * i + 3] = (double)(float)x;
  cmp[i] = (x < y) + 2 * (x == y) + 4 * (int)(x > 1e300);
}
