// Deterministic random numbers for the generators: no <random> distributions, whose results vary
// by standard library, so a seed gives the same kernel everywhere.
#pragma once

#include <cstdint>
#include <vector>

namespace tsm::randgen {

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 0xD1B54A32D192ED03ull ^ 0x6A09E667F3BCC909ull) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t u32() { return static_cast<uint32_t>(next() >> 32); }
  /// 0 .. n-1
  uint32_t below(uint32_t n) { return n == 0 ? 0 : static_cast<uint32_t>(((next() >> 32) * n) >> 32); }
  /// lo .. hi inclusive
  int range(int lo, int hi) { return lo + static_cast<int>(below(static_cast<uint32_t>(hi - lo + 1))); }
  bool pct(unsigned p) { return below(100) < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(static_cast<uint32_t>(v.size()))]; }

 private:
  uint64_t s_;
};

}  // namespace tsm::randgen
