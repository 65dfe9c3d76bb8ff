// A random CUDA kernel reduced from a failure of the translator (tests/randgen/CMakeLists.txt runs it
// as randgen.cuda.regression_*): the reconvergence stack overflowed: early returns among unrolled loops of switches, every region nested in the next (fixed: exiting sides need no SSY, regions with one join share one SSY around loops with break).
// Helpers of the random CUDA kernels (sim/randgen/random_cuda.cpp): integer arithmetic without
// undefined behaviour (signed wrap-around through unsigned, masked shift counts, guarded division),
// float bits with one NaN, and a hash for the checksums.
__device__ __forceinline__ int add_s32(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int sub_s32(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
__device__ __forceinline__ int mul_s32(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
__device__ __forceinline__ int neg_s32(int a) { return (int)(0u - (unsigned)a); }
__device__ __forceinline__ int div_s32(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
__device__ __forceinline__ int mod_s32(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
__device__ __forceinline__ int shl_s32(int a, unsigned s) { return (int)((unsigned)a << (s & 31u)); }
__device__ __forceinline__ int shr_s32(int a, unsigned s) { return a >> (s & 31u); }
__device__ __forceinline__ unsigned div_u32(unsigned a, unsigned b) { return b == 0u ? a : a / b; }
__device__ __forceinline__ unsigned mod_u32(unsigned a, unsigned b) { return b == 0u ? 0u : a % b; }
__device__ __forceinline__ unsigned shl_u32(unsigned a, unsigned s) { return a << (s & 31u); }
__device__ __forceinline__ unsigned shr_u32(unsigned a, unsigned s) { return a >> (s & 31u); }
__device__ __forceinline__ long long add_s64(long long a, long long b) { return (long long)((unsigned long long)a + (unsigned long long)b); }
__device__ __forceinline__ long long sub_s64(long long a, long long b) { return (long long)((unsigned long long)a - (unsigned long long)b); }
__device__ __forceinline__ long long mul_s64(long long a, long long b) { return (long long)((unsigned long long)a * (unsigned long long)b); }
__device__ __forceinline__ long long neg_s64(long long a) { return (long long)(0ull - (unsigned long long)a); }
__device__ __forceinline__ long long div_s64(long long a, long long b) {
  return (b == 0 || (a == (-9223372036854775807ll - 1) && b == -1)) ? a : a / b;
}
__device__ __forceinline__ long long mod_s64(long long a, long long b) {
  return (b == 0 || (a == (-9223372036854775807ll - 1) && b == -1)) ? 0 : a % b;
}
__device__ __forceinline__ long long shl_s64(long long a, unsigned s) { return (long long)((unsigned long long)a << (s & 63u)); }
__device__ __forceinline__ long long shr_s64(long long a, unsigned s) { return a >> (s & 63u); }
__device__ __forceinline__ unsigned long long div_u64(unsigned long long a, unsigned long long b) { return b == 0ull ? a : a / b; }
__device__ __forceinline__ unsigned long long mod_u64(unsigned long long a, unsigned long long b) { return b == 0ull ? 0ull : a % b; }
__device__ __forceinline__ unsigned long long shl_u64(unsigned long long a, unsigned s) { return a << (s & 63u); }
__device__ __forceinline__ unsigned long long shr_u64(unsigned long long a, unsigned s) { return a >> (s & 63u); }
__device__ __forceinline__ unsigned fbits(float f) { return f != f ? 0x7fffffffu : __float_as_uint(f); }
__device__ __forceinline__ unsigned mix(unsigned h, unsigned v) { h = (h ^ v) * 0x01000193u; return h ^ (h >> 13); }
__device__ __forceinline__ unsigned mix64(unsigned h, unsigned long long v) { return mix(mix(h, (unsigned)v), (unsigned)(v >> 32)); }
__device__ __forceinline__ unsigned sum_u32(const unsigned* a, int n) {
  unsigned h = 0u;
  for (int i = 0; i < n; ++i) h = h * 31u + a[i];
  return h;
}
__device__ __forceinline__ unsigned bump_u32(unsigned* p, unsigned k) { *p += k; return *p; }

extern "C" __global__ void __launch_bounds__(128) k134(const unsigned* __restrict__ in, unsigned* __restrict__ out, int pa, unsigned pb, float pf, long long pl) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned nthr = blockDim.x * blockDim.y * blockDim.z;
  const unsigned bid = blockIdx.x + gridDim.x * blockIdx.y;
  const unsigned gid = bid * nthr + tid;
  const unsigned warp = tid >> 5;
  unsigned* const o = out + gid * 16u;
  int i0 = (int)in[(gid * 3u + (tid + threadIdx.x)) & 511u];
  int i2 = (int)in[(gid * 3u + (blockIdx.x + bid)) & 511u];
  long long l1 = (long long)in[(gid * 5u + (~0x7b513c1bu)) & 511u];
  float f0 = __uint_as_float(in[512u + (((gid * 11u + warp)) & 511u)]);
  for (int k1 = 0;; ++k1) {
    if (k1 >= 3) break;
    if ((((__float2ll_rd(f0) != 0ll) && (k1 > shr_s32(i0, tid))) && (sub_s32(0, k1) < i2))) {
      switch (((((i2) % 6) + 6) % 6)) {
        case 1:
          l1 = 0ll;
        case 0:
        case 5:
          if (((shr_u32(in[(0u) & 511u], 1000000u) & 1u) != 0u)) {
            break;
          }
          o[15] = 0u;
          return;
      }
    }
    if ((2ll == l1)) {
      break;
    }
  }
  for (int k2 = 0; k2 < (int)((bid) % 5u); ++k2) {
    switch (((pb) % 4u)) {
      case 1:
        o[6] = 0u;
    }
  }
  o[4] = 0u;
}

