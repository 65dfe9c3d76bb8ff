// A kernel that keeps 32 loaded values live at once (each product pairs a[i] with a[31 - i]), so it
// needs far more registers than the 16 a block of 512 threads may use on g80: launched with an
// explicit --maxrregcount that large, the launch is refused for registers (errors.json).
extern "C" __global__ void wide(const float* in, float* out) {
  float a[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) a[i] = in[threadIdx.x * 32 + i];
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 32; ++i) s += a[i] * a[31 - i];
  out[threadIdx.x] = s;
}
