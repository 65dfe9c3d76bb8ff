// The SP lane's 32-bit integer ALU, combinational, bit-exact with the golden model's int_lane()
// (sim/golden/int_lane.cpp): IADD (carry in and out through a predicate, .SAT), IMUL/IMAD (low,
// high or wide product, signed or unsigned), SHL, SHR, SHF, LOP, LOP3, IMNMX, ISETP, SEL, POPC, CLZ,
// BREV, BFE, BFI, PRMT, MOV, MOV32I and PLOP. It decodes the instruction word itself; the caller
// resolves the operands, applies the guard and discards writes to RZ. Outputs an instruction does
// not write are still defined: d_o and d_hi_o zero, preds_o the input predicates.
module tsm_alu32 (
  /// Instruction word (fields: tsm_isa_pkg::f_*).
  input  logic [63:0] insn_i,
  /// Register A (0 when the instruction reads none).
  input  logic [31:0] a_i,
  /// Operand B resolved by the caller (register, constant or immediate bits); LOP3: register rb.
  input  logic [31:0] b_i,
  /// Register C; IMAD.WIDE: the low word of the pair C.
  input  logic [31:0] c_i,
  /// IMAD.WIDE: the high word of the pair C (otherwise ignored).
  input  logic [31:0] c_hi_i,
  /// The lane's predicates P0..P6 in bits 6:0; bit 7 (PT) reads as 1 whatever it holds.
  input  logic [7:0]  preds_i,
  /// Rd (the low word of a wide result); 0 when the instruction writes no register.
  output logic [31:0] d_o,
  /// Rd+1 of IMUL/IMAD .WIDE, else 0.
  output logic [31:0] d_hi_o,
  /// The instruction writes Rd.
  output logic        d_we_o,
  /// It writes the pair Rd, Rd+1.
  output logic        d_wide_o,
  /// The lane's predicates after the instruction (bit 7, PT, is always 1).
  output logic [7:0]  preds_o,
  /// The predicates it writes (bit 7 never: writes to PT are discarded).
  output logic [7:0]  preds_we_o
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif

  // Reading predicate `idx` of `p` (PT included), negated by `neg`.
  function automatic logic pred_read(input logic [7:0] p, input logic [2:0] idx, input logic neg);
    pred_read = p[idx] ^ neg;
  endfunction

  // The write-enable bit of predicate `idx` (none for PT).
  function automatic logic [7:0] pred_bit(input logic [2:0] idx);
    pred_bit = (8'd1 << idx) & 8'h7F;
  endfunction

  // A comparison or predicate combined with Ps (ISETP, PLOP).
  function automatic logic combine(input logic [1:0] bop, input logic t, input logic s);
    unique case (bop)
      tsm_isa_pkg::BOP_AND: combine = t & s;
      tsm_isa_pkg::BOP_OR:  combine = t | s;
      default:              combine = t ^ s;
    endcase
  endfunction

  // Byte `k` of the pair {hi, lo} (lo = bytes 3..0).
  function automatic logic [7:0] pair_byte(input logic [63:0] pair, input logic [2:0] k);
    pair_byte = pair[{k, 3'b000} +: 8];
  endfunction

  // PTX prmt.b32.mode: each result byte selects one of the eight bytes of {c, a} (IDX: by a nibble
  // of `sel`, whose bit 3 replicates the byte's sign; the other modes: by a pattern of sel[1:0]).
  function automatic logic [31:0] permute(input logic [63:0] pair, input logic [15:0] sel,
                                          input logic [2:0] mode);
    logic [2:0] s2, k;
    logic       rep;
    logic [7:0] v;
    s2 = {1'b0, sel[1:0]};
    permute = 32'd0;
    for (int i = 0; i < 4; i++) begin
      rep = 1'b0;
      unique case (mode)
        tsm_isa_pkg::PRMT_IDX: begin
          k = sel[4*i +: 3];
          rep = sel[4*i + 3];
        end
        tsm_isa_pkg::PRMT_F4E:  k = s2 + 3'(i);
        tsm_isa_pkg::PRMT_B4E:  k = s2 - 3'(i);
        tsm_isa_pkg::PRMT_RC8:  k = s2;
        tsm_isa_pkg::PRMT_ECL:  k = (3'(i) > s2) ? 3'(i) : s2;
        tsm_isa_pkg::PRMT_ECR:  k = (3'(i) < s2) ? 3'(i) : s2;
        tsm_isa_pkg::PRMT_RC16: k = {1'b0, sel[0], 1'(i)};
        default:                k = 3'(i);
      endcase
      v = pair_byte(pair, k);
      permute[8*i +: 8] = rep ? {8{v[7]}} : v;
    end
  endfunction

  // Ones in a word.
  function automatic logic [5:0] popcount32(input logic [31:0] x);
    popcount32 = 6'd0;
    for (int i = 0; i < 32; i++) begin
      popcount32 = popcount32 + {5'd0, x[i]};
    end
  endfunction

  // Leading zeros of a word (32 for zero).
  function automatic logic [5:0] lzc32(input logic [31:0] x);
    lzc32 = 6'd32;
    for (int i = 0; i < 32; i++) begin
      if (x[i]) lzc32 = 6'(31 - i);
    end
  endfunction

  always_comb begin
    logic [7:0]  op;
    logic [7:0]  p;
    logic        is_signed;
    // IADD
    logic [31:0] bb;
    logic        cin, sign33;
    logic [32:0] sum;
    // IMUL, IMAD
    logic [63:0] prod, wide;
    logic [31:0] part;
    // shifts
    logic        big;
    logic [5:0]  n;
    logic [63:0] pair;
    logic [31:0] fs_hi, fs_lo, fsh;  // the shared funnel shifter: fsh = {fs_hi, fs_lo} >> fs_n
    logic [5:0]  fs_n;
    logic        pos_big;
    // LOP, compares, bit fields
    logic [7:0]  lut;
    logic [31:0] x, y, lut_out, len_mask, field_mask, valid;
    logic        a_lt, a_eq, t, s, sbit;
    logic [8:0]  top;
    logic [4:0]  top_idx;

    op = tsm_isa_pkg::f_op(insn_i);
    p = preds_i | 8'h80;
    is_signed = tsm_isa_pkg::f_sgn(insn_i) == tsm_isa_pkg::SGN_S32;

    // IADD: a 33-bit sum; its sign as a 33-bit signed sum tells a signed overflow.
    bb = tsm_isa_pkg::f_negb(insn_i) ? ~b_i : b_i;
    cin = tsm_isa_pkg::f_x(insn_i) ? p[tsm_isa_pkg::f_pcc(insn_i)] : tsm_isa_pkg::f_negb(insn_i);
    sum = {1'b0, a_i} + {1'b0, bb} + {32'd0, cin};
    sign33 = a_i[31] ^ bb[31] ^ sum[32];

    // IMUL, IMAD: the unsigned product; a signed one subtracts B (A) from the high word when A (B)
    // is negative.
    prod = 64'(a_i) * 64'(b_i);
    if (is_signed) begin
      prod[63:32] = prod[63:32] - (a_i[31] ? b_i : 32'd0) - (b_i[31] ? a_i : 32'd0);
    end
    wide = prod + ((op == tsm_isa_pkg::OP_IMAD) ? {c_hi_i, c_i} : 64'd0);
    part = ((tsm_isa_pkg::f_mulw(insn_i) == tsm_isa_pkg::MULW_HI) ? prod[63:32] : prod[31:0])
         + ((op == tsm_isa_pkg::OP_IMAD) ? c_i : 32'd0);

    // Shift amounts of 32 and more.
    big = |b_i[31:5];
    // SHF: WRAP takes the amount modulo 32, CLAMP caps it at 32.
    if (tsm_isa_pkg::f_shfmode(insn_i) == tsm_isa_pkg::SHFMODE_WRAP) n = {1'b0, b_i[4:0]};
    else n = big ? 6'd32 : {1'b0, b_i[4:0]};
    pair = {c_i, a_i};

    // LOP, LOP3
    x = tsm_isa_pkg::f_inva(insn_i) ? ~a_i : a_i;
    y = tsm_isa_pkg::f_invb(insn_i) ? ~b_i : b_i;
    lut = tsm_isa_pkg::f_lut(insn_i);
    for (int i = 0; i < 32; i++) begin
      lut_out[i] = lut[{a_i[i], b_i[i], c_i[i]}];
    end

    // IMNMX, ISETP
    a_eq = a_i == b_i;
    a_lt = is_signed ? ($signed(a_i) < $signed(b_i)) : (a_i < b_i);
`ifdef TSM_MUTANTS
    if (`TSM_MUT(3)) a_lt = a_lt | a_eq;
`endif
    unique case (tsm_isa_pkg::f_icmp(insn_i))
      tsm_isa_pkg::ICMP_EQ: t = a_eq;
      tsm_isa_pkg::ICMP_NE: t = !a_eq;
      tsm_isa_pkg::ICMP_LT: t = a_lt;
      tsm_isa_pkg::ICMP_LE: t = a_lt | a_eq;
      tsm_isa_pkg::ICMP_GT: t = !(a_lt | a_eq);
      tsm_isa_pkg::ICMP_GE: t = !a_lt;
      default:              t = 1'b0;
    endcase
    s = pred_read(p, tsm_isa_pkg::f_ps(insn_i), tsm_isa_pkg::f_psn(insn_i));

    // BFE, BFI: B[7:0] is the position, B[15:8] the length; bits of the field at 32 and above do
    // not exist. valid marks the extracted bits; the others take the sign bit
    // A[min(pos + len - 1, 31)] (BFE.S32 with a non-zero length) or zero.
    len_mask = ~(32'hFFFF_FFFF << b_i[15:8]);
    field_mask = len_mask << b_i[7:0];
    valid = field_mask >> b_i[7:0];
    top = {1'b0, b_i[7:0]} + {1'b0, b_i[15:8]} - 9'd1;
    top_idx = (top > 9'd31) ? 5'd31 : top[4:0];
    sbit = is_signed && b_i[15:8] != 8'd0 && a_i[top_idx];

    // One funnel shifter for every shift: the low word of {fs_hi, fs_lo} >> fs_n, fs_n in 0..32.
    // A left shift by k is the pair {A, 0} shifted right by 32 - k; amounts of 32 and more shift
    // zeros (or the sign) in from fs_hi.
    pos_big = |b_i[7:5];
    fs_hi = 32'd0;
    fs_lo = a_i;
    fs_n = big ? 6'd32 : {1'b0, b_i[4:0]};
    unique case (op)
      tsm_isa_pkg::OP_SHL: begin fs_hi = big ? 32'd0 : a_i; fs_lo = 32'd0; fs_n = 6'd32 - {1'b0, b_i[4:0]}; end
      tsm_isa_pkg::OP_SHR: fs_hi = is_signed ? {32{a_i[31]}} : 32'd0;
      tsm_isa_pkg::OP_SHF: begin
        fs_hi = c_i;
        fs_n = (tsm_isa_pkg::f_shfdir(insn_i) == tsm_isa_pkg::SHFDIR_L) ? 6'd32 - n : n;
      end
      tsm_isa_pkg::OP_BFE: begin fs_lo = a_i & field_mask; fs_n = pos_big ? 6'd32 : {1'b0, b_i[4:0]}; end
      tsm_isa_pkg::OP_BFI: begin fs_hi = pos_big ? 32'd0 : a_i; fs_lo = 32'd0; fs_n = 6'd32 - {1'b0, b_i[4:0]}; end
      default: ;
    endcase
    fsh = 32'({fs_hi, fs_lo} >> fs_n);

    d_o = 32'd0;
    d_hi_o = 32'd0;
    d_we_o = 1'b1;
    d_wide_o = 1'b0;
    preds_o = p;
    preds_we_o = 8'd0;
    unique case (op)
      tsm_isa_pkg::OP_IADD: begin
        if (tsm_isa_pkg::f_sat(insn_i) && sign33 != sum[31]) d_o = sign33 ? 32'h8000_0000 : 32'h7FFF_FFFF;
        else d_o = sum[31:0];
        if (tsm_isa_pkg::f_cc(insn_i)) begin
          preds_we_o = pred_bit(tsm_isa_pkg::f_pcc(insn_i));
          preds_o = (p & ~preds_we_o) | ({8{sum[32]}} & preds_we_o);
        end
      end
      tsm_isa_pkg::OP_IMUL, tsm_isa_pkg::OP_IMAD: begin
        if (tsm_isa_pkg::f_mulw(insn_i) == tsm_isa_pkg::MULW_WIDE) begin
          d_o = wide[31:0];
          d_hi_o = wide[63:32];
          d_wide_o = 1'b1;
        end else begin
          d_o = part;
        end
      end
      tsm_isa_pkg::OP_SHL, tsm_isa_pkg::OP_SHR, tsm_isa_pkg::OP_SHF: d_o = fsh;
      tsm_isa_pkg::OP_LOP: begin
        unique case (tsm_isa_pkg::f_lop(insn_i))
          tsm_isa_pkg::LOP_AND: d_o = x & y;
          tsm_isa_pkg::LOP_OR:  d_o = x | y;
          tsm_isa_pkg::LOP_XOR: d_o = x ^ y;
          default:              d_o = y;
        endcase
      end
      tsm_isa_pkg::OP_LOP3: d_o = lut_out;
      tsm_isa_pkg::OP_IMNMX: begin
        if (a_lt == (tsm_isa_pkg::f_mnmx(insn_i) == tsm_isa_pkg::MNMX_MIN)) d_o = a_i;
        else d_o = b_i;
      end
      tsm_isa_pkg::OP_ISETP: begin
        // Pd, then Pq: Pq wins when both name the same predicate.
        d_we_o = 1'b0;
        preds_o = (preds_o & ~pred_bit(tsm_isa_pkg::f_pd(insn_i)))
                | ({8{combine(tsm_isa_pkg::f_bop(insn_i), t, s)}} & pred_bit(tsm_isa_pkg::f_pd(insn_i)));
        preds_o = (preds_o & ~pred_bit(tsm_isa_pkg::f_pq(insn_i)))
                | ({8{combine(tsm_isa_pkg::f_bop(insn_i), !t, s)}} & pred_bit(tsm_isa_pkg::f_pq(insn_i)));
        preds_we_o = pred_bit(tsm_isa_pkg::f_pd(insn_i)) | pred_bit(tsm_isa_pkg::f_pq(insn_i));
      end
      tsm_isa_pkg::OP_SEL: d_o = s ? a_i : b_i;
      tsm_isa_pkg::OP_POPC: d_o = {26'd0, popcount32(a_i)};
      tsm_isa_pkg::OP_CLZ: d_o = {26'd0, lzc32(a_i)};
      tsm_isa_pkg::OP_BREV: begin
        for (int i = 0; i < 32; i++) begin
          d_o[i] = a_i[31 - i];
        end
      end
      tsm_isa_pkg::OP_BFE: d_o = fsh | ({32{sbit}} & ~valid);
      tsm_isa_pkg::OP_BFI: d_o = (c_i & ~field_mask) | (fsh & field_mask);
      tsm_isa_pkg::OP_PRMT: d_o = permute(pair, b_i[15:0], tsm_isa_pkg::f_prmt(insn_i));
      tsm_isa_pkg::OP_MOV: d_o = b_i;
      tsm_isa_pkg::OP_MOV32I: d_o = tsm_isa_pkg::f_imm32(insn_i);
      tsm_isa_pkg::OP_PLOP: begin
        d_we_o = 1'b0;
        preds_we_o = pred_bit(tsm_isa_pkg::f_pd(insn_i));
        preds_o = (p & ~preds_we_o)
                | ({8{combine(tsm_isa_pkg::f_bop(insn_i),
                              pred_read(p, tsm_isa_pkg::f_pa(insn_i), tsm_isa_pkg::f_pan(insn_i)), s)}}
                   & preds_we_o);
      end
      default: d_we_o = 1'b0;
    endcase
`ifdef TSM_MUTANTS
    if (`TSM_MUT(2) && op == tsm_isa_pkg::OP_SHR && is_signed && !big) d_o = a_i >> b_i[4:0];
`endif
  end

endmodule
