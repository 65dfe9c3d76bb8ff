// The CUDA front ends: every kernel under cuda/ through each installed front end, its PTX checked
// for the instructions each CUDA facility must lower to; diagnostics (syntax errors, missing files,
// a missing compiler); the command lines; the temporary directory's cleanup.
#include "compiler/frontend.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace tsm::compiler {
void PrintTo(Frontend frontend, std::ostream* os) { *os << to_string(frontend); }
}  // namespace tsm::compiler

namespace {

namespace fs = std::filesystem;
using tsm::compiler::CompileError;
using tsm::compiler::Frontend;
using tsm::compiler::FrontendOptions;

const fs::path kTestDir = TSM_FRONTEND_TEST_DIR;

/// Skips the test when the front end is not installed. clang is a dependency: its absence fails.
void require(Frontend frontend) {
  if (frontend == Frontend::Nvcc && !tsm::compiler::find_nvcc()) {
    GTEST_SKIP() << "nvcc is not installed (looked on PATH and at /usr/local/cuda/bin/nvcc)";
  }
  if (frontend == Frontend::Clang) {
    ASSERT_TRUE(tsm::compiler::find_clang()) << "clang++ is a dependency (Debian package clang)";
  }
}

tsm::compiler::PtxOutput compile(const fs::path& file, Frontend frontend) {
  FrontendOptions options;
  options.frontend = frontend;
  return tsm::compiler::cuda_to_ptx(file.string(), options);
}

/// The body of `.entry name(...) { ... }`, or "" if there is no such entry.
std::string entry_body(const std::string& ptx, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(ptx, m, std::regex(R"(\.entry\s+)" + name + R"(\s*\()"))) return "";
  size_t begin = static_cast<size_t>(m.position(0));
  size_t end = ptx.find("\n}", begin);
  return ptx.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// ---- What each facility must lower to ----------------------------------------------------------

enum Which { kBoth = 3, kNvcc = 1, kClang = 2 };

struct Expect {
  const char* file;     ///< under cuda/
  const char* entry;    ///< an entry's body, or "" for the whole module
  const char* pattern;  ///< ECMAScript regex
  Which frontends = kBoth;
  bool absent = false;  ///< the pattern must not occur
};

// clang-format off
const std::vector<Expect> kExpectations = {
  // Built-in variables, qualifiers, vector types.
  {"builtins.cu", "builtins", R"(%tid\.x)"}, {"builtins.cu", "builtins", R"(%tid\.y)"},
  {"builtins.cu", "builtins", R"(%tid\.z)"}, {"builtins.cu", "builtins", R"(%ctaid\.x)"},
  {"builtins.cu", "builtins", R"(%ctaid\.y)"}, {"builtins.cu", "builtins", R"(%ctaid\.z)"},
  {"builtins.cu", "builtins", R"(%ntid\.x)"}, {"builtins.cu", "builtins", R"(%ntid\.y)"},
  {"builtins.cu", "builtins", R"(%ntid\.z)"}, {"builtins.cu", "builtins", R"(%nctaid\.x)"},
  {"builtins.cu", "builtins", R"(%nctaid\.y)"},
  {"builtins.cu", "", R"(\.maxntid 256, 1, 1)"}, {"builtins.cu", "", R"(\.minnctapersm 2)"},
  {"builtins.cu", "builtins", R"(\.shared \.align 4 \.b8 \w*tile\[1024\])"},
  {"builtins.cu", "", R"(\.extern \.shared \.align \d+ \.b8 dynamic_tile\[\])"},
  {"builtins.cu", "", R"(\.const \.align 4 \.b8 scale\[16\])"},
  {"builtins.cu", "", R"(\.global \.align 4 \.u32 launches)"},
  {"builtins.cu", "builtins", R"(ld\.const\.f32)"},
  {"builtins.cu", "builtins", R"(st\.global\.v4\.f32)"},  // float4 is 16-byte aligned
  {"builtins.cu", "", R"(\.func\s*\(\.param \.b32 func_retval0\) _Z11not_inlinedf)"},
  {"builtins.cu", "builtins", R"(call\.uni\s*\(retval0\),\s*_Z11not_inlinedf)"},
  {"builtins.cu", "builtins", R"(twice|_Z5twicef)", kBoth, true},  // __forceinline__
  {"builtins.cu", "counters", R"(%clock64)"},
  {"builtins.cu", "counters", R"(ld\.global\.nc\.f32)"},
  {"builtins.cu", "", R"(memcpy)", kBoth, true},
  // Barriers and fences.
  {"sync.cu", "barriers", R"(bar\.sync\s+0;)"},
  {"sync.cu", "barriers", R"(bar\.red\.popc\.u32)"},
  {"sync.cu", "barriers", R"(bar\.red\.and\.pred)"},
  {"sync.cu", "barriers", R"(bar\.red\.or\.pred)"},
  {"sync.cu", "barriers", R"(bar\.warp\.sync)"},
  {"sync.cu", "fences", R"(membar\.cta;)"},
  {"sync.cu", "fences", R"(membar\.gl;)"},
  {"sync.cu", "fences", R"(membar\.sys;)"},
  // Atomics (clang leaves atom.inc/atom.dec generic: its inc/dec builtins escape address-space
  // inference).
  {"atomics.cu", "atomics_int", R"(atom\.global\.add\.u32)"},
  {"atomics.cu", "atomics_int", R"(atom\.global\.exch\.b32)"},
  {"atomics.cu", "atomics_int", R"(atom\.global\.min\.s32)"},
  {"atomics.cu", "atomics_int", R"(atom\.global\.max\.s32)"},
  {"atomics.cu", "atomics_int", R"(atom\.global\.min\.u32)"},
  {"atomics.cu", "atomics_int", R"(atom\.global\.max\.u32)"},
  {"atomics.cu", "atomics_int", R"(atom(\.global)?\.inc\.u32)"},
  {"atomics.cu", "atomics_int", R"(atom(\.global)?\.dec\.u32)"},
  {"atomics.cu", "atomics_int", R"(atom\.global\.cas\.b32)"},
  {"atomics.cu", "atomics_int", R"(atom\.global\.and\.b32)"},
  {"atomics.cu", "atomics_int", R"(atom\.global\.or\.b32)"},
  {"atomics.cu", "atomics_int", R"(atom\.global\.xor\.b32)"},
  {"atomics.cu", "atomics_wide", R"(atom\.global\.add\.u64)"},
  {"atomics.cu", "atomics_wide", R"(atom\.global\.exch\.b64)"},
  {"atomics.cu", "atomics_wide", R"(atom\.global\.cas\.b64)"},
  {"atomics.cu", "atomics_wide", R"(atom\.global\.add\.f32)"},
  {"atomics.cu", "atomics_shared", R"(atom\.shared\.add\.u32)"},
  {"atomics.cu", "atomics_shared", R"(atom\.shared\.max\.s32)"},
  // Warp vote and shuffle.
  {"warp.cu", "vote", R"(vote\.sync\.all\.pred)"},
  {"warp.cu", "vote", R"(vote\.sync\.any\.pred)"},
  {"warp.cu", "vote", R"(vote\.sync\.ballot\.b32)"},
  {"warp.cu", "vote", R"(activemask\.b32)"},
  {"warp.cu", "shuffle", R"(shfl\.sync\.down\.b32)"},
  {"warp.cu", "shuffle", R"(shfl\.sync\.up\.b32)"},
  {"warp.cu", "shuffle", R"(shfl\.sync\.idx\.b32)"},
  {"warp.cu", "shuffle", R"(shfl\.sync\.bfly\.b32)"},
  // printf and assert.
  {"printf_assert.cu", "", R"(\.extern \.func\s*\(\.param \.b32 func_retval0\) vprintf)"},
  {"printf_assert.cu", "print", R"(call\.uni\s*\(retval0\),\s*vprintf,)"},
  {"printf_assert.cu", "print", R"(st\.local\.f64)"},  // the float argument, promoted to double
  {"printf_assert.cu", "", R"(\.extern \.func __assertfail)"},
  {"printf_assert.cu", "check", R"(call\.uni\s*__assertfail,)"},
  {"host_headers.cu", "with_headers", R"(call\.uni\s*\(retval0\),\s*vprintf,)"},
  {"host_headers.cu", "with_headers", R"(call\.uni\s*__assertfail,)"},
  // Fast-math intrinsics: the SFU's .approx instructions.
  {"intrinsics.cu", "k_sinf_fast", R"(sin\.approx\.f32)"},
  {"intrinsics.cu", "k_cosf_fast", R"(cos\.approx\.f32)"},
  {"intrinsics.cu", "k_tanf_fast", R"(div\.approx\.f32)"},
  {"intrinsics.cu", "k_expf_fast", R"(ex2\.approx\.f32)"},
  {"intrinsics.cu", "k_exp10f_fast", R"(ex2\.approx\.f32)"},
  {"intrinsics.cu", "k_logf_fast", R"(lg2\.approx\.f32)"},
  {"intrinsics.cu", "k_log2f_fast", R"(lg2\.approx\.f32)"},
  {"intrinsics.cu", "k_log10f_fast", R"(lg2\.approx\.f32)"},
  {"intrinsics.cu", "k_powf_fast", R"(lg2\.approx\.f32[\s\S]*ex2\.approx\.f32)"},
  {"intrinsics.cu", "k_fdividef", R"(div\.approx\.f32)"},
  {"intrinsics.cu", "k_rsqrtf", R"(rsqrt\.approx\.f32)"},
  {"intrinsics.cu", "k_saturatef", R"(cvt\.sat\.f32\.f32)"},
  {"intrinsics.cu", "k_sincosf_fast", R"(sin\.approx\.f32[\s\S]*cos\.approx\.f32)"},
  // Explicit rounding: never contracted into an fma.
  {"intrinsics.cu", "k_fadd_rn", R"(add\.rn\.f32)"},
  {"intrinsics.cu", "k_fadd_rz", R"(add\.rz\.f32)"},
  {"intrinsics.cu", "k_fadd_rd", R"(add\.rm\.f32)"},
  {"intrinsics.cu", "k_fadd_ru", R"(add\.rp\.f32)"},
  {"intrinsics.cu", "k_fsub_rz", R"(sub\.rz\.f32)"},
  {"intrinsics.cu", "k_fmul_rn", R"(mul\.rn\.f32)"},
  {"intrinsics.cu", "k_fmul_ru", R"(mul\.rp\.f32)"},
  {"intrinsics.cu", "k_fmaf_rn", R"(fma\.rn\.f32)"},
  {"intrinsics.cu", "k_fmaf_rd", R"(fma\.rm\.f32)"},
  {"intrinsics.cu", "k_fdiv_rn", R"(div\.rn\.f32)"},
  {"intrinsics.cu", "k_fdiv_rz", R"(div\.rz\.f32)"},
  {"intrinsics.cu", "k_frcp_rn", R"(rcp\.rn\.f32)"},
  {"intrinsics.cu", "k_fsqrt_rd", R"(sqrt\.rm\.f32)"},
  {"intrinsics.cu", "k_mul_add_rn", R"(mul\.rn\.f32[\s\S]*add\.rn\.f32)"},
  {"intrinsics.cu", "k_mul_add_rn", R"(fma\.)", kBoth, true},
  // Conversions and reinterpretation.
  {"intrinsics.cu", "k_float2int_rn", R"(cvt\.rni\.s32\.f32)"},
  {"intrinsics.cu", "k_float2int_rz", R"(cvt\.rzi\.s32\.f32)"},
  {"intrinsics.cu", "k_float2uint_rd", R"(cvt\.rmi\.u32\.f32)"},
  {"intrinsics.cu", "k_int2float_ru", R"(cvt\.rp\.f32\.s32)"},
  {"intrinsics.cu", "k_float_as_int", R"(cvt\.)", kBoth, true},
  {"intrinsics.cu", "k_float_as_uint", R"(cvt\.)", kBoth, true},
  // Integer intrinsics. nvcc emulates the 24-bit multiplies with 32-bit ones (slow on recent
  // GPUs); the header keeps Tesla's native mul24.
  {"intrinsics.cu", "k_mul24", R"(mul24\.lo\.s32)", kClang},
  {"intrinsics.cu", "k_umul24", R"(mul24\.lo\.u32)", kClang},
  {"intrinsics.cu", "k_mul24", R"(mul\.lo\.s32)", kNvcc},
  {"intrinsics.cu", "k_mulhi", R"(mul\.hi\.s32)"},
  {"intrinsics.cu", "k_umulhi", R"(mul\.hi\.u32)"},
  {"intrinsics.cu", "k_popc", R"(popc\.b32)"},
  {"intrinsics.cu", "k_clz", R"(clz\.b32)"},
  {"intrinsics.cu", "k_brev", R"(brev\.b32)"},
  {"intrinsics.cu", "k_ffs", R"(bfind\.shiftamt\.u32)", kNvcc},
  {"intrinsics.cu", "k_ffs", R"(popc\.b32)", kClang},
  {"intrinsics.cu", "k_min_int", R"(min\.s32)"},
  {"intrinsics.cu", "k_max_uint", R"(max\.u32)"},
  {"intrinsics.cu", "k_min_mixed", R"(min\.u32)"},
  {"intrinsics.cu", "k_min_float", R"(min\.f32)"},
  {"intrinsics.cu", "k_max_float", R"(max\.f32)"},
  // The math library: IEEE operations where C asks for them...
  {"math.cu", "k_sqrtf", R"(sqrt\.rn\.f32)"},
  {"math.cu", "k_divide", R"(div\.rn\.f32)"},
  {"math.cu", "k_fmaf", R"(fma\.rn\.f32)"},
  {"math.cu", "k_floorf", R"(cvt\.rmi\.f32\.f32)"},
  {"math.cu", "k_ceilf", R"(cvt\.rpi\.f32\.f32)"},
  {"math.cu", "k_truncf", R"(cvt\.rzi\.f32\.f32)"},
  {"math.cu", "k_rintf", R"(cvt\.rni\.f32\.f32)"},
  {"math.cu", "k_fabsf", R"(abs\.f32)"},
  {"math.cu", "k_fminf", R"(min\.f32)"},
  {"math.cu", "k_fmaxf", R"(max\.f32)"},
  {"math.cu", "k_sinf", R"(fma\.rn\.f32)"},
  // ...and the header's library is plain arithmetic: no SFU approximation, no f64, no local
  // memory, no call (nvcc's libdevice uses all four; see docs/cuda-frontends.md).
  {"math.cu", "", R"(\.approx)", kClang, true},
  {"math.cu", "", R"(\.f64)", kClang, true},
  {"math.cu", "", R"(\.local)", kClang, true},
  {"math.cu", "", R"(call)", kClang, true},
  {"math.cu", "k_sinf", R"(sin\.approx)", kBoth, true},
  {"math.cu", "k_cosf", R"(cos\.approx)", kBoth, true},
  {"math.cu", "k_logf", R"(lg2\.approx)", kBoth, true},
  {"math.cu", "k_overloads", R"(sqrt\.rn\.f32)"},
};
// clang-format on

struct KernelCase {
  std::string file;
  Frontend frontend;
};

std::vector<KernelCase> kernel_cases() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(kTestDir / "cuda"))
    if (e.path().extension() == ".cu") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  std::vector<KernelCase> cases;
  for (const auto& f : files)
    for (Frontend fe : {Frontend::Nvcc, Frontend::Clang}) cases.push_back({f, fe});
  return cases;
}

void PrintTo(const KernelCase& c, std::ostream* os) {
  *os << c.file << " with " << tsm::compiler::to_string(c.frontend);
}

class Kernels : public ::testing::TestWithParam<KernelCase> {};

TEST_P(Kernels, CompileAndLowerEveryFacility) {
  const KernelCase& c = GetParam();
  require(c.frontend);
  if (HasFatalFailure() || IsSkipped()) return;
  tsm::compiler::PtxOutput out;
  try {
    out = compile(kTestDir / "cuda" / c.file, c.frontend);
  } catch (const CompileError& e) {
    FAIL() << e.what();
  }
  EXPECT_EQ(out.used, c.frontend);
  EXPECT_NE(out.ptx.find(".target sm_75"), std::string::npos);
  EXPECT_NE(out.ptx.find(".address_size 64"), std::string::npos);
  const Which me = c.frontend == Frontend::Nvcc ? kNvcc : kClang;
  int checked = 0;
  for (const Expect& x : kExpectations) {
    if (c.file != x.file || (x.frontends & me) == 0) continue;
    ++checked;
    std::string text = *x.entry ? entry_body(out.ptx, x.entry) : out.ptx;
    if (*x.entry && text.empty()) {
      ADD_FAILURE() << "no .entry " << x.entry << " in the PTX of " << c.file;
      continue;
    }
    bool found = std::regex_search(text, std::regex(x.pattern));
    EXPECT_EQ(found, !x.absent) << c.file << (*x.entry ? " entry " : "") << x.entry << ": /"
                                << x.pattern << "/ " << (x.absent ? "must not occur" : "not found")
                                << " in the " << tsm::compiler::to_string(c.frontend) << " PTX";
  }
  EXPECT_GT(checked, 0) << "no expectations for " << c.file;
}

std::string case_name(const ::testing::TestParamInfo<KernelCase>& info) {
  std::string stem = fs::path(info.param.file).stem().string();
  return stem + "_" + tsm::compiler::to_string(info.param.frontend);
}

INSTANTIATE_TEST_SUITE_P(Cuda, Kernels, ::testing::ValuesIn(kernel_cases()), case_name);

// ---- Diagnostics -------------------------------------------------------------------------------

class Diagnostics : public ::testing::TestWithParam<Frontend> {
 protected:
  void SetUp() override { require(GetParam()); }

  /// Compiles a file that must fail; returns the error.
  CompileError failure(const fs::path& file) {
    try {
      compile(file, GetParam());
    } catch (const CompileError& e) {
      return e;
    }
    ADD_FAILURE() << file << " compiled with " << tsm::compiler::to_string(GetParam());
    return CompileError("", "", 0, 0, "", "");
  }
};

TEST_P(Diagnostics, SyntaxErrorNamesFileLineAndColumn) {
  const fs::path file = kTestDir / "bad" / "syntax_error.cu";
  CompileError e = failure(file);
  const std::string what = e.what();
  const std::string head = file.string() + ":4:15: error: ";
  EXPECT_EQ(what.compare(0, head.size(), head), 0) << what;
  EXPECT_EQ(e.file, file.string());
  EXPECT_EQ(e.line, 4);
  EXPECT_EQ(e.column, 15);
  EXPECT_NE(what.find("expected"), std::string::npos) << what;  // the compiler's own words
  EXPECT_NE(what.find("(command: "), std::string::npos) << what;
}

TEST_P(Diagnostics, MissingIncludeNamesTheIncludingLine) {
  const fs::path file = kTestDir / "bad" / "missing_include.cu";
  CompileError e = failure(file);
  const std::string what = e.what();
  const std::string head = file.string() + ":2:10: ";
  EXPECT_EQ(what.compare(0, head.size(), head), 0) << what;
  EXPECT_TRUE(
      std::regex_search(what, std::regex(R"(^[^\n]*(fatal )?error: [^\n]*no_such_header\.h)")))
      << what;
  EXPECT_EQ(e.line, 2);
}

TEST_P(Diagnostics, MissingSourceFileNamesFileAndLine) {
  const std::string file = (kTestDir / "bad" / "does_not_exist.cu").string();
  CompileError e = failure(file);
  const std::string head =
      file + ":1:1: error: cannot read CUDA source file: No such file or directory";
  EXPECT_EQ(std::string(e.what()).compare(0, head.size(), head), 0) << e.what();
  EXPECT_TRUE(e.command.empty());  // nothing was run
}

TEST_P(Diagnostics, CommandLineIsRecordedAndOptionsPassed) {
  FrontendOptions options;
  options.frontend = GetParam();
  options.defines = {"SCALE=3"};
  options.include_dirs = {(kTestDir / "options" / "include").string()};
  auto out = tsm::compiler::cuda_to_ptx((kTestDir / "options" / "options.cu").string(), options);
  EXPECT_NE(out.ptx.find("3702"), std::string::npos) << out.ptx;  // 1234 * SCALE, folded
  EXPECT_NE(out.command.find("-DSCALE=3"), std::string::npos) << out.command;
  EXPECT_NE(out.command.find("-I" + (kTestDir / "options" / "include").string()),
            std::string::npos);
  if (GetParam() == Frontend::Nvcc) {
    EXPECT_NE(out.command.find(" -ptx -arch=compute_75 -o "), std::string::npos) << out.command;
  } else {
    for (const char* flag : {" -x cuda ", " --cuda-device-only ", " --cuda-gpu-arch=sm_75 ",
                             " -nocudainc ", " -nocudalib ", " -O2 ", " -S ", "/tsm_cuda.h "})
      EXPECT_NE(out.command.find(flag), std::string::npos) << flag << " in " << out.command;
    EXPECT_NE(out.command.find("--cuda-path="), std::string::npos) << out.command;
  }
}

TEST_P(Diagnostics, TemporaryDirectoryIsRemoved) {
  // A private TMPDIR, so that other tests running at the same time do not interfere.
  const fs::path tmp =
      fs::temp_directory_path() /
      fmt::format("tsm-frontend-test-{}-{}", ::getpid(), tsm::compiler::to_string(GetParam()));
  fs::create_directories(tmp);
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  EXPECT_NO_THROW(compile(kTestDir / "cuda" / "sync.cu", GetParam()));
  EXPECT_THROW(compile(kTestDir / "bad" / "syntax_error.cu", GetParam()), CompileError);
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(tmp))
    if (e.path().filename().string().rfind("tsm-frontend-", 0) == 0)
      left.push_back(e.path().string());
  EXPECT_TRUE(left.empty()) << left.front();
  fs::remove_all(tmp);
}

INSTANTIATE_TEST_SUITE_P(Frontends, Diagnostics, ::testing::Values(Frontend::Nvcc, Frontend::Clang),
                         [](const auto& info) {
                           return std::string(tsm::compiler::to_string(info.param));
                         });

// ---- Front-end selection and the header's own diagnostics --------------------------------------

TEST(Frontend, Names) {
  EXPECT_STREQ(tsm::compiler::to_string(Frontend::Auto), "auto");
  EXPECT_STREQ(tsm::compiler::to_string(Frontend::Nvcc), "nvcc");
  EXPECT_STREQ(tsm::compiler::to_string(Frontend::Clang), "clang");
}

TEST(Frontend, AutoPrefersNvcc) {
  auto out = compile(kTestDir / "cuda" / "sync.cu", Frontend::Auto);
  EXPECT_EQ(out.used, tsm::compiler::find_nvcc() ? Frontend::Nvcc : Frontend::Clang);
}

TEST(Frontend, MissingCompilerIsReportedClearly) {
  // With an empty PATH there is no clang++; nvcc may still be found in /usr/local/cuda.
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", "/nonexistent", 1);
  bool threw = false;
  try {
    compile(kTestDir / "cuda" / "sync.cu", Frontend::Clang);
  } catch (const tsm::compiler::FrontendNotFound& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find("clang"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sync.cu: error: "), std::string::npos) << e.what();
  }
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_TRUE(threw);
}

/// Writes a one-off kernel into a private directory and compiles it with clang.
CompileError clang_failure(const std::string& source) {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("tsm-frontend-test-src-{}", ::getpid());
  fs::create_directories(dir);
  const fs::path file = dir / "kernel.cu";
  std::ofstream(file) << source;
  CompileError error("", "", 0, 0, "", "");
  try {
    compile(file, Frontend::Clang);
    ADD_FAILURE() << "compiled: " << source;
  } catch (const CompileError& e) {
    error = e;
  }
  fs::remove_all(dir);
  return error;
}

TEST(Header, DoublePrecisionMathIsANamedError) {
  require(Frontend::Clang);
  CompileError e = clang_failure("__global__ void k(double* d) { d[0] = sin(d[1]); }\n");
  EXPECT_EQ(e.line, 1);
  EXPECT_NE(std::string(e.what()).find("double-precision sin is not provided"), std::string::npos)
      << e.what();
}

TEST(Header, BuiltinVariablesCannotBeAssigned) {
  require(Frontend::Clang);
  CompileError e =
      clang_failure("__global__ void k(unsigned* p) {\n  auto t = threadIdx;\n  p[0] = t.x;\n}\n");
  EXPECT_EQ(e.line, 2) << e.what();
}

}  // namespace
