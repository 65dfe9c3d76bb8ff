// The SP lane's integer ALU (rtl/sm/tsm_alu32.sv), as Verilated RTL or as the Yosys netlist of it,
// against the golden model's int_lane() (sim/golden/int_lane.cpp) on every output, bit for bit:
// every integer opcode with every combination of its modifiers, operand decorations and predicate
// fields (PT and negations included; LOP3 with all 256 tables), then random instructions, on
// operands biased toward the edges (0, ±1, INT_MIN, INT_MAX, shift amounts 0..40 and beyond,
// bit-field positions and lengths 0, 31, 32, past 32 and 255). The unit is combinational: set the
// inputs, eval(), compare.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>

#include "golden/int_lane.hpp"
#include "isa/assembler.hpp"
#include "isa/isa.hpp"
#include TSM_MODEL_HEADER

namespace {

namespace g = tsm::isa::gen;
namespace isa = tsm::isa;
using isa::Field;
using isa::InsnInfo;
using isa::OperandKind;

struct Case {
  uint64_t insn;
  uint32_t a, b, c, c_hi;
  uint8_t preds;
};

const std::vector<g::Op> kIntegerOps = {g::Op::IADD, g::Op::IMUL, g::Op::IMAD, g::Op::SHL,  g::Op::SHR,   g::Op::SHF,  g::Op::LOP,
                                        g::Op::LOP3, g::Op::IMNMX, g::Op::ISETP, g::Op::SEL, g::Op::POPC, g::Op::CLZ, g::Op::BREV,
                                        g::Op::BFE,  g::Op::BFI,  g::Op::PRMT, g::Op::MOV,  g::Op::MOV32I, g::Op::PLOP};

// One knob of an instruction the enumeration turns: a modifier, an operand decoration, a predicate
// field, LOP3's table.
struct Knob {
  Field field;
  uint64_t count;
};

std::vector<Knob> knobs(const InsnInfo& in) {
  std::vector<Knob> out;
  for (unsigned i = 0; i < in.num_mods; ++i) {
    const auto& fi = isa::field_info(in.mods[i]);
    out.push_back({in.mods[i], fi.kind == g::FieldKind::Flag ? 2u : isa::enum_info(fi.enum_id).count});
  }
  for (unsigned i = 0; i < in.num_operands; ++i) {
    const auto& op = in.operands[i];
    for (Field f : {op.neg, op.abs, op.inv, op.pneg})
      if (f != Field::None) out.push_back({f, 2});
    if (op.kind == OperandKind::Pred) out.push_back({op.field, 8});
    if (op.kind == OperandKind::Uimm) out.push_back({op.field, uint64_t{1} << isa::field_info(op.field).width});
  }
  return out;
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : r_(seed) {}

  uint64_t below(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(r_); }
  uint32_t word() { return static_cast<uint32_t>(r_()); }

  // A valid encoding of `in` with the knobs set as given; the rest (registers, the source of B,
  // the guard) random.
  uint64_t encode(const InsnInfo& in, const std::vector<Knob>& ks, const std::vector<uint64_t>& values) {
    uint64_t w = isa::set(0, Field::op, in.opcode);
    w = isa::set(w, Field::pg, below(8));
    w = isa::set(w, Field::pgn, below(2));
    for (size_t i = 0; i < ks.size(); ++i) w = isa::set(w, ks[i].field, values[i]);
    for (unsigned i = 0; i < in.num_operands; ++i) {
      const auto& op = in.operands[i];
      if (op.kind == OperandKind::Reg) w = isa::set(w, op.field, 2 * below(127));  // even: pairs stay aligned
      if (op.kind == OperandKind::Imm32) w = isa::set(w, Field::imm32, word());
      if (op.kind == OperandKind::B) {
        const uint64_t src = below(3);
        w = isa::set(w, Field::bsel, src);
        if (src == 0) w = isa::set(w, Field::rb, 2 * below(127));
        if (src == 1) w = isa::set(isa::set(w, Field::cbank, below(16)), Field::coff, 4 * below(16384));
        if (src == 2) w = isa::set(w, Field::imm20, below(1u << 20));
      }
    }
    return w;
  }

  // Operand values: edges, small numbers, neighbours of edges, random words.
  uint32_t value() {
    static const uint32_t kEdges[] = {0,          1,          2,          3,          0x7FFFFFFF, 0x80000000, 0x80000001,
                                      0xFFFFFFFF, 0xFFFFFFFE, 0x0000FFFF, 0xFFFF0000, 0x00000080, 0x000000FF, 0x00008000,
                                      0x55555555, 0xAAAAAAAA, 31,         32,         33,         0x7FFFFFFE};
    switch (below(8)) {
      case 0: case 1: return kEdges[below(std::size(kEdges))];
      case 2: return static_cast<uint32_t>(below(41));
      case 3: return kEdges[below(std::size(kEdges))] + static_cast<uint32_t>(below(5)) - 2;
      case 4: return 1u << below(32);
      default: return word();
    }
  }

  // Operand B as the opcode uses it: shift amounts, packed bit-field positions and lengths.
  uint32_t b_for(g::Op op, uint32_t a) {
    static const uint32_t kPos[] = {0, 1, 4, 8, 15, 16, 24, 30, 31, 32, 33, 40, 127, 200, 255};
    static const uint32_t kLen[] = {0, 1, 2, 7, 8, 16, 24, 31, 32, 33, 40, 255};
    switch (op) {
      case g::Op::SHL: case g::Op::SHR: case g::Op::SHF:
        if (below(2)) return static_cast<uint32_t>(below(41));
        break;
      case g::Op::BFE: case g::Op::BFI:
        if (below(4)) {
          const uint32_t pos = below(2) ? kPos[below(std::size(kPos))] : static_cast<uint32_t>(below(256));
          const uint32_t len = below(2) ? kLen[below(std::size(kLen))] : static_cast<uint32_t>(below(256));
          const uint32_t high = below(2) ? 0 : word() & 0xFFFF0000;  // bits above the length are ignored
          return high | len << 8 | pos;
        }
        break;
      case g::Op::IMNMX: case g::Op::ISETP: case g::Op::IADD:
        if (below(4) == 0) return a + static_cast<uint32_t>(below(3)) - 1;  // equal or neighbours
        break;
      default: break;
    }
    return value();
  }

  Case make(const InsnInfo& in, const std::vector<Knob>& ks, const std::vector<uint64_t>& values) {
    Case c{};
    c.insn = encode(in, ks, values);
    c.a = value();
    c.b = b_for(static_cast<g::Op>(in.opcode), c.a);
    c.c = value();
    c.c_hi = value();
    c.preds = static_cast<uint8_t>(0x80 | below(128));
    return c;
  }

 private:
  std::mt19937_64 r_;
};

// Every combination of every integer instruction's knobs, each with at least one operand set and
// at least 1,500 sets per instruction.
std::vector<Case> enumerated_cases() {
  Generator gen(0xA1B32);
  std::vector<Case> out;
  for (const g::Op op : kIntegerOps) {
    const InsnInfo& in = *isa::find_opcode(static_cast<uint8_t>(op));
    const std::vector<Knob> ks = knobs(in);
    uint64_t combos = 1;
    for (const Knob& k : ks) combos *= k.count;
    const uint64_t reps = std::max<uint64_t>(1, (1500 + combos - 1) / combos);
    for (uint64_t n = 0; n < combos * reps; ++n) {
      std::vector<uint64_t> values;
      uint64_t rest = n % combos;
      for (const Knob& k : ks) {
        values.push_back(rest % k.count);
        rest /= k.count;
      }
      out.push_back(gen.make(in, ks, values));
    }
  }
  return out;
}

std::vector<Case> random_cases(size_t count) {
  Generator gen(0x5EED32);
  std::vector<Case> out;
  for (size_t i = 0; i < count; ++i) {
    const InsnInfo& in = *isa::find_opcode(static_cast<uint8_t>(kIntegerOps[gen.below(kIntegerOps.size())]));
    const std::vector<Knob> ks = knobs(in);
    std::vector<uint64_t> values;
    for (const Knob& k : ks) values.push_back(gen.below(k.count));
    out.push_back(gen.make(in, ks, values));
  }
  return out;
}

class Alu32 : public ::testing::Test {
 protected:
  // Drives one case; "" when every output matches the golden model, else what differs.
  std::string check(const Case& c) {
    dut_->insn_i = c.insn;
    dut_->a_i = c.a;
    dut_->b_i = c.b;
    dut_->c_i = c.c;
    dut_->c_hi_i = c.c_hi;
    dut_->preds_i = c.preds;
    dut_->eval();
    const auto want = tsm::golden::int_lane(c.insn, c.a, c.b, c.c, c.c_hi, c.preds);
    if (!isa::decode(c.insn)) return fmt::format("{:#018x} is no valid encoding: {}", c.insn, isa::decode(c.insn).error);
    if (!want) return fmt::format("{:#018x} is not an integer instruction", c.insn);
    if (dut_->d_o == want->d && dut_->d_hi_o == want->d_hi && dut_->d_we_o == want->d_we && dut_->d_wide_o == want->d_wide &&
        dut_->preds_o == want->preds && dut_->preds_we_o == want->preds_we)
      return "";
    return fmt::format(
        "{} ({:#018x}) a {:#010x} b {:#010x} c {:#010x} c_hi {:#010x} preds {:#04x}:\n"
        "  RTL    d {:#010x} d_hi {:#010x} we {} wide {} preds {:#04x} preds_we {:#04x}\n"
        "  golden d {:#010x} d_hi {:#010x} we {} wide {} preds {:#04x} preds_we {:#04x}",
        isa::disassemble(c.insn), c.insn, c.a, c.b, c.c, c.c_hi, c.preds, dut_->d_o, dut_->d_hi_o, dut_->d_we_o,
        dut_->d_wide_o, dut_->preds_o, dut_->preds_we_o, want->d, want->d_hi, want->d_we, want->d_wide, want->preds,
        want->preds_we);
  }

  // Runs the cases, reporting the first ten mismatches and how many there were in all.
  void run(const std::vector<Case>& cases) {
    size_t failures = 0;
    for (const Case& c : cases) {
      const std::string diff = check(c);
      if (!diff.empty() && ++failures <= 10) ADD_FAILURE() << diff;
    }
    EXPECT_EQ(failures, 0u) << "cases that differ, of " << cases.size();
  }

  std::unique_ptr<VerilatedContext> ctx_ = std::make_unique<VerilatedContext>();
  std::unique_ptr<TSM_MODEL_CLASS> dut_ = std::make_unique<TSM_MODEL_CLASS>(ctx_.get());
};

TEST_F(Alu32, EveryModifierCombinationMatchesTheGoldenModel) {
  const std::vector<Case> cases = enumerated_cases();
  EXPECT_GE(cases.size(), 70000u);
  run(cases);
}

TEST_F(Alu32, RandomInstructionsMatchTheGoldenModel) {
  run(random_cases(TSM_RANDOM_CASES));
}

// Results stated by hand rather than by the golden model, for the cases where a shared mistake
// would matter most.
TEST_F(Alu32, KnownResults) {
  struct Known {
    const char* line;
    uint32_t a, b, c;
    uint8_t preds;
    uint32_t d;
    uint8_t preds_out;
  };
  const Known known[] = {
      {"IADD.CC R0, R1, R2, P0", 0xFFFFFFFF, 1, 0, 0x80, 0, 0x81},                 // carry out
      {"IADD.X R0, R1, R2, P0", 5, 6, 0, 0x81, 12, 0x81},                          // carry in
      {"IADD.CC R0, R1, -R2, P3", 3, 5, 0, 0x88, 0xFFFFFFFE, 0x80},                // borrow: no carry
      {"IADD.SAT R0, R1, R2", 0x7FFFFFFF, 1, 0, 0x80, 0x7FFFFFFF, 0x80},           // saturates up
      {"IADD.SAT R0, R1, -R2", 0x80000000, 1, 0, 0x80, 0x80000000, 0x80},          // and down
      {"IMUL.HI.S32 R0, R1, R2", 0xFFFFFFFF, 0xFFFFFFFF, 0, 0x80, 0, 0x80},        // -1 * -1
      {"IMUL.HI.U32 R0, R1, R2", 0xFFFFFFFF, 0xFFFFFFFF, 0, 0x80, 0xFFFFFFFE, 0x80},   // unsigned
      {"SHR.S32 R0, R1, R2", 0x80000000, 40, 0, 0x80, 0xFFFFFFFF, 0x80},           // amounts past 31
      {"SHF.L R0, R1, R2, R3", 0x12345678, 40, 0x9ABCDEF0, 0x80, 0x12345678, 0x80},  // CLAMP: 32
      {"SHF.L.WRAP R0, R1, R2, R3", 0x80000000, 33, 0, 0x80, 1, 0x80},             // WRAP: 1
      {"BFE.S32 R0, R1, R2", 0x80, 0x0404, 0, 0x80, 0xFFFFFFF8, 0x80},             // field 0x8, signed
      {"BFE.U32 R0, R1, R2", 0xF0000000, 0x081C, 0, 0x80, 0xF, 0x80},                  // runs past bit 31
      {"BFI R0, R1, R2, R3", 0xFF, 0x081C, 0, 0x80, 0xF0000000, 0x80},             // inserted bits above 31 dropped
      {"PRMT R0, R1, R2, R3", 0x44332211, 0xF107, 0x88776655, 0x80, 0xFF221188, 0x80},
      {"ISETP.LT.U32.AND P1, P1, R1, R2", 1, 2, 0, 0x82, 0, 0x80},                     // Pq (false) wins over Pd
      {"PLOP.OR P2, !P0, P6", 0, 0, 0, 0xC1, 0, 0xC5},
  };
  for (const Known& k : known) {
    const uint64_t insn = tsm::assemble_instruction(k.line);
    const auto golden = tsm::golden::int_lane(insn, k.a, k.b, k.c, 0, k.preds);
    ASSERT_TRUE(golden) << k.line;
    EXPECT_EQ(golden->d, k.d) << k.line;
    EXPECT_EQ(golden->preds, k.preds_out) << k.line;
    EXPECT_EQ(check({insn, k.a, k.b, k.c, 0, k.preds}), "") << k.line;
  }
}

// Nothing else writes: every other opcode leaves registers and predicates alone.
TEST_F(Alu32, OtherOpcodesWriteNothing) {
  Generator gen(0x07E5);
  for (unsigned op = 0; op < 256; ++op) {
    if (tsm::golden::int_lane(op, 0, 0, 0, 0, 0x80)) continue;
    for (int i = 0; i < 20; ++i) {
      dut_->insn_i = ((uint64_t{gen.word()} << 32 | gen.word()) & ~uint64_t{0xFF}) | op;
      dut_->a_i = gen.value();
      dut_->b_i = gen.value();
      dut_->c_i = gen.value();
      dut_->c_hi_i = gen.value();
      dut_->preds_i = static_cast<uint8_t>(0x80 | gen.below(128));
      dut_->eval();
      ASSERT_FALSE(dut_->d_we_o || dut_->d_wide_o || dut_->preds_we_o) << fmt::format("opcode {:#04x}", op);
    }
  }
}

}  // namespace
