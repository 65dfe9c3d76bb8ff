// Test-only stand-in for sim/compiler/include/tsm_cuda.h: just enough of the CUDA device API for
// clang (-nocudainc -nocudalib) to compile the parser's test kernels. The tests use the real
// header instead as soon as it exists.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))

struct __tsm_dim3_tid {
  __declspec(property(get = get_x)) unsigned x;
  __declspec(property(get = get_y)) unsigned y;
  __declspec(property(get = get_z)) unsigned z;
  static __device__ unsigned get_x() { return __nvvm_read_ptx_sreg_tid_x(); }
  static __device__ unsigned get_y() { return __nvvm_read_ptx_sreg_tid_y(); }
  static __device__ unsigned get_z() { return __nvvm_read_ptx_sreg_tid_z(); }
};
struct __tsm_dim3_ntid {
  __declspec(property(get = get_x)) unsigned x;
  __declspec(property(get = get_y)) unsigned y;
  __declspec(property(get = get_z)) unsigned z;
  static __device__ unsigned get_x() { return __nvvm_read_ptx_sreg_ntid_x(); }
  static __device__ unsigned get_y() { return __nvvm_read_ptx_sreg_ntid_y(); }
  static __device__ unsigned get_z() { return __nvvm_read_ptx_sreg_ntid_z(); }
};
struct __tsm_dim3_ctaid {
  __declspec(property(get = get_x)) unsigned x;
  __declspec(property(get = get_y)) unsigned y;
  __declspec(property(get = get_z)) unsigned z;
  static __device__ unsigned get_x() { return __nvvm_read_ptx_sreg_ctaid_x(); }
  static __device__ unsigned get_y() { return __nvvm_read_ptx_sreg_ctaid_y(); }
  static __device__ unsigned get_z() { return __nvvm_read_ptx_sreg_ctaid_z(); }
};
struct __tsm_dim3_nctaid {
  __declspec(property(get = get_x)) unsigned x;
  __declspec(property(get = get_y)) unsigned y;
  __declspec(property(get = get_z)) unsigned z;
  static __device__ unsigned get_x() { return __nvvm_read_ptx_sreg_nctaid_x(); }
  static __device__ unsigned get_y() { return __nvvm_read_ptx_sreg_nctaid_y(); }
  static __device__ unsigned get_z() { return __nvvm_read_ptx_sreg_nctaid_z(); }
};
extern const __device__ __tsm_dim3_tid threadIdx;
extern const __device__ __tsm_dim3_ntid blockDim;
extern const __device__ __tsm_dim3_ctaid blockIdx;
extern const __device__ __tsm_dim3_nctaid gridDim;
#define warpSize 32

struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) int2 { int x, y; };

// __syncthreads is a clang builtin.
extern "C" __device__ int printf(const char*, ...);

static __device__ __forceinline__ void __threadfence() { __nvvm_membar_gl(); }

static __device__ __forceinline__ int atomicAdd(int* p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicAdd(unsigned* p, unsigned v) {
  return __nvvm_atom_add_gen_i((int*)p, (int)v);
}
static __device__ __forceinline__ unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return __nvvm_atom_add_gen_ll((long long*)p, (long long)v);
}
static __device__ __forceinline__ float atomicAdd(float* p, float v) { return __nvvm_atom_add_gen_f(p, v); }
static __device__ __forceinline__ int atomicMax(int* p, int v) { return __nvvm_atom_max_gen_i(p, v); }
static __device__ __forceinline__ int atomicMin(int* p, int v) { return __nvvm_atom_min_gen_i(p, v); }
static __device__ __forceinline__ int atomicExch(int* p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
static __device__ __forceinline__ int atomicCAS(int* p, int c, int v) { return __nvvm_atom_cas_gen_i(p, c, v); }
static __device__ __forceinline__ int atomicAnd(int* p, int v) { return __nvvm_atom_and_gen_i(p, v); }
static __device__ __forceinline__ int atomicOr(int* p, int v) { return __nvvm_atom_or_gen_i(p, v); }

// Shuffles and votes as inline PTX (clang's builtins for them need a newer PTX feature level than
// it picks with no CUDA installation); the nested blocks with their own .reg declarations are what
// CUDA's own headers emit, and exercise the parser's block flattening.
static __device__ __forceinline__ int __shfl_sync(unsigned m, int v, int l, int w = 32) {
  int r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(l), "r"(((32 - w) << 8) | 0x1f), "r"(m));
  return r;
}
static __device__ __forceinline__ float __shfl_sync(unsigned m, float v, int l, int w = 32) {
  return __builtin_bit_cast(float, __shfl_sync(m, __builtin_bit_cast(int, v), l, w));
}
static __device__ __forceinline__ float __shfl_down_sync(unsigned m, float v, unsigned d, int w = 32) {
  float r;
  asm volatile("{ .reg .pred p; shfl.sync.down.b32 %0|p, %1, %2, %3, %4; }"
               : "=f"(r) : "f"(v), "r"(d), "r"(((32 - w) << 8) | 0x1f), "r"(m));
  return r;
}
static __device__ __forceinline__ int __shfl_xor_sync(unsigned m, int v, int d, int w = 32) {
  int r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(d), "r"(((32 - w) << 8) | 0x1f), "r"(m));
  return r;
}
static __device__ __forceinline__ int __shfl_up_sync(unsigned m, int v, unsigned d, int w = 32) {
  int r;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(d), "r"((32 - w) << 8), "r"(m));
  return r;
}
static __device__ __forceinline__ unsigned __ballot_sync(unsigned m, int p) {
  unsigned r;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, %2; }" : "=r"(r) : "r"(p), "r"(m));
  return r;
}
static __device__ __forceinline__ int __any_sync(unsigned m, int p) {
  int r;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.any.pred p, p, %2; selp.s32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(p), "r"(m));
  return r;
}
static __device__ __forceinline__ int __all_sync(unsigned m, int p) {
  int r;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.all.pred p, p, %2; selp.s32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(p), "r"(m));
  return r;
}
static __device__ __forceinline__ int __popc(unsigned x) { return __builtin_popcount(x); }
static __device__ __forceinline__ long long clock64() { return __nvvm_read_ptx_sreg_clock64(); }
static __device__ __forceinline__ int clock() { return __nvvm_read_ptx_sreg_clock(); }

static __device__ __forceinline__ float sqrtf(float x) { return __builtin_sqrtf(x); }
static __device__ __forceinline__ double sqrt(double x) { return __builtin_sqrt(x); }
static __device__ __forceinline__ float fabsf(float x) { return __builtin_fabsf(x); }
static __device__ __forceinline__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
static __device__ __forceinline__ double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
static __device__ __forceinline__ float fminf(float a, float b) { return __builtin_fminf(a, b); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
static __device__ __forceinline__ float floorf(float x) { return __builtin_floorf(x); }
static __device__ __forceinline__ float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
static __device__ __forceinline__ float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
static __device__ __forceinline__ float __sinf(float x) { return __nvvm_sin_approx_f(x); }
static __device__ __forceinline__ float __cosf(float x) { return __nvvm_cos_approx_f(x); }
static __device__ __forceinline__ float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
static __device__ __forceinline__ float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
