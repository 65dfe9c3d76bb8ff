// spmv_csr host program: a random square CSR matrix with row lengths 0..12 (about one row in ten
// empty) and sorted distinct columns anywhere in the row. The reference accumulates std::fma in row
// order like the kernel's fmaf, so it is bit-exact.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include <fmt/format.h>

#include "host.hpp"

namespace tsm::firmware {

bool run_spmv_csr(Runtime& rt, const HostOptions& o) {
  const uint32_t rows = o.n ? o.n : 4001;
  const uint32_t bs = o.block ? o.block : 128;
  std::mt19937 rng(static_cast<uint32_t>(o.seed));
  std::uniform_real_distribution<float> value(-2.0f, 2.0f), xvalue(-10.0f, 10.0f);
  std::vector<int32_t> row_ptr{0}, col;
  std::vector<float> val;
  uint32_t empty = 0, longest = 0;
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t len = rng() % 10 == 0 ? 0 : std::min(1 + static_cast<uint32_t>(rng() % 12), rows);
    std::set<int32_t> cols;
    while (cols.size() < len) cols.insert(static_cast<int32_t>(rng() % rows));
    for (int32_t c : cols) {
      col.push_back(c);
      val.push_back(value(rng));
    }
    row_ptr.push_back(static_cast<int32_t>(col.size()));
    empty += len == 0;
    longest = std::max(longest, len);
  }
  std::vector<float> x(rows);
  for (auto& v : x) v = xvalue(rng);

  const auto mod = load_kernel(rt, o, "spmv_csr");
  const DevicePtr drow = upload(rt, row_ptr), dcol = upload(rt, col), dval = upload(rt, val), dx = upload(rt, x),
                  dy = upload(rt, std::vector<float>(rows, -1.0f));
  const Dim3 grid{(rows + bs - 1) / bs, 1, 1}, block{bs, 1, 1};
  const LaunchResult r =
      rt.launch(mod, "spmv_csr", grid, block,
                KernelArgs().i32(static_cast<int32_t>(rows)).ptr(drow).ptr(dcol).ptr(dval).ptr(dx).ptr(dy));
  print_launch("spmv_csr", grid, block, r);

  const auto y = download<float>(rt, dy, rows);
  size_t bad = 0;
  for (uint32_t i = 0; i < rows; ++i) {
    float want = 0.0f;
    for (int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) want = std::fma(val[k], x[col[k]], want);
    if (std::memcmp(&want, &y[i], 4) != 0 && bad++ < 5)
      fmt::print("  y[{}] = {} (want {}, {} nonzeros)\n", i, y[i], want, row_ptr[i + 1] - row_ptr[i]);
  }
  fmt::print("spmv_csr: {} rows, {} nonzeros ({} empty rows, longest {}), {} mismatches against the C++ "
             "reference: {}\n",
             rows, col.size(), empty, longest, bad, bad ? "FAIL" : "match");
  return bad == 0;
}

}  // namespace tsm::firmware
