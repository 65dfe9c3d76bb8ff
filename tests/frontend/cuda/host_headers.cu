// A kernel that includes the host headers nvcc users habitually include: the front ends must
// still compile printf, assert and the math library for the device.
#include <cassert>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

extern "C" __global__ void with_headers(float* f, int* i) {
  const int t = threadIdx.x;
  assert(i[t] != INT_MIN);
  printf("%d %f\n", t, f[t]);
  f[t] = sinf(f[t]) + std::sqrt(f[t]) + fabsf(f[t]) + (isnan(f[t]) ? 1.0f : 0.0f) + expf(f[t]);
  i[t] = abs(i[t]) + min(i[t], 3);
}
