// Developer tool, not built by CMake: runs the clang-compiled math library on a real NVIDIA GPU and
// checks that every result is bit-identical to the host build of tsm_cuda_math.h (so the host
// accuracy tests speak for the device code, contraction and all).
//
//   clang++ -x cuda --cuda-device-only --cuda-gpu-arch=sm_75 --cuda-path=/tmp/empty -nocudainc
//     -nocudalib -std=c++17 -O2 -S -include sim/compiler/include/tsm_cuda.h
//     -o kernels.ptx tests/frontend/tools/device_check_kernels.cu
//   g++ -std=c++20 -O2 -ffp-contract=off -fopenmp -Isim/compiler/include -I/usr/local/cuda/include
//     tests/frontend/tools/device_check.cpp -o device_check -lcuda
//   ./device_check kernels.ptx [samples-per-function]
#include <cuda.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tsm_cuda_math.h"

#define CHECK(call)                                                  \
  do {                                                               \
    CUresult r_ = (call);                                            \
    if (r_ != CUDA_SUCCESS) {                                        \
      const char* s_ = nullptr;                                      \
      cuGetErrorString(r_, &s_);                                     \
      std::fprintf(stderr, "%s failed: %s\n", #call, s_ ? s_ : "?"); \
      std::exit(1);                                                  \
    }                                                                \
  } while (0)

static uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: device_check KERNELS.ptx [N]\n");
    return 2;
  }
  const size_t n = argc > 2 ? std::stoul(argv[2]) : (1u << 24);
  std::ifstream in(argv[1]);
  std::stringstream ptx;
  ptx << in.rdbuf();
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CHECK(cuModuleLoadData(&mod, ptx.str().c_str()));

  std::mt19937 rng(2024);
  std::vector<float> a(n), b(n), out(n);
  CUdeviceptr da, db, dout;
  CHECK(cuMemAlloc(&da, n * 4));
  CHECK(cuMemAlloc(&db, n * 4));
  CHECK(cuMemAlloc(&dout, n * 4));

  struct Fn {
    const char* name;
    float (*f1)(float);
    float (*f2)(float, float);
  };
  const Fn fns[] = {
#define U(f) {#f, tsm_math::f, nullptr},
#define B(f) {#f, nullptr, tsm_math::f},
      U(sinf) U(cosf) U(tanf) U(asinf) U(acosf) U(atanf) U(sinhf) U(coshf) U(tanhf) U(asinhf)
          U(acoshf) U(atanhf) U(expf) U(exp2f) U(exp10f) U(expm1f) U(logf) U(log2f) U(log10f)
              U(log1pf) U(sqrtf) U(cbrtf) U(erff) U(erfcf) U(sinpif) U(cospif) U(roundf) U(rintf)
                  U(floorf) U(ceilf) U(truncf) B(powf) B(atan2f) B(hypotf) B(fmodf) B(remainderf)};
  long total_bad = 0;
  for (const Fn& fn : fns) {
    // Half random bit patterns (every magnitude), half uniform in [-10, 10].
    std::uniform_real_distribution<float> u(-10.0f, 10.0f);
    for (size_t i = 0; i < n; ++i) {
      a[i] = (i & 1) ? u(rng) : from_bits(static_cast<uint32_t>(rng()));
      b[i] = (i & 2) ? u(rng) : from_bits(static_cast<uint32_t>(rng()));
    }
    CHECK(cuMemcpyHtoD(da, a.data(), n * 4));
    CHECK(cuMemcpyHtoD(db, b.data(), n * 4));
    CUfunction k;
    CHECK(cuModuleGetFunction(&k, mod, (std::string("k_") + fn.name).c_str()));
    unsigned nn = static_cast<unsigned>(n);
    void* params[] = {&dout, &da, &db, &nn};
    CHECK(cuLaunchKernel(k, static_cast<unsigned>((n + 255) / 256), 1, 1, 256, 1, 1, 0, nullptr,
                         params, nullptr));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(out.data(), dout, n * 4));
    long bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (size_t i = 0; i < n; ++i) {
      float host = fn.f1 ? fn.f1(a[i]) : fn.f2(a[i], b[i]);
      bool same = bits(host) == bits(out[i]) || (std::isnan(host) && std::isnan(out[i]));
      if (!same) {
        ++bad;
        if (bad < 4)
#pragma omp critical
          std::printf("  %s(%a, %a): device %a host %a\n", fn.name, a[i], b[i], out[i], host);
      }
    }
    std::printf("%-11s %zu inputs, %ld differ from the host build\n", fn.name, n, bad);
    total_bad += bad;
  }
  std::printf("%s\n", total_bad == 0 ? "device == host, bit for bit" : "MISMATCHES");
  return total_bad == 0 ? 0 : 1;
}
