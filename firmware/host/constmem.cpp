// constmem host program: writes the filter taps and the gain table into the kernel's __constant__
// variables with write_symbol, then checks y against a reference that applies std::fma in the
// same tap order and the same final multiply: bit-exact.
#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_constmem(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 10007;
  const uint32_t bs = o.block ? o.block : 256;
  constexpr int kRadius = 4, kTaps = 2 * kRadius + 1, kGains = 16;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_real_distribution<float> xdist(-50.0f, 50.0f), tdist(-1.0f, 1.0f), gdist(0.25f, 4.0f);
  std::vector<float> x(n), taps(kTaps), gain(kGains);
  for (auto& v : x) v = xdist(rng);
  for (auto& v : taps) v = tdist(rng);
  for (auto& v : gain) v = gdist(rng);

  const auto mod = load_kernel(rt, o, "constmem");
  rt.write_symbol(mod, "taps", std::span(reinterpret_cast<const uint8_t*>(taps.data()), taps.size() * 4));
  rt.write_symbol(mod, "gain", std::span(reinterpret_cast<const uint8_t*>(gain.data()), gain.size() * 4));
  const DevicePtr dx = upload(rt, x), dy = upload(rt, std::vector<float>(n, 0.0f));
  const Dim3 grid{(n + bs - 1) / bs, 1, 1}, block{bs, 1, 1};
  const LaunchResult r =
      rt.launch(mod, "constmem", grid, block, KernelArgs().i32(static_cast<int32_t>(n)).ptr(dx).ptr(dy));
  print_launch("constmem", grid, block, r);

  const auto y = download<float>(rt, dy, n);
  size_t bad = 0;
  for (int i = 0; i < static_cast<int>(n); ++i) {
    float acc = 0.0f;
    for (int k = 0; k < kTaps; ++k) {
      const int j = i + k - kRadius;
      if (j >= 0 && j < static_cast<int>(n)) acc = std::fma(taps[k], x[j], acc);
    }
    const float want = acc * gain[i % kGains];
    if (std::memcmp(&want, &y[i], 4) != 0 && bad++ < 5) fmt::print("  y[{}] = {} (want {})\n", i, y[i], want);
  }
  fmt::print("constmem: n = {}, {}-tap filter and {} gains in constant memory, {} mismatches against the C++ "
             "reference: {}\n",
             n, kTaps, kGains, bad, bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
