// Runs one lowering sequence on the golden model over many input tuples: instantiates it with
// (shuffled) registers and predicates, wraps it in a kernel that loads one tuple per thread, runs
// the body, and stores the outputs, the inputs as the body left them, and the warp's active mask.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "isa/assembler.hpp"
#include "ptx/sequences.hpp"
#include "runtime/runtime.hpp"

namespace tsm::seqtest {

using ptx::Placeholder;
using ptx::Sequence;
using Kind = Placeholder::Kind;

/// One operand value: a 32-bit register, a 64-bit pair, or a predicate (0/1), as 64 bits.
using Tuple = std::vector<uint64_t>;

/// How a run binds the placeholders.
struct Layout {
  ptx::Bindings bindings;
  /// Output j shares its register with input aliased[j] (or -1).
  std::vector<int> aliased;
};

/// Registers R0..R7 belong to the kernel's own code (index, addresses); placeholders get
/// registers from R8 on and any of P0..P6 (the kernel's predicates are dead by then).
inline Layout make_layout(const Sequence& s, uint64_t seed, int alias_output_to_input = -1) {
  std::mt19937_64 rng(seed);
  Layout l;
  std::vector<unsigned> preds = {0, 1, 2, 3, 4, 5, 6};
  std::shuffle(preds.begin(), preds.end(), rng);
  std::vector<const Placeholder*> all;
  for (const auto* list : {&s.inputs, &s.outputs, &s.temps})
    for (const auto& p : *list) all.push_back(&p);
  unsigned words = 0;
  for (const auto* p : all) words += p->kind == Kind::Pair ? 2 : p->kind == Kind::Reg ? 1 : 0;
  // A pool twice the size needed, taken in random order: pairs from its even registers.
  const unsigned pool = 2 * words + 8;
  std::vector<unsigned> free;
  for (unsigned r = 8; r < 8 + pool; ++r) free.push_back(r);
  std::shuffle(free.begin(), free.end(), rng);
  auto take_reg = [&](Kind k) {
    for (size_t i = 0; i < free.size(); ++i) {
      const unsigned r = free[i];
      if (k == Kind::Reg) {
        free.erase(free.begin() + static_cast<long>(i));
        return r;
      }
      if (r % 2 == 0) {
        const auto hi = std::find(free.begin(), free.end(), r + 1);
        if (hi == free.end()) continue;
        free.erase(hi);
        free.erase(std::find(free.begin(), free.end(), r));
        return r;
      }
    }
    throw std::logic_error("register pool exhausted");
  };
  size_t next_pred = 0;
  l.aliased.assign(s.outputs.size(), -1);
  for (const auto* p : all) {
    const bool is_output = p >= s.outputs.data() && p < s.outputs.data() + s.outputs.size();
    if (is_output && alias_output_to_input >= 0 && p == &s.outputs[0]) {
      const auto& in = s.inputs.at(static_cast<size_t>(alias_output_to_input));
      if (in.kind != p->kind) throw std::logic_error("aliasing an output with an input of another kind");
      l.bindings[p->name] = l.bindings.at(in.name);
      l.aliased[0] = alias_output_to_input;
      continue;
    }
    if (p->kind == Kind::Pred) {
      if (next_pred == preds.size()) throw std::logic_error("predicates exhausted");
      l.bindings[p->name] = preds[next_pred++];
    } else {
      l.bindings[p->name] = take_reg(p->kind);
    }
  }
  return l;
}

/// The test kernel: in[i] holds one 8-byte slot per input, out[i] one per output, then the
/// active-mask word, then one slot per input (read back after the body).
inline std::string make_kernel(const Sequence& s, const Layout& l, uint64_t garbage_seed) {
  const size_t in_stride = 8 * s.inputs.size();
  const size_t out_stride = 8 * (s.outputs.size() + 1 + s.inputs.size());
  std::string k = fmt::format(R"(.kernel seq
.param in u64
.param out u64
.param n u32
    S2R R0, SR_CTAID_X
    S2R R1, SR_NTID_X
    S2R R2, SR_TID_X
    IMAD.U32 R0, R0, R1, R2
    ISETP.GE.U32.AND P0, PT, R0, c[0][n], PT
@P0 EXIT
    IMAD.WIDE.U32 R2, R0, {}, RZ
    IADD.CC R4, R2, c[0][in], P6
    IADD.X R5, R3, c[0][in+4], P6
    IMAD.WIDE.U32 R2, R0, {}, RZ
    IADD.CC R6, R2, c[0][out], P6
    IADD.X R7, R3, c[0][out+4], P6
)",
                              in_stride, out_stride);
  // Temps and outputs start with garbage, predicate temps with lane-dependent values: a body that
  // reads one before writing it computes nonsense.
  std::mt19937_64 rng(garbage_seed);
  auto reg_of = [&](const Placeholder& p, int half) { return l.bindings.at(p.name) + static_cast<unsigned>(half); };
  auto garbage = [&](const Placeholder& p) {
    if (p.kind == Kind::Pred) {
      k += fmt::format("    LOP.AND R1, R0, {}\n    ISETP.NE.U32.AND P{}, PT, R1, 0, PT\n", 1u << (rng() % 5),
                       l.bindings.at(p.name));
      return;
    }
    for (int h = 0; h < (p.kind == Kind::Pair ? 2 : 1); ++h)
      k += fmt::format("    MOV32I R{}, 0x{:08X}\n", reg_of(p, h), static_cast<uint32_t>(rng()) | 0x00100000u);
  };
  for (size_t j = 0; j < s.outputs.size(); ++j)
    if (l.aliased[j] < 0) garbage(s.outputs[j]);
  for (const auto& t : s.temps) garbage(t);
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    const auto& p = s.inputs[i];
    const unsigned r = l.bindings.at(p.name);
    if (p.kind == Kind::Pred)
      k += fmt::format("    LDG.32.E R1, [R4+{}]\n    ISETP.NE.U32.AND P{}, PT, R1, 0, PT\n", 8 * i, r);
    else
      k += fmt::format("    LDG.{}.E R{}, [R4+{}]\n", p.kind == Kind::Pair ? "64" : "32", r, 8 * i);
  }
  k += "    // ---- " + s.name + " ----\n" + ptx::instantiate(s, l.bindings, "seq_") + "    // ----\n";
  auto store = [&](const Placeholder& p, size_t slot) {
    const unsigned r = l.bindings.at(p.name);
    if (p.kind == Kind::Pred)
      k += fmt::format("    MOV R1, RZ\n@P{} MOV R1, 1\n    STG.32.E [R6+{}], R1\n", r, 8 * slot);
    else
      k += fmt::format("    STG.{}.E [R6+{}], R{}\n", p.kind == Kind::Pair ? "64" : "32", 8 * slot, r);
  };
  for (size_t j = 0; j < s.outputs.size(); ++j) store(s.outputs[j], j);
  k += fmt::format("    VOTE.ANY R1, PT, PT, -1\n    STG.32.E [R6+{}], R1\n", 8 * s.outputs.size());
  for (size_t i = 0; i < s.inputs.size(); ++i) store(s.inputs[i], s.outputs.size() + 1 + i);
  k += "    EXIT\n";
  return k;
}

struct RunResult {
  std::vector<Tuple> outputs;  // per case
  std::vector<Tuple> inputs_after;
  std::vector<uint32_t> active_mask;  // per case: its warp's active lanes after the body
  uint64_t thread_instructions = 0;
};

inline uint64_t slot_mask(const Placeholder& p) {
  return p.kind == Kind::Pair ? ~uint64_t{0} : p.kind == Kind::Reg ? 0xFFFFFFFFu : 1u;
}

/// Runs the sequence on every case (one thread each) in one launch.
inline RunResult run(Runtime& rt, const Sequence& s, const Layout& l, const std::vector<Tuple>& cases, uint64_t seed) {
  const Module module = assemble(make_kernel(s, l, seed), s.name + ".tsa");
  const auto id = rt.load_module(module);
  const auto n = static_cast<uint32_t>(cases.size());
  const size_t nin = s.inputs.size(), nout = s.outputs.size() + 1 + nin;
  std::vector<uint32_t> in(std::max<size_t>(1, cases.size() * nin * 2));
  for (size_t c = 0; c < cases.size(); ++c)
    for (size_t i = 0; i < nin; ++i) {
      const uint64_t v = cases[c].at(i) & slot_mask(s.inputs[i]);
      in[(c * nin + i) * 2] = static_cast<uint32_t>(v);
      in[(c * nin + i) * 2 + 1] = static_cast<uint32_t>(v >> 32);
    }
  const DevicePtr din = rt.malloc(static_cast<uint32_t>(in.size() * 4));
  const DevicePtr dout = rt.malloc(static_cast<uint32_t>(std::max<size_t>(1, cases.size() * nout * 2) * 4));
  rt.memcpy_to_device(din, std::span(reinterpret_cast<const uint8_t*>(in.data()), in.size() * 4));
  rt.memset(dout, 0xA5, static_cast<uint32_t>(cases.size() * nout * 8));
  const uint32_t block = 128;  // fits g80's 8192 registers with up to 64 per thread
  const auto stats = rt.launch(id, "seq", Dim3{(n + block - 1) / block, 1, 1}, Dim3{block, 1, 1},
                               KernelArgs().ptr(din).ptr(dout).u32(n));
  std::vector<uint32_t> out(cases.size() * nout * 2);
  rt.memcpy_to_host(std::span(reinterpret_cast<uint8_t*>(out.data()), out.size() * 4), dout);
  rt.free(din);
  rt.free(dout);
  RunResult r;
  r.thread_instructions = stats.stats.thread_instructions;
  auto word64 = [&](size_t c, size_t slot) {
    return uint64_t{out[(c * nout + slot) * 2]} | uint64_t{out[(c * nout + slot) * 2 + 1]} << 32;
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    Tuple o, ia;
    for (size_t j = 0; j < s.outputs.size(); ++j) o.push_back(word64(c, j) & slot_mask(s.outputs[j]));
    r.active_mask.push_back(static_cast<uint32_t>(word64(c, s.outputs.size())));
    for (size_t i = 0; i < nin; ++i) ia.push_back(word64(c, s.outputs.size() + 1 + i) & slot_mask(s.inputs[i]));
    r.outputs.push_back(std::move(o));
    r.inputs_after.push_back(std::move(ia));
  }
  return r;
}

}  // namespace tsm::seqtest
