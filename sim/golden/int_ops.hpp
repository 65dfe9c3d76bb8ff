// PTX integer semantics the golden model and the translator's lowering share: high and wide
// products, and division/remainder including the cases C++ leaves undefined (x/0, INT_MIN/-1).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

namespace tsm::golden {

inline uint32_t mul_hi_u32(uint32_t a, uint32_t b) { return static_cast<uint32_t>((uint64_t{a} * b) >> 32); }
inline uint32_t mul_hi_s32(uint32_t a, uint32_t b) {
  const int64_t p = int64_t{static_cast<int32_t>(a)} * static_cast<int32_t>(b);
  return static_cast<uint32_t>(static_cast<uint64_t>(p) >> 32);
}
inline uint64_t mul_wide_u32(uint32_t a, uint32_t b) { return uint64_t{a} * b; }
inline uint64_t mul_wide_s32(uint32_t a, uint32_t b) {
  return static_cast<uint64_t>(int64_t{static_cast<int32_t>(a)} * static_cast<int32_t>(b));
}

// Division and remainder by zero give all ones, signed or unsigned; INT_MIN / -1 wraps to INT_MIN
// with remainder 0. Both as measured on an NVIDIA H200: tests/refvec checks every case here
// against the recorded outputs (docs/reference-vectors.md).
template <typename U>
U div_unsigned(U a, U b) { return b == 0 ? std::numeric_limits<U>::max() : a / b; }
template <typename U>
U rem_unsigned(U a, U b) { return b == 0 ? std::numeric_limits<U>::max() : a % b; }
template <typename U>
U div_signed(U a, U b) {
  using S = std::make_signed_t<U>;
  const S sa = static_cast<S>(a), sb = static_cast<S>(b);
  if (sb == 0) return static_cast<U>(-1);
  if (sa == std::numeric_limits<S>::min() && sb == -1) return a;
  return static_cast<U>(sa / sb);
}
template <typename U>
U rem_signed(U a, U b) {
  using S = std::make_signed_t<U>;
  const S sa = static_cast<S>(a), sb = static_cast<S>(b);
  if (sb == 0) return static_cast<U>(-1);
  if (sa == std::numeric_limits<S>::min() && sb == -1) return 0;
  return static_cast<U>(sa % sb);
}

inline uint32_t div_u32(uint32_t a, uint32_t b) { return div_unsigned(a, b); }
inline uint32_t div_s32(uint32_t a, uint32_t b) { return div_signed(a, b); }
inline uint32_t rem_u32(uint32_t a, uint32_t b) { return rem_unsigned(a, b); }
inline uint32_t rem_s32(uint32_t a, uint32_t b) { return rem_signed(a, b); }
inline uint64_t div_u64(uint64_t a, uint64_t b) { return div_unsigned(a, b); }
inline uint64_t div_s64(uint64_t a, uint64_t b) { return div_signed(a, b); }
inline uint64_t rem_u64(uint64_t a, uint64_t b) { return rem_unsigned(a, b); }
inline uint64_t rem_s64(uint64_t a, uint64_t b) { return rem_signed(a, b); }

}  // namespace tsm::golden
