// PTX parser tests: each grammar feature on hand-written PTX, exact AST shapes of committed nvcc and
// clang output (tests/ptx/fixtures), and every malformed module in tests/ptx/bad with the position
// and message of its error.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ptx/ast.hpp"

namespace tsm::ptx {
namespace {

namespace fs = std::filesystem;
using K = Operand::Kind;

const fs::path kTestDir = fs::path(TSM_SOURCE_DIR) / "tests" / "ptx";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr const char* kHeader = ".version 7.0\n.target sm_75\n.address_size 64\n";

Module parse_body(const std::string& body) { return parse(std::string(kHeader) + body, "t.ptx"); }

// The error a module raises; fails the test if it parses.
PtxError error_of(const std::string& text) {
  try {
    parse(text, "t.ptx");
  } catch (const PtxError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return PtxError("t.ptx", {}, "none");
}

const Function& function(const Module& m, const std::string& name) {
  for (const Function& f : m.functions) {
    if (f.name == name) return f;
  }
  throw std::runtime_error("no function " + name);
}

const VarDecl& global(const Module& m, const std::string& name) {
  for (const VarDecl& g : m.globals) {
    if (g.name == name) return g;
  }
  throw std::runtime_error("no global " + name);
}

const VarDecl& local(const Function& f, const std::string& name) {
  for (const VarDecl& d : f.decls) {
    if (d.name == name) return d;
  }
  throw std::runtime_error("no declaration " + name + " in " + f.name);
}

std::vector<const Instruction*> instructions(const Function& f) {
  std::vector<const Instruction*> out;
  for (const Statement& s : f.body) {
    if (s.kind == Statement::Kind::Instr) out.push_back(&s.instr);
  }
  return out;
}

std::vector<const Instruction*> with_opcode(const Function& f, const std::string& opcode) {
  std::vector<const Instruction*> out;
  for (const Instruction* i : instructions(f)) {
    if (i->opcode == opcode) out.push_back(i);
  }
  return out;
}

// ---------------------------------------------------------------- module structure

TEST(Grammar, HeaderDirectivesCommentsAndDebugInformation) {
  Module m = parse(R"(// a comment
/* a block
   comment */ .version 6.4
.target sm_75, texmode_independent, debug
.address_size 32
.file 1 "kernel.cu", 1700000000, 1234
@@DWARF .section .debug_abbrev, "", @progbits
.section .debug_info { .b32 12 .b8 1, 2 $L__info: .b64 $L__func_begin0 { } }
.pragma "nounroll";
.entry k()
{
  .loc 1 5 3
  .loc 1 10 5, function_name $L__info_string0, inlined_at 1 20 3
  ret; // trailing comment
}
.section .debug_loc { }
)",
                   "header.ptx");
  EXPECT_EQ(m.file, "header.ptx");
  EXPECT_EQ(m.version_major, 6u);
  EXPECT_EQ(m.version_minor, 4u);
  EXPECT_EQ(m.target, "sm_75");
  EXPECT_EQ(m.address_size, 32u);
  ASSERT_EQ(m.functions.size(), 1u);
  const Function& k = m.functions[0];
  EXPECT_TRUE(k.is_entry);
  EXPECT_FALSE(k.is_visible);
  ASSERT_EQ(k.body.size(), 1u);
  EXPECT_EQ(k.body[0].instr.opcode, "ret");
  EXPECT_EQ(k.body[0].loc.line, 14);
  EXPECT_EQ(k.body[0].loc.col, 3);
}

TEST(Grammar, LinkageEntriesFunctionsAndParameters) {
  Module m = parse_body(R"(
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.weak .func (.param .align 16 .b8 ret[16]) pair (.reg .b32 a, .param .f64 b)
{
  ret;
}
.visible .entry kern(
  .param .u64 .ptr .global .align 4 kern_param_0,
  .param .align 8 .b8 kern_param_1[12],
  .param .u32 .ptr .shared kern_param_2,
  .param .v2 .f32 kern_param_3
)
{
  ret;
}
.func noargs
{
  ret;
}
)");
  ASSERT_EQ(m.functions.size(), 4u);
  const Function& vprintf = m.functions[0];
  EXPECT_TRUE(vprintf.is_extern);
  EXPECT_FALSE(vprintf.is_entry);
  EXPECT_TRUE(vprintf.body.empty());
  ASSERT_EQ(vprintf.returns.size(), 1u);
  EXPECT_EQ(vprintf.returns[0].name, "func_retval0");
  EXPECT_EQ(vprintf.returns[0].space, Space::Param);
  ASSERT_EQ(vprintf.params.size(), 2u);
  EXPECT_EQ(vprintf.params[1].name, "vprintf_param_1");
  EXPECT_EQ(vprintf.params[1].type.str(), "b64");

  const Function& pair = m.functions[1];
  EXPECT_TRUE(pair.is_visible);  // .weak
  EXPECT_FALSE(pair.is_extern);
  ASSERT_EQ(pair.returns.size(), 1u);
  EXPECT_EQ(pair.returns[0].align, 16u);
  EXPECT_EQ(pair.returns[0].dims, std::vector<uint64_t>{16});
  ASSERT_EQ(pair.params.size(), 2u);
  EXPECT_EQ(pair.params[0].space, Space::Reg);
  EXPECT_EQ(pair.params[1].type.str(), "f64");

  const Function& kern = m.functions[2];
  EXPECT_TRUE(kern.is_entry);
  EXPECT_TRUE(kern.is_visible);
  ASSERT_EQ(kern.params.size(), 4u);
  EXPECT_TRUE(kern.params[0].ptr);
  EXPECT_EQ(kern.params[0].ptr_space, Space::Global);
  EXPECT_EQ(kern.params[0].align, 0u);  // the .align after .ptr is the pointee's
  EXPECT_EQ(kern.params[0].type.str(), "u64");
  EXPECT_EQ(kern.params[1].align, 8u);
  EXPECT_EQ(kern.params[1].type.str(), "b8");
  EXPECT_EQ(kern.params[1].dims, std::vector<uint64_t>{12});
  EXPECT_FALSE(kern.params[1].ptr);
  EXPECT_EQ(kern.params[2].ptr_space, Space::Shared);
  EXPECT_EQ(kern.params[3].vector, 2u);

  EXPECT_TRUE(m.functions[3].params.empty());
  EXPECT_TRUE(m.functions[3].returns.empty());
}

TEST(Grammar, PerformanceDirectives) {
  Module m = parse_body(R"(
.entry a .maxntid 256 .minnctapersm 2 { ret; }
.entry b() .reqntid 32, 4 .maxnreg 40 .pragma "nounroll"; { .pragma "nounroll"; ret; }
.entry c() .maxntid 8, 4, 2 .noreturn { ret; }
)");
  const Function& a = m.functions[0];
  EXPECT_EQ(a.maxntid[0], 256u);
  EXPECT_EQ(a.maxntid[1], 1u);
  EXPECT_EQ(a.maxntid[2], 1u);
  EXPECT_EQ(a.minnctapersm, 2u);
  const Function& b = m.functions[1];
  EXPECT_EQ(b.reqntid[0], 32u);
  EXPECT_EQ(b.reqntid[1], 4u);
  EXPECT_EQ(b.reqntid[2], 1u);
  EXPECT_EQ(b.maxnreg, 40u);
  EXPECT_EQ(b.maxntid[0], 0u);
  const Function& c = m.functions[2];
  EXPECT_EQ(c.maxntid[0], 8u);
  EXPECT_EQ(c.maxntid[1], 4u);
  EXPECT_EQ(c.maxntid[2], 2u);
}

TEST(Grammar, ForwardDeclarationIsReplacedByTheDefinition) {
  Module m = parse_body(R"(
.func (.param .b32 r) f (.param .b32 x);
.entry k() { .param .b32 a; .param .b32 r; call (r), f, (a); ret; }
.func (.param .b32 r) f (.param .b32 x) { st.param.b32 [r], 1; ret; }
)");
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(m.functions[0].name, "f");
  EXPECT_FALSE(m.functions[0].is_extern);
  EXPECT_EQ(m.functions[0].body.size(), 2u);
}

// ---------------------------------------------------------------- declarations

TEST(Grammar, RegisterDeclarations) {
  Module m = parse_body(R"(
.entry k()
{
  .reg .b32 %r<10>;
  .reg .pred %p, %q<3>;
  .reg .v4 .f32 %v;
  .reg .f16x2 %hh<2>;
  .reg .b16 %rs<5>;
  .reg .u64 count;
  mov.f32 %v.x, 0f00000000;
  add.u64 count, count, 1;
  ret;
}
)");
  const Function& k = m.functions[0];
  ASSERT_EQ(k.decls.size(), 7u);
  EXPECT_EQ(k.decls[0].name, "%r");
  EXPECT_EQ(k.decls[0].range, 10u);
  EXPECT_EQ(k.decls[0].space, Space::Reg);
  EXPECT_EQ(k.decls[0].type.str(), "b32");
  EXPECT_EQ(k.decls[1].name, "%p");
  EXPECT_EQ(k.decls[1].range, 0u);
  EXPECT_EQ(k.decls[1].type.kind, Type::Kind::Pred);
  EXPECT_EQ(k.decls[1].type.str(), "pred");
  EXPECT_EQ(k.decls[2].name, "%q");
  EXPECT_EQ(k.decls[2].range, 3u);
  EXPECT_EQ(k.decls[3].vector, 4u);
  EXPECT_EQ(k.decls[4].type.str(), "b32");  // packed halves keep their storage width
  auto ins = instructions(k);
  EXPECT_EQ(ins[0]->operands[0].kind, K::Reg);
  EXPECT_EQ(ins[0]->operands[0].name, "%v.x");
  EXPECT_EQ(ins[1]->operands[0].kind, K::Reg);  // a user-named register
  EXPECT_EQ(ins[1]->operands[0].name, "count");
}

TEST(Grammar, MemoryDeclarations) {
  Module m = parse_body(R"(
.extern .shared .align 16 .b8 dyn[];
.shared .align 4 .b8 tile[256];
.global .align 8 .f64 grid[4][8][2];
.visible .global .v4 .u32 quad;
.local .u32 spill;
.entry k()
{
  .shared .align 4 .b8 _ZZ4kernE4buf[1024];
  .local .align 16 .b8 __local_depot0[64];
  .local .v2 .f32 pair;
  ret;
}
)");
  const VarDecl& dyn = global(m, "dyn");
  EXPECT_EQ(dyn.space, Space::Shared);
  EXPECT_TRUE(dyn.is_extern);
  EXPECT_EQ(dyn.align, 16u);
  EXPECT_EQ(dyn.dims, std::vector<uint64_t>{0});
  EXPECT_EQ(global(m, "tile").dims, std::vector<uint64_t>{256});
  EXPECT_FALSE(global(m, "tile").is_extern);
  EXPECT_EQ(global(m, "grid").dims, (std::vector<uint64_t>{4, 8, 2}));
  EXPECT_EQ(global(m, "quad").vector, 4u);
  EXPECT_TRUE(global(m, "quad").is_visible);
  EXPECT_EQ(global(m, "spill").space, Space::Local);
  const Function& k = m.functions[0];
  EXPECT_EQ(local(k, "_ZZ4kernE4buf").space, Space::Shared);
  EXPECT_EQ(local(k, "_ZZ4kernE4buf").dims, std::vector<uint64_t>{1024});
  EXPECT_EQ(local(k, "__local_depot0").space, Space::Local);
  EXPECT_EQ(local(k, "__local_depot0").align, 16u);
  EXPECT_EQ(local(k, "pair").vector, 2u);
}

TEST(Grammar, Initializers) {
  Module m = parse_body(R"(
.global .align 4 .b8 $str[8] = {104, 105, 0};
.const .f32 one = 0f3F800000;
.const .f32 half = 0.5;
.const .f64 dec = 2.5;
.const .f64 widened = 0f3F800000;
.const .f32 narrowed = 0d3FF8000000000000;
.const .f32 from_int = 3;
.global .s32 neg = -7;
.global .u64 big = -9000000000;
.global .u32 bases[4] = {0x10, 0b101, 017, 42U};
.global .s16 table[2][3] = {{1, 2, 3}, {4, -5, 6}};
.global .u32 unsized[] = {1, 2, 3};
.global .v2 .u32 vec = {7, 8};
.global .u64 ptrs[3] = {generic($str), $str+4, 0};
.const .f32 negf = -0f3F800000;
.global .b32 raw = 0f40490FDB;
.global .align 1 .u8 packed[3] = {1, 0XFF(generic(neg)), 0xFF00(neg)};
)");
  EXPECT_EQ(global(m, "$str").init, (std::vector<uint64_t>{104, 105, 0}));  // not padded to 8
  EXPECT_EQ(global(m, "$str").init_symbols, (std::vector<std::string>{"", "", ""}));
  EXPECT_TRUE(global(m, "$str").has_init);
  EXPECT_EQ(global(m, "one").init, std::vector<uint64_t>{0x3F800000});
  EXPECT_EQ(global(m, "half").init, std::vector<uint64_t>{std::bit_cast<uint32_t>(0.5f)});
  EXPECT_EQ(global(m, "dec").init, std::vector<uint64_t>{std::bit_cast<uint64_t>(2.5)});
  EXPECT_EQ(global(m, "widened").init, std::vector<uint64_t>{std::bit_cast<uint64_t>(1.0)});
  EXPECT_EQ(global(m, "narrowed").init, std::vector<uint64_t>{std::bit_cast<uint32_t>(1.5f)});
  EXPECT_EQ(global(m, "from_int").init, std::vector<uint64_t>{std::bit_cast<uint32_t>(3.0f)});
  EXPECT_EQ(global(m, "neg").init, std::vector<uint64_t>{0xFFFFFFF9});
  EXPECT_EQ(global(m, "big").init, std::vector<uint64_t>{static_cast<uint64_t>(-9000000000LL)});
  EXPECT_EQ(global(m, "bases").init, (std::vector<uint64_t>{16, 5, 15, 42}));
  EXPECT_EQ(global(m, "table").init, (std::vector<uint64_t>{1, 2, 3, 4, 0xFFFB, 6}));
  EXPECT_EQ(global(m, "table").dims, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(global(m, "unsized").dims, std::vector<uint64_t>{3});
  EXPECT_EQ(global(m, "vec").init, (std::vector<uint64_t>{7, 8}));
  const VarDecl& ptrs = global(m, "ptrs");
  EXPECT_EQ(ptrs.init, (std::vector<uint64_t>{0, 4, 0}));  // symbol offsets
  EXPECT_EQ(ptrs.init_symbols, (std::vector<std::string>{"$str", "$str", ""}));
  EXPECT_EQ(global(m, "negf").init, std::vector<uint64_t>{0xBF800000});
  EXPECT_EQ(global(m, "raw").init, std::vector<uint64_t>{0x40490FDB});
  EXPECT_EQ(global(m, "one").init_masks, std::vector<uint64_t>{0});
  // nvcc's form for a pointer inside a packed struct: one byte of the address per element.
  const VarDecl& packed = global(m, "packed");
  EXPECT_EQ(packed.init, (std::vector<uint64_t>{1, 0, 0}));
  EXPECT_EQ(packed.init_symbols, (std::vector<std::string>{"", "neg", "neg"}));
  EXPECT_EQ(packed.init_masks, (std::vector<uint64_t>{0, 0xFF, 0xFF00}));
}

// ---------------------------------------------------------------- instructions and operands

TEST(Grammar, LabelsGuardsAndModifiers) {
  Module m = parse_body(R"(
.entry k()
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
$L__BB0_1:
  @%p1 bra $L__BB0_2;
  @!%p2 bra.uni LBB0_3;
  ld.global.nc.L2::evict_last.v2.u32 {%r1, %r2}, [%r3];
$L__BB0_2: LBB0_3:
  ret;
}
)");
  const Function& k = m.functions[0];
  ASSERT_EQ(k.body.size(), 7u);
  EXPECT_EQ(k.body[0].kind, Statement::Kind::Label);
  EXPECT_EQ(k.body[0].label, "$L__BB0_1");
  const Instruction& bra = k.body[1].instr;
  EXPECT_EQ(bra.guard, "%p1");
  EXPECT_FALSE(bra.guard_neg);
  EXPECT_EQ(bra.operands[0].kind, K::Symbol);
  EXPECT_EQ(bra.operands[0].name, "$L__BB0_2");
  const Instruction& uni = k.body[2].instr;
  EXPECT_EQ(uni.guard, "%p2");
  EXPECT_TRUE(uni.guard_neg);
  EXPECT_EQ(uni.mods, std::vector<std::string>{"uni"});
  const Instruction& ld = k.body[3].instr;
  EXPECT_EQ(ld.opcode, "ld");
  EXPECT_EQ(ld.mods, (std::vector<std::string>{"global", "nc", "L2::evict_last", "v2", "u32"}));
  EXPECT_EQ(k.body[4].label, "$L__BB0_2");
  EXPECT_EQ(k.body[5].label, "LBB0_3");
}

TEST(Grammar, SpecialRegisters) {
  const char* specials[] = {
      "%tid.x",           "%tid.y",       "%tid.z",       "%ntid.x",      "%ctaid.y",     "%nctaid.z",
      "%laneid",          "%warpid",      "%nwarpid",     "%smid",        "%nsmid",       "%gridid",
      "%clock",           "%clock64",     "%lanemask_eq", "%lanemask_lt", "%lanemask_ge", "%dynamic_smem_size",
      "%total_smem_size", "%globaltimer", "%envreg3",     "%pm0",         "%pm7_64"};
  std::string body = ".entry k()\n{\n  .reg .b64 %rd;\n";
  for (const char* s : specials) body += std::string("  mov.u32 %rd, ") + s + ";\n";
  body += "  ret;\n}\n";
  Module m = parse_body(body);
  auto ins = instructions(m.functions[0]);
  for (size_t i = 0; i < std::size(specials); ++i) {
    EXPECT_EQ(ins[i]->operands[1].kind, K::Special) << specials[i];
    EXPECT_EQ(ins[i]->operands[1].name, specials[i]);
  }
}

TEST(Grammar, ImmediateOperands) {
  Module m = parse_body(R"(
.entry k()
{
  .reg .b64 %rd;
  mov.u64 %rd, 42;
  mov.u64 %rd, 0x2aU;
  mov.u64 %rd, 0X2A;
  mov.u64 %rd, 052;
  mov.u64 %rd, 0b101010;
  mov.u64 %rd, -8;
  mov.u64 %rd, 0xFFFFFFFFFFFFFFFF;
  mov.u64 %rd, 0;
  mov.f32 %rd, 0f3F800000;
  mov.f64 %rd, 0d3FF0000000000000;
  mov.f32 %rd, -0f3F800000;
  mov.f64 %rd, 1.5e3;
  mov.f64 %rd, -0.25;
  ret;
}
)");
  auto ins = instructions(m.functions[0]);
  int64_t ints[] = {42, 42, 42, 42, 42, -8, -1, 0};
  for (size_t i = 0; i < std::size(ints); ++i) {
    EXPECT_EQ(ins[i]->operands[1].kind, K::Imm) << i;
    EXPECT_EQ(ins[i]->operands[1].imm, ints[i]) << i;
  }
  struct {
    uint64_t bits;
    bool f64;
  } floats[] = {{0x3F800000, false},
                {0x3FF0000000000000, true},
                {0xBF800000, false},
                {std::bit_cast<uint64_t>(1500.0), true},
                {std::bit_cast<uint64_t>(-0.25), true}};
  for (size_t i = 0; i < std::size(floats); ++i) {
    const Operand& op = ins[std::size(ints) + i]->operands[1];
    EXPECT_EQ(op.kind, K::FImm) << i;
    EXPECT_EQ(op.fbits, floats[i].bits) << i;
    EXPECT_EQ(op.f64, floats[i].f64) << i;
  }
}

TEST(Grammar, AddressOperands) {
  Module m = parse_body(R"(
.global .u32 arr[4];
.entry k()
{
  .reg .b32 %r<2>;
  .reg .b64 %rd1;
  ld.global.u32 %r1, [%rd1];
  ld.global.u32 %r1, [%rd1+8];
  ld.global.u32 %r1, [%rd1+-8];
  ld.global.u32 %r1, [%rd1-8];
  ld.global.u32 %r1, [arr];
  ld.global.u32 %r1, [arr+4];
  ld.global.u32 %r1, [12];
  ld.global.u32 %r1, [0x10];
  st.global.u32 [%rd1+0x10], %r1;
  mov.u64 %rd1, arr+4;
  ret;
}
)");
  auto ins = instructions(m.functions[0]);
  struct {
    const char* base;
    int64_t offset;
  } want[] = {{"%rd1", 0}, {"%rd1", 8}, {"%rd1", -8}, {"%rd1", -8}, {"arr", 0}, {"arr", 4}, {"", 12}, {"", 16}};
  for (size_t i = 0; i < std::size(want); ++i) {
    const Operand& op = ins[i]->operands[1];
    EXPECT_EQ(op.kind, K::Address) << i;
    EXPECT_EQ(op.name, want[i].base) << i;
    EXPECT_EQ(op.imm, want[i].offset) << i;
  }
  EXPECT_EQ(ins[8]->operands[0].kind, K::Address);
  EXPECT_EQ(ins[8]->operands[0].imm, 16);
  const Operand& sym = ins[9]->operands[1];
  EXPECT_EQ(sym.kind, K::Symbol);
  EXPECT_EQ(sym.name, "arr");
  EXPECT_EQ(sym.imm, 4);
}

TEST(Grammar, VectorsPredicatePairsAndNegation) {
  Module m = parse_body(R"(
.entry k()
{
  .reg .b32 %r<5>;
  .reg .pred %p<4>;
  .reg .b64 %rd1;
  ld.global.v4.u32 {%r1, _, %r3, _}, [%rd1];
  setp.lt.and.s32 %p1|%p2, %r1, %r2, %p3;
  shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;
  and.pred %p1, !%p2, %p3;
  mov.b64 %rd1, {%r1, %r2};
  ret;
}
)");
  auto ins = instructions(m.functions[0]);
  const Operand& vec = ins[0]->operands[0];
  ASSERT_EQ(vec.kind, K::Vector);
  ASSERT_EQ(vec.elems.size(), 4u);
  EXPECT_EQ(vec.elems[0].kind, K::Reg);
  EXPECT_EQ(vec.elems[1].kind, K::Discard);
  EXPECT_EQ(vec.elems[2].name, "%r3");
  EXPECT_EQ(vec.elems[3].kind, K::Discard);
  for (int i : {1, 2}) {
    const Operand& pair = ins[i]->operands[0];
    ASSERT_EQ(pair.kind, K::Vector) << i;
    ASSERT_EQ(pair.elems.size(), 2u);
    EXPECT_EQ(pair.elems[0].kind, K::Reg);
    EXPECT_EQ(pair.elems[1].kind, K::Reg);
    EXPECT_EQ(pair.elems[1].name, i == 1 ? "%p2" : "%p1");
  }
  EXPECT_EQ(ins[2]->operands[4].imm, -1);
  const Operand& negated = ins[3]->operands[1];
  EXPECT_EQ(negated.kind, K::Reg);
  EXPECT_TRUE(negated.neg);
  EXPECT_EQ(negated.name, "%p2");
  EXPECT_FALSE(ins[3]->operands[2].neg);
  EXPECT_EQ(ins[4]->operands[1].elems.size(), 2u);
}

TEST(Grammar, CallForms) {
  Module m = parse_body(R"(
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 a, .param .b64 b);
.func nothing() { ret; }
.func (.param .b32 r) only_ret() { st.param.b32 [r], 0; ret; }
.func take(.param .b32 x) { ret; }
.entry k()
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  {
  .param .b64 param0;
  .param .b64 param1;
  .param .b32 retval0;
  call.uni (retval0),
  vprintf,
  (
  param0,
  param1
  );
  }
  call nothing;
  call.uni nothing, ();
  call (%r1), only_ret;
  call take, (%r1);
  {
  .param .b32 param0;
  prototype_0 : .callprototype ()_ (.param .b32 _);
  call %rd1, (param0), prototype_0;
  }
  ret;
}
)");
  const Function& k = function(m, "k");
  auto calls = with_opcode(k, "call");
  ASSERT_EQ(calls.size(), 6u);
  const Instruction& printf_call = *calls[0];
  EXPECT_EQ(printf_call.mods, std::vector<std::string>{"uni"});
  ASSERT_EQ(printf_call.operands.size(), 3u);
  EXPECT_EQ(printf_call.operands[0].kind, K::Vector);
  ASSERT_EQ(printf_call.operands[0].elems.size(), 1u);
  EXPECT_EQ(printf_call.operands[0].elems[0].kind, K::Symbol);
  EXPECT_EQ(printf_call.operands[0].elems[0].name, "retval0$1");
  EXPECT_EQ(printf_call.operands[1].kind, K::Symbol);
  EXPECT_EQ(printf_call.operands[1].name, "vprintf");
  ASSERT_EQ(printf_call.operands[2].elems.size(), 2u);
  EXPECT_EQ(printf_call.operands[2].elems[1].name, "param1$1");
  for (int i : {1, 2}) {
    ASSERT_EQ(calls[i]->operands.size(), 3u) << i;
    EXPECT_TRUE(calls[i]->operands[0].elems.empty());
    EXPECT_EQ(calls[i]->operands[1].name, "nothing");
    EXPECT_EQ(calls[i]->operands[2].kind, K::Vector);
    EXPECT_TRUE(calls[i]->operands[2].elems.empty());
  }
  EXPECT_EQ(calls[3]->operands[0].elems.at(0).kind, K::Reg);
  EXPECT_TRUE(calls[3]->operands[2].elems.empty());
  EXPECT_TRUE(calls[4]->operands[0].elems.empty());
  EXPECT_EQ(calls[4]->operands[2].elems.at(0).name, "%r1");
  const Instruction& indirect = *calls[5];
  ASSERT_EQ(indirect.operands.size(), 4u);
  EXPECT_EQ(indirect.operands[1].kind, K::Reg);
  EXPECT_EQ(indirect.operands[1].name, "%rd1");
  EXPECT_EQ(indirect.operands[2].elems.at(0).name, "param0$2");
  EXPECT_EQ(indirect.operands[3].kind, K::Symbol);
  EXPECT_EQ(indirect.operands[3].name, "prototype_0");
}

TEST(Grammar, NestedBlocksAreFlattenedWithUniqueNames) {
  Module m = parse_body(R"(
.entry k()
{
  .reg .b32 %r<3>;
  .reg .pred p;
  {
    .reg .pred p;
    .reg .b32 t<2>;
    setp.ne.u32 p, %r1, 0;
    mov.u32 t1, %r1;
    {
      .reg .pred p;
      setp.eq.u32 p, t1, 0;
    }
    selp.u32 %r2, 1, 0, p;
  }
  setp.ne.u32 p, %r2, 0;
  {
    .reg .pred p;
    @p bra DONE;
  }
DONE:
  ret;
}
)");
  const Function& k = m.functions[0];
  std::vector<std::string> names;
  for (const VarDecl& d : k.decls) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{"%r", "p", "p$1", "t0$1", "t1$1", "p$2", "p$3"}));
  auto ins = instructions(k);
  EXPECT_EQ(ins[0]->operands[0].name, "p$1");
  EXPECT_EQ(ins[1]->operands[0].name, "t1$1");
  EXPECT_EQ(ins[2]->operands[0].name, "p$2");
  EXPECT_EQ(ins[2]->operands[1].name, "t1$1");  // an enclosing block's name
  EXPECT_EQ(ins[3]->operands[3].name, "p$1");
  EXPECT_EQ(ins[4]->operands[0].name, "p");  // back at function scope
  EXPECT_EQ(ins[5]->guard, "p$3");
}

TEST(Grammar, TypeNames) {
  EXPECT_EQ((Type{Type::Kind::U, 32}).str(), "u32");
  EXPECT_EQ((Type{Type::Kind::S, 8}).str(), "s8");
  EXPECT_EQ((Type{Type::Kind::B, 64}).str(), "b64");
  EXPECT_EQ((Type{Type::Kind::F, 16}).str(), "f16");
  EXPECT_EQ((Type{Type::Kind::Pred, 1}).str(), "pred");
}

TEST(Errors, MessageFormat) {
  PtxError e = error_of(std::string(kHeader) + ".entry k()\n{\n  ret\n  foo;\n}\n");
  EXPECT_EQ(e.file, "t.ptx");
  EXPECT_EQ(e.loc.line, 7);
  EXPECT_EQ(e.loc.col, 3);
  EXPECT_EQ(e.message, "expected ';' after instruction, found 'foo'");
  EXPECT_STREQ(e.what(), "t.ptx:7:3: error: expected ';' after instruction, found 'foo'");
}

TEST(Errors, EmptyAndBinaryInput) {
  EXPECT_EQ(error_of("").message, "expected '.version' at the start of the module, found end of file");
  EXPECT_EQ(error_of(std::string("\0\x01", 2)).message, "unexpected character '\\x00'");
  EXPECT_EQ(error_of(std::string(kHeader) + "\xff").message, "unexpected character '\\xff'");
}

TEST(Errors, DeepNestingIsAnErrorNotACrash) {
  std::string deep = std::string(kHeader) + ".entry k()\n{\n" + std::string(100000, '{');
  EXPECT_EQ(error_of(deep).message, "blocks nested too deeply");
  std::string init = std::string(kHeader) + ".global .u32 x[1] = " + std::string(100000, '{');
  EXPECT_EQ(error_of(init).message, "initializer braces nested too deeply");
}

// ---------------------------------------------------------------- committed compiler output

Module parse_fixture(const std::string& name) {
  fs::path path = kTestDir / "fixtures" / name;
  return parse(read_file(path), name);
}

TEST(Fixture, NvccPrintf) {
  Module m = parse_fixture("nvcc_printf.ptx");
  EXPECT_EQ(m.version_major, 9u);
  EXPECT_EQ(m.version_minor, 0u);
  EXPECT_EQ(m.target, "sm_75");
  ASSERT_EQ(m.globals.size(), 3u);
  const VarDecl& str = m.globals[0];
  EXPECT_EQ(str.name, "$str");
  EXPECT_EQ(str.space, Space::Global);
  EXPECT_EQ(str.dims, std::vector<uint64_t>{28});
  std::string text(str.init.begin(), str.init.end());
  EXPECT_EQ(text, "hello from thread %d of %d\n");
  EXPECT_EQ(m.globals[1].name, "$str$1");

  ASSERT_EQ(m.functions.size(), 2u);
  const Function& vprintf = m.functions[0];
  EXPECT_EQ(vprintf.name, "vprintf");
  EXPECT_TRUE(vprintf.is_extern);
  EXPECT_EQ(vprintf.returns.size(), 1u);
  EXPECT_EQ(vprintf.params.size(), 2u);

  const Function& hello = m.functions[1];
  EXPECT_TRUE(hello.is_entry);
  EXPECT_TRUE(hello.is_visible);
  ASSERT_EQ(hello.params.size(), 3u);
  EXPECT_EQ(hello.params[0].type.str(), "u32");
  EXPECT_EQ(hello.params[1].type.str(), "f32");
  EXPECT_EQ(hello.params[2].type.str(), "f64");
  EXPECT_EQ(local(hello, "__local_depot0").space, Space::Local);
  EXPECT_EQ(local(hello, "__local_depot0").dims, std::vector<uint64_t>{32});
  EXPECT_EQ(local(hello, "%rd").range, 10u);
  // Both call sequences declare param0; each block's copy gets its own name.
  EXPECT_EQ(local(hello, "param0$1").space, Space::Param);
  EXPECT_EQ(local(hello, "param0$2").space, Space::Param);
  EXPECT_EQ(local(hello, "temp_param_reg$2").space, Space::Reg);
  auto calls = with_opcode(hello, "call");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1]->operands[0].elems.at(0).name, "retval0$2");
  EXPECT_EQ(calls[1]->operands[2].elems.at(0).name, "param0$2");
  auto st_param = with_opcode(hello, "st");
  ASSERT_GE(st_param.size(), 2u);
  EXPECT_EQ(st_param[0]->operands[0].kind, K::Address);
  // Exact shape: 31 statements, of which one label; the first reads the stack depot's address.
  EXPECT_EQ(hello.body.size(), 31u);
  const Instruction& first = hello.body[0].instr;
  EXPECT_EQ(first.opcode, "mov");
  EXPECT_EQ(first.mods, std::vector<std::string>{"u64"});
  EXPECT_EQ(first.operands[0].kind, K::Reg);
  EXPECT_EQ(first.operands[0].name, "%SPL");
  EXPECT_EQ(first.operands[1].kind, K::Symbol);
  EXPECT_EQ(first.operands[1].name, "__local_depot0");
  EXPECT_EQ(hello.body[0].loc.line, 41);
  EXPECT_EQ(hello.body[0].loc.col, 2);
  const Statement& label = hello.body[29];
  EXPECT_EQ(label.kind, Statement::Kind::Label);
  EXPECT_EQ(label.label, "$L__BB0_2");
  const Instruction& store = hello.body[8].instr;
  EXPECT_EQ(store.opcode, "st");
  EXPECT_EQ(store.mods, (std::vector<std::string>{"local", "v2", "u32"}));
  EXPECT_EQ(store.operands[1].kind, K::Vector);
  EXPECT_EQ(store.operands[1].elems.size(), 2u);
  EXPECT_EQ(hello.body[7].instr.operands[1].kind, K::Special);
  EXPECT_EQ(hello.body[7].instr.operands[1].name, "%tid.x");
}

TEST(Fixture, NvccDebugSaxpy) {
  Module m = parse_fixture("nvcc_debug_saxpy.ptx");
  ASSERT_EQ(m.functions.size(), 1u);
  const Function& saxpy = m.functions[0];
  EXPECT_EQ(saxpy.name, "saxpy");
  ASSERT_EQ(saxpy.params.size(), 4u);
  EXPECT_EQ(saxpy.params[3].name, "saxpy_param_3");
  auto ins = instructions(saxpy);
  EXPECT_EQ(ins.size(), 29u);
  // -G: generic loads and stores, the .loc lines between them skipped.
  auto loads = with_opcode(saxpy, "ld");
  ASSERT_EQ(loads.size(), 6u);
  EXPECT_EQ(loads[4]->mods, std::vector<std::string>{"f32"});
  EXPECT_EQ(loads[4]->operands[1].name, "%rd5");
  std::vector<std::string> labels;
  for (const Statement& s : saxpy.body) {
    if (s.kind == Statement::Kind::Label) labels.push_back(s.label);
  }
  EXPECT_EQ(labels, (std::vector<std::string>{"$L__func_begin0", "$L__tmp0", "$L__tmp1", "$L__BB0_1", "$L__BB0_2",
                                              "$L__tmp2", "$L__func_end0"}));
}

TEST(Fixture, ClangConstantMemory) {
  Module m = parse_fixture("clang_constant_mem.ptx");
  EXPECT_EQ(m.version_major, 6u);
  EXPECT_EQ(m.version_minor, 3u);
  ASSERT_EQ(m.globals.size(), 8u);
  const VarDecl& coeffs = global(m, "coeffs");
  EXPECT_EQ(coeffs.space, Space::Const);
  EXPECT_TRUE(coeffs.is_visible);
  ASSERT_EQ(coeffs.init.size(), 16u);
  float values[4];
  for (int i = 0; i < 4; ++i) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) bits |= static_cast<uint32_t>(coeffs.init[4 * i + b]) << (8 * b);
    values[i] = std::bit_cast<float>(bits);
  }
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[1], 0.5f);
  EXPECT_EQ(values[2], 0.25f);
  EXPECT_EQ(values[3], 0.125f);
  EXPECT_EQ(global(m, "counter").init, std::vector<uint64_t>{42});
  EXPECT_EQ(global(m, "dscale").init, std::vector<uint64_t>{std::bit_cast<uint64_t>(2.5)});
  EXPECT_EQ(global(m, "big").init, std::vector<uint64_t>{static_cast<uint64_t>(-9000000000LL)});
  EXPECT_FALSE(global(m, "target_a").has_init);
  const VarDecl& pointers = global(m, "pointers");
  EXPECT_EQ(pointers.init_symbols, (std::vector<std::string>{"target_a", "target_b"}));
  EXPECT_EQ(pointers.init, (std::vector<uint64_t>{0, 0}));
  const Function& poly = function(m, "poly");
  auto ins = instructions(poly);
  EXPECT_EQ(ins.size(), 50u);
  auto consts = with_opcode(poly, "ld");
  ASSERT_EQ(consts.size(), 13u);
  EXPECT_EQ(consts[3]->mods, (std::vector<std::string>{"global", "f32"}));
  EXPECT_EQ(consts[4]->mods, (std::vector<std::string>{"const", "f32"}));
  EXPECT_EQ(consts[4]->operands[1].name, "coeffs");
  EXPECT_EQ(consts[4]->operands[1].imm, 0);
  EXPECT_EQ(consts[5]->operands[1].name, "coeffs");
  EXPECT_EQ(consts[5]->operands[1].imm, 4);
  EXPECT_EQ(consts[9]->operands[1].name, "%rd11");
  auto stores = with_opcode(poly, "st");
  ASSERT_EQ(stores.size(), 2u);
  EXPECT_EQ(stores[1]->mods, std::vector<std::string>{"u32"});  // generic store through a loaded pointer
}

TEST(Fixture, ClangShortPointerWarpOps) {
  Module m = parse_fixture("clang_shortptr_warp_ops.ptx");
  const Function& warp = function(m, "warp_ops");
  // Inline-asm blocks each declare their own `p`.
  int renamed = 0;
  for (const VarDecl& d : warp.decls) {
    if (d.name.rfind("p$", 0) == 0) {
      ++renamed;
      EXPECT_EQ(d.type.kind, Type::Kind::Pred);
    }
  }
  EXPECT_EQ(renamed, 8);
  auto shuffles = with_opcode(warp, "shfl");
  ASSERT_EQ(shuffles.size(), 8u);
  const Operand& pair = shuffles[0]->operands[0];
  ASSERT_EQ(pair.kind, K::Vector);
  EXPECT_EQ(pair.elems.at(1).name, "p$1");
  auto votes = with_opcode(warp, "vote");
  ASSERT_EQ(votes.size(), 3u);
  EXPECT_EQ(votes[0]->mods, (std::vector<std::string>{"sync", "ballot", "b32"}));
  EXPECT_EQ(votes[0]->operands[1].name, "p$6");
  EXPECT_EQ(votes[1]->operands[0].name, "p$7");
  EXPECT_EQ(votes[1]->operands[1].name, "p$7");
  auto selp = with_opcode(warp, "selp");
  ASSERT_EQ(selp.size(), 4u);
  EXPECT_EQ(selp[2]->mods, std::vector<std::string>{"s32"});
  EXPECT_EQ(selp[2]->operands[3].name, "p$7");  // the block's p, not the function's %p
}

TEST(Fixture, ClangDebugPrintf) {
  Module m = parse_fixture("clang_debug_printf.ptx");
  const Function& hello = function(m, "hello");
  EXPECT_EQ(with_opcode(hello, "call").size(), 2u);
  EXPECT_EQ(local(hello, "param1$2").type.str(), "b64");
  std::string text(global(m, "_$_str2").init.begin(), global(m, "_$_str2").init.end());
  EXPECT_EQ(text, std::string("done\0", 5));
}

// ---------------------------------------------------------------- malformed modules

// Each file in tests/ptx/bad starts with "// expect: LINE:COL: MESSAGE".
std::vector<std::string> bad_files() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kTestDir / "bad")) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class BadPtx : public testing::TestWithParam<std::string> {};

TEST_P(BadPtx, ReportsPositionAndMessage) {
  std::string text = read_file(kTestDir / "bad" / GetParam());
  const std::string tag = "// expect: ";
  ASSERT_EQ(text.rfind(tag, 0), 0u) << "the first line must be " << tag << "LINE:COL: MESSAGE";
  std::string expect = text.substr(tag.size(), text.find('\n') - tag.size());
  try {
    parse(text, GetParam());
    FAIL() << "no error, expected " << expect;
  } catch (const PtxError& e) {
    EXPECT_EQ(fmt::format("{}:{}: {}", e.loc.line, e.loc.col, e.message), expect);
    EXPECT_EQ(std::string(e.what()), fmt::format("{}:{}:{}: error: {}", GetParam(), e.loc.line, e.loc.col, e.message));
  }
}

INSTANTIATE_TEST_SUITE_P(Files, BadPtx, testing::ValuesIn(bad_files()), [](const auto& info) {
  std::string name = info.param.substr(0, info.param.find('.'));
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
});

}  // namespace
}  // namespace tsm::ptx
