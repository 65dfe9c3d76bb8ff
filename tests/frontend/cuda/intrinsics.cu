// Fast-math, rounding-mode, conversion, reinterpretation and integer intrinsics, one kernel each
// so that the test can check each kernel's PTX for the instruction it must lower to.

#define FLOAT_KERNEL(name, expr)                                                        \
  extern "C" __global__ void name(float* out, const float* a, const float* b, const float* c) { \
    const int i = threadIdx.x;                                                          \
    out[i] = (expr);                                                                    \
  }
#define INT_KERNEL(name, T, expr)                                                       \
  extern "C" __global__ void name(T* out, const T* a, const T* b, const float* f) {     \
    const int i = threadIdx.x;                                                          \
    out[i] = (expr);                                                                    \
  }

// The SFU's approximations.
FLOAT_KERNEL(k_sinf_fast, __sinf(a[i]))
FLOAT_KERNEL(k_cosf_fast, __cosf(a[i]))
FLOAT_KERNEL(k_tanf_fast, __tanf(a[i]))
FLOAT_KERNEL(k_expf_fast, __expf(a[i]))
FLOAT_KERNEL(k_exp10f_fast, __exp10f(a[i]))
FLOAT_KERNEL(k_logf_fast, __logf(a[i]))
FLOAT_KERNEL(k_log2f_fast, __log2f(a[i]))
FLOAT_KERNEL(k_log10f_fast, __log10f(a[i]))
FLOAT_KERNEL(k_powf_fast, __powf(a[i], b[i]))
FLOAT_KERNEL(k_fdividef, __fdividef(a[i], b[i]))
FLOAT_KERNEL(k_rsqrtf, rsqrtf(a[i]))
FLOAT_KERNEL(k_saturatef, __saturatef(a[i]))
__device__ float sincos_sum(float x) {
  float s, c;
  __sincosf(x, &s, &c);
  return s + c;
}
FLOAT_KERNEL(k_sincosf_fast, sincos_sum(a[i]))

// IEEE operations with a named rounding mode (never fused into an fma).
FLOAT_KERNEL(k_fadd_rn, __fadd_rn(a[i], b[i]))
FLOAT_KERNEL(k_fadd_rz, __fadd_rz(a[i], b[i]))
FLOAT_KERNEL(k_fadd_rd, __fadd_rd(a[i], b[i]))
FLOAT_KERNEL(k_fadd_ru, __fadd_ru(a[i], b[i]))
FLOAT_KERNEL(k_fsub_rz, __fsub_rz(a[i], b[i]))
FLOAT_KERNEL(k_fmul_rn, __fmul_rn(a[i], b[i]))
FLOAT_KERNEL(k_fmul_ru, __fmul_ru(a[i], b[i]))
FLOAT_KERNEL(k_fmaf_rn, __fmaf_rn(a[i], b[i], c[i]))
FLOAT_KERNEL(k_fmaf_rd, __fmaf_rd(a[i], b[i], c[i]))
FLOAT_KERNEL(k_fdiv_rn, __fdiv_rn(a[i], b[i]))
FLOAT_KERNEL(k_fdiv_rz, __fdiv_rz(a[i], b[i]))
FLOAT_KERNEL(k_frcp_rn, __frcp_rn(a[i]))
FLOAT_KERNEL(k_fsqrt_rd, __fsqrt_rd(a[i]))
FLOAT_KERNEL(k_mul_add_rn, __fadd_rn(__fmul_rn(a[i], b[i]), c[i]))  // stays mul.rn + add.rn

// Conversions and reinterpretation.
INT_KERNEL(k_float2int_rn, int, __float2int_rn(f[i]))
INT_KERNEL(k_float2int_rz, int, __float2int_rz(f[i]))
INT_KERNEL(k_float2uint_rd, unsigned, __float2uint_rd(f[i]))
FLOAT_KERNEL(k_int2float_ru, __int2float_ru(static_cast<int>(a[i])))
INT_KERNEL(k_float_as_int, int, __float_as_int(f[i]) ^ __float_as_int(__int_as_float(a[i])))
INT_KERNEL(k_float_as_uint, unsigned, __float_as_uint(__uint_as_float(a[i]) + f[i]))

// Integer intrinsics.
INT_KERNEL(k_mul24, int, __mul24(a[i], b[i]))
INT_KERNEL(k_umul24, unsigned, __umul24(a[i], b[i]))
INT_KERNEL(k_mulhi, int, __mulhi(a[i], b[i]))
INT_KERNEL(k_umulhi, unsigned, __umulhi(a[i], b[i]))
INT_KERNEL(k_popc, unsigned, static_cast<unsigned>(__popc(a[i])))
INT_KERNEL(k_clz, int, __clz(a[i]))
INT_KERNEL(k_brev, unsigned, __brev(a[i]))
INT_KERNEL(k_ffs, int, __ffs(a[i]))
INT_KERNEL(k_min_int, int, min(a[i], b[i]))
INT_KERNEL(k_max_uint, unsigned, max(a[i], b[i]))
INT_KERNEL(k_min_mixed, unsigned, min(a[i], blockDim.x))
FLOAT_KERNEL(k_min_float, min(a[i], b[i]))
FLOAT_KERNEL(k_max_float, max(a[i], b[i]))
