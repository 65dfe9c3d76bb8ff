// Kernels for device_check.cpp: every function of the math library over a whole array, compiled by
// clang with tsm_cuda.h (see device_check.cpp).

#define UNARY(f)                                                                         \
  extern "C" __global__ void k_##f(float* out, const float* a, const float*, unsigned n) { \
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;                            \
    if (i < n) out[i] = f(a[i]);                                                         \
  }
#define BINARY(f)                                                                              \
  extern "C" __global__ void k_##f(float* out, const float* a, const float* b, unsigned n) {   \
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (i < n) out[i] = f(a[i], b[i]);                                                         \
  }

UNARY(sinf) UNARY(cosf) UNARY(tanf) UNARY(asinf) UNARY(acosf) UNARY(atanf)
UNARY(sinhf) UNARY(coshf) UNARY(tanhf) UNARY(asinhf) UNARY(acoshf) UNARY(atanhf)
UNARY(expf) UNARY(exp2f) UNARY(exp10f) UNARY(expm1f)
UNARY(logf) UNARY(log2f) UNARY(log10f) UNARY(log1pf)
UNARY(sqrtf) UNARY(cbrtf) UNARY(erff) UNARY(erfcf) UNARY(sinpif) UNARY(cospif)
UNARY(roundf) UNARY(rintf) UNARY(floorf) UNARY(ceilf) UNARY(truncf)
BINARY(powf) BINARY(atan2f) BINARY(hypotf) BINARY(fmodf) BINARY(remainderf)
