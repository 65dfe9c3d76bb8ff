// Exposes the generated ISA package's decode functions as ports, so that a C++ testbench can check
// the SystemVerilog decoder (as RTL and as a Yosys netlist) against the C++ decoder.
module isa_decode_probe (
  input  logic [63:0] insn_i,   ///< instruction word
  output logic        valid_o,  ///< tsm_isa_pkg::insn_valid
  output logic [2:0]  unit_o,   ///< tsm_isa_pkg::op_unit
  output logic [8:0]  flags_o,  ///< register-usage flags, bit order as in decode_xcheck.cpp
  output logic [11:0] regs_o    ///< registers of {rc, B, ra, rd}, 3 bits each
);
  logic [7:0] op;
  assign op = tsm_isa_pkg::f_op(insn_i);
  assign valid_o = tsm_isa_pkg::insn_valid(insn_i);
  assign unit_o = tsm_isa_pkg::op_unit(op);
  assign flags_o = {tsm_isa_pkg::op_uses_pcc(op), tsm_isa_pkg::op_reads_ps(op), tsm_isa_pkg::op_writes_pd(op),
                    tsm_isa_pkg::op_writes_rd(op), tsm_isa_pkg::op_reads_rd(op), tsm_isa_pkg::op_reads_rc(op),
                    tsm_isa_pkg::op_reads_rb(op), tsm_isa_pkg::op_has_b(op), tsm_isa_pkg::op_reads_ra(op)};
  assign regs_o = {tsm_isa_pkg::rc_regs(insn_i), tsm_isa_pkg::b_regs(insn_i), tsm_isa_pkg::ra_regs(insn_i),
                   tsm_isa_pkg::rd_regs(insn_i)};
endmodule
