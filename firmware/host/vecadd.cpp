// vecadd host program: c = a + b with a grid-stride loop over a small fixed grid. Float addition
// rounds once, so the reference is bit-exact.
#include <algorithm>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_vecadd(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 10007;
  const uint32_t bs = o.block ? o.block : 256;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::vector<float> a(n), b(n);
  for (auto& v : a) v = dist(rng);
  for (auto& v : b) v = dist(rng);

  const auto mod = load_kernel(rt, o, "vecadd");
  const DevicePtr da = upload(rt, a), db = upload(rt, b), dc = upload(rt, std::vector<float>(n, 0.0f));
  // Fewer blocks than n / bs: each thread strides through several elements.
  const uint32_t blocks = std::min(6u, (n + bs - 1) / bs);
  const Dim3 grid{blocks, 1, 1}, block{bs, 1, 1};
  const LaunchResult r =
      rt.launch(mod, "vecadd", grid, block, KernelArgs().i32(static_cast<int32_t>(n)).ptr(da).ptr(db).ptr(dc));
  print_launch("vecadd", grid, block, r);

  const auto out = download<float>(rt, dc, n);
  size_t bad = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const float want = a[i] + b[i];
    if (std::memcmp(&want, &out[i], 4) != 0 && bad++ < 5) fmt::print("  c[{}] = {} (want {})\n", i, out[i], want);
  }
  const uint32_t threads = blocks * bs;
  fmt::print("vecadd: n = {}, {} threads, up to {} elements per thread, {} mismatches against the C++ reference: {}\n",
             n, threads, (n + threads - 1) / threads, bad, bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
