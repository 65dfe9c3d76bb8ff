// SFU and SP work of different warps overlap (docs/sm-rtl.md §2.0, the SFU sequencer): each thread
// runs a chain of MUFU.RSQ, each followed by an FFMA on registers. While the SFU sequencer works on
// one warp's MUFU, the engine issues other warps' FFMAs to the SP lanes.
// tests/tools/check_sfu_overlap.py checks the GPU's counter of clocks with both at work.
extern "C" __global__ void rsq_chain(float* out, int n) {
  const float a = 0.5f + 0.001f * static_cast<float>(threadIdx.x);
  const float b = 1.0f + 0.002f * static_cast<float>(threadIdx.x);
  float x = b;
  for (int i = 0; i < n; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) x = fmaf(rsqrtf(x), a, b);
  }
  out[threadIdx.x] = x;
}
