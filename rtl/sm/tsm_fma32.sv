// IEEE-754 binary32 fused multiply-add of one SP lane: a * b + c with a single rounding,
// bit-exact with sim/arith's fma_f32 (four rounding modes, .ftz, .sat, the canonical NaN).
//
// The datapath follows the golden model's algorithm (docs/floating-point.md): both terms (the
// exact 48-bit product and the addend) are normalized with their leading bit at bit 50 of a
// 52-bit word, the smaller is shifted right with its lost bits jammed into bit 0, they are added
// or subtracted, and the sum is rounded once where the result's last kept bit lies (subnormal
// results included). `.ftz` flushes subnormal inputs and results that are tiny after rounding.
// The result passes through `Stages` registers.
module tsm_fma32 #(
  /// Pipeline registers between the operands and the result (0: combinational).
  parameter int unsigned Stages = 4
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  /// Operands present this cycle.
  input  logic        valid_i,
  /// a * b + c.
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  input  logic [31:0] c_i,
  /// Rounding mode: tsm_isa_pkg::RND_RN, _RZ, _RM, _RP.
  input  logic [1:0]  rnd_i,
  /// Flush subnormal inputs and tiny results to zero.
  input  logic        ftz_i,
  /// Clamp the result to [+0.0, 1.0]; NaN becomes +0.0.
  input  logic        sat_i,
  /// The result of the operands given Stages cycles earlier.
  output logic        valid_o,
  output logic [31:0] result_o
);

  // Mutant 1 (rtl/mutants/mutants.json): round to nearest takes a tie away from zero, as if the
  // last kept bit were odd.
  logic mut_tie_away;
`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
  assign mut_tie_away = `TSM_MUT(1);
`else
  assign mut_tie_away = 1'b0;
`endif

  localparam logic [31:0] CanonicalNaN = 32'h7FFF_FFFF;

  // Leading zeros of a 52-bit word (52 for zero).
  function automatic logic [5:0] lzc52(input logic [51:0] x);
    lzc52 = 6'd52;
    for (int i = 0; i < 52; i++) begin
      if (x[i]) lzc52 = 6'(51 - i);
    end
  endfunction

  // x >> sh for 0 <= sh, as {kept, round bit, sticky}; the kept part has at most 25 bits where it
  // is used (a rounded significand and its carry).
  function automatic logic [26:0] shift_for_rounding(input logic [51:0] x, input logic [8:0] sh);
    logic [24:0] kept;
    logic        round_bit, sticky;
    kept = 25'd0;
    round_bit = 1'b0;
    sticky = 1'b0;
    if (sh == 9'd0) begin
      kept = 25'(x);
    end else if (sh <= 9'd52) begin
      kept = 25'(x >> sh);
      round_bit = x[6'(sh - 9'd1)];
      sticky = |(x & ((52'd1 << 6'(sh - 9'd1)) - 52'd1));
    end else begin
      sticky = |x;
    end
    shift_for_rounding = {kept, round_bit, sticky};
  endfunction

  logic [31:0] result;

  always_comb begin
    logic [31:0] a, b, c;
    logic        sa, sb, sc, sp;
    logic        a_zero, b_zero, c_zero, a_inf, b_inf, c_inf, any_nan;
    logic [23:0] ma, mb, mc;
    logic signed [11:0] ea, eb, ec;          // exponents of the significands' bit 0
    logic [47:0] mp;
    logic [51:0] xp, xc, x, y, y_shifted, sum;
    logic signed [11:0] le_p, le_c, le_x, le_y, e0, lead_exp, quantum_exp;
    logic [5:0]  lz_p, lz_c, lz_sum;
    logic        sx, p_zero, swap;
    logic [11:0] diff;
    logic signed [11:0] sh;
    logic [26:0] rounded_parts;
    logic [24:0] kept;
    logic [24:0] mant;
    logic signed [11:0] biased_minus_one;
    logic        up, tiny;
    logic [26:0] unbounded_parts;
    logic        unbounded_carry;

    // ---- inputs: flush under .ftz, unpack ----
    a = (ftz_i && a_i[30:23] == 8'd0) ? {a_i[31], 31'd0} : a_i;
    b = (ftz_i && b_i[30:23] == 8'd0) ? {b_i[31], 31'd0} : b_i;
    c = (ftz_i && c_i[30:23] == 8'd0) ? {c_i[31], 31'd0} : c_i;
    sa = a[31];
    sb = b[31];
    sc = c[31];
    sp = sa ^ sb;
    a_zero = a[30:0] == 31'd0;
    b_zero = b[30:0] == 31'd0;
    c_zero = c[30:0] == 31'd0;
    a_inf = a[30:23] == 8'hFF && a[22:0] == 23'd0;
    b_inf = b[30:23] == 8'hFF && b[22:0] == 23'd0;
    c_inf = c[30:23] == 8'hFF && c[22:0] == 23'd0;
    any_nan = (a[30:23] == 8'hFF && a[22:0] != 23'd0) || (b[30:23] == 8'hFF && b[22:0] != 23'd0) ||
              (c[30:23] == 8'hFF && c[22:0] != 23'd0);
    ma = {a[30:23] != 8'd0, a[22:0]};
    mb = {b[30:23] != 8'd0, b[22:0]};
    mc = {c[30:23] != 8'd0, c[22:0]};
    ea = $signed({4'd0, (a[30:23] == 8'd0) ? 8'd1 : a[30:23]}) - 12'sd150;
    eb = $signed({4'd0, (b[30:23] == 8'd0) ? 8'd1 : b[30:23]}) - 12'sd150;
    ec = $signed({4'd0, (c[30:23] == 8'd0) ? 8'd1 : c[30:23]}) - 12'sd150;

    // ---- the two terms, leading bits at bit 50 ----
    mp = ma * mb;
    p_zero = a_zero | b_zero;
    lz_p = lzc52({4'd0, mp});
    lz_c = lzc52({28'd0, mc});
    // A 48-bit product's leading bit k (= 51 - lz_p) moves to bit 50: shift by lz_p - 1.
    xp = p_zero ? 52'd0 : ({4'd0, mp} << (lz_p - 6'd1));
    xc = c_zero ? 52'd0 : ({28'd0, mc} << (lz_c - 6'd1));
    le_p = ea + eb + 12'sd51 - $signed({6'd0, lz_p});
    le_c = ec + 12'sd51 - $signed({6'd0, lz_c});

    // ---- x: the larger term; y shifted to x's scale, lost bits jammed into bit 0 ----
    swap = p_zero || (!c_zero && (le_c > le_p || (le_c == le_p && xc > xp)));
    x = swap ? xc : xp;
    y = swap ? xp : xc;
    sx = swap ? sc : sp;
    le_x = swap ? le_c : le_p;
    le_y = swap ? le_p : le_c;
    diff = (y == 52'd0) ? 12'd0 : 12'(le_x - le_y);
    if (diff == 12'd0) y_shifted = y;
    else if (diff < 12'd52) y_shifted = (y >> diff) | {51'd0, |(y << (12'd52 - diff))};
    else y_shifted = {51'd0, |y};
    sum = (sx == (swap ? sp : sc)) ? x + y_shifted : x - y_shifted;
    e0 = le_x - 12'sd50;

    // ---- round once ----
    lz_sum = lzc52(sum);
    lead_exp = e0 + 12'sd51 - $signed({6'd0, lz_sum});
    quantum_exp = (lead_exp - 12'sd23 > -12'sd149) ? lead_exp - 12'sd23 : -12'sd149;
    sh = quantum_exp - e0;
    if (sh < 0) rounded_parts = {25'(sum << 6'(12'sd0 - sh)), 2'b00};  // no unary minus: see tsm_sfu.sv
    else rounded_parts = shift_for_rounding(sum, (sh > 12'sd256) ? 9'd256 : 9'(sh));
    kept = rounded_parts[26:2];
    up = tsm_round_pkg::rounds_up(rnd_i, sx, kept[0] | mut_tie_away, rounded_parts[1], rounded_parts[0]);
    mant = kept + {24'd0, up};
    biased_minus_one = quantum_exp + 12'sd149;
    // .ftz: tiny if, rounded to 24 bits with an unbounded exponent, it stays below 2^-126.
    unbounded_parts = (lz_sum <= 6'd28) ? shift_for_rounding(sum, {3'd0, 6'd28 - lz_sum})
                                         : {25'(sum << (lz_sum - 6'd28)), 2'b00};
    unbounded_carry = unbounded_parts[26:2] == 25'h0FF_FFFF &&
                      tsm_round_pkg::rounds_up(rnd_i, sx, unbounded_parts[2] | mut_tie_away, unbounded_parts[1], unbounded_parts[0]);
    tiny = lead_exp < -12'sd127 || (lead_exp == -12'sd127 && !unbounded_carry);

    // ---- specials and the result ----
    if (any_nan || (a_inf && b_zero) || (a_zero && b_inf) || ((a_inf || b_inf) && c_inf && sp != sc)) begin
      result = CanonicalNaN;
    end else if (a_inf || b_inf) begin
      result = {sp, 8'hFF, 23'd0};
    end else if (c_inf) begin
      result = {sc, 8'hFF, 23'd0};
    end else if (p_zero && c_zero) begin
      result = {(sp == sc) ? sp : (rnd_i == tsm_isa_pkg::RND_RM), 31'd0};
    end else if (sum == 52'd0) begin
      result = {rnd_i == tsm_isa_pkg::RND_RM, 31'd0};
    end else if (ftz_i && tiny) begin
      result = {sx, 31'd0};
    end else if (biased_minus_one + $signed({10'd0, mant[24:23]}) >= 12'sd255) begin
      // overflow: infinity or the largest finite value, by rounding direction
      unique case (rnd_i)
        tsm_isa_pkg::RND_RZ: result = {sx, 31'h7F7F_FFFF};
        tsm_isa_pkg::RND_RM: result = sx ? 32'hFF80_0000 : 32'h7F7F_FFFF;
        tsm_isa_pkg::RND_RP: result = sx ? 32'hFF7F_FFFF : 32'h7F80_0000;
        default:             result = {sx, 31'h7F80_0000};
      endcase
    end else begin
      result = {sx, 31'(({19'd0, biased_minus_one} << 23) + {6'd0, mant})};
    end
    if (sat_i) begin
      if (result[31] || (result[30:23] == 8'hFF && result[22:0] != 23'd0)) result = 32'd0;
      else if (result > 32'h3F80_0000) result = 32'h3F80_0000;
    end
  end

  // ---- pipeline ----
  tsm_delay #(.Stages(Stages), .Width(32)) u_delay (
    .clk_i, .rst_ni, .valid_i, .data_i(result), .valid_o, .data_o(result_o)
  );

endmodule
