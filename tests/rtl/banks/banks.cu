// Shared-memory bank conflicts on the RTL (docs/sm-rtl.md §2.8, SPEC §5): every thread reads
// `rounds` words at (lane * stride + r) mod 1024. Stride 1 puts the 16 lanes of a half-warp in 16
// banks, stride 16 puts them all in one bank (a 16-way conflict), stride 0 makes them read one word
// (a broadcast). The stride is a parameter, so the three launches run the same instructions.
extern "C" __global__ void banks(float* out, int stride, int rounds) {
  __shared__ float s[1024];
  const int t = threadIdx.x;
  for (int i = t; i < 1024; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  const int base = (t % 32) * stride;
  float acc = 0.0f;
  for (int r = 0; r < rounds; ++r) acc += s[(base + r) & 1023];
  out[blockIdx.x * blockDim.x + t] = acc;
}
