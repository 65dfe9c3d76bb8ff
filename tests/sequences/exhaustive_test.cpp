// Exhaustive checks behind the correctness arguments of docs/lowering-sequences.md §2, run on the
// golden model (CTest label `full`, about a minute): sqrt.rn.f32 for every input in [1, 4) and
// rcp.rn.f32 for every input in [1, 2). The SFU's RSQ scales exactly by 4^k and its RCP by 2^k,
// and the FFMA steps do too while nothing under- or overflows, so these binades stand for every
// input of the fast paths; the quick tests cover the rest.
#include <gtest/gtest.h>

#include <cmath>

#include "specs.hpp"

namespace tsm::seqtest {
namespace {

/// Runs `name` on every binary32 bit pattern in [first, first + count) in launches of 2^20
/// threads and compares with `want`.
void every_input(const char* name, uint32_t first, uint32_t count, uint32_t (*want)(uint32_t)) {
  const Sequence& s = *ptx::find_sequence(name);
  const Check check = exact([want](const Tuple& in) { return Tuple{want(static_cast<uint32_t>(in[0]))}; });
  const uint32_t chunk = 1u << 20;
  for (uint32_t base = 0; base < count; base += chunk) {
    std::vector<Tuple> cases;
    for (uint32_t i = base; i < std::min(count, base + chunk); ++i) cases.push_back({first + i});
    if (run_and_check(s, check, make_layout(s, base), cases, base) > 0) return;
  }
}

TEST(Exhaustive, SqrtEveryInputFromOneToFour) {
  every_input("sqrt.rn.f32", 0x3F800000, 1u << 24, [](uint32_t x) { return ref::sqrt_rn(x, false); });
}

TEST(Exhaustive, ReciprocalEveryInputFromOneToTwo) {
  every_input("rcp.rn.f32", 0x3F800000, 1u << 23, [](uint32_t x) { return ref::rcp_rn(x, false); });
}

}  // namespace
}  // namespace tsm::seqtest
