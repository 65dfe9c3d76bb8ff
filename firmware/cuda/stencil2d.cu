// stencil2d: out = 3x3 weighted stencil of a width x height image (row-major), one thread per
// pixel on a 2D grid of 2D blocks. The nine weights live in __constant__ memory (the host writes
// them with write_symbol). Neighbours outside the image are skipped (zero boundary), so edge and
// corner threads take different paths from interior ones; the taps are accumulated with fmaf in a
// fixed order (row by row, left to right), which the host reference repeats bit for bit.
// Host program and reference: firmware/host/stencil2d.cpp.
__constant__ float weights[3][3];

extern "C" __global__ void stencil2d(const float* in, float* out, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = y + dy;
    if (yy < 0 || yy >= height) continue;
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = x + dx;
      if (xx < 0 || xx >= width) continue;
      acc = fmaf(weights[dy + 1][dx + 1], in[yy * width + xx], acc);
    }
  }
  out[y * width + x] = acc;
}
