// localarray host program: each thread sorts its segment of 16 ints (the last one partial) in a
// per-thread array; the reference sorts the same segments with std::sort. Bit-exact.
#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_localarray(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 10007;
  const uint32_t bs = o.block ? o.block : 128;
  constexpr uint32_t kSegment = 16;  // SEGMENT in the kernel
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_int_distribution<int32_t> dist(-500, 500);  // negative keys, and repeats
  std::vector<int32_t> in(n);
  for (auto& v : in) v = dist(rng);

  const auto mod = load_kernel(rt, o, "localarray");
  const DevicePtr din = upload(rt, in), dout = upload(rt, std::vector<int32_t>(n, 0x7eadbeef));
  const uint32_t threads = (n + kSegment - 1) / kSegment;
  const Dim3 grid{(threads + bs - 1) / bs, 1, 1}, block{bs, 1, 1};
  const LaunchResult r =
      rt.launch(mod, "localarray", grid, block, KernelArgs().i32(static_cast<int32_t>(n)).ptr(din).ptr(dout));
  print_launch("localarray", grid, block, r);

  std::vector<int32_t> want(in);
  for (uint32_t base = 0; base < n; base += kSegment)
    std::sort(want.begin() + base, want.begin() + std::min(base + kSegment, n));
  const auto got = download<int32_t>(rt, dout, n);
  size_t bad = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (got[i] != want[i] && bad++ < 5)
      fmt::print("  out[{}] = {} (want {}, thread {})\n", i, got[i], want[i], i / kSegment);
  fmt::print("localarray: n = {}, {} threads sorting {}-element segments, {} mismatches against the C++ reference: "
             "{}\n",
             n, threads, kSegment, bad, bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
