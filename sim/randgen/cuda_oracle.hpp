// The differential oracle for compiled CUDA C (tsm random --level cuda; docs/random-kernels.md):
// the same random kernels (random_cuda.hpp) compiled for the host with cuda_host_shim.h, and for
// the device through a CUDA front end, our translator and the golden model; every buffer compared
// byte for byte. Many kernels share one translation unit, so each batch costs one front-end
// compile, one parse of the PTX and one host compile; a kernel that fails is cut down by delta
// debugging over its statement tree, re-checked with the same front end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/frontend.hpp"
#include "isa/module.hpp"
#include "randgen/random_cuda.hpp"
#include "randgen/random_kernel.hpp"

namespace tsm::randgen {

/// One kernel to check: the generated kernel gives the launch and the buffers, `source` the text
/// (the kernel's, or a reduction step's; without the prelude), `entry` its kernel's name.
/// `whole_file`, when set, is compiled alone instead of the prelude and `source` (--kernel-file).
struct CudaCase {
  const CudaKernel* kernel = nullptr;
  std::string source;
  std::string entry;
  std::string whole_file;
};

/// The host reference of one case: `out` after the launch, or why there is none.
struct CudaHostResult {
  std::string problem;  ///< "" when the reference ran; otherwise a generator (or host compiler) problem
  std::vector<uint8_t> out;
};

/// One case through one front end, the translator and the golden model, compared with the host.
struct CudaDeviceResult {
  std::string problem;  ///< "" when the golden model's buffers equal the host reference's
  /// What failed, with the numbers taken out, so that a reduction keeps this failure and no other:
  /// "front end: ...", "translator: ...", "golden: ...", "mismatch", "host: ...".
  std::string kind;
  uint64_t warp_instructions = 0;
  std::shared_ptr<const Module> module;  ///< the translation (for a run on another backend)
  RandomRun golden;                      ///< the golden model's run
};

struct CudaOracleOptions {
  std::string config = "small";  ///< the configuration the golden model runs and the translator fits
  /// Seconds a reduction may take before it stops with what it has.
  double reduce_seconds = 240;
  /// More options of the host compiler (a test adds -fsanitize=undefined to show the kernels are
  /// well defined).
  std::vector<std::string> host_flags;
};

/// Where the time went, for the summary line.
struct CudaTimes {
  double front_end = 0, host_compile = 0, host_run = 0, translate = 0, golden = 0;
  unsigned front_end_compiles = 0, host_compiles = 0;
};

struct CudaReduction {
  CudaKernel kernel;       ///< the smallest kernel that still fails the same way
  unsigned rounds = 0;     ///< accepted steps
  unsigned compiles = 0;   ///< batches compiled
  bool stopped = false;    ///< the time limit ended it
};

class CudaOracle {
 public:
  explicit CudaOracle(CudaOracleOptions options);
  ~CudaOracle();
  CudaOracle(const CudaOracle&) = delete;
  CudaOracle& operator=(const CudaOracle&) = delete;

  /// The host reference of every case: one compile of them all (each case alone when that fails,
  /// to find the case at fault), then each launch in its own process.
  std::vector<CudaHostResult> host(const std::vector<CudaCase>& cases);
  /// Every case through `frontend` (one compile), the translator and the golden model, compared
  /// with `host` (a case whose host reference failed is not run).
  std::vector<CudaDeviceResult> device(const std::vector<CudaCase>& cases, compiler::Frontend frontend,
                                       const std::vector<CudaHostResult>& host);
  /// Cut `kernel` down while it still fails with `kind` through `frontend`.
  CudaReduction reduce(const CudaKernel& kernel, compiler::Frontend frontend, const std::string& kind);

  /// The host compiler's command line for a translation unit (as run, for messages).
  std::string host_command() const;
  const CudaTimes& times() const { return times_; }

 private:
  std::string write_unit(const std::vector<CudaCase>& cases, const std::string& stem);
  /// Compiles the host driver of `cases`; "" or the compiler's first error.
  std::string compile_host(const std::vector<CudaCase>& cases, const std::string& exe);
  std::vector<CudaHostResult> run_host(const std::vector<CudaCase>& cases, const std::string& exe);

  CudaOracleOptions options_;
  std::string dir_;  // private temporary directory
  std::string host_cxx_;
  unsigned serial_ = 0;
  CudaTimes times_;
};

/// The cases of `kernels`, each under its own name.
std::vector<CudaCase> cuda_cases(const std::vector<CudaKernel>& kernels);

/// The host C++ compiler: g++, c++ or clang++ on PATH.
std::string find_host_cxx();

}  // namespace tsm::randgen
