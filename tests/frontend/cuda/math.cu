// The single-precision math library, one kernel per function: accurate versions (range reduction
// and polynomials, as libdevice), not the SFU approximations.

#define UNARY(name) \
  extern "C" __global__ void k_##name(float* out, const float* a) { out[threadIdx.x] = name(a[threadIdx.x]); }
#define BINARY(name)                                                                \
  extern "C" __global__ void k_##name(float* out, const float* a, const float* b) { \
    out[threadIdx.x] = name(a[threadIdx.x], b[threadIdx.x]);                        \
  }

UNARY(sinf) UNARY(cosf) UNARY(tanf) UNARY(asinf) UNARY(acosf) UNARY(atanf)
UNARY(sinhf) UNARY(coshf) UNARY(tanhf) UNARY(asinhf) UNARY(acoshf) UNARY(atanhf)
UNARY(expf) UNARY(exp2f) UNARY(exp10f) UNARY(expm1f)
UNARY(logf) UNARY(log2f) UNARY(log10f) UNARY(log1pf)
UNARY(sqrtf) UNARY(cbrtf) UNARY(erff) UNARY(erfcf) UNARY(sinpif) UNARY(cospif)
UNARY(fabsf) UNARY(floorf) UNARY(ceilf) UNARY(truncf) UNARY(roundf) UNARY(rintf) UNARY(nearbyintf)
BINARY(powf) BINARY(atan2f) BINARY(hypotf) BINARY(fmodf) BINARY(remainderf)
BINARY(fminf) BINARY(fmaxf) BINARY(fdimf) BINARY(copysignf)

extern "C" __global__ void k_fmaf(float* out, const float* a, const float* b, const float* c) {
  out[threadIdx.x] = fmaf(a[threadIdx.x], b[threadIdx.x], c[threadIdx.x]);
}
extern "C" __global__ void k_divide(float* out, const float* a, const float* b) {
  out[threadIdx.x] = a[threadIdx.x] / b[threadIdx.x];  // IEEE division: div.rn.f32
}
extern "C" __global__ void k_sincosf(float* s, float* c, const float* a) {
  sincosf(a[threadIdx.x], &s[threadIdx.x], &c[threadIdx.x]);
}
extern "C" __global__ void k_frexp_ldexp(float* out, const float* a) {
  int e;
  const float m = frexpf(a[threadIdx.x], &e);
  out[threadIdx.x] = ldexpf(m, e + 1) + static_cast<float>(ilogbf(a[threadIdx.x]));
}
// The C++ overloads on float resolve to the float functions.
extern "C" __global__ void k_overloads(float* out, const float* a) {
  const float x = a[threadIdx.x];
  out[threadIdx.x] = sin(x) + exp(x) + sqrt(x) + pow(x, 2.0f) + fabs(x) + (isnan(x) ? 1.0f : 0.0f);
}
