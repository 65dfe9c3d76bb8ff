// clang 14 compiles ~(x * INT_MIN) in 64 bits, that is (x << 31) - 1, into mul.wide.s32 x, 0x80000000,
// which multiplies by -2^31: the translator refuses it instead of computing the wrong sign (found by
// the random CUDA differential, seed 364).
__device__ __forceinline__ long long mul_s64(long long a, long long b) {
  return (long long)((unsigned long long)a * (unsigned long long)b);
}
extern "C" __global__ void shift31(const int* in, unsigned* out) {
  const int x = in[threadIdx.x];
  const long long l = ~0ll ^ mul_s64((long long)x, (long long)(-2147483647 - 1));
  unsigned h = (unsigned)x; h = (h ^ (unsigned)l) * 16777619u; h ^= h >> 13; h = (h ^ (unsigned)(l >> 32)) * 16777619u; out[threadIdx.x] = h;
}
