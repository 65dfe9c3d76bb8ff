// 64-bit integer arithmetic on register pairs: add, multiply, shifts, min/max, conversions.
extern "C" __global__ void int64ops(int n, const long long* a, const long long* b, long long* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long x = a[i], y = b[i];
  out[4 * i + 0] = x + y;
  out[4 * i + 1] = x * y;
  out[4 * i + 2] = (x << 3) ^ (y >> 5);
  out[4 * i + 3] = (long long)(int)(x & 0xffff) * 3 + (unsigned)((unsigned long long)y >> 40);
}
