// Developer tool, not built by CMake: the exhaustive accuracy sweep behind the bounds in
// docs/cuda-frontends.md. Every float input of each one-argument function of tsm_cuda_math.h
// (2^32 of them) against the double-precision C library; 2^28 random pairs and a powf stress test
// for the two-argument ones. About a minute per function on 16 cores.
//
//   g++ -std=c++20 -O2 -ffp-contract=off -fopenmp -Isim/compiler/include -Itests/frontend
//     tests/frontend/tools/exhaustive.cpp -o exhaustive
//   ./exhaustive [NAME...]
#include <omp.h>

#include <cstdio>
#include <random>
#include <tuple>

#include "math_reference.hpp"

using namespace tsm::math_test;

struct Worst {
  double error = 0;
  float x = 0, y = 0;
  long incorrect = 0;  // results that are not the correctly rounded one
};

static void report(const char* name, const Worst& w, double bound, long n) {
  std::printf("%-11s max %.3f ulp at (%a, %a); %.4f%% not correctly rounded over %ld inputs%s\n",
              name, w.error, w.x, w.y, 100.0 * w.incorrect / n, n,
              w.error > bound ? "  ** ABOVE THE DOCUMENTED BOUND **" : "");
}

template <typename Fn>
static Worst sweep(long n, Fn&& one) {
  Worst best;
#pragma omp parallel
  {
    Worst mine;
#pragma omp for schedule(dynamic, 1 << 20)
    for (long i = 0; i < n; ++i) {
      auto [e, x, y] = one(i);
      if (e > 0.5) ++mine.incorrect;
      if (e > mine.error) {
        mine.error = e;
        mine.x = x;
        mine.y = y;
      }
    }
#pragma omp critical
    {
      best.incorrect += mine.incorrect;
      if (mine.error > best.error) {
        long inc = best.incorrect;
        best = mine;
        best.incorrect = inc;
      }
    }
  }
  return best;
}

int main(int argc, char** argv) {
  auto wanted = [&](const char* name) {
    if (argc < 2) return true;
    for (int i = 1; i < argc; ++i)
      if (std::string(argv[i]) == name) return true;
    return false;
  };
  for (const Unary& f : unary_functions()) {
    if (!wanted(f.name)) continue;
    const long n = 1l << 32;
    Worst w = sweep(n, [&](long i) {
      float x = float_from_bits(static_cast<uint32_t>(i));
      return std::tuple{ulp_error(f.f(x), f.ref(x)), x, 0.0f};
    });
    report(f.name, w, f.bound, n);
    std::fflush(stdout);
  }
  for (const Binary& f : binary_functions()) {
    if (!wanted(f.name)) continue;
    const long n = 1l << 28;
    Worst w = sweep(n, [&](long i) {
      // Half random bit patterns, half a grid of moderate values; a cheap per-index generator.
      std::mt19937_64 rng(static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull);
      uint64_t r = rng();
      float x = float_from_bits(static_cast<uint32_t>(r)),
            y = float_from_bits(static_cast<uint32_t>(r >> 32));
      if (i & 1) {
        x = std::ldexp(static_cast<float>(r & 0xffffff), -20) - 8.0f;
        y = std::ldexp(static_cast<float>((r >> 24) & 0xffffff), -20) - 8.0f;
      }
      return std::tuple{ulp_error(f.f(x, y), f.ref(x, y)), x, y};
    });
    report(f.name, w, f.bound, n);
    std::fflush(stdout);
  }
  if (wanted("powf")) {
    // powf where it is hardest: y log2 x anywhere in the finite range.
    const long n = 1l << 28;
    Worst w = sweep(n, [&](long i) {
      std::mt19937_64 rng(static_cast<uint64_t>(i) * 0xD1B54A32D192ED03ull);
      std::uniform_real_distribution<double> lx(-40, 40), zz(-150, 128);
      float x = static_cast<float>(std::exp2(lx(rng)));
      if (i & 1) x = 1.0f + (x - 1.0f) * 1e-3f;
      float y = static_cast<float>(zz(rng) / std::log2(static_cast<double>(x)));
      if (!std::isfinite(y)) return std::tuple{0.0, x, y};
      return std::tuple{ulp_error(tsm_math::powf(x, y), std::pow(static_cast<double>(x), y)), x, y};
    });
    report("powf-large", w, 1.0, n);
  }
}
