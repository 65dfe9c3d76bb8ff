// Machine IR of the translator: native instructions whose register and predicate fields are bound
// to virtual registers, grouped in basic blocks with explicit control-flow edges.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/isa.hpp"
#include "ptx/ast.hpp"

namespace tsm::ptx {

/// A virtual register: `width` consecutive 32-bit registers (1, 2 or 4), or a predicate.
struct VRegInfo {
  uint8_t width = 1;
  bool pred = false;
};

struct MInst {
  uint64_t word = 0;                 // everything but register/predicate fields bound below
  const isa::InsnInfo* info = nullptr;
  struct Bind {
    isa::Field field;
    uint32_t vreg;
    uint8_t offset;                  // register within the virtual register (pairs, quads)
  };
  std::vector<Bind> binds;
  int target = -1;                   // block index for a label operand
  Loc loc;                           // PTX source position
  std::vector<uint32_t> pins;        // virtual registers that must stay allocated here (sequences)
};

struct MBlock {
  std::string label;                 // PTX label, or a generated name
  std::vector<MInst> insts;          // the terminator (BRA/EXIT/...) is the last instruction if any
  // Control flow out of the block, after its instructions:
  //  Fall: continue at `fall`; Jump: BRA `taken`; Branch: @cond BRA `taken`, else `fall`;
  //  Stop: the block's last instruction ends the threads (EXIT); Break: it ends with BRK, the
  //  lanes continue at the loop exit `taken`; Sync: it ends with SYNC, the lanes continue at
  //  `taken` once the region has reconverged. A `fall` that is not the next block in layout
  //  becomes an explicit BRA when the function is emitted.
  enum class Exit { Fall, Jump, Branch, Stop, Break, Sync } exit = Exit::Fall;
  int taken = -1;
  int fall = -1;
  std::vector<int> side_exits;       // where guarded BRKs in the block send their lanes (loop exits)
  uint32_t cond = 0;                 // Branch: predicate vreg
  bool cond_neg = false;
  bool uniform = false;              // bra.uni: never diverges
  Loc branch_loc;
  bool loop_done = false;            // reconvergence: this block's loop has been given its PBK
};

struct MFunction {
  std::string name;
  std::vector<MBlock> blocks;        // in layout order
  std::vector<VRegInfo> vregs;       // index 0 unused
  uint32_t new_vreg(uint8_t width, bool pred = false) {
    if (vregs.empty()) vregs.push_back({});
    vregs.push_back({width, pred});
    return static_cast<uint32_t>(vregs.size() - 1);
  }
};

}  // namespace tsm::ptx
