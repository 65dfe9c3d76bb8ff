// The SM's instruction decoder (docs/sm-rtl.md §2.2): the fields of the current instruction word
// and the facts about its opcode that the issue checks, the scoreboard and the execution states
// read, all from the generated ISA package (tsm_isa_pkg, made from isa.toml). Decoded once here:
// a field function called inside a lane loop of the engine would be its own logic in Yosys, once
// per call.
//
// Contract: combinational, no state; every output depends only on insn_i.
module tsm_decode (
  /// The instruction word.
  input  logic [63:0] insn_i,

  /// A defined encoding (tsm_isa_pkg::insn_valid): else an invalid-instruction fault at issue.
  output logic        valid_o,

  // ---- fields ----
  output logic [7:0]  opcode_o,
  /// Registers A, B, C and D, and how many consecutive registers each names (1, 2 or 4; 0: none).
  output logic [7:0]  ra_o, rb_o, rc_o, rd_o,
  output logic [2:0]  ra_regs_o, b_regs_o, rc_regs_o, rd_regs_o,
  /// The instruction reads A, B (a register B or B as an address), C, D (stores); writes D.
  output logic        reads_ra_o, reads_b_o, reads_rc_o, reads_rd_o, writes_rd_o,
  /// B's immediate, sign-extended or in the top 20 bits (by the opcode); the raw 20 bits.
  output logic [31:0] imm_b_o,
  output logic [19:0] imm20_o,
  output logic [4:0]  special_register_o,     // S2R
  output logic [23:0] target_o,               // branch target
  output logic [23:0] memory_offset_o,
  output logic [11:0] barrier_count_o,        // BAR's thread count
  output logic [2:0]  guard_o,                // the guard predicate, negated by guard_negate_o
  output logic        guard_negate_o,
  output logic [2:0]  source_predicate_o,     // a predicate operand, negated by source_negate_o
  output logic        source_negate_o,
  output logic [2:0]  pd_o, pq_o, pd2_o,      // predicate destinations
  output logic [2:0]  carry_predicate_o,      // the carry predicate (IADD.CC)
  output logic [3:0]  const_bank_o,
  output logic [15:0] const_offset_o,
  output logic [3:0]  barrier_id_o,
  output logic        barrier_sync_o,         // BAR.SYNC (else BAR.ARV / BAR.RED)
  output logic [1:0]  predicate_op_o,         // tsm_isa_pkg::BOP_* (SETP's combining operation)
  output logic [1:0]  vote_mode_o, shuffle_mode_o, reduction_op_o,
  output logic [2:0]  atomic_type_o,
  output logic [3:0]  atomic_op_o,

  // ---- the opcode's facts ----
  output logic [2:0]  unit_o,                 // tsm_isa_pkg::UNIT_*
  /// Operand B: the opcode has one; it comes from a constant bank / is an immediate; the opcode
  /// reads register B besides (as an address or a second source).
  output logic        has_b_o, b_const_o, b_imm_o, reads_rb_o,
  output logic        memory_offset_used_o,   // the address adds memory_offset_o
  output logic        writes_pd_o, writes_pq_o,
  /// A 64-bit SP result from 32-bit sources: IMAD.WIDE, I2F from a 64-bit integer.
  output logic        wide_o,

  // ---- the SP back end (docs/sm-rtl.md §2.0) ----
  /// The instruction writes its carry predicate (IADD.CC); the predicate a streaming instruction
  /// writes (7: none): the first it names.
  output logic        carry_write_o,
  output logic [2:0]  stream_predicate_o,
  /// An SP instruction of this shape may stream: at most one register written, and at most one
  /// predicate (when it writes no register).
  output logic        sp_stream_shape_o,

  // ---- the DP unit ----
  /// DADD DMUL DFMA DMNMX DSETP, and F2F/F2I/I2F with a binary64 source or result; the DP unit's
  /// operation (tsm_dp's op_i).
  output logic        dp_o,
  output logic [3:0]  dp_operation_o,

  // ---- memory operations ----
  output logic        load_o, store_o, atomic_o, compare_swap_o, atomic_64_o,
  output logic        shared_only_o,          // LDS, STS, ATOMS, ATOMSCAS
  output logic        wide_address_o,         // a 64-bit address register pair
  output logic [2:0]  memory_size_o,          // tsm_isa_pkg::MSZ_*
  output logic [4:0]  access_bytes_o,         // bytes a lane accesses
  output logic [2:0]  access_words_o          // ... in words (at least one)
);

  function automatic logic [2:0] size_words(input logic [2:0] m);
    size_words = m == tsm_isa_pkg::MSZ_64 ? 3'd2 : m == tsm_isa_pkg::MSZ_128 ? 3'd4 : 3'd1;
  endfunction
  function automatic logic [4:0] size_bytes(input logic [2:0] m);
    unique case (m)
      tsm_isa_pkg::MSZ_U8, tsm_isa_pkg::MSZ_S8:   size_bytes = 5'd1;
      tsm_isa_pkg::MSZ_U16, tsm_isa_pkg::MSZ_S16: size_bytes = 5'd2;
      tsm_isa_pkg::MSZ_64:                        size_bytes = 5'd8;
      tsm_isa_pkg::MSZ_128:                       size_bytes = 5'd16;
      default:                                    size_bytes = 5'd4;
    endcase
  endfunction

  logic [7:0] op;
  assign op = tsm_isa_pkg::f_op(insn_i);
  assign opcode_o = op;
  assign valid_o = tsm_isa_pkg::insn_valid(insn_i);

  // Fields.
  always_comb begin
    ra_o = tsm_isa_pkg::f_ra(insn_i);
    rb_o = tsm_isa_pkg::f_rb(insn_i);
    rc_o = tsm_isa_pkg::f_rc(insn_i);
    rd_o = tsm_isa_pkg::f_rd(insn_i);
    ra_regs_o = tsm_isa_pkg::ra_regs(insn_i);
    b_regs_o = tsm_isa_pkg::b_regs(insn_i);
    rc_regs_o = tsm_isa_pkg::rc_regs(insn_i);
    rd_regs_o = tsm_isa_pkg::rd_regs(insn_i);
    reads_ra_o = tsm_isa_pkg::op_reads_ra(op);
    reads_b_o = (tsm_isa_pkg::op_has_b(op) && tsm_isa_pkg::f_bsel(insn_i) == tsm_isa_pkg::BSEL_REG) ||
                tsm_isa_pkg::op_reads_rb(op);
    reads_rc_o = tsm_isa_pkg::op_reads_rc(op);
    reads_rd_o = tsm_isa_pkg::op_reads_rd(op);
    writes_rd_o = tsm_isa_pkg::op_writes_rd(op);
    imm20_o = tsm_isa_pkg::f_imm20(insn_i);
    unique case (tsm_isa_pkg::op_b_imm(op))
      2'd2:    imm_b_o = {imm20_o, 12'd0};
      default: imm_b_o = {{12{imm20_o[19]}}, imm20_o};
    endcase
    special_register_o = 5'(tsm_isa_pkg::f_sreg(insn_i));
    target_o = tsm_isa_pkg::f_target(insn_i);
    memory_offset_o = tsm_isa_pkg::f_moff(insn_i);
    barrier_count_o = tsm_isa_pkg::f_bcount(insn_i);
    guard_o = tsm_isa_pkg::f_pg(insn_i);
    guard_negate_o = tsm_isa_pkg::f_pgn(insn_i);
    source_predicate_o = tsm_isa_pkg::f_ps(insn_i);
    source_negate_o = tsm_isa_pkg::f_psn(insn_i);
    pd_o = tsm_isa_pkg::f_pd(insn_i);
    pq_o = tsm_isa_pkg::f_pq(insn_i);
    pd2_o = tsm_isa_pkg::f_pd2(insn_i);
    carry_predicate_o = tsm_isa_pkg::f_pcc(insn_i);
    const_bank_o = tsm_isa_pkg::f_cbank(insn_i);
    const_offset_o = tsm_isa_pkg::f_coff(insn_i);
    barrier_id_o = tsm_isa_pkg::f_barid(insn_i);
    barrier_sync_o = tsm_isa_pkg::f_barmode(insn_i) == tsm_isa_pkg::BARMODE_SYNC;
    predicate_op_o = tsm_isa_pkg::f_bop(insn_i);
    vote_mode_o = tsm_isa_pkg::f_vote(insn_i);
    shuffle_mode_o = tsm_isa_pkg::f_shfl(insn_i);
    reduction_op_o = tsm_isa_pkg::f_redop(insn_i);
    atomic_type_o = tsm_isa_pkg::f_atype(insn_i);
    atomic_op_o = tsm_isa_pkg::f_aop(insn_i);
  end

  // The opcode's facts.
  always_comb begin
    unit_o = tsm_isa_pkg::op_unit(op);
    has_b_o = tsm_isa_pkg::op_has_b(op);
    b_const_o = tsm_isa_pkg::f_bsel(insn_i) == tsm_isa_pkg::BSEL_CONST;
    b_imm_o = tsm_isa_pkg::f_bsel(insn_i) == tsm_isa_pkg::BSEL_IMM;
    reads_rb_o = tsm_isa_pkg::op_reads_rb(op);
    memory_offset_used_o = tsm_isa_pkg::op_mem_offset(op);
    writes_pd_o = tsm_isa_pkg::op_writes_pd(op);
    writes_pq_o = tsm_isa_pkg::op_writes_pq(op);
    wide_o = (op == tsm_isa_pkg::OP_IMAD && tsm_isa_pkg::f_mulw(insn_i) == tsm_isa_pkg::MULW_WIDE) ||
             (op == tsm_isa_pkg::OP_I2F && ra_regs_o == 3'd2);
  end

  // The SP back end: which instructions write predicates comes from the ISA table; IADD writes its
  // carry only with .CC. An instruction that writes no register and names one predicate streams too
  // (ISETP, FSETP with PT as the second destination): its rows commit PRED events.
  logic [2:0] first_predicate, second_predicate;  // the predicates it names for PRED events, in order
  always_comb begin
    carry_write_o = tsm_isa_pkg::op_uses_pcc(op) && tsm_isa_pkg::f_cc(insn_i);
    first_predicate = tsm_isa_pkg::op_writes_pd(op) ? pd_o : carry_write_o ? carry_predicate_o : 3'd7;
    second_predicate = (tsm_isa_pkg::op_writes_pq(op) && pq_o != pd_o) ? pq_o : 3'd7;
    stream_predicate_o = (first_predicate != 3'd7) ? first_predicate : second_predicate;
    sp_stream_shape_o = rd_regs_o != 3'd2 &&
                        (!(tsm_isa_pkg::op_writes_pd(op) || carry_write_o) ||
                         (!(tsm_isa_pkg::op_writes_rd(op) && rd_o != 8'd255) &&
                          (first_predicate == 3'd7 || second_predicate == 3'd7)));
  end

  // The DP unit's instructions and operation codes (tsm_dp).
  always_comb begin
    logic s64, d64;
    s64 = tsm_isa_pkg::f_sfmt(insn_i) == tsm_isa_pkg::FTYPE_F64;
    d64 = tsm_isa_pkg::f_dfmt(insn_i) == tsm_isa_pkg::FTYPE_F64;
    dp_o = tsm_isa_pkg::op_unit(op) == tsm_isa_pkg::UNIT_DP || (op == tsm_isa_pkg::OP_F2F && (s64 || d64)) ||
           (op == tsm_isa_pkg::OP_F2I && s64) || (op == tsm_isa_pkg::OP_I2F && d64);
    unique case (op)
      tsm_isa_pkg::OP_DADD:  dp_operation_o = 4'd0;
      tsm_isa_pkg::OP_DMUL:  dp_operation_o = 4'd1;
      tsm_isa_pkg::OP_DFMA:  dp_operation_o = 4'd2;
      tsm_isa_pkg::OP_DMNMX: dp_operation_o = (tsm_isa_pkg::f_mnmx(insn_i) == tsm_isa_pkg::MNMX_MIN) ? 4'd3 : 4'd4;
      tsm_isa_pkg::OP_DSETP: dp_operation_o = 4'd5;
      tsm_isa_pkg::OP_F2I:   dp_operation_o = 4'd9;
      tsm_isa_pkg::OP_I2F:   dp_operation_o = 4'd10;
      tsm_isa_pkg::OP_F2F:
        if (!s64) dp_operation_o = (tsm_isa_pkg::f_sfmt(insn_i) == tsm_isa_pkg::FTYPE_F16) ? 4'd11 : 4'd6;
        else if (d64) dp_operation_o = 4'd8;
        else dp_operation_o = (tsm_isa_pkg::f_dfmt(insn_i) == tsm_isa_pkg::FTYPE_F16) ? 4'd12 : 4'd7;
      default: dp_operation_o = 4'd15;
    endcase
  end

  // Memory operations.
  always_comb begin
    memory_size_o = tsm_isa_pkg::f_msz(insn_i);
    atomic_o = op == tsm_isa_pkg::OP_ATOM || op == tsm_isa_pkg::OP_ATOMS || op == tsm_isa_pkg::OP_ATOMCAS ||
               op == tsm_isa_pkg::OP_ATOMSCAS;
    compare_swap_o = op == tsm_isa_pkg::OP_ATOMCAS || op == tsm_isa_pkg::OP_ATOMSCAS;
    atomic_64_o = atomic_type_o == tsm_isa_pkg::ATYPE_U64 || atomic_type_o == tsm_isa_pkg::ATYPE_S64;
    load_o = op == tsm_isa_pkg::OP_LDG || op == tsm_isa_pkg::OP_LDS || op == tsm_isa_pkg::OP_LDL ||
             op == tsm_isa_pkg::OP_LD || op == tsm_isa_pkg::OP_LDC;
    store_o = op == tsm_isa_pkg::OP_STG || op == tsm_isa_pkg::OP_STS || op == tsm_isa_pkg::OP_STL ||
              op == tsm_isa_pkg::OP_ST;
    shared_only_o = op == tsm_isa_pkg::OP_LDS || op == tsm_isa_pkg::OP_STS || op == tsm_isa_pkg::OP_ATOMS ||
                    op == tsm_isa_pkg::OP_ATOMSCAS;
    wide_address_o = ra_regs_o == 3'd2;
    access_bytes_o = atomic_o ? (atomic_64_o ? 5'd8 : 5'd4) : size_bytes(memory_size_o);
    access_words_o = atomic_o ? 3'd1 : size_words(memory_size_o);
  end

endmodule
