// warpreduce host program: per-warp sums, ballots and popcounts. The reference walks the same
// warps: every warp of every block, the last warp of a block holding only blockDim % 32 threads
// when that is not 0, threads past n counting 0 with a false predicate. Bit-exact.
#include <algorithm>
#include <bit>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_warpreduce(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 10007;
  const uint32_t bs = o.block ? o.block : 256;
  const int32_t threshold = 250;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_int_distribution<int32_t> dist(-1000, 1000);
  std::vector<int32_t> in(n);
  for (auto& v : in) v = dist(rng);

  const auto mod = load_kernel(rt, o, "warpreduce");
  const uint32_t blocks = (n + bs - 1) / bs, warps_per_block = (bs + 31) / 32, warps = blocks * warps_per_block;
  const DevicePtr din = upload(rt, in), dsum = upload(rt, std::vector<int32_t>(warps, 0x7eadbeef)),
                  dballot = upload(rt, std::vector<uint32_t>(warps, 0xdeadbeef)),
                  dcount = upload(rt, std::vector<int32_t>(warps, -1));
  const Dim3 grid{blocks, 1, 1}, block{bs, 1, 1};
  const LaunchResult r =
      rt.launch(mod, "warpreduce", grid, block,
                KernelArgs().i32(static_cast<int32_t>(n)).i32(threshold).ptr(din).ptr(dsum).ptr(dballot).ptr(dcount));
  print_launch("warpreduce", grid, block, r);

  const auto sum = download<int32_t>(rt, dsum, warps);
  const auto ballot = download<uint32_t>(rt, dballot, warps);
  const auto count = download<int32_t>(rt, dcount, warps);
  size_t bad = 0;
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t w = 0; w < warps_per_block; ++w) {
      const uint32_t lanes = std::min(32u, bs - 32 * w), idx = b * warps_per_block + w;
      int32_t want_sum = 0;
      uint32_t want_ballot = 0;
      for (uint32_t lane = 0; lane < lanes; ++lane) {
        const uint32_t i = b * bs + 32 * w + lane;
        if (i >= n) continue;
        want_sum += in[i];
        if (in[i] > threshold) want_ballot |= 1u << lane;
      }
      const int32_t want_count = std::popcount(want_ballot);
      if ((sum[idx] != want_sum || ballot[idx] != want_ballot || count[idx] != want_count) && bad++ < 5)
        fmt::print("  warp {} (block {}, warp {}, {} lanes): sum {} ballot {:#010x} count {} (want {} {:#010x} {})\n",
                   idx, b, w, lanes, sum[idx], ballot[idx], count[idx], want_sum, want_ballot, want_count);
    }
  fmt::print("warpreduce: n = {}, {} warps ({} lanes in each block's last warp), {} mismatches against the C++ "
             "reference: {}\n",
             n, warps, bs % 32 ? bs % 32 : 32, bad, bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
