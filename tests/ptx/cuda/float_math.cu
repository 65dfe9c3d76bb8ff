// Single-precision math: fast intrinsics, fma, min/max, conversions, rounding and division.
extern "C" __global__ void float_math(const float* x, float* y, int* iy, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float a = __expf(v) + __logf(fabsf(v) + 1.0f) + __sinf(v) * __cosf(v);
  float b = __fdividef(a, v + 2.0f) + rsqrtf(fabsf(v) + 1.0f) + sqrtf(fabsf(v));
  float c = fmaf(a, b, -1.5e-3f) + fminf(a, b) - fmaxf(a, 0.25f) + a / (b + 3.0f);
  y[i] = c;
  iy[i] = (int)floorf(c) + (int)(v * 1e6f) + (unsigned)(c > 0 ? c : 0);
}
