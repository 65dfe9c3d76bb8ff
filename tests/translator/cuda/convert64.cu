// Conversions between f32 and 64-bit integers on a configuration without a DP unit: I2F/F2I take
// a register pair natively (they once went through the f64 sequences and wrote a double's pair
// into a float's register).
extern "C" __global__ void convert64(int n, const long long* s, const unsigned long long* u, const float* f, float* fs,
                                     float* fu, long long* is, unsigned long long* iu) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fs[i] = (float)s[i];
  fu[i] = (float)u[i];
  is[i] = (long long)f[i];
  iu[i] = (unsigned long long)fabsf(f[i]);
}
