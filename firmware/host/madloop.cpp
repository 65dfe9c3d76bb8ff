// madloop host program: eight FMA chains per thread; the reference repeats them with std::fma,
// which rounds once like FFMA, and sums in the kernel's order.
#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_madloop(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 1536;
  const uint32_t bs = o.block ? o.block : 256;
  const int iters = 24;
  const float m = 0.999f, c = 0.001f;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  std::vector<float> x(n);
  for (auto& v : x) v = dist(rng);

  const auto mod = load_kernel(rt, o, "madloop");
  const DevicePtr dx = upload(rt, x), dy = rt.malloc(n * sizeof(float));
  const Dim3 grid{(n + bs - 1) / bs, 1, 1}, block{bs, 1, 1};
  const LaunchResult r =
      rt.launch(mod, "madloop", grid, block, KernelArgs().u32(n).u32(static_cast<uint32_t>(iters)).f32(m).f32(c).ptr(dx).ptr(dy));
  print_launch("madloop", grid, block, r);

  const auto out = download<float>(rt, dy, n);
  size_t bad = 0;
  for (uint32_t i = 0; i < n; ++i) {
    float a[8] = {x[i], x[i] * 0.5f, x[i] * 0.25f, x[i] * 0.125f, x[i] + 1.0f, x[i] + 2.0f, x[i] + 3.0f, x[i] + 4.0f};
    for (int k = 0; k < iters; ++k)
      for (float& v : a) v = std::fma(v, m, c);
    const float want = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
    if (std::memcmp(&want, &out[i], 4) != 0 && bad++ < 5) fmt::print("  y[{}] = {} (want {})\n", i, out[i], want);
  }
  fmt::print("madloop: n = {}, {} rounds of 8 FMA chains, {} mismatches against the C++ reference: {}\n", n, iters, bad,
             bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
