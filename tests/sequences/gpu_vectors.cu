// Records what an NVIDIA GPU computes for every PTX operation the sequence library lowers
// (sim/ptx/sequences.cpp), so tests/sequences can check both its host references and the golden
// model's sequences against real hardware. Each operation is one inline-PTX statement; inputs are
// generated here from a fixed seed (special values, hard cases, random bits). Output: one gzip file
// in the TSMREFV1 record format of docs/reference-vectors.md. Usage: gpu_vectors OUTFILE
//
// Plain stdio and zlib only: the binary must run where there is nothing but the NVIDIA driver.
#include <cuda_runtime.h>
#include <zlib.h>

#include "../gpu_record_writer.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Case {  // the inputs of one case (the second unused by unary forms)
  uint64_t a, b;
};

template <int N, class Op>
__global__ void apply(Op op, const Case* in, uint64_t* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if constexpr (N == 1) out[i] = op(in[i].a);
  else out[i] = op(in[i].a, in[i].b);
}

enum class Family { F32Div, F32Unary, Int32, Int64, Shift64, Unary32, Unary64, Cvt32, Cvt64 };

struct Form {
  std::string ptx;
  std::vector<uint8_t> in_widths;
  uint8_t out_width;
  Family family;
  std::function<void(const Case*, uint64_t*, int)> launch;
};

template <int N, class Op>
std::function<void(const Case*, uint64_t*, int)> launcher(Op op) {
  return [op](const Case* in, uint64_t* out, int n) { apply<N><<<(n + 127) / 128, 128>>>(op, in, out, n); };
}

// Operand classes: F f32, R 32-bit integer, L 64-bit integer (also every cvt operand, as PTX allows
// narrow integer types in wider registers).
#define GV_F_T float
#define GV_F_C "f"
#define GV_F_IN(x) __uint_as_float(static_cast<uint32_t>(x))
#define GV_F_OUT(r) static_cast<uint64_t>(__float_as_uint(r))
#define GV_F_W 4
#define GV_R_T unsigned
#define GV_R_C "r"
#define GV_R_IN(x) static_cast<unsigned>(x)
#define GV_R_OUT(r) static_cast<uint64_t>(r)
#define GV_R_W 4
#define GV_L_T unsigned long long
#define GV_L_C "l"
#define GV_L_IN(x) static_cast<unsigned long long>(x)
#define GV_L_OUT(r) static_cast<uint64_t>(r)
#define GV_L_W 8

#define GV_UNARY(name, fam, D, A)                                                                   \
  forms.push_back({name, {GV_##A##_W}, GV_##D##_W, Family::fam, launcher<1>([] __device__(uint64_t a) { \
                     GV_##D##_T r;                                                                  \
                     asm(name " %0, %1;" : "=" GV_##D##_C(r) : GV_##A##_C(GV_##A##_IN(a)));          \
                     return GV_##D##_OUT(r);                                                        \
                   })});
#define GV_BINARY(name, fam, D, A, B)                                                               \
  forms.push_back({name, {GV_##A##_W, GV_##B##_W}, GV_##D##_W, Family::fam,                         \
                   launcher<2>([] __device__(uint64_t a, uint64_t b) {                              \
                     GV_##D##_T r;                                                                  \
                     asm(name " %0, %1, %2;"                                                        \
                         : "=" GV_##D##_C(r)                                                        \
                         : GV_##A##_C(GV_##A##_IN(a)), GV_##B##_C(GV_##B##_IN(b)));                 \
                     return GV_##D##_OUT(r);                                                        \
                   })});
#define GV_SETP64(name)                                                                             \
  forms.push_back({name, {8, 8}, 1, Family::Int64, launcher<2>([] __device__(uint64_t a, uint64_t b) { \
                     unsigned r;                                                                    \
                     asm("{ .reg .pred p; " name " p, %1, %2; selp.u32 %0, 1, 0, p; }"              \
                         : "=r"(r)                                                                  \
                         : "l"(a), "l"(b));                                                         \
                     return static_cast<uint64_t>(r);                                               \
                   })});
std::vector<Form> all_forms() {
  std::vector<Form> forms;
  GV_BINARY("div.rn.f32", F32Div, F, F, F) GV_BINARY("div.rn.ftz.f32", F32Div, F, F, F)
  GV_BINARY("div.full.f32", F32Div, F, F, F) GV_BINARY("div.full.ftz.f32", F32Div, F, F, F)
  GV_BINARY("div.approx.f32", F32Div, F, F, F) GV_BINARY("div.approx.ftz.f32", F32Div, F, F, F)
  GV_UNARY("rcp.rn.f32", F32Unary, F, F) GV_UNARY("rcp.rn.ftz.f32", F32Unary, F, F)
  GV_UNARY("rcp.approx.f32", F32Unary, F, F) GV_UNARY("rcp.approx.ftz.f32", F32Unary, F, F)
  GV_UNARY("sqrt.rn.f32", F32Unary, F, F) GV_UNARY("sqrt.rn.ftz.f32", F32Unary, F, F)
  GV_UNARY("sqrt.approx.f32", F32Unary, F, F) GV_UNARY("sqrt.approx.ftz.f32", F32Unary, F, F)
  GV_UNARY("rsqrt.approx.f32", F32Unary, F, F) GV_UNARY("rsqrt.approx.ftz.f32", F32Unary, F, F)
  GV_BINARY("div.u32", Int32, R, R, R) GV_BINARY("rem.u32", Int32, R, R, R)
  GV_BINARY("div.s32", Int32, R, R, R) GV_BINARY("rem.s32", Int32, R, R, R)
  GV_BINARY("div.u64", Int64, L, L, L) GV_BINARY("rem.u64", Int64, L, L, L)
  GV_BINARY("div.s64", Int64, L, L, L) GV_BINARY("rem.s64", Int64, L, L, L)
  GV_BINARY("mul.lo.u64", Int64, L, L, L) GV_BINARY("mul.lo.s64", Int64, L, L, L)
  GV_BINARY("mul.hi.u64", Int64, L, L, L) GV_BINARY("mul.hi.s64", Int64, L, L, L)
  GV_BINARY("shl.b64", Shift64, L, L, R) GV_BINARY("shr.b64", Shift64, L, L, R)
  GV_BINARY("shr.u64", Shift64, L, L, R) GV_BINARY("shr.s64", Shift64, L, L, R)
  GV_BINARY("min.u64", Int64, L, L, L) GV_BINARY("max.u64", Int64, L, L, L)
  GV_BINARY("min.s64", Int64, L, L, L) GV_BINARY("max.s64", Int64, L, L, L)
  GV_SETP64("setp.eq.u64") GV_SETP64("setp.ne.u64") GV_SETP64("setp.eq.s64") GV_SETP64("setp.ne.s64")
  GV_SETP64("setp.eq.b64") GV_SETP64("setp.ne.b64")
  GV_SETP64("setp.lt.u64") GV_SETP64("setp.le.u64") GV_SETP64("setp.gt.u64") GV_SETP64("setp.ge.u64")
  GV_SETP64("setp.lt.s64") GV_SETP64("setp.le.s64") GV_SETP64("setp.gt.s64") GV_SETP64("setp.ge.s64")
  GV_SETP64("setp.lo.u64") GV_SETP64("setp.ls.u64") GV_SETP64("setp.hi.u64") GV_SETP64("setp.hs.u64")
  GV_UNARY("popc.b64", Unary64, R, L) GV_UNARY("clz.b64", Unary64, R, L) GV_UNARY("brev.b64", Unary64, L, L)
  GV_UNARY("bfind.u32", Unary32, R, R) GV_UNARY("bfind.s32", Unary32, R, R)
  GV_UNARY("bfind.shiftamt.u32", Unary32, R, R) GV_UNARY("bfind.shiftamt.s32", Unary32, R, R)
  GV_UNARY("bfind.u64", Unary64, R, L) GV_UNARY("bfind.s64", Unary64, R, L)
  GV_UNARY("bfind.shiftamt.u64", Unary64, R, L) GV_UNARY("bfind.shiftamt.s64", Unary64, R, L)
  // Saturating integer conversions that can clamp (ptxas rejects .sat where the source range
  // fits the destination).
  GV_UNARY("cvt.sat.u8.s8", Cvt32, L, L) GV_UNARY("cvt.sat.u8.u16", Cvt32, L, L) GV_UNARY("cvt.sat.u8.s16", Cvt32, L, L)
  GV_UNARY("cvt.sat.u8.u32", Cvt32, L, L) GV_UNARY("cvt.sat.u8.s32", Cvt32, L, L) GV_UNARY("cvt.sat.u8.u64", Cvt64, L, L)
  GV_UNARY("cvt.sat.u8.s64", Cvt64, L, L) GV_UNARY("cvt.sat.s8.u8", Cvt32, L, L) GV_UNARY("cvt.sat.s8.u16", Cvt32, L, L)
  GV_UNARY("cvt.sat.s8.s16", Cvt32, L, L) GV_UNARY("cvt.sat.s8.u32", Cvt32, L, L) GV_UNARY("cvt.sat.s8.s32", Cvt32, L, L)
  GV_UNARY("cvt.sat.s8.u64", Cvt64, L, L) GV_UNARY("cvt.sat.s8.s64", Cvt64, L, L) GV_UNARY("cvt.sat.u16.s8", Cvt32, L, L)
  GV_UNARY("cvt.sat.u16.s16", Cvt32, L, L) GV_UNARY("cvt.sat.u16.u32", Cvt32, L, L) GV_UNARY("cvt.sat.u16.s32", Cvt32, L, L)
  GV_UNARY("cvt.sat.u16.u64", Cvt64, L, L) GV_UNARY("cvt.sat.u16.s64", Cvt64, L, L) GV_UNARY("cvt.sat.s16.u16", Cvt32, L, L)
  GV_UNARY("cvt.sat.s16.u32", Cvt32, L, L) GV_UNARY("cvt.sat.s16.s32", Cvt32, L, L) GV_UNARY("cvt.sat.s16.u64", Cvt64, L, L)
  GV_UNARY("cvt.sat.s16.s64", Cvt64, L, L) GV_UNARY("cvt.sat.u32.s8", Cvt32, L, L) GV_UNARY("cvt.sat.u32.s16", Cvt32, L, L)
  GV_UNARY("cvt.sat.u32.s32", Cvt32, L, L) GV_UNARY("cvt.sat.u32.u64", Cvt64, L, L) GV_UNARY("cvt.sat.u32.s64", Cvt64, L, L)
  GV_UNARY("cvt.sat.s32.u32", Cvt32, L, L) GV_UNARY("cvt.sat.s32.u64", Cvt64, L, L) GV_UNARY("cvt.sat.s32.s64", Cvt64, L, L)
  GV_UNARY("cvt.sat.u64.s8", Cvt32, L, L) GV_UNARY("cvt.sat.u64.s16", Cvt32, L, L) GV_UNARY("cvt.sat.u64.s32", Cvt32, L, L)
  GV_UNARY("cvt.sat.u64.s64", Cvt64, L, L) GV_UNARY("cvt.sat.s64.u64", Cvt64, L, L)
  return forms;
}

// ---- inputs ---------------------------------------------------------------------------------

class Rng {  // splitmix64
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<uint64_t>(hi - lo + 1)); }
  uint64_t bits(int max_len) {
    const int len = range(0, max_len);
    return len == 0 ? 0 : next() >> (64 - len);
  }

 private:
  uint64_t s_;
};

uint32_t f32(bool neg, int e, uint32_t frac) { return (neg ? 0x80000000u : 0) | static_cast<uint32_t>(e) << 23 | (frac & 0x7FFFFF); }
uint32_t fbits(float x) { uint32_t u; std::memcpy(&u, &x, 4); return u; }
float fval(uint32_t u) { float x; std::memcpy(&x, &u, 4); return x; }

std::vector<uint32_t> special_f32() {
  std::vector<uint32_t> v = {0x00000000, 0x00000001, 0x00000003, 0x00400000, 0x007FFFFF, 0x00800000, 0x00800001,
                             0x00FFFFFF, 0x01000000, 0x0D800000, 0x3EAAAAAB, 0x3F000000, 0x3F7FFFFF, 0x3F800000,
                             0x3F800001, 0x40000000, 0x40400000, 0x4B800000, 0x7E7FFFFF, 0x7E800000, 0x7E800001,
                             0x7F000000, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x7F800001};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] | 0x80000000);
  return v;
}

std::vector<uint64_t> int_boundaries(int bits) {
  std::vector<uint64_t> v = {0, 1, 2, 3, 7, 10, 0x55555555};
  for (int k = 1; k < bits; k += (k < 8 || k > bits - 4) ? 1 : 5) {
    const uint64_t p = uint64_t{1} << k;
    v.push_back(p);
    v.push_back(p - 1);
  }
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back((0 - v[i]) & mask);
  if (bits == 64) v.push_back(0xFFFFFFFF00000000ull), v.push_back(0x00000001FFFFFFFFull);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::vector<Case> inputs_for(const Form& form, Rng& r) {
  std::vector<Case> c;
  switch (form.family) {
    case Family::F32Div: {
      const auto sp = special_f32();
      for (const uint32_t a : sp)
        for (const uint32_t b : sp) c.push_back({a, b});
      for (int i = 0; i < 400; ++i) {
        // Quotients straddling 2^-126 and just below it (.ftz flushing; the specials add the tie
        // 0x00FFFFFF / 2 = 2^-126 - 2^-150, where .ftz's possible flush rules differ); ties
        // between subnormals; the overflow edge.
        const uint32_t b = f32(false, 127, static_cast<uint32_t>(r.next()));
        c.push_back({fbits(fval(b) * 0x1p-126f) + static_cast<uint32_t>(r.range(-2, 2)), b});
        for (int k = 0; k < 3; ++k) {
          const uint32_t bb = f32(r.next() & 1, 127, static_cast<uint32_t>(r.next()));
          c.push_back({fbits(static_cast<float>(static_cast<double>(fval(bb)) * (0x1p-126 - 0x1.8p-151))), bb});
        }
        c.push_back({f32(false, 0, static_cast<uint32_t>(2 * (r.next() % (1 << 20)) + 1)), 0x40000000});
        const uint32_t b2 = f32(false, 126, static_cast<uint32_t>(r.next()));
        c.push_back({std::min<uint32_t>(0x7F7FFFFF, fbits(fval(b2) * 0x1p127f * 2.0f) + static_cast<uint32_t>(r.range(-3, 0))), b2});
        // Divisors near 2^126 and below 2^-126, random everything.
        c.push_back({static_cast<uint32_t>(r.next()), 0x7E800000 + static_cast<uint32_t>(r.range(-2, 600000))});
        c.push_back({static_cast<uint32_t>(r.next()), static_cast<uint32_t>(r.bits(23)) | (r.next() & 0x80000000)});
        c.push_back({static_cast<uint32_t>(r.next()), static_cast<uint32_t>(r.next())});
        const int e = r.range(1, 254);
        c.push_back({f32(r.next() & 1, e, static_cast<uint32_t>(r.next())), f32(r.next() & 1, std::clamp(e + r.range(-160, 160), 0, 254), static_cast<uint32_t>(r.next()))});
      }
      break;
    }
    case Family::F32Unary:
      for (const uint32_t a : special_f32()) c.push_back({a, 0});
      for (int e = 0; e <= 254; ++e)
        for (int k = 0; k < 3; ++k) c.push_back({f32(k == 2, e, static_cast<uint32_t>(r.next())), 0});
      for (int i = 0; i < 1500; ++i) c.push_back({static_cast<uint32_t>(r.next()), 0});
      break;
    case Family::Int32:
    case Family::Int64: {
      const int bits = form.family == Family::Int32 ? 32 : 64;
      const uint64_t mask = bits == 64 ? ~uint64_t{0} : 0xFFFFFFFF;
      const auto b = int_boundaries(bits);
      const bool small = form.ptx.rfind("setp", 0) == 0 || form.ptx.rfind("min", 0) == 0 || form.ptx.rfind("max", 0) == 0;
      const size_t step = small ? 3 : bits == 64 ? 2 : 1;
      for (size_t i = 0; i < b.size(); i += step)
        for (size_t j = 0; j < b.size(); j += step) c.push_back({b[i], b[j]});
      for (int i = 0; i < (small ? 300 : 800); ++i) {
        const uint64_t x = r.bits(bits), y = r.bits(bits);
        c.push_back({(r.next() & 1 ? 0 - x : x) & mask, (r.next() & 1 ? 0 - y : y) & mask});
      }
      break;
    }
    case Family::Shift64:
      for (const uint64_t a : {0x8000000000000001ull, 0x0123456789ABCDEFull, 0xFEDCBA9876543210ull, 1ull, ~0ull})
        for (uint64_t n = 0; n <= 70; ++n) c.push_back({a, n});
      for (const uint64_t n : {127ull, 128ull, 256ull, 0x80000000ull, 0xFFFFFFE0ull, 0xFFFFFFFFull}) c.push_back({r.next(), n});
      for (int i = 0; i < 800; ++i) c.push_back({r.next(), i % 2 ? r.next() % 80 : r.bits(32)});
      break;
    case Family::Unary32:
    case Family::Unary64: {
      const int bits = form.family == Family::Unary32 ? 32 : 64;
      for (const uint64_t a : int_boundaries(bits)) c.push_back({a, 0});
      for (int i = 0; i < 500; ++i) {
        const uint64_t x = r.bits(bits);
        c.push_back({(r.next() & 1 ? 0 - x : x) & (bits == 64 ? ~0ull : 0xFFFFFFFFull), 0});
      }
      break;
    }
    case Family::Cvt32:
    case Family::Cvt64:
      for (const int b : {8, 16, 32, 64})
        for (const uint64_t x : {uint64_t{1} << (b - 1), b == 64 ? ~uint64_t{0} : (uint64_t{1} << b) - 1})
          for (const int d : {-1, 0, 1}) c.push_back({x + static_cast<uint64_t>(d), 0}), c.push_back({0 - x - static_cast<uint64_t>(d), 0});
      for (int i = 0; i < 250; ++i) {
        const uint64_t x = r.bits(64);
        c.push_back({i % 3 ? (r.next() & 1 ? 0 - x : x) : r.next(), 0});
      }
      break;
  }
  return c;
}

// ---- running and writing --------------------------------------------------------------------


int run(const std::string& path) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  std::printf("GPU: %s (sm_%d%d), driver API %d, runtime %d\n", prop.name, prop.major, prop.minor, driver, runtime);
  GzWriter w(path);
  Rng r(20261122);
  uint64_t total = 0;
  for (const Form& form : all_forms()) {
    const std::vector<Case> cases = inputs_for(form, r);
    Case* d_in = nullptr;
    uint64_t* d_out = nullptr;
    check(cudaMalloc(&d_in, cases.size() * sizeof(Case)), "cudaMalloc");
    check(cudaMalloc(&d_out, cases.size() * sizeof(uint64_t)), "cudaMalloc");
    check(cudaMemcpy(d_in, cases.data(), cases.size() * sizeof(Case), cudaMemcpyHostToDevice), "copy in");
    form.launch(d_in, d_out, static_cast<int>(cases.size()));
    check(cudaGetLastError(), form.ptx + ": launch");
    std::vector<uint64_t> out(cases.size());
    check(cudaMemcpy(out.data(), d_out, out.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost), form.ptx + ": run");
    cudaFree(d_in);
    cudaFree(d_out);
    w.le(form.ptx.size(), 2);
    w.write(form.ptx.data(), form.ptx.size());
    w.le(form.in_widths.size(), 1);
    for (const uint8_t iw : form.in_widths) w.le(iw, 1);
    w.le(form.out_width, 1);
    w.le(cases.size(), 4);
    for (size_t i = 0; i < cases.size(); ++i) {
      w.le(cases[i].a, form.in_widths[0]);
      if (form.in_widths.size() > 1) w.le(cases[i].b, form.in_widths[1]);
      w.le(out[i], form.out_width);
    }
    total += cases.size();
  }
  w.finish();
  std::printf("%zu forms, %llu cases -> %s\n", all_forms().size(), static_cast<unsigned long long>(total), path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTFILE\n", argv[0]);
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
