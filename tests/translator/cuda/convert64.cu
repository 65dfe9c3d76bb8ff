// Conversions between f32 and 64-bit integers on a configuration without a DP unit: I2F/F2I take
// a register pair natively (they once went through the f64 sequences and wrote a double's pair
// into a float's register).
// Rounding toward zero: clang 14's optimizer turned __ll2float_rz and the other rz integer to float
// builtins into round-to-nearest conversions; the CUDA header now emits the cvt.rz itself.
extern "C" __global__ void convert64_rz(int n, const long long* s, const unsigned long long* u, float* fs, float* fu, float* f32s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fs[i] = __ll2float_rz(s[i]);
  fu[i] = __ull2float_rz(u[i]);
  f32s[i] = __int2float_rz((int)(s[i] >> 20)) + __uint2float_rz((unsigned)u[i]);
}

extern "C" __global__ void convert64(int n, const long long* s, const unsigned long long* u, const float* f, float* fs,
                                     float* fu, long long* is, unsigned long long* iu) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fs[i] = (float)s[i];
  fu[i] = (float)u[i];
  is[i] = (long long)f[i];
  iu[i] = (unsigned long long)fabsf(f[i]);
}
