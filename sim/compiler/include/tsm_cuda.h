// tsm_cuda.h — the CUDA device API for clang without a CUDA SDK (TeslaSM's CUDA header).
//
// The clang front end pre-includes this file:
//   clang++ -x cuda --cuda-device-only --cuda-gpu-arch=sm_75 --cuda-path=<empty dir> -nocudainc
//           -nocudalib -O2 -S -include tsm_cuda.h -isystem unsupported/ kernel.cu
// so that a kernel written for nvcc compiles unchanged: qualifiers, built-in variables, vector
// types, synchronization, atomics, warp vote and shuffle, printf and assert, the intrinsics and the
// single-precision math library. nvcc never sees this file (it has its own headers).
//
// Everything lowers to clang's NVVM builtins (__nvvm_read_ptx_sreg_*, __nvvm_bar*, __nvvm_atom_*,
// __nvvm_*_approx_f, ...), so the PTX uses the same instructions nvcc emits. The warp-synchronous
// operations (vote.sync, shfl.sync, bar.warp.sync, activemask) are inline asm: clang 14 has
// builtins for them but only enables them for PTX 6.0+ target features, which it sets only when it
// finds a CUDA SDK. docs/cuda-frontends.md lists how each facility is lowered.
#pragma once

#if !defined(__CUDA__)
#error "tsm_cuda.h is for clang -x cuda (host code includes tsm_cuda_math.h for the math library)"
#endif
#if defined(__CLANG_CUDA_RUNTIME_WRAPPER_H__)
#error "tsm_cuda.h replaces clang's CUDA SDK wrapper: compile with -nocudainc"
#endif

#define __TSM_CUDA_H__ 1
#ifndef __CUDACC__
#define __CUDACC__ 1  // as nvcc and clang's own wrapper define it
#endif

// ==== Qualifiers ==============================================================================

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
// clang 14 has no __noinline__ keyword (clang 15 added one), so this is a macro as in nvcc's
// headers; a kernel file must then not include libstdc++ headers that spell
// __attribute__((__noinline__)) (<memory>, <stacktrace>).
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
// __restrict__ is a keyword in clang already. __managed__ (unified memory) is not provided.

/// Every device function of this header: inlined like nvcc's header functions.
#define __TSM_DEVICE static __device__ __inline__ __attribute__((always_inline))
#define __TSM_HOST_DEVICE static __host__ __device__ __inline__ __attribute__((always_inline))

// ==== Vector types ============================================================================

// Layouts and alignments as CUDA's vector_types.h: a 2-vector is aligned to its size, a
// 4-vector to min(size, 16), 1- and 3-vectors to their element.
#define __TSM_VEC1(name, T, align) \
  struct __align__(align) name {   \
    T x;                           \
  };                               \
  __TSM_HOST_DEVICE name make_##name(T x) { return name{x}; }
#define __TSM_VEC2(name, T, align) \
  struct __align__(align) name {   \
    T x, y;                        \
  };                               \
  __TSM_HOST_DEVICE name make_##name(T x, T y) { return name{x, y}; }
#define __TSM_VEC3(name, T, align) \
  struct __align__(align) name {   \
    T x, y, z;                     \
  };                               \
  __TSM_HOST_DEVICE name make_##name(T x, T y, T z) { return name{x, y, z}; }
#define __TSM_VEC4(name, T, align) \
  struct __align__(align) name {   \
    T x, y, z, w;                  \
  };                               \
  __TSM_HOST_DEVICE name make_##name(T x, T y, T z, T w) { return name{x, y, z, w}; }
#define __TSM_VECS(prefix, T, a1, a2, a3, a4) \
  __TSM_VEC1(prefix##1, T, a1)                \
  __TSM_VEC2(prefix##2, T, a2)                \
  __TSM_VEC3(prefix##3, T, a3)                \
  __TSM_VEC4(prefix##4, T, a4)

__TSM_VECS(char, signed char, 1, 2, 1, 4)
__TSM_VECS(uchar, unsigned char, 1, 2, 1, 4)
__TSM_VECS(short, short, 2, 4, 2, 8)
__TSM_VECS(ushort, unsigned short, 2, 4, 2, 8)
__TSM_VECS(int, int, 4, 8, 4, 16)
__TSM_VECS(uint, unsigned int, 4, 8, 4, 16)
__TSM_VECS(long, long, 8, 16, 8, 16)
__TSM_VECS(ulong, unsigned long, 8, 16, 8, 16)
__TSM_VECS(longlong, long long, 8, 16, 8, 16)
__TSM_VECS(ulonglong, unsigned long long, 8, 16, 8, 16)
__TSM_VECS(float, float, 4, 8, 4, 16)
__TSM_VECS(double, double, 8, 16, 8, 16)

#undef __TSM_VECS
#undef __TSM_VEC1
#undef __TSM_VEC2
#undef __TSM_VEC3
#undef __TSM_VEC4

/// Launch dimensions: a uint3 whose components default to 1.
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

// ==== Built-in variables ======================================================================

// threadIdx.x etc. read the PTX special registers %tid, %ctaid, %ntid, %nctaid through properties
// (the technique of clang's own __clang_cuda_builtin_vars.h); the objects themselves cannot be
// copied or have their address taken, as in CUDA.
#define __TSM_BUILTIN_FIELD(field, reg)                                                        \
  __declspec(property(get = __fetch_##field)) unsigned int field;                              \
  static __device__ __inline__ __attribute__((always_inline)) unsigned int __fetch_##field() { \
    return reg;                                                                                \
  }
#define __TSM_BUILTIN_VAR(type, sreg)                            \
  struct type {                                                  \
    __TSM_BUILTIN_FIELD(x, __nvvm_read_ptx_sreg_##sreg##_x())    \
    __TSM_BUILTIN_FIELD(y, __nvvm_read_ptx_sreg_##sreg##_y())    \
    __TSM_BUILTIN_FIELD(z, __nvvm_read_ptx_sreg_##sreg##_z())    \
    __device__ operator uint3() const { return uint3{x, y, z}; } \
    __device__ operator dim3() const { return dim3(x, y, z); }   \
                                                                 \
   private:                                                      \
    __device__ type() = delete;                                  \
    __device__ type(const type&) = delete;                       \
    __device__ void operator=(const type&) const = delete;       \
    __device__ type* operator&() const = delete;                 \
  };

__TSM_BUILTIN_VAR(__cuda_builtin_threadIdx_t, tid)
__TSM_BUILTIN_VAR(__cuda_builtin_blockIdx_t, ctaid)
__TSM_BUILTIN_VAR(__cuda_builtin_blockDim_t, ntid)
__TSM_BUILTIN_VAR(__cuda_builtin_gridDim_t, nctaid)
#undef __TSM_BUILTIN_VAR
#undef __TSM_BUILTIN_FIELD

extern const __device__ __attribute__((weak)) __cuda_builtin_threadIdx_t threadIdx;
extern const __device__ __attribute__((weak)) __cuda_builtin_blockIdx_t blockIdx;
extern const __device__ __attribute__((weak)) __cuda_builtin_blockDim_t blockDim;
extern const __device__ __attribute__((weak)) __cuda_builtin_gridDim_t gridDim;
#define warpSize 32

// ==== Synchronization and memory fences =======================================================

// __syncthreads() is a clang builtin (bar.sync 0).
__TSM_DEVICE int __syncthreads_count(int p) { return __nvvm_bar0_popc(p); }  // bar.red.popc.u32
__TSM_DEVICE int __syncthreads_and(int p) { return __nvvm_bar0_and(p); }     // bar.red.and.pred
__TSM_DEVICE int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }       // bar.red.or.pred
__TSM_DEVICE void __threadfence_block() { __nvvm_membar_cta(); }             // membar.cta
__TSM_DEVICE void __threadfence() { __nvvm_membar_gl(); }                    // membar.gl
__TSM_DEVICE void __threadfence_system() { __nvvm_membar_sys(); }            // membar.sys

// ==== Warp vote, shuffle and synchronization (inline asm, see the file comment) ===============

// Predicates live in a { } scope under names (p, q) that compiler-generated registers (%p1, ...)
// never take, as in CUDA's own headers.

__TSM_DEVICE void __syncwarp(unsigned int mask = 0xffffffffu) {
  asm volatile("bar.warp.sync %0;" ::"r"(mask) : "memory");
}
__TSM_DEVICE unsigned int __activemask() {
  unsigned int mask;
  asm volatile("activemask.b32 %0;" : "=r"(mask));
  return mask;
}

#define __TSM_VOTE_PRED(name, mode)                                         \
  __TSM_DEVICE int name(unsigned int mask, int predicate) {                 \
    int result;                                                             \
    asm volatile("{ .reg .pred p, q; setp.ne.s32 p, %1, 0; vote.sync." mode \
                 ".pred q, p, %2; selp.s32 %0, 1, 0, q; }"                  \
                 : "=r"(result)                                             \
                 : "r"(predicate), "r"(mask));                              \
    return result;                                                          \
  }
__TSM_VOTE_PRED(__all_sync, "all")
__TSM_VOTE_PRED(__any_sync, "any")
__TSM_VOTE_PRED(__uni_sync, "uni")
#undef __TSM_VOTE_PRED

__TSM_DEVICE unsigned int __ballot_sync(unsigned int mask, int predicate) {
  unsigned int result;
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, %2; }"
               : "=r"(result)
               : "r"(predicate), "r"(mask));
  return result;
}

// The shuffle control word c packs the segment mask for width-wide sub-warps ((32 - width) << 8)
// and the lane clamp (31, or 0 for shfl.up, which clamps from below).
#define __TSM_SHUFFLE(name, mode, LaneT, clamp)                                                 \
  __TSM_DEVICE int name(unsigned int mask, int value, LaneT lane, int width = warpSize) {       \
    int result;                                                                                 \
    asm volatile("shfl.sync." mode ".b32 %0, %1, %2, %3, %4;"                                   \
                 : "=r"(result)                                                                 \
                 : "r"(value), "r"(lane), "r"(((warpSize - width) << 8) | (clamp)), "r"(mask)); \
    return result;                                                                              \
  }                                                                                             \
  __TSM_DEVICE unsigned int name(unsigned int mask, unsigned int value, LaneT lane,             \
                                 int width = warpSize) {                                        \
    return static_cast<unsigned int>(name(mask, static_cast<int>(value), lane, width));         \
  }                                                                                             \
  __TSM_DEVICE float name(unsigned int mask, float value, LaneT lane, int width = warpSize) {   \
    return __builtin_bit_cast(float, name(mask, __builtin_bit_cast(int, value), lane, width));  \
  }                                                                                             \
  __TSM_DEVICE long long name(unsigned int mask, long long value, LaneT lane,                   \
                              int width = warpSize) {                                           \
    int lo = name(mask, static_cast<int>(value), lane, width);                                  \
    int hi = name(mask, static_cast<int>(value >> 32), lane, width);                            \
    return static_cast<long long>((static_cast<unsigned long long>(hi) << 32) |                 \
                                  static_cast<unsigned int>(lo));                               \
  }                                                                                             \
  __TSM_DEVICE unsigned long long name(unsigned int mask, unsigned long long value, LaneT lane, \
                                       int width = warpSize) {                                  \
    return static_cast<unsigned long long>(                                                     \
        name(mask, static_cast<long long>(value), lane, width));                                \
  }                                                                                             \
  __TSM_DEVICE double name(unsigned int mask, double value, LaneT lane, int width = warpSize) { \
    return __builtin_bit_cast(double,                                                           \
                              name(mask, __builtin_bit_cast(long long, value), lane, width));   \
  }
__TSM_SHUFFLE(__shfl_sync, "idx", int, 0x1f)
__TSM_SHUFFLE(__shfl_up_sync, "up", unsigned int, 0)
__TSM_SHUFFLE(__shfl_down_sync, "down", unsigned int, 0x1f)
__TSM_SHUFFLE(__shfl_xor_sync, "bfly", int, 0x1f)
#undef __TSM_SHUFFLE

// ==== Atomics =================================================================================

// Generic-address atomics; clang infers the state space when it can (atom.global.add.u32, ...).
__TSM_DEVICE int atomicAdd(int* p, int v) { return __nvvm_atom_add_gen_i(p, v); }
__TSM_DEVICE unsigned int atomicAdd(unsigned int* p, unsigned int v) {
  return static_cast<unsigned int>(
      __nvvm_atom_add_gen_i(reinterpret_cast<int*>(p), static_cast<int>(v)));
}
__TSM_DEVICE unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return static_cast<unsigned long long>(
      __nvvm_atom_add_gen_ll(reinterpret_cast<long long*>(p), static_cast<long long>(v)));
}
__TSM_DEVICE float atomicAdd(float* p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__TSM_DEVICE double atomicAdd(double* p, double v) { return __nvvm_atom_add_gen_d(p, v); }

__TSM_DEVICE int atomicSub(int* p, int v) { return __nvvm_atom_sub_gen_i(p, v); }
__TSM_DEVICE unsigned int atomicSub(unsigned int* p, unsigned int v) {
  return static_cast<unsigned int>(
      __nvvm_atom_sub_gen_i(reinterpret_cast<int*>(p), static_cast<int>(v)));
}

__TSM_DEVICE int atomicExch(int* p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
__TSM_DEVICE unsigned int atomicExch(unsigned int* p, unsigned int v) {
  return static_cast<unsigned int>(
      __nvvm_atom_xchg_gen_i(reinterpret_cast<int*>(p), static_cast<int>(v)));
}
__TSM_DEVICE unsigned long long atomicExch(unsigned long long* p, unsigned long long v) {
  return static_cast<unsigned long long>(
      __nvvm_atom_xchg_gen_ll(reinterpret_cast<long long*>(p), static_cast<long long>(v)));
}
__TSM_DEVICE float atomicExch(float* p, float v) {
  return __builtin_bit_cast(
      float, __nvvm_atom_xchg_gen_i(reinterpret_cast<int*>(p), __builtin_bit_cast(int, v)));
}

__TSM_DEVICE int atomicMin(int* p, int v) { return __nvvm_atom_min_gen_i(p, v); }
__TSM_DEVICE unsigned int atomicMin(unsigned int* p, unsigned int v) {
  return __nvvm_atom_min_gen_ui(p, v);
}
__TSM_DEVICE long long atomicMin(long long* p, long long v) { return __nvvm_atom_min_gen_ll(p, v); }
__TSM_DEVICE unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
  return __nvvm_atom_min_gen_ull(p, v);
}
__TSM_DEVICE int atomicMax(int* p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__TSM_DEVICE unsigned int atomicMax(unsigned int* p, unsigned int v) {
  return __nvvm_atom_max_gen_ui(p, v);
}
__TSM_DEVICE long long atomicMax(long long* p, long long v) { return __nvvm_atom_max_gen_ll(p, v); }
__TSM_DEVICE unsigned long long atomicMax(unsigned long long* p, unsigned long long v) {
  return __nvvm_atom_max_gen_ull(p, v);
}

/// old >= limit ? 0 : old + 1 (atom.inc), and ((old == 0) | (old > limit)) ? limit : old - 1.
__TSM_DEVICE unsigned int atomicInc(unsigned int* p, unsigned int limit) {
  return __nvvm_atom_inc_gen_ui(p, limit);
}
__TSM_DEVICE unsigned int atomicDec(unsigned int* p, unsigned int limit) {
  return __nvvm_atom_dec_gen_ui(p, limit);
}

__TSM_DEVICE int atomicCAS(int* p, int compare, int v) {
  return __nvvm_atom_cas_gen_i(p, compare, v);
}
__TSM_DEVICE unsigned int atomicCAS(unsigned int* p, unsigned int compare, unsigned int v) {
  return static_cast<unsigned int>(__nvvm_atom_cas_gen_i(
      reinterpret_cast<int*>(p), static_cast<int>(compare), static_cast<int>(v)));
}
__TSM_DEVICE unsigned long long atomicCAS(unsigned long long* p, unsigned long long compare,
                                          unsigned long long v) {
  return static_cast<unsigned long long>(__nvvm_atom_cas_gen_ll(
      reinterpret_cast<long long*>(p), static_cast<long long>(compare), static_cast<long long>(v)));
}

#define __TSM_ATOMIC_BITS(name, op)                                                             \
  __TSM_DEVICE int name(int* p, int v) { return __nvvm_atom_##op##_gen_i(p, v); }               \
  __TSM_DEVICE unsigned int name(unsigned int* p, unsigned int v) {                             \
    return static_cast<unsigned int>(                                                           \
        __nvvm_atom_##op##_gen_i(reinterpret_cast<int*>(p), static_cast<int>(v)));              \
  }                                                                                             \
  __TSM_DEVICE unsigned long long name(unsigned long long* p, unsigned long long v) {           \
    return static_cast<unsigned long long>(                                                     \
        __nvvm_atom_##op##_gen_ll(reinterpret_cast<long long*>(p), static_cast<long long>(v))); \
  }
__TSM_ATOMIC_BITS(atomicAnd, and)
__TSM_ATOMIC_BITS(atomicOr, or)
__TSM_ATOMIC_BITS(atomicXor, xor)
#undef __TSM_ATOMIC_BITS

// ==== printf, assert, trap, clocks ============================================================

extern "C" {
// clang lowers a device-side printf(fmt, args...) itself into vprintf(fmt, buffer) with the
// arguments packed into a local buffer, exactly as nvcc does; printf only needs declaring.
__device__ int printf(const char* format, ...);
__device__ int vprintf(const char* format, const char* arguments);

// assert: the same __assertfail call nvcc emits, reached through glibc's assert macro (which
// calls __assert_fail); the simulator's runtime reports message, file, line and function.
__device__ void __assertfail(const char* message, const char* file, unsigned int line,
                             const char* function, unsigned long char_size);
__device__ static __inline__ void __assert_fail(const char* message, const char* file,
                                                unsigned int line, const char* function) {
  __assertfail(message, file, line, function, sizeof(char));
}

// The device heap, declared as in CUDA (clang's <new> wrapper needs them): a kernel that uses
// them calls the extern functions malloc/free, as nvcc's PTX does.
__device__ void* malloc(__SIZE_TYPE__ size);
__device__ void free(void* pointer);
}
#include <assert.h>  // glibc's macro; honours NDEBUG

// memcpy and memset in device code, as CUDA has them: expanded inline (loads and stores, or a
// loop), never a call.
__TSM_DEVICE void* memcpy(void* destination, const void* source, __SIZE_TYPE__ size) {
  return __builtin_memcpy(destination, source, size);
}
__TSM_DEVICE void* memset(void* destination, int value, __SIZE_TYPE__ size) {
  return __builtin_memset(destination, value, size);
}

__TSM_DEVICE void __trap() { asm volatile("trap;"); }
__TSM_DEVICE void __brkpt() { asm volatile("brkpt;"); }
__TSM_DEVICE long clock() { return __nvvm_read_ptx_sreg_clock(); }
__TSM_DEVICE long long clock64() { return __nvvm_read_ptx_sreg_clock64(); }

// ==== Read-only data cache loads (ld.global.nc) ================================================

#define __TSM_LDG(T, suffix) \
  __TSM_DEVICE T __ldg(const T* p) { return __nvvm_ldg_##suffix(p); }
__TSM_LDG(char, c)
__TSM_LDG(unsigned char, uc)
__TSM_LDG(short, s)
__TSM_LDG(unsigned short, us)
__TSM_LDG(int, i)
__TSM_LDG(unsigned int, ui)
__TSM_LDG(long, l)
__TSM_LDG(unsigned long, ul)
__TSM_LDG(long long, ll)
__TSM_LDG(unsigned long long, ull)
__TSM_LDG(float, f)
__TSM_LDG(double, d)
#undef __TSM_LDG
#define __TSM_LDG_VECTOR(T, E, n, suffix)                                             \
  __TSM_DEVICE T __ldg(const T* p) {                                                  \
    typedef E V __attribute__((ext_vector_type(n)));                                  \
    return __builtin_bit_cast(T, __nvvm_ldg_##suffix(reinterpret_cast<const V*>(p))); \
  }
__TSM_LDG_VECTOR(int2, int, 2, i2)
__TSM_LDG_VECTOR(int4, int, 4, i4)
__TSM_LDG_VECTOR(uint2, unsigned int, 2, ui2)
__TSM_LDG_VECTOR(uint4, unsigned int, 4, ui4)
__TSM_LDG_VECTOR(float2, float, 2, f2)
__TSM_LDG_VECTOR(float4, float, 4, f4)
__TSM_LDG_VECTOR(double2, double, 2, d2)
#undef __TSM_LDG_VECTOR

// ==== Not provided: textures and surfaces =====================================================

// The SM has no texture units (SPEC §2). The object types exist, so a kernel may take one as a
// parameter, but every fetch and surface access is an error at the call that names what is not
// supported, e.g. "'tex1Dfetch<float, ...>' is unavailable: textures and surfaces (tex1Dfetch) are
// not supported ...". Half precision and cooperative groups are refused the same way by the stub
// headers in include/unsupported/ (cuda_fp16.h, cuda_bf16.h, cooperative_groups.h).
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
#define __TSM_NO_TEXTURE(f)                                                                  \
  template <typename T = void, typename... Args>                                            \
  __device__ __attribute__((unavailable("textures and surfaces (" #f ") are not supported: " \
                                        "the SM has no texture units"))) T                  \
  f(Args...);
// clang-format off
__TSM_NO_TEXTURE(tex1Dfetch) __TSM_NO_TEXTURE(tex1D) __TSM_NO_TEXTURE(tex2D) __TSM_NO_TEXTURE(tex3D)
__TSM_NO_TEXTURE(tex1DLod) __TSM_NO_TEXTURE(tex2DLod) __TSM_NO_TEXTURE(tex3DLod)
__TSM_NO_TEXTURE(tex1DGrad) __TSM_NO_TEXTURE(tex2DGrad) __TSM_NO_TEXTURE(tex3DGrad)
__TSM_NO_TEXTURE(tex1DLayered) __TSM_NO_TEXTURE(tex2DLayered) __TSM_NO_TEXTURE(tex2Dgather)
__TSM_NO_TEXTURE(texCubemap) __TSM_NO_TEXTURE(texCubemapLayered)
__TSM_NO_TEXTURE(surf1Dread) __TSM_NO_TEXTURE(surf2Dread) __TSM_NO_TEXTURE(surf3Dread)
__TSM_NO_TEXTURE(surf1Dwrite) __TSM_NO_TEXTURE(surf2Dwrite) __TSM_NO_TEXTURE(surf3Dwrite)
// clang-format on
#undef __TSM_NO_TEXTURE

// ==== Fast-math intrinsics (the SFU's .approx instructions) ===================================

__TSM_DEVICE float __sinf(float x) { return __nvvm_sin_approx_f(x); }  // sin.approx.f32
__TSM_DEVICE float __cosf(float x) { return __nvvm_cos_approx_f(x); }  // cos.approx.f32
__TSM_DEVICE void __sincosf(float x, float* s, float* c) {
  *s = __sinf(x);
  *c = __cosf(x);
}
__TSM_DEVICE float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }  // div.approx
__TSM_DEVICE float __tanf(float x) { return __fdividef(__sinf(x), __cosf(x)); }
__TSM_DEVICE float __exp2f(float x) { return __nvvm_ex2_approx_f(x); }      // ex2.approx.f32
__TSM_DEVICE float __expf(float x) { return __exp2f(x * 1.44269504f); }     // x log2(e)
__TSM_DEVICE float __exp10f(float x) { return __exp2f(x * 3.32192809f); }   // x log2(10)
__TSM_DEVICE float __log2f(float x) { return __nvvm_lg2_approx_f(x); }      // lg2.approx.f32
__TSM_DEVICE float __logf(float x) { return __log2f(x) * 0.693147181f; }    // * ln 2
__TSM_DEVICE float __log10f(float x) { return __log2f(x) * 0.301029996f; }  // * log10(2)
__TSM_DEVICE float __powf(float x, float y) { return __exp2f(y * __log2f(x)); }
/// As CUDA: 2 ulp, the SFU's rsqrt.approx.f32 (nvcc emits the same instruction for it).
__TSM_DEVICE float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
__TSM_DEVICE float __saturatef(float x) { return __nvvm_saturate_f(x); }  // cvt.sat.f32.f32

// ==== IEEE operations with explicit rounding (never contracted into an fma) ====================

// rn: to nearest even, rz: toward zero, rd: down (PTX .rm), ru: up (PTX .rp). Additions,
// subtractions and products are inline asm: LLVM lowers __nvvm_add_rn_f/__nvvm_mul_rn_f to plain
// fadd/fmul, which -ffp-contract=fast (clang's CUDA default) then fuses into an fma.
#define __TSM_ASM_BINARY(name, T, ptx, constraint)                              \
  __TSM_DEVICE T name(T a, T b) {                                               \
    T r;                                                                        \
    asm(ptx " %0, %1, %2;" : "=" constraint(r) : constraint(a), constraint(b)); \
    return r;                                                                   \
  }
// Integer to float with a rounding mode, as inline PTX: clang 14's optimizer turns the rz forms of
// the __nvvm_*2f builtins into plain (round-to-nearest) conversions, a silently wrong result that
// the random CUDA differential found (__ll2float_rz(-7969551425255944308) gave -0x1.ba6624p+62).
// Float to integer likewise: PTX's cvt saturates (NaN gives 0), but clang 14 folds the builtins
// into LLVM's fptoui/fptosi, for which an out-of-range value is undefined: __float2uint_rz(-1.0f)
// made it delete the whole kernel. As inline PTX the conversion is the one PTX defines.
#define __TSM_F2I(mode, type, itype, constraint)                          \
  type r;                                                                 \
  asm("cvt." #mode "i." itype ".f32 %0, %1;" : constraint(r) : "f"(a));   \
  return r;
#define __TSM_I2F(mode, itype, constraint)                                 \
  float r;                                                                \
  asm("cvt." #mode ".f32." itype " %0, %1;" : "=f"(r) : constraint(a));   \
  return r;
#define __TSM_ROUNDED(cuda, nvvm)                                                                \
  __TSM_ASM_BINARY(__fadd_##cuda, float, "add." #nvvm ".f32", "f")                               \
  __TSM_ASM_BINARY(__fsub_##cuda, float, "sub." #nvvm ".f32", "f")                               \
  __TSM_ASM_BINARY(__fmul_##cuda, float, "mul." #nvvm ".f32", "f")                               \
  __TSM_ASM_BINARY(__dadd_##cuda, double, "add." #nvvm ".f64", "d")                              \
  __TSM_ASM_BINARY(__dsub_##cuda, double, "sub." #nvvm ".f64", "d")                              \
  __TSM_ASM_BINARY(__dmul_##cuda, double, "mul." #nvvm ".f64", "d")                              \
  __TSM_DEVICE float __fmaf_##cuda(float a, float b, float c) {                                  \
    return __nvvm_fma_##nvvm##_f(a, b, c);                                                       \
  }                                                                                              \
  __TSM_DEVICE float __fdiv_##cuda(float a, float b) { return __nvvm_div_##nvvm##_f(a, b); }     \
  __TSM_DEVICE float __frcp_##cuda(float a) { return __nvvm_rcp_##nvvm##_f(a); }                 \
  __TSM_DEVICE float __fsqrt_##cuda(float a) { return __nvvm_sqrt_##nvvm##_f(a); }               \
  __TSM_DEVICE double __fma_##cuda(double a, double b, double c) {                               \
    return __nvvm_fma_##nvvm##_d(a, b, c);                                                       \
  }                                                                                              \
  __TSM_DEVICE double __ddiv_##cuda(double a, double b) { return __nvvm_div_##nvvm##_d(a, b); }  \
  __TSM_DEVICE double __drcp_##cuda(double a) { return __nvvm_rcp_##nvvm##_d(a); }               \
  __TSM_DEVICE double __dsqrt_##cuda(double a) { return __nvvm_sqrt_##nvvm##_d(a); }             \
  __TSM_DEVICE int __float2int_##cuda(float a) { __TSM_F2I(nvvm, int, "s32", "=r") }             \
  __TSM_DEVICE unsigned int __float2uint_##cuda(float a) { __TSM_F2I(nvvm, unsigned, "u32", "=r") }  \
  __TSM_DEVICE long long __float2ll_##cuda(float a) { __TSM_F2I(nvvm, long long, "s64", "=l") }  \
  __TSM_DEVICE unsigned long long __float2ull_##cuda(float a) {                                  \
    __TSM_F2I(nvvm, unsigned long long, "u64", "=l")                                             \
  }                                                                                              \
  __TSM_DEVICE float __int2float_##cuda(int a) { __TSM_I2F(nvvm, "s32", "r") }                  \
  __TSM_DEVICE float __uint2float_##cuda(unsigned int a) { __TSM_I2F(nvvm, "u32", "r") }         \
  __TSM_DEVICE float __ll2float_##cuda(long long a) { __TSM_I2F(nvvm, "s64", "l") }              \
  __TSM_DEVICE float __ull2float_##cuda(unsigned long long a) { __TSM_I2F(nvvm, "u64", "l") }    \
  __TSM_DEVICE int __double2int_##cuda(double a) { return __nvvm_d2i_##nvvm(a); }                \
  __TSM_DEVICE float __double2float_##cuda(double a) { return __nvvm_d2f_##nvvm(a); }
__TSM_ROUNDED(rn, rn)
__TSM_ROUNDED(rz, rz)
__TSM_ROUNDED(rd, rm)
__TSM_ROUNDED(ru, rp)
#undef __TSM_ROUNDED
#undef __TSM_I2F
#undef __TSM_F2I
#undef __TSM_ASM_BINARY

// ==== Bit reinterpretation ====================================================================

__TSM_DEVICE int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__TSM_DEVICE float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__TSM_DEVICE unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
__TSM_DEVICE float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__TSM_DEVICE long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__TSM_DEVICE double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__TSM_DEVICE double __hiloint2double(int hi, int lo) {
  return __builtin_bit_cast(double, static_cast<long long>((static_cast<unsigned long long>(static_cast<unsigned int>(hi)) << 32) |
                                                           static_cast<unsigned int>(lo)));
}
__TSM_DEVICE int __double2hiint(double x) { return static_cast<int>(__builtin_bit_cast(unsigned long long, x) >> 32); }
__TSM_DEVICE int __double2loint(double x) { return static_cast<int>(__builtin_bit_cast(unsigned long long, x)); }

// ==== Integer intrinsics ======================================================================

__TSM_DEVICE int __mul24(int a, int b) { return __nvvm_mul24_i(a, b); }  // mul24.lo.s32
__TSM_DEVICE unsigned int __umul24(unsigned int a, unsigned int b) {
  return static_cast<unsigned int>(__nvvm_mul24_ui(static_cast<int>(a), static_cast<int>(b)));
}
__TSM_DEVICE int __mulhi(int a, int b) { return __nvvm_mulhi_i(a, b); }  // mul.hi.s32
__TSM_DEVICE unsigned int __umulhi(unsigned int a, unsigned int b) { return __nvvm_mulhi_ui(a, b); }
__TSM_DEVICE long long __mul64hi(long long a, long long b) { return __nvvm_mulhi_ll(a, b); }
__TSM_DEVICE unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return __nvvm_mulhi_ull(a, b);
}
__TSM_DEVICE int __popc(unsigned int x) { return __builtin_popcount(x); }  // popc.b32
__TSM_DEVICE int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__TSM_DEVICE int __clz(int x) {
  return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x));
}  // clz.b32
__TSM_DEVICE int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
__TSM_DEVICE unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }  // brev.b32
__TSM_DEVICE unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
/// Position of the least significant set bit, 1-based; 0 for 0.
__TSM_DEVICE int __ffs(int x) { return __builtin_ffs(x); }
__TSM_DEVICE int __ffsll(long long x) { return __builtin_ffsll(x); }
__TSM_DEVICE unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  return static_cast<unsigned int>(
      __nvvm_prmt(static_cast<int>(x), static_cast<int>(y), static_cast<int>(s)));
}
__TSM_DEVICE unsigned int __sad(int x, int y, unsigned int z) {
  return static_cast<unsigned int>(__nvvm_sad_i(x, y, static_cast<int>(z)));
}
__TSM_DEVICE unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
  return __nvvm_sad_ui(x, y, z);
}
// The halving adds in 32-bit arithmetic: written with a 64-bit sum, clang 14 turned
// __hadd(-2, x) into `mul.wide.s32 x, 0x80000000` (shl of the sign-extended value by 31, with
// 1 << 31 taken as a negative s32), the wrong sign (found by the random CUDA differential).
__TSM_DEVICE int __hadd(int a, int b) { return (a >> 1) + (b >> 1) + (a & b & 1); }
__TSM_DEVICE int __rhadd(int a, int b) { return (a >> 1) + (b >> 1) + ((a | b) & 1); }
__TSM_DEVICE unsigned int __uhadd(unsigned int a, unsigned int b) { return (a >> 1) + (b >> 1) + (a & b & 1u); }
__TSM_DEVICE unsigned int __urhadd(unsigned int a, unsigned int b) { return (a >> 1) + (b >> 1) + ((a | b) & 1u); }

// min, max, abs: CUDA's overloads, including the mixed signed/unsigned ones (min(i, blockDim.x)).
#define __TSM_MINMAX(A, B, R)                                                             \
  __TSM_DEVICE R min(A a, B b) {                                                          \
    return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); \
  }                                                                                       \
  __TSM_DEVICE R max(A a, B b) {                                                          \
    return static_cast<R>(a) > static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); \
  }
__TSM_MINMAX(int, int, int)
__TSM_MINMAX(unsigned int, unsigned int, unsigned int)
__TSM_MINMAX(int, unsigned int, unsigned int)
__TSM_MINMAX(unsigned int, int, unsigned int)
__TSM_MINMAX(long, long, long)
__TSM_MINMAX(unsigned long, unsigned long, unsigned long)
__TSM_MINMAX(long long, long long, long long)
__TSM_MINMAX(unsigned long long, unsigned long long, unsigned long long)
__TSM_MINMAX(long long, unsigned long long, unsigned long long)
__TSM_MINMAX(unsigned long long, long long, unsigned long long)
#undef __TSM_MINMAX
__TSM_DEVICE float min(float a, float b) { return __builtin_fminf(a, b); }  // min.f32
__TSM_DEVICE float max(float a, float b) { return __builtin_fmaxf(a, b); }  // max.f32
__TSM_DEVICE double min(double a, double b) { return __builtin_fmin(a, b); }
__TSM_DEVICE double max(double a, double b) { return __builtin_fmax(a, b); }
__TSM_DEVICE double min(float a, double b) { return __builtin_fmin(a, b); }
__TSM_DEVICE double max(float a, double b) { return __builtin_fmax(a, b); }
__TSM_DEVICE double min(double a, float b) { return __builtin_fmin(a, b); }
__TSM_DEVICE double max(double a, float b) { return __builtin_fmax(a, b); }
__TSM_DEVICE unsigned int umin(unsigned int a, unsigned int b) { return min(a, b); }
__TSM_DEVICE unsigned int umax(unsigned int a, unsigned int b) { return max(a, b); }
__TSM_DEVICE long long llmin(long long a, long long b) { return min(a, b); }
__TSM_DEVICE long long llmax(long long a, long long b) { return max(a, b); }
__TSM_DEVICE unsigned long long ullmin(unsigned long long a, unsigned long long b) {
  return min(a, b);
}
__TSM_DEVICE unsigned long long ullmax(unsigned long long a, unsigned long long b) {
  return max(a, b);
}
__TSM_DEVICE int abs(int x) { return x < 0 ? -x : x; }
__TSM_DEVICE long labs(long x) { return x < 0 ? -x : x; }
__TSM_DEVICE long long llabs(long long x) { return x < 0 ? -x : x; }

// ==== The single-precision math library =======================================================

// Accurate to a few ulp (docs/cuda-frontends.md lists each function's measured bound), written
// with range reduction and polynomials in tsm_cuda_math.h, which the tests also compile for the
// host against the C library.
#include "tsm_cuda_math.h"

#define __TSM_MATH1(f) \
  __TSM_DEVICE float f(float x) { return tsm_math::f(x); }
#define __TSM_MATH2(f) \
  __TSM_DEVICE float f(float x, float y) { return tsm_math::f(x, y); }
// clang-format off
__TSM_MATH1(sinf) __TSM_MATH1(cosf) __TSM_MATH1(tanf) __TSM_MATH1(sinpif) __TSM_MATH1(cospif)
__TSM_MATH1(asinf) __TSM_MATH1(acosf) __TSM_MATH1(atanf)
__TSM_MATH1(sinhf) __TSM_MATH1(coshf) __TSM_MATH1(tanhf)
__TSM_MATH1(asinhf) __TSM_MATH1(acoshf) __TSM_MATH1(atanhf)
__TSM_MATH1(expf) __TSM_MATH1(exp2f) __TSM_MATH1(exp10f) __TSM_MATH1(expm1f)
__TSM_MATH1(logf) __TSM_MATH1(log2f) __TSM_MATH1(log10f) __TSM_MATH1(log1pf)
__TSM_MATH1(sqrtf) __TSM_MATH1(cbrtf) __TSM_MATH1(erff) __TSM_MATH1(erfcf)
__TSM_MATH1(fabsf) __TSM_MATH1(floorf) __TSM_MATH1(ceilf) __TSM_MATH1(truncf)
__TSM_MATH1(roundf) __TSM_MATH1(rintf) __TSM_MATH1(nearbyintf) __TSM_MATH1(logbf)
__TSM_MATH2(powf) __TSM_MATH2(atan2f) __TSM_MATH2(hypotf) __TSM_MATH2(fmodf)
__TSM_MATH2(remainderf) __TSM_MATH2(fminf) __TSM_MATH2(fmaxf) __TSM_MATH2(fdimf)
__TSM_MATH2(copysignf)
// clang-format on
#undef __TSM_MATH1
#undef __TSM_MATH2
                                                __TSM_DEVICE float fmaf(float a, float b, float c) {
  return __builtin_fmaf(a, b, c);
}  // fma.rn.f32
__TSM_DEVICE void sincosf(float x, float* s, float* c) { tsm_math::sincosf(x, s, c); }
__TSM_DEVICE float ldexpf(float x, int n) { return tsm_math::ldexpf(x, n); }
__TSM_DEVICE float scalbnf(float x, int n) { return tsm_math::scalbnf(x, n); }
__TSM_DEVICE float frexpf(float x, int* e) { return tsm_math::frexpf(x, e); }
__TSM_DEVICE float modff(float x, float* i) { return tsm_math::modff(x, i); }
__TSM_DEVICE int ilogbf(float x) { return tsm_math::ilogbf(x); }
/// CUDA's fast 1/sqrt is rsqrtf above; rcbrtf and the like are not provided.

// C++ overloads on float (sin(x) for a float x), as CUDA's headers declare them.
#define __TSM_CXX1(f, cf) \
  __TSM_DEVICE float f(float x) { return cf(x); }
#define __TSM_CXX2(f, cf) \
  __TSM_DEVICE float f(float x, float y) { return cf(x, y); }
// clang-format off
__TSM_CXX1(sin, sinf) __TSM_CXX1(cos, cosf) __TSM_CXX1(tan, tanf)
__TSM_CXX1(asin, asinf) __TSM_CXX1(acos, acosf) __TSM_CXX1(atan, atanf)
__TSM_CXX1(sinh, sinhf) __TSM_CXX1(cosh, coshf) __TSM_CXX1(tanh, tanhf)
__TSM_CXX1(asinh, asinhf) __TSM_CXX1(acosh, acoshf) __TSM_CXX1(atanh, atanhf)
__TSM_CXX1(exp, expf) __TSM_CXX1(exp2, exp2f) __TSM_CXX1(expm1, expm1f)
__TSM_CXX1(log, logf) __TSM_CXX1(log2, log2f) __TSM_CXX1(log10, log10f) __TSM_CXX1(log1p, log1pf)
__TSM_CXX1(sqrt, sqrtf) __TSM_CXX1(cbrt, cbrtf) __TSM_CXX1(erf, erff) __TSM_CXX1(erfc, erfcf)
__TSM_CXX1(fabs, fabsf) __TSM_CXX1(floor, floorf) __TSM_CXX1(ceil, ceilf) __TSM_CXX1(trunc, truncf)
__TSM_CXX1(round, roundf) __TSM_CXX1(rint, rintf) __TSM_CXX1(nearbyint, nearbyintf)
__TSM_CXX2(pow, powf) __TSM_CXX2(atan2, atan2f) __TSM_CXX2(hypot, hypotf) __TSM_CXX2(fmod, fmodf)
__TSM_CXX2(remainder, remainderf) __TSM_CXX2(fmin, fminf) __TSM_CXX2(fmax, fmaxf)
__TSM_CXX2(fdim, fdimf) __TSM_CXX2(copysign, copysignf)
// clang-format on
#undef __TSM_CXX1
#undef __TSM_CXX2
                                                                __TSM_DEVICE
    float fma(float a, float b, float c) {
  return __builtin_fmaf(a, b, c);
}
__TSM_DEVICE float abs(float x) { return __builtin_fabsf(x); }

// Double precision: the exact operations only (the translator lowers f64 to integer sequences
// where the SM has no DP unit). The rest is declared unavailable, so that sin(1.0) is an error
// naming the function instead of a silent conversion to float.
__TSM_DEVICE double fabs(double x) { return __builtin_fabs(x); }
__TSM_DEVICE double abs(double x) { return __builtin_fabs(x); }
__TSM_DEVICE double sqrt(double x) { return __builtin_sqrt(x); }  // sqrt.rn.f64
__TSM_DEVICE double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
__TSM_DEVICE double fmin(double a, double b) { return __builtin_fmin(a, b); }
__TSM_DEVICE double fmax(double a, double b) { return __builtin_fmax(a, b); }
__TSM_DEVICE double floor(double x) { return __builtin_floor(x); }
__TSM_DEVICE double ceil(double x) { return __builtin_ceil(x); }
__TSM_DEVICE double trunc(double x) { return __builtin_trunc(x); }
__TSM_DEVICE double round(double x) { return __builtin_round(x); }
__TSM_DEVICE double rint(double x) { return __builtin_rint(x); }
__TSM_DEVICE double copysign(double x, double y) { return __builtin_copysign(x, y); }
#define __TSM_NO_DOUBLE1(f)                                                                       \
  __device__ __attribute__((unavailable("double-precision " #f " is not provided by tsm_cuda.h; " \
                                        "use " #f "f"))) double                                   \
  f(double);
#define __TSM_NO_DOUBLE2(f)                                                                       \
  __device__ __attribute__((unavailable("double-precision " #f " is not provided by tsm_cuda.h; " \
                                        "use " #f "f"))) double                                   \
  f(double, double);
// clang-format off
__TSM_NO_DOUBLE1(sin) __TSM_NO_DOUBLE1(cos) __TSM_NO_DOUBLE1(tan) __TSM_NO_DOUBLE1(asin)
__TSM_NO_DOUBLE1(acos) __TSM_NO_DOUBLE1(atan) __TSM_NO_DOUBLE1(sinh) __TSM_NO_DOUBLE1(cosh)
__TSM_NO_DOUBLE1(tanh) __TSM_NO_DOUBLE1(asinh) __TSM_NO_DOUBLE1(acosh) __TSM_NO_DOUBLE1(atanh)
__TSM_NO_DOUBLE1(exp) __TSM_NO_DOUBLE1(exp2) __TSM_NO_DOUBLE1(expm1) __TSM_NO_DOUBLE1(log)
__TSM_NO_DOUBLE1(log2) __TSM_NO_DOUBLE1(log10) __TSM_NO_DOUBLE1(log1p) __TSM_NO_DOUBLE1(cbrt)
__TSM_NO_DOUBLE1(erf) __TSM_NO_DOUBLE1(erfc)
__TSM_NO_DOUBLE2(pow) __TSM_NO_DOUBLE2(atan2) __TSM_NO_DOUBLE2(hypot) __TSM_NO_DOUBLE2(fmod)
__TSM_NO_DOUBLE2(remainder)
// clang-format on
#undef __TSM_NO_DOUBLE1
#undef __TSM_NO_DOUBLE2

    // Classification, for float and double (templates, so that <cmath>'s own overloads win when a
    // kernel includes it).
    template <typename T>
    __TSM_DEVICE bool isnan(T x) {
  return __builtin_isnan(x);
}
template <typename T>
__TSM_DEVICE bool isinf(T x) {
  return __builtin_isinf(x);
}
template <typename T>
__TSM_DEVICE bool isfinite(T x) {
  return __builtin_isfinite(x);
}
template <typename T>
__TSM_DEVICE bool signbit(T x) {
  return __builtin_signbit(x);
}
