// 64-bit integer and double-precision arithmetic: mul, div, rem, shifts, conversions, fma, sqrt.
extern "C" __global__ void math64(const long long* a, const unsigned long long* b, double* d, long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long x = a[i];
  unsigned long long y = b[i] | 1;
  long long q = x / (long long)y;
  unsigned long long r = (unsigned long long)x % y;
  long long s = (x << (i & 63)) ^ (long long)(y >> 3);
  out[i] = q + (long long)r + s + x * (long long)y;
  double dv = d[i];
  d[i] = fma(dv, (double)x, 0.5) / (double)y + sqrt(dv < 0 ? -dv : dv);
}
