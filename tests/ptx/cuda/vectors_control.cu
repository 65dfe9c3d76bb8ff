// Vector loads and stores, a switch, divergent loops, special registers read through clock().
struct Pair { int a; float b; };

extern "C" __global__ void vectors_control(const float4* in, float4* out, int2* pairs, long long* times, int mode) {
  long long start = clock64();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = in[i];
  switch ((i + mode) & 7) {
    case 0: v.x += 1.0f; break;
    case 1: v.y *= 2.0f; break;
    case 2: v.z -= 3.0f; break;
    case 3: v.w = v.x; break;
    case 5: v.x = v.y + v.z; break;
    default: v.w += 1.0f; break;
  }
  int k = 0;
  while (v.x > 1.0f && k < 100) { v.x *= 0.5f; ++k; }
  out[i] = v;
  int2 p = pairs[i];
  p.x += k;
  p.y ^= clock();
  pairs[i] = p;
  times[i] = clock64() - start;
}
