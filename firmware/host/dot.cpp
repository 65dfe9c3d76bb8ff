// dot host program: a.b over n integers in [-100, 100], per-block partials from the kernel added
// here. Integers make the result exact and independent of the tree's shape: every partial is
// bounded by n * 100 * 100 in magnitude, which fits an int for n below 214748 (checked).
#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_dot(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 10007;
  const uint32_t bs = o.block ? o.block : 256;
  constexpr int32_t kMax = 100;
  if (n > 214748)
    throw RuntimeError(ErrorCode::InvalidValue,
                       fmt::format("dot: n = {} could overflow an int partial sum (at most 214748)", n));
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_int_distribution<int32_t> dist(-kMax, kMax);
  std::vector<int32_t> a(n), b(n);
  for (auto& v : a) v = dist(rng);
  for (auto& v : b) v = dist(rng);

  const auto mod = load_kernel(rt, o, "dot");
  // A capped grid: with small blocks each thread accumulates several elements before the tree.
  const uint32_t blocks = std::min(24u, (n + bs - 1) / bs);
  const DevicePtr da = upload(rt, a), db = upload(rt, b), dp = upload(rt, std::vector<int32_t>(blocks, -1));
  const Dim3 grid{blocks, 1, 1}, block{bs, 1, 1};
  const LaunchResult r = rt.launch(mod, "dot", grid, block,
                                   KernelArgs().i32(static_cast<int32_t>(n)).ptr(da).ptr(db).ptr(dp), bs * 4);
  print_launch("dot", grid, block, r);

  // Per-block reference partials: block k owns the elements i with (i / bs) % blocks == k.
  std::vector<int64_t> want(blocks, 0);
  for (uint32_t i = 0; i < n; ++i) want[(i / bs) % blocks] += int64_t{a[i]} * b[i];
  const auto got = download<int32_t>(rt, dp, blocks);
  size_t bad = 0;
  int64_t total = 0, want_total = 0;
  for (uint32_t k = 0; k < blocks; ++k) {
    total += got[k];
    want_total += want[k];
    if (got[k] != want[k] && bad++ < 5) fmt::print("  partial[{}] = {} (want {})\n", k, got[k], want[k]);
  }
  const bool ok = bad == 0 && total == want_total;
  fmt::print("dot: n = {}, {} block partials, a.b = {} (want {}), {} partial mismatches: {}\n", n, blocks, total,
             want_total, bad, ok ? "match" : "FAIL");
  return ok;
}

}  // namespace tsm::firmware
