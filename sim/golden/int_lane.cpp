// One SP lane's integer instruction, as docs/isa.md states it (see int_lane.hpp).
#include "golden/int_lane.hpp"

#include <algorithm>
#include <bit>

#include "golden/int_ops.hpp"

namespace tsm::golden {

namespace g = isa::gen;
using isa::Field;

uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel, g::Prmt mode) {
  const uint64_t src = uint64_t{b} << 32 | a;
  auto byte = [&](unsigned i) { return static_cast<uint32_t>(src >> (8 * (i & 7)) & 0xFF); };
  uint32_t idx[4] = {0, 1, 2, 3};
  const unsigned s2 = sel & 3;
  switch (mode) {
    case g::Prmt::IDX:
      for (unsigned i = 0; i < 4; ++i) {
        const unsigned nib = sel >> (4 * i) & 0xF;
        uint32_t v = byte(nib & 7);
        if (nib & 8) v = (v & 0x80) ? 0xFF : 0x00;  // replicate the selected byte's sign
        idx[i] = 0x100 | v;
      }
      return (idx[0] & 0xFF) | (idx[1] & 0xFF) << 8 | (idx[2] & 0xFF) << 16 | (idx[3] & 0xFF) << 24;
    case g::Prmt::F4E: for (unsigned i = 0; i < 4; ++i) idx[i] = s2 + i; break;
    case g::Prmt::B4E: for (unsigned i = 0; i < 4; ++i) idx[i] = (s2 + 8 - i) & 7; break;
    case g::Prmt::RC8: for (unsigned i = 0; i < 4; ++i) idx[i] = s2; break;
    case g::Prmt::ECL: for (unsigned i = 0; i < 4; ++i) idx[i] = std::max(i, s2); break;
    case g::Prmt::ECR: for (unsigned i = 0; i < 4; ++i) idx[i] = std::min(i, s2); break;
    case g::Prmt::RC16: for (unsigned i = 0; i < 4; ++i) idx[i] = (sel & 1) * 2 + (i & 1); break;
  }
  return byte(idx[0]) | byte(idx[1]) << 8 | byte(idx[2]) << 16 | byte(idx[3]) << 24;
}

uint32_t bfe(uint32_t a, uint32_t packed, bool is_signed) {
  const uint32_t pos = packed & 0xFF, len = packed >> 8 & 0xFF;
  const uint32_t sbit = (is_signed && len != 0) ? (a >> std::min(pos + len - 1, 31u) & 1) : 0;
  uint32_t d = 0;
  for (uint32_t i = 0; i < 32; ++i) d |= ((i < len && pos + i <= 31) ? (a >> (pos + i) & 1) : sbit) << i;
  return d;
}

uint32_t bfi(uint32_t insert, uint32_t packed, uint32_t base) {
  const uint32_t pos = packed & 0xFF, len = packed >> 8 & 0xFF;
  uint32_t d = base;
  for (uint32_t i = 0; i < len && pos + i <= 31; ++i) d = (d & ~(1u << (pos + i))) | ((insert >> i & 1) << (pos + i));
  return d;
}

bool compare_int(g::Icmp op, uint32_t a, uint32_t b, bool is_signed) {
  const int64_t x = is_signed ? int64_t{static_cast<int32_t>(a)} : int64_t{a};
  const int64_t y = is_signed ? int64_t{static_cast<int32_t>(b)} : int64_t{b};
  switch (op) {
    case g::Icmp::EQ: return x == y;
    case g::Icmp::NE: return x != y;
    case g::Icmp::LT: return x < y;
    case g::Icmp::LE: return x <= y;
    case g::Icmp::GT: return x > y;
    case g::Icmp::GE: return x >= y;
  }
  return false;
}

bool combine(g::Bop op, bool t, bool s) {
  return op == g::Bop::AND ? (t && s) : op == g::Bop::OR ? (t || s) : (t != s);
}

std::optional<IntLaneResult> int_lane(uint64_t insn, uint32_t a, uint32_t b, uint32_t c, uint32_t c_hi, uint8_t preds) {
  auto f = [&](Field fld) { return isa::get(insn, fld); };
  auto flag = [&](Field fld) { return f(fld) != 0; };
  auto pred = [&](uint64_t p) { return p == isa::kPT || (preds >> p & 1) != 0; };
  auto pred_n = [&](Field p, Field neg) { return pred(f(p)) != flag(neg); };

  IntLaneResult r;
  r.preds = static_cast<uint8_t>(preds | 1u << isa::kPT);
  auto write_reg = [&](uint32_t v) {
    r.d = v;
    r.d_we = true;
  };
  auto write_pred = [&](uint64_t p, bool v) {
    if (p == isa::kPT) return;
    r.preds = static_cast<uint8_t>((r.preds & ~(1u << p)) | (uint32_t{v} << p));
    r.preds_we = static_cast<uint8_t>(r.preds_we | 1u << p);
  };

  const auto op = static_cast<g::Op>(f(Field::op));
  const bool is_signed = op == g::Op::IMUL || op == g::Op::IMAD || op == g::Op::SHR || op == g::Op::IMNMX ||
                                 op == g::Op::ISETP || op == g::Op::BFE
                             ? static_cast<g::Sgn>(f(Field::sgn)) == g::Sgn::S32
                             : false;
  switch (op) {
    case g::Op::IADD: {
      const bool neg = flag(Field::negb);
      const uint32_t bb = neg ? ~b : b;
      const uint32_t cin = flag(Field::x) ? pred(f(Field::pcc)) : (neg ? 1 : 0);
      const uint64_t sum = uint64_t{a} + bb + cin;
      uint32_t d = static_cast<uint32_t>(sum);
      if (flag(Field::sat)) {
        const int64_t exact = int64_t{static_cast<int32_t>(a)} + int64_t{static_cast<int32_t>(bb)} + cin;
        d = static_cast<uint32_t>(std::clamp<int64_t>(exact, INT32_MIN, INT32_MAX));
      }
      if (flag(Field::cc)) write_pred(f(Field::pcc), sum >> 32 & 1);
      write_reg(d);
      break;
    }
    case g::Op::IMUL:
    case g::Op::IMAD: {
      const uint64_t p = is_signed ? mul_wide_s32(a, b) : mul_wide_u32(a, b);
      const auto mode = static_cast<g::Mulw>(f(Field::mulw));
      const bool mad = op == g::Op::IMAD;
      if (mode == g::Mulw::WIDE) {
        const uint64_t v = p + (mad ? uint64_t{c_hi} << 32 | c : 0);
        write_reg(static_cast<uint32_t>(v));
        r.d_hi = static_cast<uint32_t>(v >> 32);
        r.d_wide = true;
      } else {
        const uint32_t part = mode == g::Mulw::HI ? static_cast<uint32_t>(p >> 32) : static_cast<uint32_t>(p);
        write_reg(part + (mad ? c : 0));
      }
      break;
    }
    case g::Op::SHL: write_reg(b >= 32 ? 0 : a << b); break;
    case g::Op::SHR: {
      const uint32_t n = std::min<uint32_t>(b, 32);
      write_reg(is_signed ? static_cast<uint32_t>(static_cast<int32_t>(a) >> std::min(n, 31u)) : (n >= 32 ? 0 : a >> n));
      break;
    }
    case g::Op::SHF: {
      const uint32_t n = static_cast<g::Shfmode>(f(Field::shfmode)) == g::Shfmode::WRAP ? (b & 31) : std::min(b, 32u);
      const uint64_t v = uint64_t{c} << 32 | a;
      write_reg(static_cast<g::Shfdir>(f(Field::shfdir)) == g::Shfdir::L ? static_cast<uint32_t>((v << n) >> 32)
                                                                          : static_cast<uint32_t>(v >> n));
      break;
    }
    case g::Op::LOP: {
      const uint32_t x = flag(Field::inva) ? ~a : a;
      const uint32_t y = flag(Field::invb) ? ~b : b;
      const auto l = static_cast<g::Lop>(f(Field::lop));
      write_reg(l == g::Lop::AND ? x & y : l == g::Lop::OR ? x | y : l == g::Lop::XOR ? x ^ y : y);
      break;
    }
    case g::Op::LOP3: {
      const uint32_t lut = static_cast<uint32_t>(f(Field::lut));
      uint32_t d = 0;
      for (unsigned i = 0; i < 32; ++i) d |= (lut >> ((a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1)) & 1) << i;
      write_reg(d);
      break;
    }
    case g::Op::IMNMX: {
      const bool a_less = is_signed ? static_cast<int32_t>(a) < static_cast<int32_t>(b) : a < b;
      const bool want_min = static_cast<g::Mnmx>(f(Field::mnmx)) == g::Mnmx::MIN;
      write_reg((a_less == want_min) ? a : b);
      break;
    }
    case g::Op::ISETP: {
      const bool t = compare_int(static_cast<g::Icmp>(f(Field::icmp)), a, b, is_signed);
      const bool s = pred_n(Field::ps, Field::psn);
      const auto bop = static_cast<g::Bop>(f(Field::bop));
      write_pred(f(Field::pd), combine(bop, t, s));
      write_pred(f(Field::pq), combine(bop, !t, s));  // after Pd: Pq wins when they are the same
      break;
    }
    case g::Op::SEL: write_reg(pred_n(Field::ps, Field::psn) ? a : b); break;
    case g::Op::POPC: write_reg(static_cast<uint32_t>(std::popcount(a))); break;
    case g::Op::CLZ: write_reg(static_cast<uint32_t>(std::countl_zero(a))); break;
    case g::Op::BREV: {
      uint32_t d = 0;
      for (unsigned i = 0; i < 32; ++i) d |= (a >> i & 1) << (31 - i);
      write_reg(d);
      break;
    }
    case g::Op::BFE: write_reg(bfe(a, b, is_signed)); break;
    case g::Op::BFI: write_reg(bfi(a, b, c)); break;
    case g::Op::PRMT: write_reg(prmt(a, c, b, static_cast<g::Prmt>(f(Field::prmt)))); break;
    case g::Op::MOV: write_reg(b); break;
    case g::Op::MOV32I: write_reg(static_cast<uint32_t>(f(Field::imm32))); break;
    case g::Op::PLOP:
      write_pred(f(Field::pd), combine(static_cast<g::Bop>(f(Field::bop)), pred_n(Field::pa, Field::pan), pred_n(Field::ps, Field::psn)));
      break;
    default: return std::nullopt;
  }
  return r;
}

}  // namespace tsm::golden
