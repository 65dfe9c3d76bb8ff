// A random CUDA kernel reduced from a failure of the translator (tests/randgen/CMakeLists.txt runs it
// as randgen.cuda.regression_*): a divergent-barrier fault: an if/else after a barrier whose arms both test the loop's exit was not reconverged inside the loop, so one lane went round alone (fixed: the join is where the paths that stay in the loop meet).
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

extern "C" __global__ void __launch_bounds__(64) k8884(const unsigned* __restrict__ in, unsigned* __restrict__ out, int pa, unsigned pb, float pf, long long pl) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned nthr = blockDim.x * blockDim.y * blockDim.z;
  const unsigned bid = blockIdx.x + gridDim.x * blockIdx.y;
  const unsigned gid = bid * nthr + tid;
  const unsigned warp = tid >> 5;
  unsigned* const o = out + gid * 16u;
  int i0 = (int)in[(gid * 19u + __float2uint_rn(pf)) & 511u];
  unsigned u1 = (unsigned)in[(gid * 19u + bid) & 511u];
  unsigned u2 = (unsigned)in[(gid * 25u + threadIdx.x) & 511u];
  unsigned u3 = (unsigned)in[(gid * 27u + (blockIdx.x ^ tid)) & 511u];
  long long l1 = (long long)in[(gid * 1u + shr_u32(blockIdx.x, nthr)) & 511u];
  unsigned long long q0 = (unsigned long long)in[(gid * 1u + (unsigned)pa) & 511u];
  unsigned long long q1 = (unsigned long long)in[(gid * 11u + (unsigned)0x66329b1f089f0093ull) & 511u];
  unsigned long long q2 = (unsigned long long)in[(gid * 17u + (pb + tid)) & 511u];
  float f0 = __uint_as_float(in[512u + (((gid * 3u + tid)) & 511u)]);
  float f1 = __uint_as_float(in[512u + (((gid * 7u + in[(tid) & 511u])) & 511u)]);
  unsigned a0[4];
  for (int i = 0; i < 4; ++i) a0[i] = in[(gid * 13u + 13u * (unsigned)i) & 511u];
  unsigned a1[8];
  for (int i = 0; i < 8; ++i) a1[i] = in[(gid * 3u + 4u * (unsigned)i) & 511u];
  __shared__ unsigned sh0[64];
  {
    int k1 = 0;
    do {
      ++k1;
      {
        int k2 = 0;
        for (int k3 = 0; k3 < (int)(((in[(16u) & 511u] + warp)) % 3u); ++k3) {
          if ((((__uint_as_float(in[512u + ((a1[(in[(in[(u2) & 511u]) & 511u]) & 7u]) & 511u)]) > __ll2float_rn(0ll)) || (0x8a19d5d29df80721ull == shr_u64(__float2ull_rd(47.21875f), __byte_perm(0xf0847fc6u, 0xa10a4148u, (in[(0u) & 511u]) & 0x7777u)))) && (f1 < 0.0f))) {
            break;
          }
        }
        __syncthreads();
        sh0[tid] = (__float2uint_rz(f0) ^ in[(0u) & 511u]);
        __syncthreads();
        u3 = sh0[(3u) % nthr];
        if ((bump_u32(&u3, 4294967295u) > u1)) {
          o[(0u) & 7u] = __float2uint_rd((-603.0f));
        } else {
          i0 ^= __mulhi(0, 0);
        }
      }
    } while (k1 < 2 && (in[(nthr) & 511u] <= (in[(5u) & 511u] + min(in[(0u) & 511u], 8u))));
  }
  o[15] = mix(mix64(mix64(mix64(mix64((unsigned)i0, l1), q0), q1), q2), sum_u32(a0, 4));
}

