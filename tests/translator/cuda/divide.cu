// Operations the ISA has no single instruction for: correctly rounded float division and square
// root, integer division and remainder (32 and 64 bits), 64-bit compares and bit counts.
extern "C" __global__ void divide(int n, const float* a, const float* b, const int* p, const int* q,
                                  const long long* x, const long long* y, float* f, int* i32, long long* i64) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  f[2 * i] = a[i] / b[i];
  f[2 * i + 1] = sqrtf(fabsf(a[i]));
  i32[2 * i] = p[i] / q[i];
  i32[2 * i + 1] = (unsigned)p[i] % (unsigned)q[i];
  i64[3 * i] = x[i] / y[i];
  i64[3 * i + 1] = x[i] % y[i];
  i64[3 * i + 2] = (x[i] < y[i] ? 1000 : 0) + __popcll((unsigned long long)x[i]);
}
