// matmul_naive and matmul_tiled host programs: C = A * B for A (m x k) and B (k x n), row-major.
// Both kernels take (A, B, C, m, k, n) and compute each element as an fmaf chain in k order (the
// tiled kernel's zero padding of partial tiles adds exact zeros), so one reference with std::fma
// in the same order is bit-exact for both.
#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

namespace {

constexpr uint32_t kTile = 16;  // TILE_WIDTH in firmware/cuda/matmul_tiled.cu

bool run_matmul(Runtime& rt, const HostOptions& o, const char* kernel, Dim3 block) {
  // Default 67x45 times 45x53: no edge is a multiple of any tested block edge or of the tile, k
  // included. -n N: N x N matrices.
  const uint32_t m = o.n ? o.n : 67, k = o.n ? o.n : 45, n = o.n ? o.n : 53;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> a(size_t{m} * k), b(size_t{k} * n);
  for (auto& v : a) v = dist(rng);
  for (auto& v : b) v = dist(rng);

  const auto mod = load_kernel(rt, o, kernel);
  const DevicePtr da = upload(rt, a), db = upload(rt, b), dc = upload(rt, std::vector<float>(size_t{m} * n));
  const Dim3 grid{(n + block.x - 1) / block.x, (m + block.y - 1) / block.y, 1};
  const LaunchResult r = rt.launch(mod, kernel, grid, block, KernelArgs().ptr(da).ptr(db).ptr(dc).i32(m).i32(k).i32(n));
  print_launch(kernel, grid, block, r);

  const auto c = download<float>(rt, dc, size_t{m} * n);
  size_t bad = 0;
  for (uint32_t row = 0; row < m; ++row)
    for (uint32_t col = 0; col < n; ++col) {
      float want = 0.0f;
      for (uint32_t i = 0; i < k; ++i) want = std::fma(a[row * k + i], b[i * n + col], want);
      const float got = c[row * n + col];
      if (std::memcmp(&want, &got, 4) != 0 && bad++ < 5) fmt::print("  C[{}][{}] = {} (want {})\n", row, col, got, want);
    }
  fmt::print("{}: {}x{} * {}x{}, block {}x{}, {} mismatches against the C++ reference: {}\n", kernel, m, k, k, n, block.x,
             block.y, bad, bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace

bool run_matmul_naive(Runtime& rt, const HostOptions& o) {
  return run_matmul(rt, o, "matmul_naive", block_2d(o.block ? o.block : 256));
}

bool run_matmul_tiled(Runtime& rt, const HostOptions& o) {
  const uint32_t bs = o.block ? o.block : kTile * kTile;
  if (bs != kTile * kTile)
    throw RuntimeError(ErrorCode::InvalidValue,
                       fmt::format("matmul_tiled runs 16x16 blocks (256 threads) by construction, got {}", bs));
  return run_matmul(rt, o, "matmul_tiled", Dim3{kTile, kTile, 1});
}

}  // namespace tsm::firmware
