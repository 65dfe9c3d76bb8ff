// cuda_host_shim.h — the host build of the random CUDA kernels (tsm random --level cuda): the
// reference side of the differential oracle for compiled CUDA C (docs/random-kernels.md).
//
// The oracle compiles the same generated .cu file twice: for the device (nvcc or clang, then our
// translator, then the golden model or the RTL) and, with this header pre-included, for the host:
//
//   g++ -std=c++17 -O0 -ffp-contract=off -frounding-math -include cuda_host_shim.h driver.cpp
//
// Nothing here comes from the project's own code: the CUDA keywords become plain C++, the
// built-in variables read the state of the thread that runs, the float intrinsics are the host's
// IEEE-754 arithmetic (x86-64 SSE, no flush to zero) in the rounding mode their names say, and the
// conversions and integer intrinsics follow their definitions in the CUDA and PTX manuals. A bug
// in the translator, the golden model or the RTL therefore cannot hide in the reference.
//
// Threads of a block run as coroutines (ucontext, one stack each) in one host thread:
// __syncthreads() returns to the block's scheduler, which runs every thread up to its next barrier
// (or its end) before it lets any of them past it, so a barrier is a phase boundary exactly as on
// the device. Blocks run one after another. A thread that waits at a barrier that some other thread
// of its block never reaches is an error of the generator, reported as such.
//
// Driver protocol (tsm_host::run_launches, called by the generated driver's main): argv[1] is a
// launch file, argv[2] the result file. Each kernel runs in a forked child with a time limit, so a
// crash or a hang of one kernel's reference is that kernel's error, not the batch's.
#pragma once

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// ==== Keywords ===================================================================================

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __restrict__ __restrict
// A block's threads run one after another in one host thread: a function-scope static is one
// object for all of them, as __shared__ is for the threads of a block. The generator never reads
// a shared slot before the block has written it, so what an earlier block left there is not seen.
#define __shared__ static

struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
};

namespace tsm_host {

/// The launch, the block and the thread that runs now.
struct State {
  dim3 grid_dim, block_dim;
  uint3 block_idx{0, 0, 0};
  uint3 thread_idx{0, 0, 0};
};
inline State state;

void barrier();

/// `op` computed with the host's rounding mode set to `mode` (-frounding-math keeps the compiler
/// from moving or folding the operation across the mode switch).
template <class F>
inline auto rounded(int mode, F op) {
  std::fesetround(mode);
  auto r = op();
  std::fesetround(FE_TONEAREST);
  return r;
}

/// Float to integer as PTX cvt.r?i.sNN/uNN.f32 (CUDA's __float2int_r? and friends): rounded in
/// `mode`, NaN gives 0, results beyond the type's range saturate.
template <class I>
inline I float_to_int(float x, int mode, double lo, double hi) {
  if (x != x) return 0;
  const double r = rounded(mode, [&] {
    volatile double v = x;
    return std::nearbyint(static_cast<double>(v));
  });
  if (r <= lo) return static_cast<I>(lo);
  if (r >= hi) return static_cast<I>(hi);  // hi is the type's maximum rounded up to a power of 2
  return static_cast<I>(r);
}

/// Integer to float as PTX cvt.r?.f32.sNN/uNN (CUDA's __int2float_r? and friends): rounded in `mode`.
template <class I>
inline float int_to_float(I a, int mode) {
  return rounded(mode, [&] {
    volatile I x = a;
    return static_cast<float>(x);
  });
}

}  // namespace tsm_host

#define threadIdx (::tsm_host::state.thread_idx)
#define blockIdx (::tsm_host::state.block_idx)
#define blockDim (::tsm_host::state.block_dim)
#define gridDim (::tsm_host::state.grid_dim)
#define warpSize 32

inline void __syncthreads() { ::tsm_host::barrier(); }

// ==== Bit reinterpretation =======================================================================

inline unsigned int __float_as_uint(float x) {
  unsigned int r;
  std::memcpy(&r, &x, 4);
  return r;
}
inline int __float_as_int(float x) { return static_cast<int>(__float_as_uint(x)); }
inline float __uint_as_float(unsigned int x) {
  float r;
  std::memcpy(&r, &x, 4);
  return r;
}
inline float __int_as_float(int x) { return __uint_as_float(static_cast<unsigned int>(x)); }

// ==== Float arithmetic with explicit rounding ====================================================

#define TSM_HOST_ROUNDED(suffix, mode)                                                                                        \
  inline float __fadd_##suffix(float a, float b) {                                                                            \
    return ::tsm_host::rounded(mode, [&] {                                                                                    \
      volatile float x = a, y = b;                                                                                            \
      return static_cast<float>(x + y);                                                                                       \
    });                                                                                                                       \
  }                                                                                                                           \
  inline float __fsub_##suffix(float a, float b) {                                                                            \
    return ::tsm_host::rounded(mode, [&] {                                                                                    \
      volatile float x = a, y = b;                                                                                            \
      return static_cast<float>(x - y);                                                                                       \
    });                                                                                                                       \
  }                                                                                                                           \
  inline float __fmul_##suffix(float a, float b) {                                                                            \
    return ::tsm_host::rounded(mode, [&] {                                                                                    \
      volatile float x = a, y = b;                                                                                            \
      return static_cast<float>(x * y);                                                                                       \
    });                                                                                                                       \
  }                                                                                                                           \
  inline float __fdiv_##suffix(float a, float b) {                                                                            \
    return ::tsm_host::rounded(mode, [&] {                                                                                    \
      volatile float x = a, y = b;                                                                                            \
      return static_cast<float>(x / y);                                                                                       \
    });                                                                                                                       \
  }                                                                                                                           \
  inline float __frcp_##suffix(float a) {                                                                                     \
    return ::tsm_host::rounded(mode, [&] {                                                                                    \
      volatile float x = a;                                                                                                   \
      return static_cast<float>(1.0f / x);                                                                                    \
    });                                                                                                                       \
  }                                                                                                                           \
  inline float __fsqrt_##suffix(float a) {                                                                                    \
    return ::tsm_host::rounded(mode, [&] {                                                                                    \
      volatile float x = a;                                                                                                   \
      return std::sqrt(static_cast<float>(x));                                                                                \
    });                                                                                                                       \
  }                                                                                                                           \
  inline float __fmaf_##suffix(float a, float b, float c) {                                                                   \
    return ::tsm_host::rounded(mode, [&] {                                                                                    \
      volatile float x = a, y = b, z = c;                                                                                     \
      return std::fma(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z));                                   \
    });                                                                                                                       \
  }                                                                                                                           \
  inline float __int2float_##suffix(int a) { return ::tsm_host::int_to_float(a, mode); }                                      \
  inline float __uint2float_##suffix(unsigned int a) { return ::tsm_host::int_to_float(a, mode); }                            \
  inline float __ll2float_##suffix(long long a) { return ::tsm_host::int_to_float(a, mode); }                                 \
  inline float __ull2float_##suffix(unsigned long long a) { return ::tsm_host::int_to_float(a, mode); }                       \
  inline int __float2int_##suffix(float a) { return ::tsm_host::float_to_int<int>(a, mode, -2147483648.0, 2147483647.0); }    \
  inline unsigned int __float2uint_##suffix(float a) {                                                                        \
    return ::tsm_host::float_to_int<unsigned int>(a, mode, 0.0, 4294967295.0);                                                \
  }                                                                                                                           \
  inline long long __float2ll_##suffix(float a) { return ::tsm_host::float_to_ll(a, mode); }                                  \
  inline unsigned long long __float2ull_##suffix(float a) { return ::tsm_host::float_to_ull(a, mode); }

namespace tsm_host {
// 64-bit results: 2^63 and 2^64 are exact doubles, the largest values are not, so the bounds are
// compared before converting. NaN gives the integer with only its top bit set, signed or not, as a
// real GPU does (measured: docs/reference-vectors.md); 32-bit results of NaN are 0.
inline long long float_to_ll(float x, int mode) {
  if (x != x) return -0x7FFFFFFFFFFFFFFFll - 1;
  const double r = rounded(mode, [&] {
    volatile double v = x;
    return std::nearbyint(static_cast<double>(v));
  });
  if (r >= 9223372036854775808.0) return 0x7FFFFFFFFFFFFFFFll;
  if (r <= -9223372036854775808.0) return -0x7FFFFFFFFFFFFFFFll - 1;
  return static_cast<long long>(r);
}
inline unsigned long long float_to_ull(float x, int mode) {
  if (x != x) return 0x8000000000000000ull;
  const double r = rounded(mode, [&] {
    volatile double v = x;
    return std::nearbyint(static_cast<double>(v));
  });
  if (r >= 18446744073709551616.0) return 0xFFFFFFFFFFFFFFFFull;
  if (r <= 0.0) return 0;
  return static_cast<unsigned long long>(r);
}
}  // namespace tsm_host

TSM_HOST_ROUNDED(rn, FE_TONEAREST)
TSM_HOST_ROUNDED(rz, FE_TOWARDZERO)
TSM_HOST_ROUNDED(rd, FE_DOWNWARD)
TSM_HOST_ROUNDED(ru, FE_UPWARD)
#undef TSM_HOST_ROUNDED

// ==== Integer intrinsics (their definitions in the CUDA Math API) ================================

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  unsigned int r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  unsigned long long r = 0;
  for (int i = 0; i < 64; ++i) r |= ((x >> i) & 1ull) << (63 - i);
  return r;
}
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(a) * b) >> 32);
}
inline long long __mul64hi(long long a, long long b) {
  return static_cast<long long>((static_cast<__int128>(a) * b) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
/// The low 32 bits of the product of the low 24 bits of a and b, sign-extended (__mul24) or not.
inline int __mul24(int a, int b) {
  const long long x = static_cast<int>(static_cast<unsigned int>(a) << 8) >> 8;
  const long long y = static_cast<int>(static_cast<unsigned int>(b) << 8) >> 8;
  return static_cast<int>(static_cast<unsigned int>(static_cast<unsigned long long>(x * y)));
}
inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }
/// Byte r of the result is byte (s >> 4r) & 7 of the eight bytes {y, x} (x the low word); the
/// generator keeps every selector nibble below 8.
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned int r = 0;
  for (int n = 0; n < 4; ++n) r |= static_cast<unsigned int>((bytes >> (8 * ((s >> (4 * n)) & 7u))) & 0xFFu) << (8 * n);
  return r;
}
/// |x - y| + z, all modulo 2^32.
inline unsigned int __sad(int x, int y, unsigned int z) {
  const long long d = static_cast<long long>(x) - y;
  return static_cast<unsigned int>(d < 0 ? -d : d) + z;
}
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return (x > y ? x - y : y - x) + z; }
inline int __hadd(int a, int b) { return static_cast<int>((static_cast<long long>(a) + b) >> 1); }
inline int __rhadd(int a, int b) { return static_cast<int>((static_cast<long long>(a) + b + 1) >> 1); }
inline unsigned int __uhadd(unsigned int a, unsigned int b) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(a) + b) >> 1);
}
inline unsigned int __urhadd(unsigned int a, unsigned int b) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(a) + b + 1) >> 1);
}
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ==== The block scheduler ========================================================================

namespace tsm_host {

enum class ThreadState { Ready, AtBarrier, Done };

struct Block {
  std::vector<ucontext_t> contexts;
  std::vector<ThreadState> states;
  std::vector<uint3> indices;
  ucontext_t scheduler{};
  size_t current = 0;
  void (*body)(void*) = nullptr;
  void* argument = nullptr;
};
inline Block* running_block = nullptr;
/// Where a kernel's child process leaves its error message for the driver (shared memory).
inline char* message_area = nullptr;
constexpr size_t kMessageBytes = 4096;

[[noreturn]] inline void fail(int code, const char* message) {
  if (message_area) std::snprintf(message_area, kMessageBytes, "%s", message);
  else std::fprintf(stderr, "%s\n", message);
  std::_Exit(code);
}

inline void barrier() {
  Block& b = *running_block;
  b.states[b.current] = ThreadState::AtBarrier;
  swapcontext(&b.contexts[b.current], &b.scheduler);
}

inline void thread_entry() {
  Block& b = *running_block;
  b.body(b.argument);
  b.states[b.current] = ThreadState::Done;
  // uc_link returns to the scheduler.
}

/// Runs one block: every thread up to its next barrier, phase after phase.
/// Memory for the threads' stacks, mapped once per process and reused block after block.
struct Stacks {
  char* base = nullptr;
  size_t bytes = 0;
  char* data() const { return base; }
  size_t size() const { return bytes; }
};

inline void run_block(void (*body)(void*), void* argument, Stacks& stacks, size_t stack_bytes) {
  Block b;
  const dim3 d = state.block_dim;
  const size_t n = size_t{d.x} * d.y * d.z;
  b.contexts.resize(n);
  b.states.assign(n, ThreadState::Ready);
  b.body = body;
  b.argument = argument;
  if (stacks.size() < n * stack_bytes) {
    // Pages are touched only as deep as each thread's stack grows.
    void* p = mmap(nullptr, n * stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) fail(2, "cannot map the threads' stacks");
    stacks = Stacks{static_cast<char*>(p), n * stack_bytes};
  }
  for (size_t t = 0; t < n; ++t) {
    b.indices.push_back(uint3{static_cast<unsigned int>(t % d.x), static_cast<unsigned int>(t / d.x % d.y),
                              static_cast<unsigned int>(t / (size_t{d.x} * d.y))});
    getcontext(&b.contexts[t]);
    b.contexts[t].uc_stack.ss_sp = stacks.data() + t * stack_bytes;
    b.contexts[t].uc_stack.ss_size = stack_bytes;
    b.contexts[t].uc_link = &b.scheduler;
    makecontext(&b.contexts[t], thread_entry, 0);
  }
  running_block = &b;
  while (true) {
    for (size_t t = 0; t < n; ++t) {
      if (b.states[t] != ThreadState::Ready) continue;
      b.current = t;
      state.thread_idx = b.indices[t];
      swapcontext(&b.scheduler, &b.contexts[t]);
    }
    size_t waiting = 0, done = 0;
    for (ThreadState s : b.states) (s == ThreadState::Done ? done : waiting) += 1;
    if (waiting == 0) break;
    if (done != 0) fail(3, "a barrier that some threads of the block never reach (they returned): a generator bug");
    for (ThreadState& s : b.states) s = ThreadState::Ready;
  }
  running_block = nullptr;
}

/// One launch of the launch file: the generator's kernel signature is
/// (const unsigned* in, unsigned* out, int pa, unsigned pb, float pf, long long pl).
struct Launch {
  dim3 grid, block;
  int pa = 0;
  unsigned int pb = 0;
  float pf = 0;
  long long pl = 0;
  std::vector<unsigned int> in, out;
};
using Kernel = void (*)(const unsigned int*, unsigned int*, int, unsigned int, float, long long);

inline bool read_exact(FILE* f, void* p, size_t n) { return n == 0 || std::fread(p, 1, n, f) == n; }
inline unsigned int read_u32(FILE* f) {
  unsigned int v = 0;
  if (!read_exact(f, &v, 4)) fail(2, "the launch file is truncated");
  return v;
}

/// The driver: reads the launch file, runs kernel i of `kernels` for launch i, each in a forked
/// child, and writes per launch a status word (0 ok, 1 a generator error, 128 + signal, 124 a
/// hang), the length of a message and the message, then the number of `out` words and the words.
inline int run_launches(int argc, char** argv, const Kernel* kernels, size_t count) {
  if (argc != 3) fail(2, "usage: driver LAUNCH_FILE RESULT_FILE");
  FILE* in = std::fopen(argv[1], "rb");
  FILE* out = std::fopen(argv[2], "wb");
  if (!in || !out) fail(2, "cannot open the launch or result file");
  if (read_u32(in) != 0x484D5354u) fail(2, "not a launch file");
  const unsigned int launches = read_u32(in);
  if (launches != count) fail(2, "the launch file's kernel count differs from the driver's");
  Stacks stacks;
  const size_t stack_bytes = 256 * 1024;
  for (unsigned int i = 0; i < launches; ++i) {
    Launch l;
    l.grid = dim3{read_u32(in), read_u32(in), read_u32(in)};
    l.block = dim3{read_u32(in), read_u32(in), read_u32(in)};
    l.pa = static_cast<int>(read_u32(in));
    l.pb = read_u32(in);
    l.pf = __uint_as_float(read_u32(in));
    const unsigned long long lo = read_u32(in), hi = read_u32(in);
    l.pl = static_cast<long long>(lo | hi << 32);
    l.in.resize(read_u32(in));
    if (!read_exact(in, l.in.data(), 4 * l.in.size())) fail(2, "the launch file is truncated");
    l.out.resize(read_u32(in));
    if (!read_exact(in, l.out.data(), 4 * l.out.size())) fail(2, "the launch file is truncated");
    // The child writes `out` and any message into memory shared with this process.
    const size_t shared_bytes = 4 * l.out.size() + kMessageBytes;
    void* shared = mmap(nullptr, shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) fail(2, "mmap failed");
    char* message = static_cast<char*>(shared) + 4 * l.out.size();
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) fail(2, "fork failed");
    if (pid == 0) {
      message_area = message;
      alarm(20);
      struct Args {
        Kernel k;
        Launch* l;
      } args{kernels[i], &l};
      state.grid_dim = l.grid;
      state.block_dim = l.block;
      for (unsigned int by = 0; by < l.grid.y; ++by)
        for (unsigned int bx = 0; bx < l.grid.x; ++bx) {
          state.block_idx = uint3{bx, by, 0};
          run_block(
              [](void* p) {
                auto* a = static_cast<Args*>(p);
                a->k(a->l->in.data(), a->l->out.data(), a->l->pa, a->l->pb, a->l->pf, a->l->pl);
              },
              &args, stacks, stack_bytes);
        }
      std::memcpy(shared, l.out.data(), 4 * l.out.size());
      std::_Exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    unsigned int code = 0;
    const char* text = "";
    if (WIFSIGNALED(status)) {
      code = WTERMSIG(status) == SIGALRM ? 124u : 128u + static_cast<unsigned int>(WTERMSIG(status));
      text = WTERMSIG(status) == SIGALRM ? "the host reference did not finish in 20 s" : strsignal(WTERMSIG(status));
    } else if (WEXITSTATUS(status) != 0) {
      code = static_cast<unsigned int>(WEXITSTATUS(status));
      message[kMessageBytes - 1] = 0;
      text = message[0] ? message : "the host reference stopped with an error";
    }
    const unsigned int text_len = static_cast<unsigned int>(std::strlen(text));
    const unsigned int words = code == 0 ? static_cast<unsigned int>(l.out.size()) : 0u;
    std::fwrite(&code, 4, 1, out);
    std::fwrite(&text_len, 4, 1, out);
    std::fwrite(text, 1, text_len, out);
    std::fwrite(&words, 4, 1, out);
    std::fwrite(shared, 4, words, out);
    munmap(shared, shared_bytes);
  }
  std::fclose(out);
  std::fclose(in);
  return 0;
}

}  // namespace tsm_host
