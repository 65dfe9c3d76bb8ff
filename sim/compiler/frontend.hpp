// CUDA front ends: CUDA C to PTX through nvcc (when installed) or Debian's clang with
// TeslaSM's CUDA header (no CUDA SDK needed). docs/cuda-frontends.md describes both.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tsm::compiler {

enum class Frontend { Auto, Nvcc, Clang };

/// "auto", "nvcc" or "clang".
const char* to_string(Frontend frontend);

struct FrontendOptions {
  Frontend frontend = Frontend::Auto;     ///< Auto: nvcc if installed, else clang
  std::vector<std::string> include_dirs;  ///< passed as -IDIR
  std::vector<std::string> defines;       ///< NAME or NAME=VALUE, passed as -DNAME...
};

struct PtxOutput {
  std::string ptx;
  Frontend used = Frontend::Auto;  ///< Nvcc or Clang once compiled
  std::string command;             ///< the exact command line run (shell-quoted where needed)
  std::string diagnostics;  ///< what the compiler printed on success (warnings), usually empty
};

/// A CUDA source that did not compile, or could not be compiled. what() starts with one line
/// "FILE:LINE:COL: error: ..." — the compiler's first error as it printed it (nvcc's
/// "FILE(LINE): error: ..." is rewritten to that form, the column taken from its caret line) —
/// followed by the compiler's complete diagnostics and the command that was run.
class CompileError : public std::runtime_error {
 public:
  CompileError(std::string headline, std::string file, int line, int column,
               std::string diagnostics, std::string command);

  std::string headline;     ///< the first line of what()
  std::string file;         ///< the file the error is in (the source, or a header it includes)
  int line;                 ///< 1-based; 0 when the error has no source position
  int column;               ///< 1-based; 0 when the error has no source position
  std::string diagnostics;  ///< everything the compiler printed
  std::string command;      ///< the command line run; empty if none was
};

/// No compiler for the requested front end (nvcc asked for but not installed; no clang++).
class FrontendNotFound : public CompileError {
 public:
  FrontendNotFound(const std::string& file, const std::string& message);
};

/// nvcc on PATH, then /usr/local/cuda/bin/nvcc.
std::optional<std::string> find_nvcc();
/// clang++ or clang++-14 on PATH.
std::optional<std::string> find_clang();

/// Compile one .cu file to PTX (compute_75 / sm_75) with the chosen front end, in a private
/// temporary directory that is removed afterwards. Throws CompileError.
PtxOutput cuda_to_ptx(const std::string& cu_file, const FrontendOptions& options);

/// The directory holding tsm_cuda.h (compiled in).
std::string cuda_include_dir();

}  // namespace tsm::compiler
