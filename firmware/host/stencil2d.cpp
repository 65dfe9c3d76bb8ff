// stencil2d host program: a 3x3 weighted stencil with a zero boundary. The reference repeats the
// kernel's fmaf order (rows top to bottom, taps left to right, outside taps skipped): bit-exact.
#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_stencil2d(Runtime& rt, const HostOptions& o) {
  // Default 83 x 61: neither edge is a multiple of any tested block edge. -n N: an N x N image.
  const int width = o.n ? static_cast<int>(o.n) : 83, height = o.n ? static_cast<int>(o.n) : 61;
  const Dim3 block = block_2d(o.block ? o.block : 256);
  // A sharpening-like kernel with weights that are not exact in binary, so every fmaf rounds.
  const float w[3][3] = {{-0.1f, -0.2f, -0.1f}, {-0.2f, 2.3f, -0.2f}, {-0.1f, -0.2f, -0.1f}};
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_real_distribution<float> dist(0.0f, 255.0f);
  std::vector<float> in(size_t(width) * height);
  for (auto& v : in) v = dist(rng);

  const auto mod = load_kernel(rt, o, "stencil2d");
  rt.write_symbol(mod, "weights", std::span(reinterpret_cast<const uint8_t*>(w), sizeof w));
  const DevicePtr din = upload(rt, in), dout = upload(rt, std::vector<float>(in.size()));
  const Dim3 grid{(width + block.x - 1) / block.x, (height + block.y - 1) / block.y, 1};
  const LaunchResult r =
      rt.launch(mod, "stencil2d", grid, block, KernelArgs().ptr(din).ptr(dout).i32(width).i32(height));
  print_launch("stencil2d", grid, block, r);

  const auto out = download<float>(rt, dout, in.size());
  size_t bad = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float want = 0.0f;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int yy = y + dy, xx = x + dx;
          if (yy < 0 || yy >= height || xx < 0 || xx >= width) continue;
          want = std::fma(w[dy + 1][dx + 1], in[yy * width + xx], want);
        }
      const float got = out[y * width + x];
      if (std::memcmp(&want, &got, 4) != 0 && bad++ < 5)
        fmt::print("  out[{}][{}] = {} (want {})\n", y, x, got, want);
    }
  fmt::print("stencil2d: {}x{} image, block {}x{}, {} mismatches against the C++ reference: {}\n", width, height,
             block.x, block.y, bad, bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
