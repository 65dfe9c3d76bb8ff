// Seeded random CUDA C kernels (random_cuda.hpp states the rules that keep every kernel well
// defined): the statement tree, the generator that grows it, the printer that makes CUDA C of it,
// and the reduction steps the oracle's reducer applies to it.
//
// The tree is textual at its leaves: an expression is a template ("add_s32($0, $1)", "@[($0) & 7u]")
// whose $N are its arguments and whose @ is the variable it names (or the function it calls); a
// simple statement is a template of the same kind ("@0 = $0;"). So printing is substitution, and a
// reduction step is a change of the tree that keeps every template's safety (the masks, the guards)
// around whatever replaces an argument.
#include "randgen/random_cuda.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "randgen/rng.hpp"
#include "tsm/config_gen.hpp"

namespace tsm::randgen {

enum class Ty : uint8_t { S32, U32, S64, U64, F32, Bool };

struct Expr {
  Ty ty = Ty::U32;
  std::string tmpl;  // $0..$9: the arguments; @: the variable's (or the called function's) name
  int var = -1;      // the variable @ names
  int call = -1;     // the function @ names
  bool literal = false;
  uint32_t id = 0;
  std::vector<Expr> args;
};

struct Stmt;

struct Case {
  std::vector<int> labels;  // empty for `default`
  uint32_t id = 0;
  std::vector<Stmt> body;
};

/// What a simple statement is, for the generator's rules and the reducer.
enum class Role : uint8_t { Plain, Break, Continue, Return, FuncReturn, FinalReturn, Exchange, Planted, Checksum };
enum class LoopKind : uint8_t { For, While, DoWhile, Forever };

struct Stmt {
  enum class Kind : uint8_t { Line, If, Switch, Loop, Block } kind = Kind::Line;
  Role role = Role::Plain;
  std::string tmpl;       // Line: the statement, lines separated by \n ($N: exprs, @N: vars); Block: its first lines
  std::vector<int> vars;  // @0, @1 of the template; Loop: the counter
  LoopKind loop = LoopKind::For;
  int limit = 0;  // Loop: most passes
  uint32_t id = 0;
  std::vector<Expr> exprs;        // Line: $0..; If: the condition; Switch: the selector; Loop: the bound or condition
  std::vector<Stmt> body, other;  // If: then, else; Loop, Block: the body
  std::vector<Case> cases;        // Switch
};

struct Var {
  enum class Kind : uint8_t { Local, Array, Shared, Counter, Param, Builtin } kind = Kind::Local;
  std::string name;
  Ty ty = Ty::U32;
  unsigned elements = 0;  // Array, Shared
  bool uniform = false;   // the same in every thread of a block
  Expr init;              // Local: the initializer (parameters, built-ins, `in` and literals only)
};

struct Function {
  std::string suffix;  // "_f0", ...; "" for the kernel
  bool kernel = false;
  Ty ret = Ty::U32;
  std::string qualifier;    // "__noinline__ ", "__forceinline__ " or ""
  std::vector<int> params;  // after `in`
  std::vector<Var> vars;
  std::vector<Stmt> body;
};

struct CudaProgram {
  std::vector<Function> functions;  // device functions, then the kernel
  unsigned block_threads = 0;
};

namespace {

const char* type_name(Ty t) {
  switch (t) {
    case Ty::S32: return "int";
    case Ty::U32: return "unsigned";
    case Ty::S64: return "long long";
    case Ty::U64: return "unsigned long long";
    case Ty::F32: return "float";
    case Ty::Bool: return "bool";
  }
  return "?";
}

const char* zero_of(Ty t) {
  switch (t) {
    case Ty::S32: return "0";
    case Ty::U32: return "0u";
    case Ty::S64: return "0ll";
    case Ty::U64: return "0ull";
    case Ty::F32: return "0.0f";
    case Ty::Bool: return "false";
  }
  return "0";
}

Expr leaf(Ty t, std::string text, bool literal = false) {
  Expr e;
  e.ty = t;
  e.tmpl = std::move(text);
  e.literal = literal;
  return e;
}
Expr var_leaf(Ty t, int var) {
  Expr e;
  e.ty = t;
  e.tmpl = "@";
  e.var = var;
  return e;
}
Expr node(Ty t, std::string tmpl, std::vector<Expr> args) {
  Expr e;
  e.ty = t;
  e.tmpl = std::move(tmpl);
  e.args = std::move(args);
  return e;
}
Stmt line(std::string tmpl, std::vector<int> vars, std::vector<Expr> exprs, Role role = Role::Plain) {
  Stmt s;
  s.tmpl = std::move(tmpl);
  s.vars = std::move(vars);
  s.exprs = std::move(exprs);
  s.role = role;
  return s;
}

// ---- Traversal ---------------------------------------------------------------------------------

template <class S, class FS, class FE, class FC>
void walk_stmts(S& list, const FS& on_stmt, const FE& on_expr, const FC& on_case);

template <class E, class FE>
void walk_expr(E& e, const FE& on_expr) {
  on_expr(e);
  for (auto& a : e.args) walk_expr(a, on_expr);
}

template <class S, class FS, class FE, class FC>
void walk_stmt(S& s, const FS& on_stmt, const FE& on_expr, const FC& on_case) {
  on_stmt(s);
  for (auto& e : s.exprs) walk_expr(e, on_expr);
  walk_stmts(s.body, on_stmt, on_expr, on_case);
  walk_stmts(s.other, on_stmt, on_expr, on_case);
  for (auto& c : s.cases) {
    on_case(c);
    walk_stmts(c.body, on_stmt, on_expr, on_case);
  }
}

template <class S, class FS, class FE, class FC>
void walk_stmts(S& list, const FS& on_stmt, const FE& on_expr, const FC& on_case) {
  for (auto& s : list) walk_stmt(s, on_stmt, on_expr, on_case);
}

void number(CudaProgram& p) {
  uint32_t n = 0;
  for (auto& f : p.functions)
    walk_stmts(
        f.body, [&](Stmt& s) { s.id = n++; }, [&](Expr& e) { e.id = n++; }, [&](Case& c) { c.id = n++; });
}

uint32_t size_of(const Expr& e) {
  uint32_t n = 1;
  for (const auto& a : e.args) n += size_of(a);
  return n;
}
uint32_t size_of(const Stmt& s) {
  uint32_t n = 0;
  walk_stmt(
      s, [&](const Stmt&) { ++n; }, [&](const Expr&) { ++n; }, [&](const Case&) { ++n; });
  return n;
}
uint32_t size_of(const std::vector<Stmt>& list) {
  uint32_t n = 0;
  for (const auto& s : list) n += size_of(s);
  return n;
}

/// Whether a `break` or `continue` in `body` leaves the loop whose body it is.
bool leaves_loop(const std::vector<Stmt>& body, bool in_switch) {
  for (const auto& s : body) {
    switch (s.kind) {
      case Stmt::Kind::Line:
        if (s.role == Role::Continue || (s.role == Role::Break && !in_switch)) return true;
        break;
      case Stmt::Kind::If:
        if (leaves_loop(s.body, in_switch) || leaves_loop(s.other, in_switch)) return true;
        break;
      case Stmt::Kind::Block:
        if (leaves_loop(s.body, in_switch)) return true;
        break;
      case Stmt::Kind::Switch:
        for (const auto& c : s.cases)
          if (leaves_loop(c.body, true)) return true;
        break;
      case Stmt::Kind::Loop:
        break;  // its own break and continue
    }
  }
  return false;
}

/// The kernel and the functions it still calls, directly or not (a reduction may drop calls).
std::vector<bool> called_functions(const CudaProgram& p) {
  std::vector<bool> called(p.functions.size());
  called.back() = true;
  for (size_t i = p.functions.size(); i-- > 0;) {
    if (!called[i]) continue;
    walk_stmts(
        p.functions[i].body, [](const Stmt&) {},
        [&](const Expr& e) {
          if (e.call >= 0) called[static_cast<size_t>(e.call)] = true;
        },
        [](const Case&) {});
  }
  return called;
}

// ---- Printing ----------------------------------------------------------------------------------

class Printer {
 public:
  Printer(const CudaProgram& p, std::string entry) : p_(p), entry_(std::move(entry)) {}

  std::string program() {
    const std::vector<bool> called = called_functions(p_);
    for (size_t i = 0; i < p_.functions.size(); ++i)
      if (called[i]) function(p_.functions[i]);
    return std::move(out_);
  }

 private:
  std::string function_name(size_t f) const { return entry_ + p_.functions[f].suffix; }

  std::string expr(const Function& f, const Expr& e) const {
    std::string s;
    for (size_t i = 0; i < e.tmpl.size(); ++i) {
      const char c = e.tmpl[i];
      if (c == '$' && i + 1 < e.tmpl.size() && e.tmpl[i + 1] >= '0' && e.tmpl[i + 1] <= '9') {
        s += expr(f, e.args.at(static_cast<size_t>(e.tmpl[++i] - '0')));
      } else if (c == '@') {
        s += e.call >= 0 ? function_name(static_cast<size_t>(e.call)) : f.vars.at(static_cast<size_t>(e.var)).name;
      } else {
        s += c;
      }
    }
    return s;
  }

  std::string text(const Function& f, const Stmt& s, const std::string& tmpl) const {
    std::string r;
    for (size_t i = 0; i < tmpl.size(); ++i) {
      const char c = tmpl[i];
      const bool digit = i + 1 < tmpl.size() && tmpl[i + 1] >= '0' && tmpl[i + 1] <= '9';
      if (c == '$' && digit) {
        r += expr(f, s.exprs.at(static_cast<size_t>(tmpl[++i] - '0')));
      } else if (c == '@' && digit) {
        r += f.vars.at(static_cast<size_t>(s.vars.at(static_cast<size_t>(tmpl[++i] - '0')))).name;
      } else {
        r += c;
      }
    }
    return r;
  }

  void put(int indent, const std::string& lines) {
    size_t at = 0;
    while (at <= lines.size()) {
      const size_t end = std::min(lines.find('\n', at), lines.size());
      const std::string l = lines.substr(at, end - at);
      if (!l.empty()) out_ += (l[0] == '#' ? std::string() : std::string(2 * static_cast<size_t>(indent), ' ')) + l + "\n";
      at = end + 1;
    }
  }

  void stmts(const Function& f, const std::vector<Stmt>& list, int indent) {
    for (const auto& s : list) stmt(f, s, indent);
  }

  void stmt(const Function& f, const Stmt& s, int ind) {
    switch (s.kind) {
      case Stmt::Kind::Line:
        put(ind, text(f, s, s.tmpl));
        break;
      case Stmt::Kind::Block:
        put(ind, "{");
        put(ind + 1, text(f, s, s.tmpl));
        stmts(f, s.body, ind + 1);
        put(ind, "}");
        break;
      case Stmt::Kind::If:
        put(ind, "if (" + expr(f, s.exprs[0]) + ") {");
        stmts(f, s.body, ind + 1);
        if (!s.other.empty()) {
          put(ind, "} else {");
          stmts(f, s.other, ind + 1);
        }
        put(ind, "}");
        break;
      case Stmt::Kind::Switch:
        put(ind, "switch (" + expr(f, s.exprs[0]) + ") {");
        for (const auto& c : s.cases) {
          if (c.labels.empty()) put(ind + 1, "default:");
          for (int l : c.labels) put(ind + 1, fmt::format("case {}:", l));
          stmts(f, c.body, ind + 2);
          if (c.body.empty() && &c == &s.cases.back()) put(ind + 2, "break;");  // a label needs a statement
        }
        put(ind, "}");
        break;
      case Stmt::Kind::Loop: {
        const std::string k = f.vars.at(static_cast<size_t>(s.vars.at(0))).name;
        switch (s.loop) {
          case LoopKind::For:
            put(ind, fmt::format("for (int {0} = 0; {0} < {1}; ++{0}) {{", k, expr(f, s.exprs[0])));
            stmts(f, s.body, ind + 1);
            put(ind, "}");
            break;
          case LoopKind::While:
            put(ind, fmt::format("{{\n  int {0} = 0;\n  while ({0} < {1} && {2}) {{\n    ++{0};", k, s.limit, expr(f, s.exprs[0])));
            stmts(f, s.body, ind + 2);
            put(ind, "  }\n}");
            break;
          case LoopKind::DoWhile:
            put(ind, fmt::format("{{\n  int {0} = 0;\n  do {{\n    ++{0};", k));
            stmts(f, s.body, ind + 2);
            put(ind, fmt::format("  }} while ({0} < {1} && {2});\n}}", k, s.limit, expr(f, s.exprs[0])));
            break;
          case LoopKind::Forever:
            put(ind, fmt::format("for (int {0} = 0;; ++{0}) {{\n  if ({0} >= {1}) break;", k, s.limit));
            stmts(f, s.body, ind + 1);
            put(ind, "}");
            break;
        }
        break;
      }
    }
  }

  void function(const Function& f) {
    // Declarations of the locals still used (a reduction may drop every use of one).
    std::vector<bool> used(f.vars.size());
    walk_stmts(
        f.body,
        [&](const Stmt& s) {
          for (int v : s.vars) used[static_cast<size_t>(v)] = true;
        },
        [&](const Expr& e) {
          if (e.var >= 0) used[static_cast<size_t>(e.var)] = true;
        },
        [](const Case&) {});
    const size_t index = static_cast<size_t>(&f - p_.functions.data());
    if (f.kernel) {
      out_ += fmt::format(
          "extern \"C\" __global__ void __launch_bounds__({}) {}(const unsigned* __restrict__ in, unsigned* __restrict__ out, "
          "int pa, unsigned pb, float pf, long long pl) {{\n",
          p_.block_threads, entry_);
      put(1,
          "const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
          "const unsigned nthr = blockDim.x * blockDim.y * blockDim.z;\n"
          "const unsigned bid = blockIdx.x + gridDim.x * blockIdx.y;\n"
          "const unsigned gid = bid * nthr + tid;\n"
          "const unsigned warp = tid >> 5;\n"
          "unsigned* const o = out + gid * 16u;");
    } else {
      std::string params;
      for (int p : f.params) params += fmt::format(", {} {}", type_name(f.vars[static_cast<size_t>(p)].ty), f.vars[static_cast<size_t>(p)].name);
      out_ += fmt::format("__device__ {}{} {}(const unsigned* __restrict__ in{}) {{\n", f.qualifier, type_name(f.ret), function_name(index),
                          params);
    }
    for (size_t v = 0; v < f.vars.size(); ++v) {
      const Var& x = f.vars[v];
      if (!used[v]) continue;
      if (x.kind == Var::Kind::Local) {
        put(1, fmt::format("{} {} = {};", type_name(x.ty), x.name, expr(f, x.init)));
      } else if (x.kind == Var::Kind::Array) {
        put(1, fmt::format("unsigned {0}[{1}];\nfor (int i = 0; i < {1}; ++i) {0}[i] = {2};", x.name, x.elements, expr(f, x.init)));
      } else if (x.kind == Var::Kind::Shared) {
        put(1, fmt::format("__shared__ {} {}[{}];", type_name(x.ty), x.name, x.elements));
      }
    }
    stmts(f, f.body, 1);
    out_ += "}\n\n";
  }

  const CudaProgram& p_;
  std::string entry_;
  std::string out_;
};

// ---- Generation --------------------------------------------------------------------------------

struct Op {
  Ty ret;
  const char* tmpl;
  std::vector<Ty> args;
  unsigned weight = 10;
  enum Tag : uint8_t { None, Float, Wide, Ternary, Load } tag = None;
};

// clang-format off
const std::vector<Op>& operations() {
  using T = Ty;
  static const std::vector<Op> ops = {
    // int
    {T::S32, "add_s32($0, $1)", {T::S32, T::S32}, 14}, {T::S32, "sub_s32($0, $1)", {T::S32, T::S32}, 10},
    {T::S32, "mul_s32($0, $1)", {T::S32, T::S32}, 10}, {T::S32, "div_s32($0, $1)", {T::S32, T::S32}, 5},
    {T::S32, "mod_s32($0, $1)", {T::S32, T::S32}, 5}, {T::S32, "shl_s32($0, $1)", {T::S32, T::U32}, 6},
    {T::S32, "shr_s32($0, $1)", {T::S32, T::U32}, 6}, {T::S32, "($0 & $1)", {T::S32, T::S32}, 6},
    {T::S32, "($0 | $1)", {T::S32, T::S32}, 5}, {T::S32, "($0 ^ $1)", {T::S32, T::S32}, 6},
    {T::S32, "(~$0)", {T::S32}, 3}, {T::S32, "neg_s32($0)", {T::S32}, 3},
    {T::S32, "min($0, $1)", {T::S32, T::S32}, 4}, {T::S32, "max($0, $1)", {T::S32, T::S32}, 4},
    {T::S32, "($0 ? $1 : $2)", {T::Bool, T::S32, T::S32}, 6, Op::Ternary},
    {T::S32, "(int)$0", {T::U32}, 6}, {T::S32, "(int)$0", {T::S64}, 3, Op::Wide}, {T::S32, "(int)$0", {T::U64}, 2, Op::Wide},
    {T::S32, "(int)$0", {T::Bool}, 3},
    {T::S32, "__float2int_rn($0)", {T::F32}, 3, Op::Float}, {T::S32, "__float2int_rz($0)", {T::F32}, 3, Op::Float},
    {T::S32, "__float2int_rd($0)", {T::F32}, 2, Op::Float}, {T::S32, "__float2int_ru($0)", {T::F32}, 2, Op::Float},
    {T::S32, "__popc($0)", {T::U32}, 2}, {T::S32, "__clz($0)", {T::S32}, 2}, {T::S32, "__ffs($0)", {T::S32}, 2},
    {T::S32, "__popcll($0)", {T::U64}, 1, Op::Wide}, {T::S32, "__clzll($0)", {T::S64}, 1, Op::Wide},
    {T::S32, "__ffsll($0)", {T::S64}, 1, Op::Wide},
    {T::S32, "__mulhi($0, $1)", {T::S32, T::S32}, 2}, {T::S32, "__mul24($0, ($1) & 0xff)", {T::S32, T::S32}, 2},
    {T::S32, "__hadd($0, $1)", {T::S32, T::S32}, 1}, {T::S32, "__rhadd($0, $1)", {T::S32, T::S32}, 1},
    // unsigned
    {T::U32, "($0 + $1)", {T::U32, T::U32}, 14}, {T::U32, "($0 - $1)", {T::U32, T::U32}, 8},
    {T::U32, "($0 * $1)", {T::U32, T::U32}, 10}, {T::U32, "div_u32($0, $1)", {T::U32, T::U32}, 5},
    {T::U32, "mod_u32($0, $1)", {T::U32, T::U32}, 5}, {T::U32, "shl_u32($0, $1)", {T::U32, T::U32}, 6},
    {T::U32, "shr_u32($0, $1)", {T::U32, T::U32}, 6}, {T::U32, "($0 & $1)", {T::U32, T::U32}, 7},
    {T::U32, "($0 | $1)", {T::U32, T::U32}, 5}, {T::U32, "($0 ^ $1)", {T::U32, T::U32}, 8}, {T::U32, "(~$0)", {T::U32}, 3},
    {T::U32, "min($0, $1)", {T::U32, T::U32}, 4}, {T::U32, "max($0, $1)", {T::U32, T::U32}, 4},
    {T::U32, "($0 ? $1 : $2)", {T::Bool, T::U32, T::U32}, 6, Op::Ternary},
    {T::U32, "(unsigned)$0", {T::S32}, 6}, {T::U32, "(unsigned)$0", {T::S64}, 2, Op::Wide},
    {T::U32, "(unsigned)$0", {T::U64}, 3, Op::Wide}, {T::U32, "(unsigned)($0 >> 32)", {T::U64}, 2, Op::Wide},
    {T::U32, "fbits($0)", {T::F32}, 6, Op::Float},
    {T::U32, "__float2uint_rn($0)", {T::F32}, 2, Op::Float}, {T::U32, "__float2uint_rz($0)", {T::F32}, 2, Op::Float},
    {T::U32, "__float2uint_rd($0)", {T::F32}, 1, Op::Float}, {T::U32, "__float2uint_ru($0)", {T::F32}, 1, Op::Float},
    {T::U32, "__umulhi($0, $1)", {T::U32, T::U32}, 2}, {T::U32, "__brev($0)", {T::U32}, 2},
    {T::U32, "__byte_perm($0, $1, ($2) & 0x7777u)", {T::U32, T::U32, T::U32}, 2}, {T::U32, "__umul24($0, $1)", {T::U32, T::U32}, 2},
    {T::U32, "__usad($0, $1, $2)", {T::U32, T::U32, T::U32}, 1}, {T::U32, "__sad($0, $1, $2)", {T::S32, T::S32, T::U32}, 1},
    {T::U32, "__uhadd($0, $1)", {T::U32, T::U32}, 1}, {T::U32, "__urhadd($0, $1)", {T::U32, T::U32}, 1},
    {T::U32, "in[($0) & 511u]", {T::U32}, 8, Op::Load},
    // long long
    {T::S64, "add_s64($0, $1)", {T::S64, T::S64}, 10}, {T::S64, "sub_s64($0, $1)", {T::S64, T::S64}, 6},
    {T::S64, "mul_s64($0, $1)", {T::S64, T::S64}, 6}, {T::S64, "div_s64($0, $1)", {T::S64, T::S64}, 3},
    {T::S64, "mod_s64($0, $1)", {T::S64, T::S64}, 3}, {T::S64, "shl_s64($0, $1)", {T::S64, T::U32}, 4},
    {T::S64, "shr_s64($0, $1)", {T::S64, T::U32}, 4}, {T::S64, "($0 & $1)", {T::S64, T::S64}, 4},
    {T::S64, "($0 | $1)", {T::S64, T::S64}, 3}, {T::S64, "($0 ^ $1)", {T::S64, T::S64}, 4}, {T::S64, "(~$0)", {T::S64}, 2},
    {T::S64, "neg_s64($0)", {T::S64}, 2}, {T::S64, "min($0, $1)", {T::S64, T::S64}, 3}, {T::S64, "max($0, $1)", {T::S64, T::S64}, 3},
    {T::S64, "($0 ? $1 : $2)", {T::Bool, T::S64, T::S64}, 4, Op::Ternary},
    {T::S64, "(long long)$0", {T::S32}, 8}, {T::S64, "(long long)$0", {T::U32}, 6}, {T::S64, "(long long)$0", {T::U64}, 3},
    {T::S64, "__float2ll_rn($0)", {T::F32}, 2, Op::Float}, {T::S64, "__float2ll_rz($0)", {T::F32}, 2, Op::Float},
    {T::S64, "__float2ll_rd($0)", {T::F32}, 1, Op::Float}, {T::S64, "__float2ll_ru($0)", {T::F32}, 1, Op::Float},
    {T::S64, "__mul64hi($0, $1)", {T::S64, T::S64}, 2}, {T::S64, "mul_s64((long long)$0, (long long)$1)", {T::S32, T::S32}, 4},
    // unsigned long long
    {T::U64, "($0 + $1)", {T::U64, T::U64}, 10}, {T::U64, "($0 - $1)", {T::U64, T::U64}, 6}, {T::U64, "($0 * $1)", {T::U64, T::U64}, 6},
    {T::U64, "div_u64($0, $1)", {T::U64, T::U64}, 3}, {T::U64, "mod_u64($0, $1)", {T::U64, T::U64}, 3},
    {T::U64, "shl_u64($0, $1)", {T::U64, T::U32}, 4}, {T::U64, "shr_u64($0, $1)", {T::U64, T::U32}, 4},
    {T::U64, "($0 & $1)", {T::U64, T::U64}, 4}, {T::U64, "($0 | $1)", {T::U64, T::U64}, 3}, {T::U64, "($0 ^ $1)", {T::U64, T::U64}, 4},
    {T::U64, "(~$0)", {T::U64}, 2}, {T::U64, "min($0, $1)", {T::U64, T::U64}, 3}, {T::U64, "max($0, $1)", {T::U64, T::U64}, 3},
    {T::U64, "($0 ? $1 : $2)", {T::Bool, T::U64, T::U64}, 4, Op::Ternary},
    {T::U64, "(unsigned long long)$0", {T::S32}, 4}, {T::U64, "(unsigned long long)$0", {T::U32}, 6},
    {T::U64, "(unsigned long long)$0", {T::S64}, 4},
    {T::U64, "__float2ull_rn($0)", {T::F32}, 2, Op::Float}, {T::U64, "__float2ull_rz($0)", {T::F32}, 2, Op::Float},
    {T::U64, "__float2ull_rd($0)", {T::F32}, 1, Op::Float}, {T::U64, "__float2ull_ru($0)", {T::F32}, 1, Op::Float},
    {T::U64, "__umul64hi($0, $1)", {T::U64, T::U64}, 2}, {T::U64, "__brevll($0)", {T::U64}, 2},
    {T::U64, "((unsigned long long)$0 * $1)", {T::U32, T::U32}, 4}, {T::U64, "(((unsigned long long)$0 << 32) | $1)", {T::U32, T::U32}, 4},
    // float: only explicitly rounded operations
    {T::F32, "__fadd_rn($0, $1)", {T::F32, T::F32}, 12, Op::Float}, {T::F32, "__fsub_rn($0, $1)", {T::F32, T::F32}, 8, Op::Float},
    {T::F32, "__fmul_rn($0, $1)", {T::F32, T::F32}, 12, Op::Float}, {T::F32, "__fmaf_rn($0, $1, $2)", {T::F32, T::F32, T::F32}, 10, Op::Float},
    {T::F32, "__fadd_rz($0, $1)", {T::F32, T::F32}, 2, Op::Float}, {T::F32, "__fadd_rd($0, $1)", {T::F32, T::F32}, 2, Op::Float},
    {T::F32, "__fadd_ru($0, $1)", {T::F32, T::F32}, 2, Op::Float}, {T::F32, "__fsub_rz($0, $1)", {T::F32, T::F32}, 1, Op::Float},
    {T::F32, "__fsub_rd($0, $1)", {T::F32, T::F32}, 1, Op::Float}, {T::F32, "__fsub_ru($0, $1)", {T::F32, T::F32}, 1, Op::Float},
    {T::F32, "__fmul_rz($0, $1)", {T::F32, T::F32}, 2, Op::Float}, {T::F32, "__fmul_rd($0, $1)", {T::F32, T::F32}, 2, Op::Float},
    {T::F32, "__fmul_ru($0, $1)", {T::F32, T::F32}, 2, Op::Float},
    {T::F32, "__fmaf_rz($0, $1, $2)", {T::F32, T::F32, T::F32}, 2, Op::Float},
    {T::F32, "__fmaf_rd($0, $1, $2)", {T::F32, T::F32, T::F32}, 2, Op::Float},
    {T::F32, "__fmaf_ru($0, $1, $2)", {T::F32, T::F32, T::F32}, 2, Op::Float},
    {T::F32, "__fdiv_rn($0, $1)", {T::F32, T::F32}, 4, Op::Float}, {T::F32, "__fdiv_rz($0, $1)", {T::F32, T::F32}, 1, Op::Float},
    {T::F32, "__fdiv_rd($0, $1)", {T::F32, T::F32}, 1, Op::Float}, {T::F32, "__fdiv_ru($0, $1)", {T::F32, T::F32}, 1, Op::Float},
    {T::F32, "__frcp_rn($0)", {T::F32}, 2, Op::Float}, {T::F32, "__frcp_rz($0)", {T::F32}, 1, Op::Float},
    {T::F32, "__fsqrt_rn($0)", {T::F32}, 3, Op::Float}, {T::F32, "__fsqrt_rd($0)", {T::F32}, 1, Op::Float},
    {T::F32, "__fsqrt_ru($0)", {T::F32}, 1, Op::Float},
    {T::F32, "__int2float_rn($0)", {T::S32}, 4, Op::Float}, {T::F32, "__int2float_rz($0)", {T::S32}, 2, Op::Float},
    {T::F32, "__int2float_rd($0)", {T::S32}, 1, Op::Float}, {T::F32, "__int2float_ru($0)", {T::S32}, 1, Op::Float},
    {T::F32, "__uint2float_rn($0)", {T::U32}, 3, Op::Float}, {T::F32, "__uint2float_rz($0)", {T::U32}, 1, Op::Float},
    {T::F32, "__uint2float_ru($0)", {T::U32}, 1, Op::Float},
    {T::F32, "__ll2float_rn($0)", {T::S64}, 2, Op::Float}, {T::F32, "__ll2float_rz($0)", {T::S64}, 1, Op::Float},
    {T::F32, "__ull2float_rn($0)", {T::U64}, 2, Op::Float}, {T::F32, "__ull2float_rd($0)", {T::U64}, 1, Op::Float},
    {T::F32, "($0 ? $1 : $2)", {T::Bool, T::F32, T::F32}, 5, Op::Ternary},
    {T::F32, "__uint_as_float($0)", {T::U32}, 1},
    {T::F32, "__uint_as_float(in[512u + (($0) & 511u)])", {T::U32}, 6, Op::Load},
    // bool
    {T::Bool, "($0 < $1)", {T::S32, T::S32}, 8}, {T::Bool, "($0 >= $1)", {T::S32, T::S32}, 4},
    {T::Bool, "($0 == $1)", {T::S32, T::S32}, 4}, {T::Bool, "($0 != $1)", {T::S32, T::S32}, 4},
    {T::Bool, "($0 < $1)", {T::U32, T::U32}, 8}, {T::Bool, "($0 > $1)", {T::U32, T::U32}, 4},
    {T::Bool, "($0 <= $1)", {T::U32, T::U32}, 4}, {T::Bool, "($0 != $1)", {T::U32, T::U32}, 4},
    {T::Bool, "(($0 & $1) != 0u)", {T::U32, T::U32}, 6}, {T::Bool, "((shr_u32($0, $1) & 1u) != 0u)", {T::U32, T::U32}, 5},
    {T::Bool, "($0 < $1)", {T::S64, T::S64}, 3, Op::Wide}, {T::Bool, "($0 == $1)", {T::S64, T::S64}, 2, Op::Wide},
    {T::Bool, "($0 > $1)", {T::U64, T::U64}, 3, Op::Wide}, {T::Bool, "($0 != $1)", {T::U64, T::U64}, 2, Op::Wide},
    {T::Bool, "($0 < $1)", {T::F32, T::F32}, 4, Op::Float}, {T::Bool, "($0 >= $1)", {T::F32, T::F32}, 3, Op::Float},
    {T::Bool, "($0 == $1)", {T::F32, T::F32}, 2, Op::Float}, {T::Bool, "($0 != $1)", {T::F32, T::F32}, 2, Op::Float},
    {T::Bool, "(!$0)", {T::Bool}, 4}, {T::Bool, "($0 && $1)", {T::Bool, T::Bool}, 6}, {T::Bool, "($0 || $1)", {T::Bool, T::Bool}, 6},
  };
  return ops;
}
// clang-format on

constexpr uint32_t kFloatBits[] = {0x00000000u, 0x80000000u, 0x3F800000u, 0xBF800000u, 0x3F000000u, 0x40490FDBu, 0x7F800000u,
                                   0xFF800000u, 0x7FC00000u, 0x7F7FFFFFu, 0x00800000u, 0x00000001u, 0x807FFFFFu, 0x4B800000u,
                                   0x4F000000u, 0xCF000000u, 0x5F000000u, 0x3EAAAAABu, 0x33800000u, 0x4F800000u};
constexpr int32_t kIntValues[] = {0, 1, -1, 2, 3, 5, 7, 8, 16, 31, 32, 33, 100, -100, 255, 0x7FFF, 0xFFFF, 0x7FFFFFFF, INT32_MIN, -2, 1000000};

class CudaGen {
 public:
  CudaGen(uint64_t seed, const CudaOptions& options, const config::SmConfig& cfg)
      : seed_(seed), options_(options), cfg_(cfg), lay_(seed ^ 0x5EEDC0DA5EEDC0DAull), rng_(seed) {}

  CudaKernel run();

 private:
  struct Ctx {
    int depth = 0;
    bool uniform = true;             // every thread of the block runs here: exchanges allowed
    bool breakable = false;          // `break` leaves a loop or a switch
    bool break_forbidden = false;    // ... but the innermost one is a barrier loop
    bool in_loop = false;            // `continue` has a loop
    bool continue_forbidden = false; // ... but the innermost loop is a barrier loop
    bool in_barrier_loop = false;    // no return here
    bool in_switch = false;
    bool init = false;               // an initializer: no locals, no calls
    unsigned trips = 1;              // product of the enclosing loops' limits
    std::vector<int> counters;       // loop counters in scope
  };

  Function& fn() { return prog_.functions[fn_]; }
  bool has(CudaFeature f) const { return options_.has(f); }
  bool allowed(const Op& op) const;
  int add_var(Var v) {
    fn().vars.push_back(std::move(v));
    return static_cast<int>(fn().vars.size() - 1);
  }
  std::string literal(Ty t);
  Expr gen(Ty t, int depth, const Ctx& c, bool uniform_only);
  Expr gen_leaf(Ty t, const Ctx& c, bool uniform_only);
  Expr cond(const Ctx& c, bool uniform_only, bool top);
  Expr checksum(const Ctx& c);
  void setup_launch();
  void make_function(size_t index);
  void make_kernel();
  void block(std::vector<Stmt>& out, Ctx c, int count);
  void statement(std::vector<Stmt>& out, Ctx& c);
  Stmt assignment(const Ctx& c);
  void if_statement(std::vector<Stmt>& out, Ctx& c);
  void switch_statement(std::vector<Stmt>& out, Ctx& c);
  void loop_statement(std::vector<Stmt>& out, Ctx& c);
  void exit_statement(std::vector<Stmt>& out, Ctx& c, Role role);
  void exchange(std::vector<Stmt>& out, Ctx& c);
  bool can_return(const Ctx& c) const { return !c.in_barrier_loop; }
  Stmt return_stmt(const Ctx& c);

  uint64_t seed_;
  CudaOptions options_;
  const config::SmConfig& cfg_;
  Rng lay_;  // the launch and the buffers
  Rng rng_;  // the program
  CudaProgram prog_;
  size_t fn_ = 0;
  CudaKernel k_;
  CudaStats st_;
  bool returned_ = false;  // a kernel return may have run: no exchange after this point
  int budget_ = 0;         // statements left to generate in this function
  int counters_ = 0;
  std::vector<int> shared_;  // the kernel's shared arrays
  int no_two_to_31_ = 0;     // inside the operands of a 64-bit multiplication: no constant ±2^31
};

bool CudaGen::allowed(const Op& op) const {
  const std::string_view t = op.tmpl;
  auto any = [&](std::initializer_list<std::string_view> words) {
    for (auto w : words)
      if (t.find(w) != std::string_view::npos) return true;
    return false;
  };
  if (!has(CudaFeature::Sad) && any({"__sad(", "__usad("})) return false;
  if (!has(CudaFeature::FloatFromI64) && any({"__ll2float", "__ull2float"})) return false;
  if (!has(CudaFeature::DirectedDivSqrtRcp) &&
      any({"__fdiv_rz", "__fdiv_rd", "__fdiv_ru", "__fsqrt_rz", "__fsqrt_rd", "__fsqrt_ru", "__frcp_rz", "__frcp_rd", "__frcp_ru"}))
    return false;
  if (!has(CudaFeature::RzConversions) && any({"2float_rz(", "2int_rz(", "2uint_rz(", "2ll_rz(", "2ull_rz("})) return false;
  if (!has(CudaFeature::Float) && op.tag == Op::Float) return false;
  if (!has(CudaFeature::Int64) && (op.tag == Op::Wide || op.ret == Ty::S64 || op.ret == Ty::U64)) return false;
  return true;
}

std::string CudaGen::literal(Ty t) {
  switch (t) {
    case Ty::S32: {
      int32_t v = rng_.pct(70) ? kIntValues[rng_.below(std::size(kIntValues))] : static_cast<int32_t>(rng_.u32());
      if (v == INT32_MIN && no_two_to_31_ > 0) v = INT32_MIN + 1;
      if (v == INT32_MIN) return "(-2147483647 - 1)";
      return v < 0 ? fmt::format("({})", v) : fmt::format("{}", v);
    }
    case Ty::U32: {
      const bool pooled = rng_.pct(60);
      uint32_t v = pooled ? static_cast<uint32_t>(kIntValues[rng_.below(std::size(kIntValues))]) : rng_.u32();
      if (v == 0x80000000u && no_two_to_31_ > 0) ++v;  // (int)2147483648u is INT_MIN too
      return pooled ? fmt::format("{}u", v) : fmt::format("0x{:08x}u", v);
    }
    case Ty::S64: {
      int64_t v = rng_.pct(60) ? kIntValues[rng_.below(std::size(kIntValues))] : static_cast<int64_t>(rng_.next());
      if (rng_.pct(10)) v = INT64_MAX;
      if (no_two_to_31_ > 0 && (v == -(int64_t{1} << 31) || v == (int64_t{1} << 31))) ++v;
      if (v == INT64_MIN || rng_.pct(5)) return "(-9223372036854775807ll - 1)";
      return v < 0 ? fmt::format("({}ll)", v) : fmt::format("{}ll", v);
    }
    case Ty::U64: {
      const bool pooled = rng_.pct(50);
      uint64_t v = pooled ? static_cast<uint64_t>(static_cast<int64_t>(kIntValues[rng_.below(std::size(kIntValues))])) : rng_.next();
      if (no_two_to_31_ > 0 && (v == uint64_t{1} << 31 || v == ~uint64_t{0} << 31)) ++v;
      return pooled ? fmt::format("{}ull", v) : fmt::format("0x{:016x}ull", v);
    }
    case Ty::F32: {
      if (rng_.pct(30)) return fmt::format("__uint_as_float(0x{:08x}u)", kFloatBits[rng_.below(std::size(kFloatBits))]);
      // A short decimal of a dyadic value (k/64 * 2^e, exact in binary32).
      const double m = static_cast<double>(rng_.range(-4096, 4096)) / 64.0 * std::ldexp(1.0, rng_.range(-6, 6));
      std::string s = fmt::format("{:.9g}", m);
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return m < 0 || (m == 0 && std::signbit(m)) ? "(" + s + "f)" : s + "f";
    }
    case Ty::Bool:
      return rng_.pct(50) ? "true" : "false";
  }
  return "0";
}

Expr CudaGen::gen_leaf(Ty t, const Ctx& c, bool uniform_only) {
  if (t == Ty::Bool) {
    static const Ty kinds[] = {Ty::S32, Ty::U32, Ty::F32};
    const Ty k = kinds[rng_.below(std::size(kinds))];
    return node(Ty::Bool, rng_.pct(50) ? "($0 < $1)" : "($0 != $1)", {gen_leaf(k, c, uniform_only), gen_leaf(k, c, uniform_only)});
  }
  std::vector<int> candidates;
  const auto& vars = fn().vars;
  for (size_t i = 0; i < vars.size(); ++i) {
    const Var& v = vars[i];
    if (v.ty != t) continue;
    const bool in_scope = v.kind == Var::Kind::Param || v.kind == Var::Kind::Builtin ||
                          (v.kind == Var::Kind::Local && !c.init) ||
                          (v.kind == Var::Kind::Counter && std::find(c.counters.begin(), c.counters.end(), static_cast<int>(i)) != c.counters.end());
    if (!in_scope || (uniform_only && !v.uniform)) continue;
    candidates.push_back(static_cast<int>(i));
  }
  if (!candidates.empty() && rng_.pct(75)) return var_leaf(t, candidates[rng_.below(static_cast<uint32_t>(candidates.size()))]);
  if (t == Ty::U32 && rng_.pct(30)) {
    // A load of `in` (uniform when its index is).
    return node(t, "in[($0) & 511u]", {gen(Ty::U32, 0, c, uniform_only)});
  }
  return leaf(t, literal(t), true);
}

Expr CudaGen::gen(Ty t, int depth, const Ctx& c, bool uniform_only) {
  if (depth <= 0 || rng_.pct(25)) return gen_leaf(t, c, uniform_only);
  // A call of an earlier device function now and then.
  if (!c.init && !uniform_only && has(CudaFeature::Call) && rng_.pct(8)) {
    std::vector<size_t> callees;
    for (size_t f = 0; f < fn_; ++f)
      if (prog_.functions[f].ret == t) callees.push_back(f);
    if (!callees.empty()) {
      const size_t f = callees[rng_.below(static_cast<uint32_t>(callees.size()))];
      Expr e;
      e.ty = t;
      e.call = static_cast<int>(f);
      e.tmpl = "@(in";
      for (size_t i = 0; i < prog_.functions[f].params.size(); ++i) {
        e.tmpl += fmt::format(", ${}", i);
        const Var& p = prog_.functions[f].vars[static_cast<size_t>(prog_.functions[f].params[i])];
        e.args.push_back(gen(p.ty, depth - 1, c, false));
      }
      e.tmpl += ")";
      ++st_.calls;
      return e;
    }
  }
  // A local array element.
  if (t == Ty::U32 && !c.init && !uniform_only && rng_.pct(8)) {
    for (size_t i = 0; i < fn().vars.size(); ++i)
      if (fn().vars[i].kind == Var::Kind::Array && rng_.pct(60)) {
        Expr e = node(t, fmt::format("@[($0) & {}u]", fn().vars[i].elements - 1), {gen(Ty::U32, depth - 1, c, uniform_only)});
        e.var = static_cast<int>(i);
        return e;
      }
  }
  const auto& ops = operations();
  unsigned total = 0;
  for (const auto& op : ops)
    if (op.ret == t && allowed(op)) total += op.weight;
  if (total == 0) return gen_leaf(t, c, uniform_only);
  unsigned pick = rng_.below(total);
  for (const auto& op : ops) {
    if (op.ret != t || !allowed(op)) continue;
    if (pick >= op.weight) {
      pick -= op.weight;
      continue;
    }
    Expr e;
    e.ty = t;
    e.tmpl = op.tmpl;
    // clang 14 compiles a 64-bit multiplication by the constant ±2^31 (after LLVM turns it into a
    // shift by 31 of a sign-extended int) into mul.wide.s32 x, 0x80000000, which multiplies by
    // -2^31: the front end refuses that PTX (docs/cuda-frontends.md), so no such constant here.
    const bool wide_multiply = std::string_view(op.tmpl).starts_with("mul_s64(");
    no_two_to_31_ += wide_multiply ? 1 : 0;
    for (Ty a : op.args) e.args.push_back(gen(a, depth - 1, c, uniform_only));
    no_two_to_31_ -= wide_multiply ? 1 : 0;
    if (op.tag == Op::Float) ++st_.float_ops;
    if (op.tag == Op::Wide || t == Ty::S64 || t == Ty::U64) ++st_.int64_ops;
    if (op.tag == Op::Ternary) ++st_.ternaries;
    return e;
  }
  return gen_leaf(t, c, uniform_only);
}

/// A condition: a comparison, or at the top of an if, a chain of them with && and || (the right
/// side sometimes with a side effect, so that short-circuit evaluation shows).
Expr CudaGen::cond(const Ctx& c, bool uniform_only, bool top) {
  static const Ty kinds[] = {Ty::S32, Ty::U32, Ty::U32, Ty::S64, Ty::U64, Ty::F32};
  auto compare = [&] {
    const Ty t = kinds[rng_.below(std::size(kinds))];
    static const char* const cmp[] = {"<", "<=", ">", ">=", "==", "!="};
    const int d = rng_.range(0, 2);
    if (t == Ty::U32 && rng_.pct(30))
      return node(Ty::Bool, "((shr_u32($0, $1) & 1u) != 0u)", {gen(Ty::U32, d, c, uniform_only), gen(Ty::U32, 0, c, uniform_only)});
    if (t == Ty::F32) ++st_.float_ops;
    if (t == Ty::S64 || t == Ty::U64) ++st_.int64_ops;
    return node(Ty::Bool, fmt::format("($0 {} $1)", cmp[rng_.below(6)]), {gen(t, d, c, uniform_only), gen(t, d, c, uniform_only)});
  };
  Expr e = compare();
  if (!top) return e;
  const int more = rng_.pct(50) ? 0 : rng_.range(1, 2);
  for (int i = 0; i < more; ++i) {
    const char* op = rng_.pct(50) ? "($0 && $1)" : "($0 || $1)";
    // The right side of && or || with a side effect: it runs only when the left side says so.
    std::vector<int> targets;
    for (size_t v = 0; v < fn().vars.size(); ++v)
      if (fn().vars[v].kind == Var::Kind::Local && fn().vars[v].ty == Ty::U32) targets.push_back(static_cast<int>(v));
    if (!uniform_only && !c.init && !targets.empty() && i + 1 == more && rng_.pct(30)) {
      Expr bump = node(Ty::Bool, "(bump_u32(&@, $0) > $1)", {leaf(Ty::U32, literal(Ty::U32), true), gen(Ty::U32, 0, c, false)});
      bump.var = targets[rng_.below(static_cast<uint32_t>(targets.size()))];
      e = node(Ty::Bool, op, {std::move(e), std::move(bump)});
      ++st_.short_circuits;
    } else {
      e = node(Ty::Bool, op, {std::move(e), rng_.pct(20) ? node(Ty::Bool, "(!$0)", {compare()}) : compare()});
    }
  }
  return e;
}

/// mix() of every variable in scope: the kernel's locals and arrays, and the loop counters.
Expr CudaGen::checksum(const Ctx& c) {
  Expr h = leaf(Ty::U32, "0x811c9dc5u", true);
  const auto& vars = fn().vars;
  for (size_t i = 0; i < vars.size(); ++i) {
    const Var& v = vars[i];
    const bool counter = v.kind == Var::Kind::Counter && std::find(c.counters.begin(), c.counters.end(), static_cast<int>(i)) != c.counters.end();
    if (v.kind != Var::Kind::Local && v.kind != Var::Kind::Array && !counter) continue;
    Expr x;
    if (v.kind == Var::Kind::Array) {
      x = node(Ty::U32, fmt::format("sum_u32(@, {})", v.elements), {});
      x.var = static_cast<int>(i);
    } else {
      x = var_leaf(v.ty, static_cast<int>(i));
      if (v.ty == Ty::S32) x = node(Ty::U32, "(unsigned)$0", {std::move(x)});
      if (v.ty == Ty::F32) x = node(Ty::U32, "fbits($0)", {std::move(x)});
    }
    const bool wide = v.ty == Ty::S64 || v.ty == Ty::U64;
    h = node(Ty::U32, wide ? "mix64($0, $1)" : "mix($0, $1)", {std::move(h), std::move(x)});
  }
  return h;
}

void CudaGen::setup_launch() {
  const uint32_t max_threads = std::min<uint32_t>(cfg_.max_threads_per_block, 256);
  uint32_t n = lay_.pct(75) ? 32 * (1 + lay_.below(max_threads / 32)) : 1 + lay_.below(max_threads);
  Dim3 block{n, 1, 1};
  if (lay_.pct(35)) {
    for (uint32_t d : {2u, 4u, 8u, 3u})
      if (n % d == 0 && lay_.pct(60)) {
        block = Dim3{n / d, d, 1};
        break;
      }
    if (block.y == 1 && n % 4 == 0 && lay_.pct(40)) block = Dim3{n / 4, 2, 2};
  }
  k_.block = block;
  const uint32_t blocks = 1 + lay_.below(3);
  k_.grid = blocks == 2 && lay_.pct(40) ? Dim3{1, 2, 1} : Dim3{blocks, 1, 1};
  prog_.block_threads = n;

  static const int32_t pas[] = {0, 1, -1, 2, 3, 7, -7, 100, INT32_MIN, INT32_MAX};
  k_.pa = lay_.pct(60) ? pas[lay_.below(std::size(pas))] : static_cast<int32_t>(lay_.u32());
  k_.pb = lay_.pct(60) ? lay_.below(8) : lay_.u32();
  k_.pf = lay_.pct(70) ? static_cast<float>(lay_.range(-512, 512)) / 16.0f : std::bit_cast<float>(kFloatBits[lay_.below(std::size(kFloatBits))]);
  k_.pl = lay_.pct(50) ? static_cast<int64_t>(lay_.range(-10, 10)) : static_cast<int64_t>(lay_.next());

  k_.in.resize(kCudaInWords);
  for (uint32_t i = 0; i < kCudaInWords / 2; ++i)
    k_.in[i] = lay_.pct(30) ? static_cast<uint32_t>(kIntValues[lay_.below(std::size(kIntValues))]) : lay_.pct(50) ? lay_.below(64) : lay_.u32();
  for (uint32_t i = kCudaInWords / 2; i < kCudaInWords; ++i) {
    const unsigned r = lay_.below(100);
    if (r < 15) {
      k_.in[i] = kFloatBits[lay_.below(std::size(kFloatBits))];
    } else if (r < 30) {
      k_.in[i] = std::bit_cast<uint32_t>(static_cast<float>(lay_.range(-100, 100)));
    } else {
      // Sign, a random significand and an exponent around 1: sums, products and quotients stay
      // normal numbers mostly, and rounding matters in every one.
      k_.in[i] = (lay_.u32() & 0x807FFFFFu) | (static_cast<uint32_t>(127 + lay_.range(-12, 12)) << 23);
    }
  }
  k_.out_init.resize(size_t{kCudaOutWords} * n * k_.grid.count());
  for (auto& w : k_.out_init) w = lay_.u32();
}

void CudaGen::block(std::vector<Stmt>& out, Ctx c, int count) {
  ++c.depth;
  st_.max_nesting = std::max<unsigned>(st_.max_nesting, static_cast<unsigned>(c.depth));
  for (int i = 0; i < count && budget_ > 0; ++i) statement(out, c);
}

Stmt CudaGen::assignment(const Ctx& c) {
  std::vector<int> targets;
  for (size_t v = 0; v < fn().vars.size(); ++v) {
    const Var& x = fn().vars[v];
    if (x.kind == Var::Kind::Local || (x.kind == Var::Kind::Param && !fn().kernel)) targets.push_back(static_cast<int>(v));
  }
  const int v = targets[rng_.below(static_cast<uint32_t>(targets.size()))];
  const Ty t = fn().vars[static_cast<size_t>(v)].ty;
  const int depth = rng_.range(1, 3);
  if (t == Ty::F32 && rng_.pct(30)) return line("@0 = __fadd_rn(@0, $0);", {v}, {gen(t, depth, c, false)});
  if (t != Ty::F32 && rng_.pct(30)) return line("@0 ^= $0;", {v}, {gen(t, depth, c, false)});
  return line("@0 = $0;", {v}, {gen(t, depth, c, false)});
}

Stmt CudaGen::return_stmt(const Ctx& c) {
  if (fn().kernel) {
    ++st_.returns;
    if (c.in_switch) ++st_.returns_in_switch;
    if (c.in_loop) ++st_.returns_in_loop;
    returned_ = true;
    return line("o[15] = $0;\nreturn;", {}, {checksum(c)}, Role::Return);
  }
  ++st_.function_returns;
  return line("return $0;", {}, {gen(fn().ret, 2, c, false)}, Role::FuncReturn);
}

/// `if (cond) break;`, `continue`, or return (with the checksum, in the kernel).
void CudaGen::exit_statement(std::vector<Stmt>& out, Ctx& c, Role role) {
  Stmt s;
  s.kind = Stmt::Kind::If;
  s.exprs.push_back(cond(c, false, rng_.pct(30)));
  if (role == Role::Break) {
    s.body.push_back(line("break;", {}, {}, Role::Break));
    ++st_.breaks;
  } else if (role == Role::Continue) {
    s.body.push_back(line("continue;", {}, {}, Role::Continue));
    ++st_.continues;
  } else {
    s.body.push_back(return_stmt(c));
  }
  ++st_.ifs;
  --budget_;
  out.push_back(std::move(s));
}

void CudaGen::if_statement(std::vector<Stmt>& out, Ctx& c) {
  Stmt s;
  s.kind = Stmt::Kind::If;
  const bool uniform = c.uniform && rng_.pct(40);
  s.exprs.push_back(rng_.pct(15) && !c.init ? cond(c, uniform, false) : cond(c, uniform, true));
  if (uniform) ++st_.uniform_ifs;
  ++st_.ifs;
  --budget_;
  Ctx inner = c;
  inner.uniform = uniform && c.uniform;
  block(s.body, inner, rng_.range(1, 4));
  if (rng_.pct(50)) {
    if (rng_.pct(35) && budget_ > 2) {
      // else if: a chain of conditions whose blocks meet at one join.
      Ctx chain = inner;
      chain.depth = c.depth + 1;
      if_statement(s.other, chain);
    } else {
      block(s.other, inner, rng_.range(1, 3));
    }
  }
  out.push_back(std::move(s));
}

void CudaGen::switch_statement(std::vector<Stmt>& out, Ctx& c) {
  Stmt s;
  s.kind = Stmt::Kind::Switch;
  const int k = rng_.range(3, 8);
  if (rng_.pct(50))
    s.exprs.push_back(node(Ty::S32, fmt::format("(((($0) % {0}) + {0}) % {0})", k), {gen(Ty::S32, rng_.range(0, 2), c, false)}));
  else
    s.exprs.push_back(node(Ty::U32, fmt::format("(($0) % {}u)", k), {gen(Ty::U32, rng_.range(0, 2), c, false)}));
  ++st_.switches;
  --budget_;
  Ctx inner = c;
  inner.uniform = false;
  inner.breakable = true;
  inner.break_forbidden = false;
  inner.in_switch = true;
  std::vector<int> labels(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) labels[static_cast<size_t>(i)] = i;
  for (int i = k - 1; i > 0; --i) std::swap(labels[static_cast<size_t>(i)], labels[rng_.below(static_cast<uint32_t>(i + 1))]);
  const int used = rng_.range(2, std::min(k, 5));
  const bool has_default = rng_.pct(70);
  size_t next = 0;
  for (int i = 0; i < used + (has_default ? 1 : 0); ++i) {
    Case cs;
    if (i < used && next == labels.size()) continue;  // every label taken
    if (i < used) {
      cs.labels.push_back(labels[next++]);
      if (next < labels.size() && rng_.pct(15)) cs.labels.push_back(labels[next++]);
      std::sort(cs.labels.begin(), cs.labels.end());
    } else {
      ++st_.defaults;
    }
    block(cs.body, inner, rng_.range(0, 2));
    const bool last = i + 1 == used + (has_default ? 1 : 0);
    const unsigned r = rng_.below(100);
    if (r < 12 && can_return(c)) {
      cs.body.push_back(return_stmt(inner));
    } else if (r < 20 && c.in_loop && !c.continue_forbidden) {
      cs.body.push_back(line("continue;", {}, {}, Role::Continue));
      ++st_.continues;
    } else if (r < 38 && !last) {
      ++st_.fallthroughs;  // falls into the next case
    } else {
      cs.body.push_back(line("break;", {}, {}, Role::Break));
    }
    s.cases.push_back(std::move(cs));
  }
  out.push_back(std::move(s));
}

void CudaGen::loop_statement(std::vector<Stmt>& out, Ctx& c) {
  Stmt s;
  s.kind = Stmt::Kind::Loop;
  s.loop = static_cast<LoopKind>(rng_.below(4));
  const unsigned max_limit = std::max(1u, std::min(4u, (fn().kernel ? 24u : 8u) / c.trips));
  s.limit = static_cast<int>(1 + rng_.below(max_limit));
  const bool uniform = c.uniform && rng_.pct(45);
  Var counter;
  counter.kind = Var::Kind::Counter;
  counter.ty = Ty::S32;
  counter.name = fmt::format("k{}", counters_++);
  counter.uniform = uniform;
  const int k = add_var(counter);
  s.vars.push_back(k);
  if (s.loop == LoopKind::For) {
    if (rng_.pct(35))
      s.exprs.push_back(leaf(Ty::S32, fmt::format("{}", s.limit), true));
    else
      s.exprs.push_back(node(Ty::S32, fmt::format("(int)(($0) % {}u)", s.limit + 1), {gen(Ty::U32, rng_.range(0, 2), c, uniform)}));
  } else {
    s.exprs.push_back(cond(c, uniform, rng_.pct(30)));
  }
  ++st_.loops;
  if (c.in_loop) ++st_.nested_loops;
  --budget_;
  Ctx inner = c;
  inner.trips = c.trips * static_cast<unsigned>(s.limit);
  inner.counters.push_back(k);
  inner.in_loop = true;
  inner.breakable = true;
  inner.in_switch = false;
  // A loop whose trip count is the same in every thread, with no way out but its condition, may
  // hold a barrier.
  const bool barrier_loop = uniform && c.uniform && fn().kernel && rng_.pct(60);
  inner.uniform = barrier_loop;
  inner.break_forbidden = barrier_loop;
  inner.continue_forbidden = barrier_loop;
  inner.in_barrier_loop = c.in_barrier_loop || barrier_loop;
  if (barrier_loop) ++st_.barrier_loops;
  block(s.body, inner, rng_.range(1, 4));
  // Exits from inside: break, continue, return, also from nested loops.
  if (!barrier_loop && budget_ > 0) {
    const unsigned r = rng_.below(100);
    std::vector<Stmt> exits;
    if (r < 35) exit_statement(exits, inner, Role::Break);
    else if (r < 55) exit_statement(exits, inner, Role::Continue);
    else if (r < 68 && can_return(inner)) exit_statement(exits, inner, Role::Return);
    if (!exits.empty()) {
      const size_t at = rng_.below(static_cast<uint32_t>(s.body.size() + 1));
      s.body.insert(s.body.begin() + static_cast<std::ptrdiff_t>(at), std::move(exits.front()));
    }
  }
  out.push_back(std::move(s));
}

/// __syncthreads(); sh[tid] = e; __syncthreads(); v = f(sh[...]); where the whole block runs.
void CudaGen::exchange(std::vector<Stmt>& out, Ctx& c) {
  const int sh = shared_[rng_.below(static_cast<uint32_t>(shared_.size()))];
  const Ty t = fn().vars[static_cast<size_t>(sh)].ty;
  std::vector<int> targets;
  for (size_t v = 0; v < fn().vars.size(); ++v)
    if (fn().vars[v].kind == Var::Kind::Local && fn().vars[v].ty == t) targets.push_back(static_cast<int>(v));
  --budget_;
  if (targets.empty()) return;
  const int target = targets[rng_.below(static_cast<uint32_t>(targets.size()))];
  Ctx any = c;
  Expr index = rng_.pct(60) ? node(Ty::U32, "(tid + $0)", {gen(Ty::U32, 1, c, true)}) : gen(Ty::U32, 2, any, false);
  Expr read = node(t, "@[($0) % nthr]", {std::move(index)});
  read.var = sh;
  Expr value = t == Ty::U32 ? node(t, "($0 ^ $1)", {gen(t, 1, c, false), std::move(read)})
                            : node(t, "($0 + $1)", {gen(t, 1, c, false), std::move(read)});
  out.push_back(line("__syncthreads();\n@0[tid] = $0;\n__syncthreads();\n@1 = $1;", {sh, target},
                     {gen(t, rng_.range(1, 3), c, false), std::move(value)}, Role::Exchange));
  ++st_.exchanges;
}

void CudaGen::statement(std::vector<Stmt>& out, Ctx& c) {
  const bool deep = c.depth >= 4;
  const unsigned r = rng_.below(100);
  if (fn().kernel && c.uniform && !returned_ && !shared_.empty() && st_.exchanges < 4 && has(CudaFeature::Exchange) && r < 8) {
    exchange(out, c);
    return;
  }
  if (!deep && r < 24) {
    if_statement(out, c);
  } else if (!deep && r < 31 && has(CudaFeature::Switch)) {
    switch_statement(out, c);
  } else if (!deep && r < 41 && c.trips < 16 && has(CudaFeature::Loop)) {
    loop_statement(out, c);
  } else if (r < 44 && c.breakable && !c.break_forbidden) {
    exit_statement(out, c, Role::Break);
  } else if (r < 46 && c.in_loop && !c.continue_forbidden) {
    exit_statement(out, c, Role::Continue);
  } else if (r < 49 && can_return(c) && rng_.pct(fn().kernel ? 40 : 70)) {
    exit_statement(out, c, Role::Return);
  } else if (r < 55 && fn().kernel) {
    // A store of a value to one of the thread's words.
    if (rng_.pct(70))
      out.push_back(line(fmt::format("o[{}] = $0;", rng_.below(14)), {}, {gen(Ty::U32, rng_.range(1, 3), c, false)}));
    else
      out.push_back(line("o[($0) & 7u] = $1;", {}, {gen(Ty::U32, 1, c, false), gen(Ty::U32, rng_.range(1, 3), c, false)}));
    --budget_;
  } else if (r < 62 && fn().kernel) {
    for (size_t v = 0; v < fn().vars.size(); ++v)
      if (fn().vars[v].kind == Var::Kind::Array) {
        out.push_back(line(fmt::format("@0[($0) & {}u] = $1;", fn().vars[v].elements - 1), {static_cast<int>(v)},
                           {gen(Ty::U32, rng_.range(0, 2), c, false), gen(Ty::U32, rng_.range(1, 3), c, false)}));
        ++st_.array_stores;
        --budget_;
        return;
      }
    out.push_back(assignment(c));
    --budget_;
  } else {
    out.push_back(assignment(c));
    --budget_;
  }
}

void CudaGen::make_function(size_t index) {
  fn_ = index;
  Function& f = fn();
  static const Ty rets[] = {Ty::S32, Ty::U32, Ty::U32, Ty::S64, Ty::U64, Ty::F32};
  f.suffix = fmt::format("_f{}", index);
  f.ret = rets[rng_.below(std::size(rets))];
  const unsigned q = rng_.below(100);
  f.qualifier = q < 40 ? "__noinline__ " : q < 70 ? "__forceinline__ " : "";
  if (q < 40) ++st_.noinline;
  else if (q < 70) ++st_.forceinline;
  ++st_.functions;
  const int nparams = rng_.range(1, 3);
  for (int i = 0; i < nparams; ++i) {
    Var p;
    p.kind = Var::Kind::Param;
    p.ty = rets[rng_.below(std::size(rets))];
    p.name = fmt::format("p{}", i);
    f.params.push_back(add_var(p));
  }
  Ctx init;
  init.init = true;
  const int nlocals = rng_.range(0, 2);
  for (int i = 0; i < nlocals; ++i) {
    Var v;
    v.ty = rets[rng_.below(std::size(rets))];
    v.name = fmt::format("t{}", i);
    v.init = gen(v.ty, 1, init, false);
    add_var(std::move(v));
  }
  budget_ = rng_.range(3, 10);
  Ctx c;
  c.uniform = false;  // a function may be called anywhere
  std::vector<Stmt> body;
  block(body, c, budget_);
  // Always one early return at least, then the final one.
  exit_statement(body, c, Role::Return);
  std::swap(body[body.size() - 1], body[rng_.below(static_cast<uint32_t>(body.size()))]);
  Stmt last = line("return $0;", {}, {gen(f.ret, 2, c, false)}, Role::FinalReturn);
  body.push_back(std::move(last));
  fn().body = std::move(body);
}

void CudaGen::make_kernel() {
  fn_ = prog_.functions.size() - 1;
  Function& f = fn();
  f.kernel = true;
  auto builtin = [&](const char* name, Ty t, bool uniform) {
    Var v;
    v.kind = Var::Kind::Builtin;
    v.name = name;
    v.ty = t;
    v.uniform = uniform;
    add_var(std::move(v));
  };
  builtin("tid", Ty::U32, false);
  builtin("gid", Ty::U32, false);
  builtin("warp", Ty::U32, false);  // the same in a warp, not in a block
  builtin("threadIdx.x", Ty::U32, false);
  builtin("nthr", Ty::U32, true);
  builtin("bid", Ty::U32, true);
  builtin("blockIdx.x", Ty::U32, true);
  builtin("pa", Ty::S32, true);
  builtin("pb", Ty::U32, true);
  builtin("pf", Ty::F32, true);
  builtin("pl", Ty::S64, true);
  Ctx init;
  init.init = true;
  static const Ty types[] = {Ty::S32, Ty::U32, Ty::S64, Ty::U64, Ty::F32};
  static const char* const prefixes[] = {"i", "u", "l", "q", "f"};
  for (size_t t = 0; t < std::size(types); ++t) {
    const int n = types[t] == Ty::U32 ? rng_.range(2, 4) : rng_.range(1, 3);
    for (int i = 0; i < n; ++i) {
      Var v;
      v.ty = types[t];
      v.name = fmt::format("{}{}", prefixes[t], i);
      if (types[t] == Ty::F32)
        v.init = node(Ty::F32, "__uint_as_float(in[512u + (($0) & 511u)])",
                      {node(Ty::U32, fmt::format("(gid * {}u + $0)", 2 * rng_.below(8) + 1), {gen(Ty::U32, 0, init, false)})});
      else
        v.init = node(v.ty, fmt::format("({})in[(gid * {}u + $0) & 511u]", type_name(v.ty), 2 * rng_.below(16) + 1),
                      {gen(Ty::U32, 1, init, false)});
      add_var(std::move(v));
    }
  }
  const int arrays = rng_.range(0, 2);
  for (int i = 0; i < arrays; ++i) {
    Var a;
    a.kind = Var::Kind::Array;
    a.ty = Ty::U32;
    a.elements = rng_.pct(50) ? 8 : 4;
    a.name = fmt::format("a{}", i);
    a.init = leaf(Ty::U32, fmt::format("in[(gid * {}u + {}u * (unsigned)i) & 511u]", 2 * rng_.below(8) + 1, 1 + rng_.below(13)), false);
    add_var(std::move(a));
  }
  if (rng_.pct(60)) {
    for (Ty t : {Ty::U32, Ty::U64}) {
      if (t == Ty::U64 && !rng_.pct(40)) continue;
      Var s;
      s.kind = Var::Kind::Shared;
      s.ty = t;
      s.elements = prog_.block_threads;
      s.name = fmt::format("sh{}", shared_.size());
      shared_.push_back(add_var(std::move(s)));
    }
  }
  budget_ = rng_.range(18, 45);
  Ctx c;
  std::vector<Stmt> body;
  // The planted difference comes first, on a word no other statement writes (o[14]), so that every
  // thread shows it whatever the rest of the kernel does.
  if (options_.plant_difference) body.push_back(line("#ifdef __CUDA_ARCH__\no[14] ^= 0x100u;\n#endif", {}, {}, Role::Planted));
  block(body, c, 1000);
  body.push_back(line("o[15] = $0;", {}, {checksum(c)}, Role::Checksum));
  fn().body = std::move(body);
}

CudaKernel CudaGen::run() {
  k_.seed = seed_;
  k_.config = cfg_.name;
  k_.name = fmt::format("k{}", seed_);
  setup_launch();
  auto program = std::make_shared<CudaProgram>();
  const size_t nfunctions = has(CudaFeature::Call) ? rng_.below(4) : 0;
  prog_.functions.resize(nfunctions + 1);
  for (size_t i = 0; i < nfunctions; ++i) make_function(i);
  make_kernel();
  number(prog_);
  unsigned statements = 0;
  for (const auto& f : prog_.functions)
    walk_stmts(
        f.body, [&](const Stmt&) { ++statements; }, [](const Expr&) {}, [](const Case&) {});
  st_.statements = statements;
  *program = std::move(prog_);
  k_.program = program;
  k_.stats = st_;
  const auto& s = st_;
  k_.description = fmt::format(
      "{}x{} threads ({}), {} statements: {} if ({} uniform), {} switch, {} loops ({} nested, {} with barriers), {} break, {} continue, "
      "{} return, {} exchanges, {} functions ({} noinline), {} calls, {} float ops",
      k_.grid.count(), k_.block.count(), to_string(k_.block), s.statements, s.ifs, s.uniform_ifs, s.switches, s.loops, s.nested_loops,
      s.barrier_loops, s.breaks, s.continues, s.returns + s.function_returns, s.exchanges, s.functions, s.noinline, s.calls, s.float_ops);
  return std::move(k_);
}

// clang-format off
const char* const kPrelude = R"(// Helpers of the random CUDA kernels (sim/randgen/random_cuda.cpp): integer arithmetic without
// undefined behaviour (signed wrap-around through unsigned, masked shift counts, guarded division),
// float bits with one NaN, and a hash for the checksums.
__device__ __forceinline__ int add_s32(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int sub_s32(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
__device__ __forceinline__ int mul_s32(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
__device__ __forceinline__ int neg_s32(int a) { return (int)(0u - (unsigned)a); }
__device__ __forceinline__ int div_s32(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
__device__ __forceinline__ int mod_s32(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
__device__ __forceinline__ int shl_s32(int a, unsigned s) { return (int)((unsigned)a << (s & 31u)); }
__device__ __forceinline__ int shr_s32(int a, unsigned s) { return a >> (s & 31u); }
__device__ __forceinline__ unsigned div_u32(unsigned a, unsigned b) { return b == 0u ? a : a / b; }
__device__ __forceinline__ unsigned mod_u32(unsigned a, unsigned b) { return b == 0u ? 0u : a % b; }
__device__ __forceinline__ unsigned shl_u32(unsigned a, unsigned s) { return a << (s & 31u); }
__device__ __forceinline__ unsigned shr_u32(unsigned a, unsigned s) { return a >> (s & 31u); }
__device__ __forceinline__ long long add_s64(long long a, long long b) { return (long long)((unsigned long long)a + (unsigned long long)b); }
__device__ __forceinline__ long long sub_s64(long long a, long long b) { return (long long)((unsigned long long)a - (unsigned long long)b); }
__device__ __forceinline__ long long mul_s64(long long a, long long b) { return (long long)((unsigned long long)a * (unsigned long long)b); }
__device__ __forceinline__ long long neg_s64(long long a) { return (long long)(0ull - (unsigned long long)a); }
__device__ __forceinline__ long long div_s64(long long a, long long b) {
  return (b == 0 || (a == (-9223372036854775807ll - 1) && b == -1)) ? a : a / b;
}
__device__ __forceinline__ long long mod_s64(long long a, long long b) {
  return (b == 0 || (a == (-9223372036854775807ll - 1) && b == -1)) ? 0 : a % b;
}
__device__ __forceinline__ long long shl_s64(long long a, unsigned s) { return (long long)((unsigned long long)a << (s & 63u)); }
__device__ __forceinline__ long long shr_s64(long long a, unsigned s) { return a >> (s & 63u); }
__device__ __forceinline__ unsigned long long div_u64(unsigned long long a, unsigned long long b) { return b == 0ull ? a : a / b; }
__device__ __forceinline__ unsigned long long mod_u64(unsigned long long a, unsigned long long b) { return b == 0ull ? 0ull : a % b; }
__device__ __forceinline__ unsigned long long shl_u64(unsigned long long a, unsigned s) { return a << (s & 63u); }
__device__ __forceinline__ unsigned long long shr_u64(unsigned long long a, unsigned s) { return a >> (s & 63u); }
__device__ __forceinline__ unsigned fbits(float f) { return f != f ? 0x7fffffffu : __float_as_uint(f); }
__device__ __forceinline__ unsigned mix(unsigned h, unsigned v) { h = (h ^ v) * 0x01000193u; return h ^ (h >> 13); }
__device__ __forceinline__ unsigned mix64(unsigned h, unsigned long long v) { return mix(mix(h, (unsigned)v), (unsigned)(v >> 32)); }
__device__ __forceinline__ unsigned sum_u32(const unsigned* a, int n) {
  unsigned h = 0u;
  for (int i = 0; i < n; ++i) h = h * 31u + a[i];
  return h;
}
__device__ __forceinline__ unsigned bump_u32(unsigned* p, unsigned k) { *p += k; return *p; }

)";
// clang-format on

}  // namespace

// ---- CudaKernel ---------------------------------------------------------------------------------

std::string CudaKernel::source(const std::string& entry) const {
  return Printer(*program, entry.empty() ? name : entry).program();
}

unsigned CudaKernel::statement_count() const {
  unsigned n = 0;
  const std::vector<bool> called = called_functions(*program);
  for (size_t i = 0; i < program->functions.size(); ++i)
    if (called[i])
      walk_stmts(
        program->functions[i].body,
        [&](const Stmt& s) {
          if (s.kind != Stmt::Kind::Block) ++n;
        },
        [](const Expr&) {}, [](const Case&) {});
  return n;
}

std::vector<CudaEdit> CudaKernel::edits() const {
  std::vector<CudaEdit> r;
  using K = CudaEdit::Kind;
  const std::vector<bool> called = called_functions(*program);
  for (size_t i = 0; i < program->functions.size(); ++i)
    if (called[i])
      walk_stmts(
        program->functions[i].body,
        [&](const Stmt& s) {
          const uint32_t size = size_of(s);
          if (s.role != Role::FinalReturn) r.push_back({K::Remove, s.id, size});
          if (s.kind == Stmt::Kind::If) {
            r.push_back({K::Then, s.id, size - size_of(s.body)});
            if (!s.other.empty()) r.push_back({K::Else, s.id, size - size_of(s.other)});
          }
          if (s.kind == Stmt::Kind::Loop && !leaves_loop(s.body, false)) r.push_back({K::Unroll, s.id, size - size_of(s.body)});
        },
        [&](const Expr& e) {
          if (!e.literal) r.push_back({K::Zero, e.id, size_of(e)});
          for (size_t a = 0; a < e.args.size(); ++a)
            if (e.args[a].ty == e.ty) r.push_back({K::Hoist, e.id, size_of(e) - size_of(e.args[a]), static_cast<uint8_t>(a)});
        },
        [&](const Case& c) { r.push_back({K::Remove, c.id, 1 + size_of(c.body)}); });
  std::stable_sort(r.begin(), r.end(), [](const CudaEdit& a, const CudaEdit& b) {
    // Statements before expressions, larger first.
    const bool sa = a.kind != CudaEdit::Kind::Zero && a.kind != CudaEdit::Kind::Hoist;
    const bool sb = b.kind != CudaEdit::Kind::Zero && b.kind != CudaEdit::Kind::Hoist;
    if (sa != sb) return sa;
    return a.weight > b.weight;
  });
  return r;
}

namespace {

struct EditSet {
  std::set<std::pair<uint32_t, CudaEdit::Kind>> edits;
  std::map<uint32_t, uint8_t> hoist;  // node -> operand
  bool has(uint32_t node, CudaEdit::Kind k) const { return edits.count({node, k}) != 0; }
};

void apply(Expr& e, const EditSet& s) {
  if (s.has(e.id, CudaEdit::Kind::Zero)) {
    e = leaf(e.ty, zero_of(e.ty), true);
    return;
  }
  if (const auto h = s.hoist.find(e.id); h != s.hoist.end() && h->second < e.args.size()) {
    Expr operand = std::move(e.args[h->second]);
    e = std::move(operand);
    apply(e, s);
    return;
  }
  for (auto& a : e.args) apply(a, s);
}

void apply(std::vector<Stmt>& list, const EditSet& s) {
  std::vector<Stmt> out;
  for (auto& st : list) {
    using K = CudaEdit::Kind;
    if (s.has(st.id, K::Remove)) continue;
    Stmt x = std::move(st);
    if (s.has(x.id, K::Then) || s.has(x.id, K::Else)) {
      Stmt b;
      b.kind = Stmt::Kind::Block;
      b.id = x.id;
      b.body = std::move(s.has(x.id, K::Then) ? x.body : x.other);
      x = std::move(b);
    } else if (s.has(x.id, K::Unroll)) {
      // One pass of the body, with the counter it had in the first pass.
      Stmt b;
      b.kind = Stmt::Kind::Block;
      b.id = x.id;
      b.vars = x.vars;
      b.tmpl = x.loop == LoopKind::While || x.loop == LoopKind::DoWhile ? "int @0 = 1;" : "int @0 = 0;";
      b.body = std::move(x.body);
      x = std::move(b);
    }
    for (auto& e : x.exprs) apply(e, s);
    apply(x.body, s);
    apply(x.other, s);
    std::vector<Case> cases;
    for (auto& c : x.cases) {
      if (s.has(c.id, K::Remove)) continue;
      apply(c.body, s);
      cases.push_back(std::move(c));
    }
    x.cases = std::move(cases);
    out.push_back(std::move(x));
  }
  list = std::move(out);
}

}  // namespace

CudaKernel CudaKernel::with_edits(const std::vector<CudaEdit>& edits) const {
  EditSet set;
  for (const auto& e : edits) {
    set.edits.insert({e.node, e.kind});
    if (e.kind == CudaEdit::Kind::Hoist) set.hoist.emplace(e.node, e.operand);
  }
  auto p = std::make_shared<CudaProgram>(*program);
  for (auto& f : p->functions) (apply)(f.body, set);  // parenthesized: no ADL to std::apply
  number(*p);
  CudaKernel k = *this;
  k.program = std::move(p);
  return k;
}

const std::vector<std::string>& cuda_feature_names() {
  static const std::vector<std::string> names = {"sad",   "float-from-i64", "directed-div-sqrt-rcp", "rz-conversions", "float",
                                                 "int64", "switch",         "loop",                  "exchange",     "call"};
  static_assert(static_cast<size_t>(CudaFeature::Count) == 10);
  return names;
}

uint32_t parse_cuda_features(std::string_view list) {
  uint32_t mask = 0;
  size_t at = 0;
  while (at <= list.size()) {
    const size_t end = std::min(list.find(',', at), list.size());
    const std::string_view name = list.substr(at, end - at);
    if (!name.empty()) {
      const auto& names = cuda_feature_names();
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end())
        throw std::invalid_argument(fmt::format("unknown feature '{}' (known at --level cuda: {})", name, fmt::join(names, ", ")));
      mask |= 1u << static_cast<unsigned>(it - names.begin());
    }
    at = end + 1;
  }
  return mask;
}

CudaKernel generate_cuda(uint64_t seed, const CudaOptions& options) {
  const config::SmConfig* cfg = config::find_config(options.config);
  if (!cfg) throw std::invalid_argument(fmt::format("unknown configuration '{}'", options.config));
  return CudaGen(seed, options, *cfg).run();
}

const std::string& cuda_prelude() {
  static const std::string prelude = kPrelude;
  return prelude;
}

std::string cuda_translation_unit(const std::vector<std::string>& sources) {
  std::string s = cuda_prelude();
  for (const auto& x : sources) s += x;
  return s;
}

std::string describe_cuda_launch(const CudaKernel& k) {
  return fmt::format(
      "seed {}\nconfig {}\nkernel {}\ngrid {}\nblock {}\nparameters in out pa={} pb={} pf={:#010x} ({}) pl={}\nbuffer in {} bytes\n"
      "buffer out {} bytes ({} words a thread, the last the checksum)\ncontents: {}\n",
      k.seed, k.config, k.name, to_string(k.grid), to_string(k.block), k.pa, k.pb, std::bit_cast<uint32_t>(k.pf), k.pf, k.pl,
      4 * k.in.size(), 4 * k.out_init.size(), kCudaOutWords, k.description);
}

std::vector<RandomBuffer> cuda_buffers(const CudaKernel& k) {
  RandomBuffer in{"in", std::vector<uint8_t>(4 * k.in.size())};
  std::memcpy(in.init.data(), k.in.data(), in.init.size());
  RandomBuffer out{"out", std::vector<uint8_t>(4 * k.out_init.size())};
  std::memcpy(out.init.data(), k.out_init.data(), out.init.size());
  return {std::move(in), std::move(out)};
}

std::vector<std::vector<uint8_t>> cuda_scalar_arguments(const CudaKernel& k) {
  auto bytes = [](const auto& v) {
    std::vector<uint8_t> b(sizeof v);
    std::memcpy(b.data(), &v, sizeof v);
    return b;
  };
  return {bytes(k.pa), bytes(k.pb), bytes(k.pf), bytes(k.pl)};
}

}  // namespace tsm::randgen
