// reduce host program: the sum of n integers by a shared-memory tree per block and atomics.
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_reduce(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 20011;
  const uint32_t bs = o.block ? o.block : 256;
  // The CUDA kernel takes any block up to 512 threads; the assembly one a power of two up to 256.
  if (o.source == "asm" ? (bs > 256 || (bs & (bs - 1))) : bs > 512)
    throw RuntimeError(ErrorCode::InvalidValue,
                       fmt::format("reduce ({}) needs a block of at most {} threads, got {}", o.source,
                                   o.source == "asm" ? "256 power-of-two" : "512", bs));
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::vector<uint32_t> in(n);
  for (auto& v : in) v = rng() % 1000;

  const auto mod = load_kernel(rt, o, "reduce");
  const DevicePtr din = upload(rt, in), dtotal = upload(rt, std::vector<uint32_t>{0});
  const Dim3 grid{(n + bs - 1) / bs, 1, 1}, block{bs, 1, 1};
  const LaunchResult r = rt.launch(mod, "reduce", grid, block, KernelArgs().ptr(din).ptr(dtotal).u32(n));
  print_launch("reduce", grid, block, r);

  const uint32_t total = download<uint32_t>(rt, dtotal, 1)[0];
  const uint32_t want = std::accumulate(in.begin(), in.end(), 0u);
  uint32_t blocks_done = 0;
  rt.read_symbol(mod, "blocks_done", std::span(reinterpret_cast<uint8_t*>(&blocks_done), 4));
  const bool ok = total == want && blocks_done == grid.x;
  fmt::print("reduce: n = {}, sum {} (want {}), {} blocks counted (want {}): {}\n", n, total, want, blocks_done, grid.x,
             ok ? "match" : "FAIL");
  return ok;
}

}  // namespace tsm::firmware
