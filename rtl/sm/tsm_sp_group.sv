// The SP lanes of one SM: SpLanes copies of the integer ALU, the binary32 FMA, compare/min/max and
// the conversions, fed one register-file row (SpLanes threads) per clock. Every result appears
// exactly one clock after its operands, whatever the opcode, so the caller writes back in order.
module tsm_sp_group #(
  /// Lanes (tsm_cfg_pkg::SpLanes).
  parameter int unsigned Lanes = 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  /// Operands present this cycle.
  input  logic                valid_i,
  input  logic [63:0]         insn_i,
  /// Per lane (lane l at [32l +: 32]): A, the register after A (64-bit integer sources), operand
  /// B resolved (register, constant or immediate), C, and the register after C (IMAD.WIDE).
  input  logic [Lanes*32-1:0] a_i,
  input  logic [Lanes*32-1:0] a_hi_i,
  input  logic [Lanes*32-1:0] b_i,
  input  logic [Lanes*32-1:0] c_i,
  input  logic [Lanes*32-1:0] c_hi_i,
  /// Per lane, predicates P0..P6 in bits 6:0 and PT (1) in bit 7.
  input  logic [Lanes*8-1:0]  preds_i,
  /// Results of the operands given one clock earlier.
  output logic                valid_o,
  output logic [Lanes*32-1:0] d_o,
  output logic [Lanes*32-1:0] d_hi_o,
  /// Writes rd / writes the pair rd, rd+1 (the same for every lane).
  output logic                d_we_o,
  output logic                d_wide_o,
  /// Per lane, the predicates after the instruction and which ones it wrote.
  output logic [Lanes*8-1:0]  preds_o,
  output logic [Lanes*8-1:0]  preds_we_o
);
  logic [7:0] op;
  logic [1:0] dec_a, dec_b, dec_c;
  logic       is_fp, is_conv, src16, dst16;
  always_comb begin
    op = tsm_isa_pkg::f_op(insn_i);
    dec_a = tsm_isa_pkg::dec_ra(insn_i);
    dec_b = tsm_isa_pkg::dec_b(insn_i);
    dec_c = tsm_isa_pkg::dec_rc(insn_i);
    is_fp = op == tsm_isa_pkg::OP_FADD || op == tsm_isa_pkg::OP_FMUL || op == tsm_isa_pkg::OP_FFMA ||
            op == tsm_isa_pkg::OP_FMNMX || op == tsm_isa_pkg::OP_FSETP;
    is_conv = op == tsm_isa_pkg::OP_F2F || op == tsm_isa_pkg::OP_F2I || op == tsm_isa_pkg::OP_I2F;
    // binary16 sources (F2F, F2I) and results (I2F).
    src16 = (op == tsm_isa_pkg::OP_F2F || op == tsm_isa_pkg::OP_F2I) && tsm_isa_pkg::f_sfmt(insn_i) == tsm_isa_pkg::FTYPE_F16;
    dst16 = op == tsm_isa_pkg::OP_I2F && tsm_isa_pkg::f_dfmt(insn_i) == tsm_isa_pkg::FTYPE_F16;
  end

  // The float decorations: bit 1 abs, bit 0 neg.
  function automatic logic [31:0] decorate(input logic [31:0] x, input logic [1:0] d);
    decorate = {(x[31] & ~d[1]) ^ d[0], x[30:0]};
  endfunction

  // binary16 (low half) to binary32, exact: subnormals become normal, a NaN keeps its payload.
  function automatic logic [31:0] f16_to_f32(input logic [15:0] h);
    logic [7:0] e;
    logic [22:0] m;
    e = 8'd0;
    m = {h[9:0], 13'd0};
    if (h[14:10] == 5'h1F) e = 8'hFF;
    else if (h[14:10] != 5'd0) e = {3'd0, h[14:10]} + 8'd112;
    else begin
      // Subnormal: the value is h[9:0] * 2^-24; its leading one at bit k gives exponent k - 24.
      for (int k = 0; k < 10; k++)
        if (h[k]) begin
          e = 8'(k + 103);
          m = 23'({h[9:0], 13'd0} << (10 - k));
        end
    end
    f16_to_f32 = {h[15], e, m};
  endfunction

  logic       op_q, fp_q, conv_q, dst16_q;
  logic [63:0] insn_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      op_q <= 1'b0;
      fp_q <= 1'b0;
      conv_q <= 1'b0;
      dst16_q <= 1'b0;
      insn_q <= '0;
    end else begin
      op_q <= valid_i;
      fp_q <= is_fp;
      conv_q <= is_conv;
      dst16_q <= dst16;
      insn_q <= insn_i;
    end
  end
  assign valid_o = op_q;

  logic [Lanes-1:0] alu_we, alu_wide;
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    logic [31:0] a, b, c, fa, fb, fc, prod_zero_sign, f2f_x, cvt_x;
    logic [31:0] alu_d, alu_dhi, fma_r, f2f_r, min_r, max_r, i2f16_r;
    logic [63:0] cvt_r;
    logic [7:0]  alu_p, alu_pwe;
    logic        cmp_t;
    logic [31:0] alu_d_q, alu_dhi_q;
    logic [7:0]  alu_p_q, alu_pwe_q, preds_q;
    logic        unused_valid;
    logic [4:0]  unused_valids;

    always_comb begin
      a = a_i[32*l +: 32];
      b = b_i[32*l +: 32];
      c = c_i[32*l +: 32];
      fa = decorate(a, dec_a);
      fb = decorate(b, dec_b);
      fc = decorate(c, dec_c);
      // FADD is a * 1.0 + b; FMUL is a * b + (a zero with the product's sign), exact either way.
      prod_zero_sign = {fa[31] ^ fb[31], 31'd0};
      // F2F of binary16: the decorations act on its sign, bit 15. F2I of binary16: the integer
      // converter takes the exact binary32 value (.ftz acts on binary32 sources only, and no
      // binary16 value is a binary32 subnormal).
      f2f_x = src16 ? {16'd0, (a[15] & ~dec_a[1]) ^ dec_a[0], a[14:0]} : fa;
      cvt_x = src16 ? f16_to_f32(a[15:0]) : a;
    end

    tsm_alu32 u_alu (
      .insn_i(insn_i), .a_i(a), .b_i(b), .c_i(c), .c_hi_i(c_hi_i[32*l +: 32]), .preds_i(preds_i[8*l +: 8]),
      .d_o(alu_d), .d_hi_o(alu_dhi), .d_we_o(alu_we[l]), .d_wide_o(alu_wide[l]), .preds_o(alu_p), .preds_we_o(alu_pwe)
    );

    tsm_fma32 #(.Stages(1)) u_fma (
      .clk_i, .rst_ni, .valid_i,
      .a_i(fa),
      .b_i(op == tsm_isa_pkg::OP_FADD ? 32'h3F80_0000 : fb),
      .c_i(op == tsm_isa_pkg::OP_FADD ? fb : op == tsm_isa_pkg::OP_FMUL ? prod_zero_sign : fc),
      .rnd_i(tsm_isa_pkg::f_rnd(insn_i)), .ftz_i(tsm_isa_pkg::f_ftz(insn_i)), .sat_i(tsm_isa_pkg::f_sat(insn_i)),
      .valid_o(unused_valids[0]), .result_o(fma_r)
    );

    tsm_fcmp32 #(.Stages(1)) u_fcmp (
      .clk_i, .rst_ni, .valid_i, .a_i(fa), .b_i(fb), .fcmp_i(tsm_isa_pkg::f_fcmp(insn_i)),
      .ftz_i(tsm_isa_pkg::f_ftz(insn_i)), .nan_i(tsm_isa_pkg::f_nan(insn_i)),
      .valid_o(unused_valids[1]), .pred_o(cmp_t), .min_o(min_r), .max_o(max_r)
    );


    tsm_f2f #(.Stages(1)) u_f2f (
      .clk_i, .rst_ni, .valid_i, .x_i(f2f_x), .sfmt_i(tsm_isa_pkg::f_sfmt(insn_i)), .dfmt_i(tsm_isa_pkg::f_dfmt(insn_i)),
      .rnd_i(tsm_isa_pkg::f_rnd(insn_i)), .rint_i(tsm_isa_pkg::f_rint(insn_i)), .ftz_i(tsm_isa_pkg::f_ftz(insn_i)),
      .sat_i(tsm_isa_pkg::f_sat(insn_i)), .valid_o(unused_valids[3]), .result_o(f2f_r)
    );

    // F2I and I2F for every integer type; the 64-bit ones take their high word from a_hi_i.
    tsm_cvt #(.Stages(1)) u_cvt (
      .clk_i, .rst_ni, .valid_i, .to_float_i(op == tsm_isa_pkg::OP_I2F), .x_i({a_hi_i[32*l +: 32], cvt_x}),
      .itype_i(tsm_isa_pkg::f_itype(insn_i)), .rnd_i(tsm_isa_pkg::f_rnd(insn_i)),
      .ftz_i(tsm_isa_pkg::f_ftz(insn_i)), .valid_o(unused_valids[2]), .result_o(cvt_r)
    );

    // I2F to binary16: the integer rounded to binary32 in the same mode, then to binary16. The
    // double rounding is exact: every integer below 2^24 is a binary32, and anything larger
    // overflows binary16 the same way from either value.
    tsm_f2f #(.Stages(0)) u_i2f16 (
      .clk_i, .rst_ni, .valid_i(1'b1), .x_i(cvt_r[31:0]), .sfmt_i(tsm_isa_pkg::FTYPE_F32),
      .dfmt_i(tsm_isa_pkg::FTYPE_F16), .rnd_i(tsm_isa_pkg::f_rnd(insn_q)), .rint_i(1'b0), .ftz_i(1'b0), .sat_i(1'b0),
      .valid_o(unused_valids[4]), .result_o(i2f16_r)
    );

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        alu_d_q <= '0;
        alu_dhi_q <= '0;
        alu_p_q <= '0;
        alu_pwe_q <= '0;
        preds_q <= '0;
      end else begin
        alu_d_q <= alu_d;
        alu_dhi_q <= alu_dhi;
        alu_p_q <= alu_p;
        alu_pwe_q <= alu_pwe;
        preds_q <= preds_i[8*l +: 8];
      end
    end

    // Results one clock later, selected by the registered opcode.
    logic [7:0] op_q2;
    logic       s_q, t_bop_d, t_bop_q;
    logic [2:0] pd_q, pq_q;
    logic [7:0] p_l, pwe_l;   // this lane's predicates and their write enables
    assign preds_o[8*l +: 8] = p_l;
    assign preds_we_o[8*l +: 8] = pwe_l;
    always_comb begin
      op_q2 = tsm_isa_pkg::f_op(insn_q);
      pd_q = tsm_isa_pkg::f_pd(insn_q);
      pq_q = tsm_isa_pkg::f_pq(insn_q);
      s_q = preds_q[tsm_isa_pkg::f_ps(insn_q)] ^ tsm_isa_pkg::f_psn(insn_q);
      t_bop_d = 1'b0;
      t_bop_q = 1'b0;
      unique case (tsm_isa_pkg::f_bop(insn_q))
        tsm_isa_pkg::BOP_AND: begin t_bop_d = cmp_t & s_q; t_bop_q = ~cmp_t & s_q; end
        tsm_isa_pkg::BOP_OR:  begin t_bop_d = cmp_t | s_q; t_bop_q = ~cmp_t | s_q; end
        default:              begin t_bop_d = cmp_t ^ s_q; t_bop_q = ~cmp_t ^ s_q; end
      endcase
      d_o[32*l +: 32] = alu_d_q;
      d_hi_o[32*l +: 32] = alu_dhi_q;
      p_l = alu_p_q;
      pwe_l = alu_pwe_q;
      if (fp_q) begin
        p_l = preds_q;
        pwe_l = '0;
        unique case (op_q2)
          tsm_isa_pkg::OP_FMNMX: d_o[32*l +: 32] = tsm_isa_pkg::f_mnmx(insn_q) == tsm_isa_pkg::MNMX_MIN ? min_r : max_r;
          tsm_isa_pkg::OP_FSETP: begin
            // Pd first, then Pq (the golden model's order: Pq wins when both name one predicate).
            p_l[pd_q] = t_bop_d;
            p_l[pq_q] = t_bop_q;
            p_l[7] = 1'b1;
            pwe_l[pd_q] = pd_q != 3'd7;
            pwe_l[pq_q] = pq_q != 3'd7;
          end
          default: d_o[32*l +: 32] = fma_r;
        endcase
      end else if (conv_q) begin
        p_l = preds_q;
        pwe_l = '0;
        unique case (op_q2)
          tsm_isa_pkg::OP_F2F: d_o[32*l +: 32] = f2f_r;
          tsm_isa_pkg::OP_I2F: d_o[32*l +: 32] = dst16_q ? i2f16_r : cvt_r[31:0];
          default: begin
            d_o[32*l +: 32] = cvt_r[31:0];
            d_hi_o[32*l +: 32] = cvt_r[63:32];
          end
        endcase
      end
    end
    assign unused_valid = &unused_valids;
  end

  // Write enables are the same for every lane: take lane 0's, registered.
  logic we_q, wide_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      we_q <= 1'b0;
      wide_q <= 1'b0;
    end else begin
      we_q <= tsm_isa_pkg::op_writes_rd(tsm_isa_pkg::f_op(insn_i));
      wide_q <= tsm_isa_pkg::rd_regs(insn_i) == 3'd2;
    end
  end
  assign d_we_o = we_q;
  assign d_wide_o = wide_q;
  logic unused_alu;
  assign unused_alu = ^{alu_we, alu_wide, op_q2_unused};
  logic op_q2_unused;
  assign op_q2_unused = 1'b0;
endmodule
