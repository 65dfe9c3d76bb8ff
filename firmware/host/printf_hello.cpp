// printf_hello host program: the kernel's output must be exactly the lines the C++ reference
// formats, each once; the order across threads is the order they reserved records in.
#include <algorithm>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_printf_hello(Runtime& rt, const HostOptions& o) {
  const uint32_t n = o.n ? o.n : 300;
  const uint32_t bs = o.block ? o.block : 64;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::vector<float> values(n);
  for (auto& v : values) v = dist(rng);

  const auto mod = load_kernel(rt, o, "printf_hello");
  const Dim3 grid{(n + bs - 1) / bs, 1, 1}, block{bs, 1, 1};
  const LaunchResult r = rt.launch(mod, "printf_hello", grid, block, KernelArgs().u32(n).ptr(upload(rt, values)));
  print_launch("printf_hello", grid, block, r);

  std::vector<std::string> want, got;
  for (uint32_t b = 0; b < grid.x; ++b) want.push_back(fmt::format("block {}: {} threads, first element {}", b, bs, b * bs));
  for (uint32_t i = 0; i < n; i += 7) {
    const uint32_t t = i % bs;
    char line[256];
    std::snprintf(line, sizeof line, "Hello from thread %u (block %u, warp %u, lane %2u): value %8.3f is %s", i, i / bs, t / 32,
                  t % 32, static_cast<double>(values[i]), values[i] < 0.0f ? "negative" : "non-negative");
    want.push_back(line);
  }
  std::stringstream ss(r.printf_output);
  for (std::string l; std::getline(ss, l);) got.push_back(l);
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  size_t missing = 0, extra = 0;
  for (const auto& w : want)
    if (!std::binary_search(got.begin(), got.end(), w) && missing++ < 5) fmt::print("  missing: {}\n", w);
  for (const auto& g : got)
    if (!std::binary_search(want.begin(), want.end(), g) && extra++ < 5) fmt::print("  unexpected: {}\n", g);
  const bool ok = got == want;
  fmt::print("printf_hello: n = {}, {} lines printed (want {}), {} missing, {} unexpected: {}\n", n, got.size(), want.size(),
             missing, extra, ok ? "match" : "FAIL");
  return ok;
}

}  // namespace tsm::firmware
