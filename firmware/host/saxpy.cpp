// saxpy host program: y = a*x + y. The reference uses std::fma, which rounds once like FFMA.
#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_saxpy(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 10007;
  const uint32_t bs = o.block ? o.block : 256;
  const float a = 2.5f;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> x(n), y(n);
  for (auto& v : x) v = dist(rng);
  for (auto& v : y) v = dist(rng);

  const auto mod = load_kernel(rt, o, "saxpy");
  const DevicePtr dx = upload(rt, x), dy = upload(rt, y);
  const Dim3 grid{(n + bs - 1) / bs, 1, 1}, block{bs, 1, 1};
  const LaunchResult r = rt.launch(mod, "saxpy", grid, block, KernelArgs().u32(n).f32(a).ptr(dx).ptr(dy));
  print_launch("saxpy", grid, block, r);

  const auto out = download<float>(rt, dy, n);
  size_t bad = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const float want = std::fma(a, x[i], y[i]);
    if (std::memcmp(&want, &out[i], 4) != 0 && bad++ < 5) fmt::print("  y[{}] = {} (want {})\n", i, out[i], want);
  }
  fmt::print("saxpy: n = {}, {} mismatches against the C++ reference: {}\n", n, bad, bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
