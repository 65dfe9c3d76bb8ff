// Vector types: float4 and int2 loads and stores (128- and 64-bit accesses), make_float4.
extern "C" __global__ void vectors(int n, const float4* a, const int2* b, float4* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 v = a[i];
  const int2 w = b[i];
  out[i] = make_float4(fmaf(v.x, (float)w.x, v.w), v.y - v.z, (float)(w.x ^ w.y), v.x);
}
