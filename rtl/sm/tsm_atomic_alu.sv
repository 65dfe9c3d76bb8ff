// The shared-memory atomics' arithmetic (docs/sm-rtl.md §2.8): the value an atomic leaves in memory,
// from the old value and its operands, by the golden model's rules (sim/golden/execute.cpp
// Exec::atomic; sim/rtl/memory_model.cpp atomic_new_value for the memory's side): ADD (binary32
// through tsm_fadd32, round to nearest even, no flush: shared memory, unlike global, does not flush
// subnormals), MIN and MAX (signed, unsigned or binary32 through tsm_fcmp32), INC and DEC with
// their wrap bound, EXCH, AND, OR, XOR, and CAS. 32-bit types use the low words; their result's
// high word is not part of the result.
//
// Contract: combinational. The SM's shared atomics read the old value from the banks, apply this,
// and write the result back in the next clock (the load/store unit's ATOMIC_OPERATE), a lane at a time.
module tsm_atomic_alu (
  /// The binary32 compare's ports (it has no stages here).
  input  logic        clk_i,
  input  logic        rst_ni,
  /// CAS (compare b, swap in c), else the operation aop_i (tsm_isa_pkg::AOP_*), of type atype_i
  /// (tsm_isa_pkg::ATYPE_*).
  input  logic        cas_i,
  input  logic [3:0]  aop_i,
  input  logic [2:0]  atype_i,
  input  logic [63:0] old_i,
  input  logic [63:0] b_i,
  input  logic [63:0] c_i,
  output logic [63:0] new_o
);

  logic [31:0] fadd, fmin, fmax;
  logic        unused_valid, unused_pred;
  tsm_fadd32 u_fadd (.a_i(old_i[31:0]), .b_i(b_i[31:0]), .ftz_i(1'b0), .sum_o(fadd));
  tsm_fcmp32 #(.Stages(0)) u_cmp (
    .clk_i, .rst_ni, .valid_i(1'b1), .a_i(old_i[31:0]), .b_i(b_i[31:0]), .fcmp_i(tsm_isa_pkg::FCMP_EQ), .ftz_i(1'b0),
    .nan_i(1'b0), .valid_o(unused_valid), .pred_o(unused_pred), .min_o(fmin), .max_o(fmax)
  );

  always_comb begin
    logic wide, signed_type, b_less, want_min;
    wide = atype_i == tsm_isa_pkg::ATYPE_U64 || atype_i == tsm_isa_pkg::ATYPE_S64;
    signed_type = atype_i == tsm_isa_pkg::ATYPE_S32 || atype_i == tsm_isa_pkg::ATYPE_S64;
    want_min = aop_i == tsm_isa_pkg::AOP_MIN;
    if (wide) b_less = signed_type ? $signed(b_i) < $signed(old_i) : b_i < old_i;
    else b_less = signed_type ? $signed(b_i[31:0]) < $signed(old_i[31:0]) : b_i[31:0] < old_i[31:0];
    new_o = old_i;
    if (cas_i) new_o = (wide ? old_i == b_i : old_i[31:0] == b_i[31:0]) ? c_i : old_i;
    else begin
      unique case (aop_i)
        tsm_isa_pkg::AOP_ADD: new_o = atype_i == tsm_isa_pkg::ATYPE_F32 ? {32'd0, fadd} : old_i + b_i;
        tsm_isa_pkg::AOP_MIN, tsm_isa_pkg::AOP_MAX:
          if (atype_i == tsm_isa_pkg::ATYPE_F32) new_o = {32'd0, want_min ? fmin : fmax};
          else new_o = (b_less == want_min) ? b_i : old_i;
        tsm_isa_pkg::AOP_INC: new_o = (wide ? old_i >= b_i : old_i[31:0] >= b_i[31:0]) ? 64'd0 : old_i + 64'd1;
        tsm_isa_pkg::AOP_DEC: new_o = ((wide ? old_i == 64'd0 : old_i[31:0] == 32'd0) || (wide ? old_i > b_i : old_i[31:0] > b_i[31:0])) ? b_i : old_i - 64'd1;
        tsm_isa_pkg::AOP_EXCH: new_o = b_i;
        tsm_isa_pkg::AOP_AND: new_o = old_i & b_i;
        tsm_isa_pkg::AOP_OR: new_o = old_i | b_i;
        default: new_o = old_i ^ b_i;
      endcase
    end
  end

endmodule
