// The parser on what the real front ends emit: each kernel in tests/ptx/cuda is compiled at test
// time by every compiler found (nvcc, with and without -G; clang, with and without short pointers
// and -g), the PTX parsed, and the AST checked for consistency and for what each kernel must contain.
// A compiler that is not installed skips its tests.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "ptx/ast.hpp"

namespace tsm::ptx {
namespace {

namespace fs = std::filesystem;
using K = Operand::Kind;

const fs::path kSourceDir = TSM_SOURCE_DIR;
const fs::path kKernelDir = kSourceDir / "tests" / "ptx" / "cuda";
const fs::path kOutDir = TSM_PTX_OUT_DIR;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first executable `name` on PATH, else `fallback` if executable, else "".
std::string find_program(const std::string& name, const std::string& fallback = "") {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    fs::path candidate = fs::path(dir) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  if (!fallback.empty() && access(fallback.c_str(), X_OK) == 0) return fallback;
  return "";
}

// The project's CUDA header for clang.
fs::path cuda_header() { return kSourceDir / "sim" / "compiler" / "include" / "tsm_cuda.h"; }

struct Flavor {
  const char* name;
  bool nvcc;
  const char* flags;
};

const Flavor kFlavors[] = {
    {"nvcc", true, "-ptx -arch=compute_75"},
    {"nvcc_debug", true, "-ptx -G -arch=compute_75"},
    {"clang", false, "-O2"},
    {"clang_short_ptr", false, "-O2 -fcuda-short-ptr -mllvm --nvptx-short-ptr"},
    {"clang_debug", false, "-O2 -g"},
};

std::string quote(const std::string& s) { return "'" + s + "'"; }

// Compiles `kernel` with `flavor` into the build tree; returns the PTX path, or "" after a test
// failure (the compiler's messages are part of it). Skips when the compiler is missing.
std::string compile(const std::string& kernel, const Flavor& flavor) {
  fs::path source = kKernelDir / (kernel + ".cu");
  fs::path dir = kOutDir / flavor.name;
  fs::create_directories(dir);
  fs::path ptx = dir / (kernel + ".ptx");
  fs::path log = dir / (kernel + ".log");
  std::string command;
  if (flavor.nvcc) {
    std::string nvcc = find_program("nvcc", "/usr/local/cuda/bin/nvcc");
    if (nvcc.empty()) return "skip";
    command = fmt::format("{} {} {} -o {}", quote(nvcc), flavor.flags, quote(source), quote(ptx));
  } else {
    std::string clang = find_program("clang++");
    if (clang.empty()) return "skip";
    fs::path no_sdk = kOutDir / "empty-cuda-path";  // clang must not pick up an installed CUDA SDK
    fs::create_directories(no_sdk);
    command = fmt::format(
        "{} -x cuda --cuda-device-only --cuda-gpu-arch=sm_75 --cuda-path={} -nocudainc -nocudalib -S {} -include {} {} "
        "-o {}",
        quote(clang), quote(no_sdk), flavor.flags, quote(cuda_header()), quote(source), quote(ptx));
  }
  fs::remove(ptx);
  int status = std::system(fmt::format("{} > {} 2>&1", command, quote(log)).c_str());
  if (status != 0 || !fs::exists(ptx)) {
    ADD_FAILURE() << "compiler failed: " << command << "\n" << read_file(log);
    return "";
  }
  return ptx.string();
}

// ---------------------------------------------------------------- checks for every module

const Function* find_function(const Module& m, const std::string& name) {
  for (const Function& f : m.functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool declared_anywhere(const Module& m, const Function& f, const std::string& name) {
  auto has = [&](const std::vector<VarDecl>& decls) {
    return std::any_of(decls.begin(), decls.end(), [&](const VarDecl& d) { return d.name == name; });
  };
  return has(f.params) || has(f.returns) || has(f.decls) || has(m.globals) || find_function(m, name) != nullptr;
}

void check_operand(const Operand& op, const std::string& where) {
  switch (op.kind) {
    case K::Reg:
    case K::Special:
    case K::Symbol: EXPECT_FALSE(op.name.empty()) << where; break;
    case K::Vector:
      for (const Operand& e : op.elems) {
        EXPECT_NE(e.kind, K::Vector) << where;
        EXPECT_NE(e.kind, K::Address) << where;
        check_operand(e, where);
      }
      break;
    default: break;
  }
  EXPECT_GT(op.loc.line, 0) << where;
  EXPECT_GT(op.loc.col, 0) << where;
}

void check_module(const Module& m) {
  EXPECT_GE(m.version_major, 6u);
  EXPECT_EQ(m.target, "sm_75");
  EXPECT_EQ(m.address_size, 64u);
  for (const VarDecl& g : m.globals) {
    EXPECT_NE(g.space, Space::Reg) << g.name;
    EXPECT_NE(g.space, Space::Param) << g.name;
    EXPECT_EQ(g.init.size(), g.init_symbols.size()) << g.name;
    EXPECT_EQ(g.init.size(), g.init_masks.size()) << g.name;
  }
  for (const Function& f : m.functions) {
    EXPECT_TRUE(!f.is_entry || f.is_visible) << f.name;
    EXPECT_TRUE(!f.is_extern || f.body.empty()) << f.name;
    for (const VarDecl& d : f.decls) {
      EXPECT_FALSE(d.name.empty());
      EXPECT_TRUE(d.space == Space::Reg || d.range == 0) << d.name;
    }
    std::set<std::string> labels;
    for (const Statement& s : f.body) {
      EXPECT_TRUE(s.kind != Statement::Kind::Label || labels.insert(s.label).second) << s.label;
    }
    for (const Statement& s : f.body) {
      if (s.kind != Statement::Kind::Instr) continue;
      const Instruction& ins = s.instr;
      std::string where = fmt::format("{} line {}: {}", f.name, ins.loc.line, ins.opcode);
      EXPECT_FALSE(ins.opcode.empty()) << where;
      for (const Operand& op : ins.operands) check_operand(op, where);
      for (const Operand& op : ins.operands) {
        if (op.kind == K::Symbol) {
          EXPECT_TRUE(labels.count(op.name) || declared_anywhere(m, f, op.name)) << where << " " << op.name;
        }
        if (op.kind == K::Address && !op.name.empty() && op.name[0] != '%') {
          EXPECT_TRUE(declared_anywhere(m, f, op.name)) << where << " " << op.name;
        }
      }
      const std::string& opcode = ins.opcode;
      if (opcode == "bra") {
        ASSERT_EQ(ins.operands.size(), 1u) << where;
        EXPECT_EQ(ins.operands[0].kind, K::Symbol) << where;
        EXPECT_TRUE(labels.count(ins.operands[0].name)) << where << ": no label " << ins.operands[0].name;
      } else if (opcode == "ld" || opcode == "ldu") {
        ASSERT_GE(ins.operands.size(), 2u) << where;
        EXPECT_TRUE(ins.operands[0].kind == K::Reg || ins.operands[0].kind == K::Vector) << where;
        EXPECT_EQ(ins.operands[1].kind, K::Address) << where;
      } else if (opcode == "st" || opcode == "red") {
        ASSERT_GE(ins.operands.size(), 2u) << where;
        EXPECT_EQ(ins.operands[0].kind, K::Address) << where;
      } else if (opcode == "atom") {
        ASSERT_GE(ins.operands.size(), 3u) << where;
        EXPECT_EQ(ins.operands[0].kind, K::Reg) << where;
        EXPECT_EQ(ins.operands[1].kind, K::Address) << where;
      } else if (opcode == "call") {
        ASSERT_GE(ins.operands.size(), 3u) << where;
        EXPECT_EQ(ins.operands[0].kind, K::Vector) << where;
        EXPECT_EQ(ins.operands[2].kind, K::Vector) << where;
        const Operand& callee = ins.operands[1];
        if (callee.kind == K::Symbol) {
          const Function* target = find_function(m, callee.name);
          ASSERT_NE(target, nullptr) << where;
          EXPECT_EQ(ins.operands[0].elems.size(), target->returns.size()) << where;
          EXPECT_EQ(ins.operands[2].elems.size(), target->params.size()) << where;
        } else {
          EXPECT_EQ(callee.kind, K::Reg) << where;
        }
      } else if (opcode == "setp") {
        ASSERT_GE(ins.operands.size(), 3u) << where;
        EXPECT_TRUE(ins.operands[0].kind == K::Reg || ins.operands[0].kind == K::Vector) << where;
      } else if (opcode == "mov" || opcode == "add" || opcode == "mul" || opcode == "cvt" || opcode == "cvta") {
        ASSERT_GE(ins.operands.size(), 2u) << where;
        EXPECT_EQ(ins.operands[0].kind, K::Reg) << where;
      } else if (opcode == "ret" || opcode == "exit") {
        EXPECT_TRUE(ins.operands.empty()) << where;
      }
    }
  }
}

// ---------------------------------------------------------------- what each kernel must contain

std::vector<const Instruction*> all_instructions(const Module& m) {
  std::vector<const Instruction*> out;
  for (const Function& f : m.functions) {
    for (const Statement& s : f.body) {
      if (s.kind == Statement::Kind::Instr) out.push_back(&s.instr);
    }
  }
  return out;
}

bool has_opcode(const Module& m, const std::string& opcode, const std::string& mod = "") {
  for (const Instruction* i : all_instructions(m)) {
    if (i->opcode == opcode && (mod.empty() || std::count(i->mods.begin(), i->mods.end(), mod))) return true;
  }
  return false;
}

bool reads_special(const Module& m, const std::string& name) {
  for (const Instruction* i : all_instructions(m)) {
    for (const Operand& op : i->operands) {
      if (op.kind == K::Special && op.name == name) return true;
    }
  }
  return false;
}

// Variables of `space` declared at module scope or in any function.
std::vector<const VarDecl*> variables(const Module& m, Space space) {
  std::vector<const VarDecl*> out;
  for (const VarDecl& g : m.globals) {
    if (g.space == space) out.push_back(&g);
  }
  for (const Function& f : m.functions) {
    for (const VarDecl& d : f.decls) {
      if (d.space == space) out.push_back(&d);
    }
  }
  return out;
}

uint64_t bytes(const VarDecl& d) {
  uint64_t n = d.vector * std::max(1u, d.type.bits / 8);
  for (uint64_t dim : d.dims) n *= dim;
  return n;
}

const Function& entry(const Module& m, const std::string& name, size_t params) {
  const Function* f = find_function(m, name);
  if (f == nullptr) throw std::runtime_error("no kernel " + name);
  EXPECT_TRUE(f->is_entry) << name;
  EXPECT_EQ(f->params.size(), params) << name;
  return *f;
}

using Check = std::function<void(const Module&, const Flavor&)>;

const std::map<std::string, Check>& kernel_checks() {
  static const std::map<std::string, Check> checks = {
      {"saxpy",
       [](const Module& m, const Flavor&) {
         const Function& f = entry(m, "saxpy", 4);
         EXPECT_EQ(f.params[0].type.str(), "u32");
         EXPECT_EQ(f.params[1].type.str(), "f32");
         EXPECT_EQ(f.params[2].type.str(), "u64");
         EXPECT_TRUE(reads_special(m, "%tid.x"));
         EXPECT_TRUE(reads_special(m, "%ctaid.x"));
         EXPECT_TRUE(reads_special(m, "%ntid.x"));
       }},
      {"reduce_shared",
       [](const Module& m, const Flavor&) {
         entry(m, "reduce_sum", 3);
         auto shared = variables(m, Space::Shared);
         ASSERT_EQ(shared.size(), 1u);
         EXPECT_EQ(bytes(*shared[0]), 1024u);
         EXPECT_TRUE(has_opcode(m, "bar"));
         EXPECT_TRUE(has_opcode(m, "atom", "add") || has_opcode(m, "red", "add"));
       }},
      {"dynamic_shared",
       [](const Module& m, const Flavor&) {
         entry(m, "reverse_block", 2);
         ASSERT_EQ(m.globals.size(), 1u);
         const VarDecl& dyn = m.globals[0];
         EXPECT_EQ(dyn.name, "dyn_buf");
         EXPECT_EQ(dyn.space, Space::Shared);
         EXPECT_TRUE(dyn.is_extern);
         EXPECT_EQ(dyn.dims, std::vector<uint64_t>{0});
       }},
      {"atomics",
       [](const Module& m, const Flavor& flavor) {
         entry(m, "histogram", 5);
         for (const char* op : {"cas", "exch", "max", "min", "and", "or"}) EXPECT_TRUE(has_opcode(m, "atom", op)) << op;
         if (std::string(flavor.name) != "nvcc_debug") {  // -G addresses shared memory generically
           EXPECT_TRUE(has_opcode(m, "atom", "shared") || has_opcode(m, "red", "shared"));
         }
         EXPECT_TRUE(has_opcode(m, "atom", "f32") || has_opcode(m, "red", "f32"));
         EXPECT_EQ(variables(m, Space::Shared).size(), 1u);
       }},
      {"printf",
       [](const Module& m, const Flavor&) {
         entry(m, "hello", 3);
         const Function* vprintf = find_function(m, "vprintf");
         ASSERT_NE(vprintf, nullptr);
         EXPECT_TRUE(vprintf->is_extern);
         EXPECT_EQ(vprintf->params.size(), 2u);
         EXPECT_EQ(vprintf->returns.size(), 1u);
         EXPECT_TRUE(has_opcode(m, "call"));
         std::set<std::string> strings;
         for (const VarDecl& g : m.globals) {
           std::string text(g.init.begin(), g.init.end());
           strings.insert(text.substr(0, text.find('\0')));
         }
         EXPECT_TRUE(strings.count("hello from thread %d of %d\n"));
         EXPECT_TRUE(strings.count("done"));
         EXPECT_FALSE(variables(m, Space::Local).empty());
       }},
      {"device_call",
       [](const Module& m, const Flavor&) {
         entry(m, "calls", 3);
         const Function* fib = find_function(m, "_Z3fibi");
         ASSERT_NE(fib, nullptr);
         EXPECT_FALSE(fib->is_entry);
         EXPECT_FALSE(fib->is_extern);
         EXPECT_EQ(fib->returns.size(), 1u);
         EXPECT_EQ(fib->params.size(), 1u);
         bool recursive = false;
         for (const Statement& s : fib->body) {
           if (s.kind == Statement::Kind::Instr && s.instr.opcode == "call") {
             recursive |= s.instr.operands[1].name == "_Z3fibi";
           }
         }
         EXPECT_TRUE(recursive);
         const Function* store_pair = find_function(m, "_Z10store_pairPiii");
         ASSERT_NE(store_pair, nullptr);
         EXPECT_TRUE(store_pair->returns.empty());
         EXPECT_EQ(store_pair->params.size(), 3u);
         EXPECT_NE(find_function(m, "_Z5scaleff"), nullptr);
       }},
      {"local_array",
       [](const Module& m, const Flavor&) {
         entry(m, "local_sort", 3);
         auto locals = variables(m, Space::Local);
         ASSERT_EQ(locals.size(), 1u);
         EXPECT_EQ(bytes(*locals[0]), 64u);
         EXPECT_TRUE(has_opcode(m, "ld", "local") || has_opcode(m, "ld"));
       }},
      {"constant_mem",
       [](const Module& m, const Flavor& flavor) {
         entry(m, "poly", 3);
         std::map<std::string, const VarDecl*> globals;
         for (const VarDecl& g : m.globals) globals[g.name] = &g;
         ASSERT_TRUE(globals.count("coeffs"));
         EXPECT_EQ(globals["coeffs"]->space, Space::Const);
         EXPECT_EQ(bytes(*globals["coeffs"]), 16u);
         ASSERT_TRUE(globals.count("table2d"));
         EXPECT_EQ(bytes(*globals["table2d"]), 24u);
         ASSERT_TRUE(globals.count("pointers"));
         EXPECT_EQ(globals["pointers"]->init_symbols, (std::vector<std::string>{"target_a", "target_b"}));
         ASSERT_TRUE(globals.count("counter"));
         EXPECT_EQ(globals["counter"]->init, std::vector<uint64_t>{42});
         if (std::string(flavor.name) != "nvcc_debug") {
           EXPECT_TRUE(has_opcode(m, "ld", "const"));
         }
       }},
      {"warp_ops",
       [](const Module& m, const Flavor&) {
         entry(m, "warp_ops", 4);
         for (const char* mode : {"down", "idx", "bfly", "up"}) EXPECT_TRUE(has_opcode(m, "shfl", mode)) << mode;
         for (const char* mode : {"ballot", "any", "all"}) EXPECT_TRUE(has_opcode(m, "vote", mode)) << mode;
       }},
      {"math64",
       [](const Module& m, const Flavor&) {
         entry(m, "math64", 5);
         EXPECT_TRUE(has_opcode(m, "div", "s64"));
         EXPECT_TRUE(has_opcode(m, "rem", "u64"));
         EXPECT_TRUE(has_opcode(m, "sqrt", "f64"));
         EXPECT_TRUE(has_opcode(m, "fma", "f64") || has_opcode(m, "mad", "f64"));
       }},
      {"float_math",
       [](const Module& m, const Flavor&) {
         entry(m, "float_math", 4);
         for (const char* op : {"ex2", "lg2", "sin", "cos", "rsqrt", "sqrt"}) EXPECT_TRUE(has_opcode(m, op)) << op;
         EXPECT_TRUE(has_opcode(m, "div", "approx") || has_opcode(m, "div", "full"));
         EXPECT_TRUE(has_opcode(m, "cvt"));
       }},
      {"matmul_tiled",
       [](const Module& m, const Flavor&) {
         entry(m, "matmul", 4);
         auto shared = variables(m, Space::Shared);
         ASSERT_EQ(shared.size(), 2u);
         EXPECT_EQ(bytes(*shared[0]), 1024u);
         EXPECT_EQ(bytes(*shared[1]), 1024u);
         EXPECT_TRUE(reads_special(m, "%tid.y"));
         EXPECT_TRUE(reads_special(m, "%ctaid.y"));
         EXPECT_TRUE(has_opcode(m, "bar"));
       }},
      {"vectors_control",
       [](const Module& m, const Flavor& flavor) {
         entry(m, "vectors_control", 5);
         EXPECT_TRUE(reads_special(m, "%clock64"));
         if (!flavor.nvcc) {  // nvcc reads clock() from %clock64 too
           EXPECT_TRUE(reads_special(m, "%clock"));
         }
         bool v4 = false;
         for (const Instruction* i : all_instructions(m)) {
           if (i->opcode == "ld" && std::count(i->mods.begin(), i->mods.end(), "v4")) {
             v4 = i->operands[0].kind == K::Vector && i->operands[0].elems.size() == 4;
           }
         }
         EXPECT_TRUE(v4);
       }},
      {"multi_kernel",
       [](const Module& m, const Flavor&) {
         entry(m, "_Z4fillIiEvPT_S0_i", 3);
         entry(m, "_Z4fillIdEvPT_S0_i", 3);
         const Function& bounded = entry(m, "bounded", 3);
         EXPECT_EQ(bounded.maxntid[0], 128u);
         EXPECT_EQ(bounded.maxntid[1], 1u);
         EXPECT_EQ(bounded.minnctapersm, 4u);
         EXPECT_TRUE(reads_special(m, "%tid.z"));
         EXPECT_TRUE(reads_special(m, "%nctaid.y"));
       }},
  };
  return checks;
}

struct Case {
  std::string kernel;
  Flavor flavor;
};

std::vector<Case> cases() {
  std::vector<std::string> kernels;
  for (const auto& entry : fs::directory_iterator(kKernelDir)) {
    if (entry.path().extension() == ".cu") kernels.push_back(entry.path().stem().string());
  }
  std::sort(kernels.begin(), kernels.end());
  std::vector<Case> out;
  for (const std::string& k : kernels) {
    for (const Flavor& f : kFlavors) out.push_back({k, f});
  }
  return out;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.kernel << " with " << c.flavor.name; }

class Compiled : public testing::TestWithParam<Case> {};

TEST_P(Compiled, ParsesAndHasTheKernelsShape) {
  const Case& c = GetParam();
  std::string ptx = compile(c.kernel, c.flavor);
  if (ptx == "skip") GTEST_SKIP() << (c.flavor.nvcc ? "nvcc" : "clang++") << " not found";
  ASSERT_FALSE(ptx.empty());
  Module m;
  try {
    m = parse(read_file(ptx), ptx);
  } catch (const PtxError& e) {
    FAIL() << e.what();
  }
  check_module(m);
  auto check = kernel_checks().find(c.kernel);
  ASSERT_NE(check, kernel_checks().end()) << "no expectations for tests/ptx/cuda/" << c.kernel << ".cu";
  check->second(m, c.flavor);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Compiled, testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.kernel + "_" + info.param.flavor.name; });

}  // namespace
}  // namespace tsm::ptx
