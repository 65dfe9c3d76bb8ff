// spmv_csr_cached host program: a mostly banded square CSR matrix (columns within 20 of the
// diagonal, about one row in ten empty, one row in five with an extra column anywhere), run with a
// shared-memory window of x that reaches 16 columns past the block's rows on each side, so most
// nonzeros read shared memory and some (band edges at block boundaries, far entries) read global
// memory. The reference accumulates std::fma in row order like the kernel's fmaf: bit-exact.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_spmv_csr_cached(Runtime& rt, const HostOptions& o) {
  const uint32_t rows = o.n ? o.n : 4001;
  const uint32_t bs = o.block ? o.block : 128;
  const int32_t halo = 16, band = 20;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_real_distribution<float> value(-2.0f, 2.0f), xvalue(-10.0f, 10.0f);
  std::vector<int32_t> row_ptr{0}, col;
  std::vector<float> val;
  uint32_t empty = 0;
  for (uint32_t r = 0; r < rows; ++r) {
    std::set<int32_t> cols;
    if (rng() % 10 != 0) {
      const int32_t lo = std::max(static_cast<int32_t>(r) - band, 0);
      const int32_t hi = std::min(static_cast<int32_t>(r) + band, static_cast<int32_t>(rows) - 1);
      const uint32_t len = std::min(1 + static_cast<uint32_t>(rng() % 10), static_cast<uint32_t>(hi - lo + 1));
      while (cols.size() < len) cols.insert(lo + static_cast<int32_t>(rng() % static_cast<uint32_t>(hi - lo + 1)));
      if (rng() % 5 == 0) cols.insert(static_cast<int32_t>(rng() % rows));
    }
    for (int32_t c : cols) {
      col.push_back(c);
      val.push_back(value(rng));
    }
    row_ptr.push_back(static_cast<int32_t>(col.size()));
    empty += cols.empty();
  }
  std::vector<float> x(rows);
  for (auto& v : x) v = xvalue(rng);

  const auto mod = load_kernel(rt, o, "spmv_csr_cached");
  const DevicePtr drow = upload(rt, row_ptr), dcol = upload(rt, col), dval = upload(rt, val), dx = upload(rt, x),
                  dy = upload(rt, std::vector<float>(rows, -1.0f));
  const Dim3 grid{(rows + bs - 1) / bs, 1, 1}, block{bs, 1, 1};
  const uint32_t shared = (bs + 2 * halo) * 4;
  const auto args = KernelArgs()
                        .i32(static_cast<int32_t>(rows))
                        .i32(static_cast<int32_t>(rows))
                        .i32(halo)
                        .ptr(drow)
                        .ptr(dcol)
                        .ptr(dval)
                        .ptr(dx)
                        .ptr(dy);
  const LaunchResult r = rt.launch(mod, "spmv_csr_cached", grid, block, args, shared);
  print_launch("spmv_csr_cached", grid, block, r);

  const auto y = download<float>(rt, dy, rows);
  size_t bad = 0, from_shared = 0, from_global = 0;
  for (uint32_t i = 0; i < rows; ++i) {
    const int32_t first = static_cast<int32_t>(i / bs * bs);
    const int32_t lo = std::max(first - halo, 0), hi = std::min(first + static_cast<int32_t>(bs) + halo,
                                                                 static_cast<int32_t>(rows));
    float want = 0.0f;
    for (int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      want = std::fma(val[k], x[col[k]], want);
      (col[k] >= lo && col[k] < hi ? from_shared : from_global)++;
    }
    if (std::memcmp(&want, &y[i], 4) != 0 && bad++ < 5)
      fmt::print("  y[{}] = {} (want {}, {} nonzeros)\n", i, y[i], want, row_ptr[i + 1] - row_ptr[i]);
  }
  fmt::print("spmv_csr_cached: {} rows, {} nonzeros ({} empty rows; {} read from the shared window, {} from global), "
             "{} mismatches against the C++ reference: {}\n",
             rows, col.size(), empty, from_shared, from_global, bad, bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
