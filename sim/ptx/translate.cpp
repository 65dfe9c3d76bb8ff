// Translator driver: layout of symbols, register allocation, emission of the native module.
#include "ptx/translate.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "config/occupancy.hpp"
#include "isa/isa.hpp"
#include "ptx/builder.hpp"
#include "ptx/inline.hpp"
#include "ptx/lower.hpp"
#include "ptx/reconverge.hpp"
#include "ptx/regalloc.hpp"

namespace tsm::ptx {

namespace g = isa::gen;

namespace {

uint32_t align_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

uint32_t element_bytes(const VarDecl& d) { return std::max(1u, d.type.bits / 8) * d.vector; }

uint64_t total_bytes(const VarDecl& d) {
  uint64_t n = element_bytes(d);
  for (uint64_t dim : d.dims) n *= dim;
  return n;
}

uint32_t alignment(const VarDecl& d) { return std::max(d.align, element_bytes(d)); }

DataType data_type(const VarDecl& d) {
  DataType t;
  if (d.vector == 1 && d.dims.empty()) {
    const std::string name = d.type.kind == Type::Kind::F ? fmt::format("f{}", d.type.bits)
                             : d.type.kind == Type::Kind::S ? fmt::format("s{}", d.type.bits)
                             : d.type.kind == Type::Kind::U ? fmt::format("u{}", d.type.bits)
                                                            : fmt::format("b{}", d.type.bits);
    if (lookup_scalar_type(name, t)) return t;
  }
  t.name = "bytes";
  t.size = static_cast<uint32_t>(total_bytes(d));
  t.align = std::min<uint32_t>(16, std::bit_ceil(alignment(d)));
  return t;
}

// A data symbol as the module describes it: an array of the element type, or of bytes.
DataSymbol data_symbol(const VarDecl& d, uint32_t bank, uint32_t offset, uint32_t slot = 0) {
  DataSymbol s;
  s.name = d.name;
  s.bank = bank;
  s.offset = offset;
  s.slot = slot;
  VarDecl elem = d;
  elem.dims.clear();
  elem.vector = 1;
  s.type = data_type(elem);
  if (s.type.name == "bytes") lookup_scalar_type("u8", s.type);
  s.count = static_cast<uint32_t>(total_bytes(d) / s.type.size);
  return s;
}

std::vector<uint8_t> init_bytes(const VarDecl& d) {
  std::vector<uint8_t> out(static_cast<size_t>(total_bytes(d)), 0);
  const unsigned eb = std::max(1u, d.type.bits / 8);
  for (size_t i = 0; i < d.init.size() && (i + 1) * eb <= out.size(); ++i)
    for (unsigned b = 0; b < eb; ++b) out[i * eb + b] = static_cast<uint8_t>(d.init[i] >> (8 * b));
  return out;
}

// ---- register budget -----------------------------------------------------------------------------

// --maxrregcount, lowered by .maxnreg, and by .maxntid/.reqntid so that such a block fits.
uint32_t register_budget(const Function& fn, const TranslateOptions& o, const std::string& file) {
  uint32_t budget = std::min<uint32_t>(o.max_registers, isa::kRZ);
  if (fn.maxnreg) budget = std::min(budget, fn.maxnreg);
  uint64_t threads = 0;
  for (const uint32_t* d : {fn.reqntid, fn.maxntid})
    if (d[0]) threads = uint64_t{d[0]} * std::max(1u, d[1]) * std::max(1u, d[2]);
  if (threads == 0) return budget;
  const config::SmConfig* cfg = config::find_config(o.config);
  if (!cfg) throw PtxError(file, fn.loc, fmt::format("unknown configuration '{}'", o.config));
  const Dim3 block{static_cast<uint32_t>(std::min<uint64_t>(threads, UINT32_MAX)), 1, 1};
  const uint32_t fits = max_regs_for_block(*cfg, block);
  if (fits == 0) {
    try {
      (void)compute_occupancy(*cfg, block, {1, 0});
    } catch (const LaunchConfigError& e) {
      throw PtxError(file, fn.loc, fmt::format("kernel {}: its launch bounds ({} threads) cannot fit configuration {}: {}",
                                               fn.name, threads, o.config, e.what()));
    }
  }
  return std::max(1u, std::min(budget, fits));
}

// ---- emission ------------------------------------------------------------------------------------

std::vector<uint64_t> emit(const MFunction& f, const Allocation& a) {
  const size_t nb = f.blocks.size();
  // Which blocks need a trailing BRA, to place branch targets.
  auto trailing = [&](size_t b) {
    const MBlock& blk = f.blocks[b];
    const int next = static_cast<int>(b) + 1;
    int extra = 0;
    switch (blk.exit) {
      case MBlock::Exit::Fall: extra = blk.fall >= 0 && blk.fall != next; break;
      case MBlock::Exit::Jump: extra = blk.taken != next; break;
      case MBlock::Exit::Branch: extra = 1 + (blk.fall != next); break;
      default: break;
    }
    return extra;
  };
  std::vector<int64_t> start(nb);
  int64_t pc = 0;
  for (size_t b = 0; b < nb; ++b) {
    start[b] = pc;
    pc += static_cast<int64_t>(f.blocks[b].insts.size()) + trailing(b);
  }
  std::vector<uint64_t> out;
  auto place = [&](MInst m) {
    for (const auto& bind : m.binds) {
      const int p = a.phys[bind.vreg];
      m.word = isa::set(m.word, bind.field, static_cast<uint64_t>(p + bind.offset));
    }
    if (m.target >= 0) m.word = isa::set(m.word, isa::Field::target, static_cast<uint64_t>(start[static_cast<size_t>(m.target)] - static_cast<int64_t>(out.size())));
    out.push_back(m.word);
  };
  for (size_t b = 0; b < nb; ++b) {
    const MBlock& blk = f.blocks[b];
    for (const MInst& m : blk.insts) place(m);
    const int next = static_cast<int>(b) + 1;
    auto bra = [&](int target, uint32_t cond, bool neg) {
      MInst m = build_inst(cond ? (neg ? "@!%p0 BRA +0" : "@%p0 BRA +0") : "BRA +0", std::vector<uint32_t>{},
                           cond ? std::vector<uint32_t>{cond} : std::vector<uint32_t>{}, blk.branch_loc);
      m.target = target;
      place(m);
    };
    switch (blk.exit) {
      case MBlock::Exit::Fall:
        if (blk.fall >= 0 && blk.fall != next) bra(blk.fall, 0, false);
        break;
      case MBlock::Exit::Jump:
        if (blk.taken != next) bra(blk.taken, 0, false);
        break;
      case MBlock::Exit::Branch:
        bra(blk.taken, blk.cond, blk.cond_neg);
        if (blk.fall != next) bra(blk.fall, 0, false);
        break;
      default: break;
    }
  }
  return out;
}

}  // namespace

TranslateResult translate(const Module& ptx, const TranslateOptions& options) {
  TranslateResult result;
  ::tsm::Module& out = result.module;
  Layout common;
  // Module-scope variables: constants in bank 2, globals in the global image with an address slot
  // in bank 1, shared variables at the start of every kernel's shared memory.
  auto& bank1 = out.cbanks[g::kCbankLiterals];
  for (const VarDecl& d : ptx.globals) {
    const uint64_t bytes = total_bytes(d);
    if (d.space == Space::Const) {
      auto& bank2 = out.cbanks[g::kCbankUser];
      const uint32_t off = align_up(static_cast<uint32_t>(bank2.size()), alignment(d));
      if (off + bytes > g::kCbankBytes) throw PtxError(ptx.file, d.loc, fmt::format("constant '{}' does not fit the 64 KiB constant bank", d.name));
      bank2.resize(off, 0);
      const auto init = init_bytes(d);
      bank2.insert(bank2.end(), init.begin(), init.end());
      out.consts.push_back(data_symbol(d, g::kCbankUser, off));
      common.symbols[d.name] = {Space::Const, off, static_cast<uint32_t>(bytes)};
    } else if (d.space == Space::Global) {
      // Initializers holding addresses of other globals become relocations the loader fills in.
      const unsigned eb = std::max(1u, d.type.bits / 8);
      for (size_t i = 0; i < d.init_symbols.size(); ++i) {
        const std::string& target = d.init_symbols[i];
        if (target.empty()) continue;
        const bool is_global = std::any_of(ptx.globals.begin(), ptx.globals.end(), [&](const VarDecl& g) {
          return g.name == target && g.space == Space::Global;
        });
        if (!is_global)
          throw PtxError(ptx.file, d.loc, fmt::format("global '{}': its initializer holds the address of '{}', which is not a "
                                                      ".global variable (only addresses of global variables are supported)",
                                                      d.name, target));
        const uint64_t mask = i < d.init_masks.size() ? d.init_masks[i] : 0;
        Relocation r;
        r.global = d.name;
        r.at = static_cast<uint32_t>(i * eb);
        r.target = target;
        r.addend = static_cast<int64_t>(d.init[i]);
        r.bytes = mask ? 1 : eb;
        r.shift = mask ? static_cast<uint32_t>(std::countr_zero(mask)) : 0;
        out.relocs.push_back(std::move(r));
      }
      const uint32_t off = align_up(static_cast<uint32_t>(out.global_data.size()), alignment(d));
      out.global_data.resize(off, 0);
      const auto init = init_bytes(d);
      out.global_data.insert(out.global_data.end(), init.begin(), init.end());
      const uint32_t slot = align_up(static_cast<uint32_t>(bank1.size()), 8);
      bank1.resize(slot + 8, 0);
      out.globals.push_back(data_symbol(d, g::kCbankLiterals, off, slot));
      common.symbols[d.name] = {Space::Global, slot, static_cast<uint32_t>(bytes)};
    } else if (d.space == Space::Shared) {
      const uint32_t off = align_up(common.shared_bytes, alignment(d));
      common.shared_bytes = off + static_cast<uint32_t>(bytes);
      common.symbols[d.name] = {Space::Shared, off, static_cast<uint32_t>(bytes)};
    } else {
      throw PtxError(ptx.file, d.loc, fmt::format("module-scope variables in this state space are not supported ('{}')", d.name));
    }
  }
  // Assertion messages are printf records with a format the translator supplies.
  const bool asserts = std::any_of(ptx.functions.begin(), ptx.functions.end(), [](const Function& f) {
    return std::any_of(f.body.begin(), f.body.end(), [](const Statement& st) {
      return st.kind == Statement::Kind::Instr && st.instr.opcode == "call" && st.instr.operands.size() > 1 &&
             st.instr.operands[1].name == "__assertfail";
    });
  });
  if (asserts) {
    VarDecl d;
    d.space = Space::Global;
    d.type = Type{Type::Kind::B, 8};
    d.name = kAssertFormatSymbol;
    for (const char* c = kAssertFormat; *c; ++c) d.init.push_back(static_cast<uint8_t>(*c));
    d.init.push_back(0);
    d.dims = {d.init.size()};
    d.has_init = true;
    const uint32_t off = static_cast<uint32_t>(out.global_data.size());
    const auto init = init_bytes(d);
    out.global_data.insert(out.global_data.end(), init.begin(), init.end());
    const uint32_t slot = align_up(static_cast<uint32_t>(bank1.size()), 8);
    bank1.resize(slot + 8, 0);
    out.globals.push_back(data_symbol(d, g::kCbankLiterals, off, slot));
    common.symbols[d.name] = {Space::Global, slot, static_cast<uint32_t>(init.size())};
  }
  if (bank1.empty()) out.cbanks.erase(g::kCbankLiterals);

  for (const Function& kernel : ptx.functions) {
    if (!kernel.is_entry) continue;  // device functions are inlined where they are called
    const Function fn = inline_calls(ptx, kernel);
    Layout layout = common;
    const config::SmConfig* cfg = config::find_config(options.config);
    if (!cfg) throw PtxError(ptx.file, kernel.loc, fmt::format("unknown configuration '{}'", options.config));
    layout.soft_f64 = cfg->dp_units == 0;
    layout.config = options.config;
    KernelInfo k;
    k.name = fn.name;
    k.entry = static_cast<uint32_t>(out.text.size());
    uint32_t param_end = g::kC0Params;
    for (const VarDecl& p : fn.params) {
      ParamInfo pi;
      pi.name = p.name;
      pi.type = data_type(p);
      pi.offset = align_up(param_end, std::max(alignment(p), pi.type.align));
      if (pi.type.name == "bytes") pi.type.align = std::min<uint32_t>(16, std::bit_ceil(std::max(alignment(p), 1u)));
      pi.offset = align_up(param_end, pi.type.align);
      param_end = pi.offset + pi.type.size;
      if (param_end > g::kC0Params + g::kMaxParamBytes)
        throw PtxError(ptx.file, p.loc, fmt::format("kernel {}: parameters exceed {} bytes", fn.name, g::kMaxParamBytes));
      layout.symbols[p.name] = {Space::Param, pi.offset, pi.type.size};
      k.params.push_back(pi);
    }
    bool has_dynamic = false;
    for (const VarDecl& d : fn.decls) {
      if (d.space == Space::Shared) {
        const bool dynamic = d.is_extern || (!d.dims.empty() && d.dims.back() == 0);
        if (dynamic) {
          has_dynamic = true;
          continue;
        }
        const uint32_t off = align_up(layout.shared_bytes, alignment(d));
        layout.shared_bytes = off + static_cast<uint32_t>(total_bytes(d));
        layout.symbols[d.name] = {Space::Shared, off, static_cast<uint32_t>(total_bytes(d))};
      } else if (d.space == Space::Local) {
        const uint32_t off = align_up(layout.local_bytes, alignment(d));
        layout.local_bytes = off + static_cast<uint32_t>(total_bytes(d));
        layout.symbols[d.name] = {Space::Local, off, static_cast<uint32_t>(total_bytes(d))};
      }
    }
    if (has_dynamic) {  // every extern .shared array starts where the static ones end
      layout.dynamic_shared_offset = align_up(layout.shared_bytes, 16);
      for (const VarDecl& d : fn.decls)
        if (d.space == Space::Shared && (d.is_extern || (!d.dims.empty() && d.dims.back() == 0)))
          layout.symbols[d.name] = {Space::Shared, layout.dynamic_shared_offset, 0};
      for (const VarDecl& d : ptx.globals)
        if (d.space == Space::Shared && d.is_extern) layout.symbols[d.name] = {Space::Shared, layout.dynamic_shared_offset, 0};
      layout.shared_bytes = layout.dynamic_shared_offset;
    }
    MFunction mf = lower_function(ptx, fn, layout);
    reconverge(mf, ptx.file);
    const uint32_t local_base = align_up(layout.local_bytes, 8);
    AllocOptions ao;
    ao.registers = register_budget(kernel, options, ptx.file);
    ao.predicates = options.max_predicates;
    ao.local_base = local_base;
    const Allocation alloc = allocate(mf, ao, ptx.file, fn.name);
    if (alloc.spilled) layout.local_bytes = local_base + alloc.spill_bytes;
    remove_self_moves(mf, alloc.phys);
    const std::vector<uint64_t> code = emit(mf, alloc);
    out.text.insert(out.text.end(), code.begin(), code.end());
    k.regs = alloc.registers;
    k.shared_bytes = layout.shared_bytes;
    k.local_bytes = align_up(layout.local_bytes, 4);
    out.kernels.push_back(k);
    result.stats.push_back({fn.name, k.regs, static_cast<uint32_t>(code.size()), k.shared_bytes, k.local_bytes,
                            alloc.spilled, alloc.spill_bytes, alloc.spilled_predicates, alloc.rematerialized});
  }
  try {
    out.validate(ptx.file);
  } catch (const FormatError& e) {
    throw PtxError(ptx.file, Loc{}, fmt::format("internal error: the translated module is invalid: {}", e.what()));
  }
  return result;
}

}  // namespace tsm::ptx
