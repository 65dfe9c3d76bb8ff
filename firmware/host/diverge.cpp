// diverge host program: the reference mirrors the kernel's control flow in plain C++.
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

namespace {
constexpr uint32_t kUntouched = 0xDEADBEEF;  // outputs a thread that exited early never writes
}

bool run_diverge(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 3001;
  const uint32_t bs = o.block ? o.block : 128;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::vector<uint32_t> in(n);
  for (auto& v : in) v = rng() % 4096;
  const std::vector<uint32_t> fill(n, kUntouched);

  const auto mod = load_kernel(rt, o, "diverge");
  const DevicePtr din = upload(rt, in), da = upload(rt, fill), db = upload(rt, fill), dc = upload(rt, fill);
  const Dim3 grid{(n + bs - 1) / bs, 1, 1}, block{bs, 1, 1};
  const LaunchResult r = rt.launch(mod, "diverge", grid, block, KernelArgs().u32(n).ptr(din).ptr(da).ptr(db).ptr(dc));
  print_launch("diverge", grid, block, r);

  std::vector<uint32_t> wa(fill), wb(fill), wc(fill);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t x = in[i];
    uint32_t a;
    if (x & 1) {
      if (x & 2) {
        a = 3 * x;
      } else {
        if ((x & 12) == 12) continue;
        a = x + 7;
      }
    } else {
      a = x >> 1;
    }
    wa[i] = a;
    uint32_t acc = 0;
    for (uint32_t k = 0; k < (x & 15); ++k) {
      acc += k * x;
      if (acc > 1000) break;
    }
    wb[i] = acc;
    if ((x & 7) == 3) continue;
    wc[i] = acc ^ x;
  }
  size_t bad = 0;
  const std::pair<const char*, std::pair<DevicePtr, const std::vector<uint32_t>*>> outs[] = {
      {"out_a", {da, &wa}}, {"out_b", {db, &wb}}, {"out_c", {dc, &wc}}};
  for (const auto& [name, buf] : outs) {
    const auto got = download<uint32_t>(rt, buf.first, n);
    for (uint32_t i = 0; i < n; ++i)
      if (got[i] != (*buf.second)[i] && bad++ < 5)
        fmt::print("  {}[{}] = {:#x} (want {:#x}, x = {})\n", name, i, got[i], (*buf.second)[i], in[i]);
  }
  fmt::print("diverge: n = {}, {} mismatches against the C++ reference: {}\n", n, bad, bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
