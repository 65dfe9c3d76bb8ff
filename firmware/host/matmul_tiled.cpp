// matmul_tiled host program: C = A * B with 16x16 shared-memory tiles. The zero padding of partial
// tiles adds exact zeros, so the reference is the plain fmaf chain in k order and bit-exact.
#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

namespace {
constexpr uint32_t kTile = 16;  // TILE_WIDTH in firmware/cuda/matmul_tiled.cu
}

bool run_matmul_tiled(Runtime& rt, const HostOptions& o) {
  // Default 67x45 times 45x53: every edge, k included, leaves a partial tile. -n N: N x N matrices.
  const uint32_t m = o.n ? o.n : 67, k = o.n ? o.n : 45, n = o.n ? o.n : 53;
  const uint32_t bs = o.block ? o.block : kTile * kTile;
  if (bs != kTile * kTile)
    throw RuntimeError(ErrorCode::InvalidValue,
                       fmt::format("matmul_tiled runs 16x16 blocks (256 threads) by construction, got {}", bs));
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> a(size_t{m} * k), b(size_t{k} * n);
  for (auto& v : a) v = dist(rng);
  for (auto& v : b) v = dist(rng);

  const auto mod = load_kernel(rt, o, "matmul_tiled");
  const DevicePtr da = upload(rt, a), db = upload(rt, b), dc = upload(rt, std::vector<float>(size_t{m} * n));
  const Dim3 grid{(n + kTile - 1) / kTile, (m + kTile - 1) / kTile, 1}, block{kTile, kTile, 1};
  const LaunchResult r = rt.launch(mod, "matmul_tiled", grid, block,
                                   KernelArgs().ptr(da).ptr(db).ptr(dc).i32(m).i32(k).i32(n));
  print_launch("matmul_tiled", grid, block, r);

  const auto c = download<float>(rt, dc, size_t{m} * n);
  size_t bad = 0;
  for (uint32_t row = 0; row < m; ++row)
    for (uint32_t col = 0; col < n; ++col) {
      float want = 0.0f;
      for (uint32_t i = 0; i < k; ++i) want = std::fma(a[row * k + i], b[i * n + col], want);
      const float got = c[row * n + col];
      if (std::memcmp(&want, &got, 4) != 0 && bad++ < 5)
        fmt::print("  C[{}][{}] = {} (want {})\n", row, col, got, want);
    }
  fmt::print("matmul_tiled: {}x{} * {}x{}, tile {}x{}, {} mismatches against the C++ reference: {}\n", m, k, k, n,
             kTile, kTile, bad, bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
