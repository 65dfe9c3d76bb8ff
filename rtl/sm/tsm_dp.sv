// The DP unit's datapath (gt200 configuration): binary64 add, multiply, fused multiply-add,
// min/max and compare, and the conversions with a binary64 source or result (F2F, F2I, I2F),
// bit-exact with sim/arith's add_f64, mul_f64, fma_f64, min_f64, max_f64, cmp_f64, f2f, f2i, i2f.
//
// Arithmetic is one fused multiply-add, as in tsm_fma32 with wider words: DADD is a * 1.0 + b and
// DMUL is a * b + (a zero of the product's sign), both exact rewrites with the same NaN priority.
// The exact 106-bit product and the addend are normalized with their leading bit at bit 108 of a
// 110-bit word, the smaller is shifted right with its lost bits jammed into bit 0 (they lie far
// below any rounding position), one add or subtract, then one rounding. Conversions feed the same
// rounder (which rounds to binary64, binary32 or binary16) with the exact source value: an integer
// magnitude for I2F, the source significand for F2F, first rounded to an integral value by a
// small integral rounder for .rint; F2I takes the integral rounder's result and saturates it.
//
// NaN results are the DP unit's (docs/floating-point.md §3): the NaN operand quieted, in priority
// b, c, a for DFMA and b, a for DADD/DMUL/DMIN/DMAX, 0xFFF8000000000000 for an invalid operation;
// conversions keep the sign and the payload's top bits. F2I of NaN gives the integer with only its
// top bit set (sign-extended for signed types). Subnormals are never flushed, except that .ftz
// flushes a binary32 source (F2F f32->f64, which also makes a binary32 NaN canonical) and a binary32
// result tiny after rounding (F2F f64->f32). .sat clamps F2F results to [+0.0, 1.0].
//
// op_i (this unit's own encoding):
//   0 DADD  a + b              4 DMAX   max(a, b)            8 F2F f64 -> f64 (.rint or identity)
//   1 DMUL  a * b              5 DSETP  pred_o = a fcmp b    9 F2I f64 -> itype_i
//   2 DFMA  a * b + c          6 F2F f32 -> f64             10 I2F itype_i -> f64
//   3 DMIN  min(a, b)          7 F2F f64 -> f32             11 F2F f16 -> f64,  12 F2F f64 -> f16
// Codes 13..15 give 0. Float results in the low bits (binary32 [31:0], binary16 [15:0]), the rest
// 0; F2I results sign- or zero-extended to 64 bits by itype_i; pred_o is 0 except for DSETP and
// result_o is 0 for DSETP. The results pass through `Stages` registers.
module tsm_dp #(
  /// Pipeline registers between the operands and the result (0: combinational).
  parameter int unsigned Stages = 2
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  /// Operands present this cycle.
  input  logic        valid_i,
  /// Operation: DpAdd .. DpF2F64To16 below.
  input  logic [3:0]  op_i,
  /// Operands (already negated or made absolute by the caller). Conversions read a_i: binary32 in
  /// [31:0], binary16 in [15:0], an integer in the low bits of its type; higher bits are ignored.
  input  logic [63:0] a_i,
  input  logic [63:0] b_i,
  input  logic [63:0] c_i,
  /// Rounding mode: tsm_isa_pkg::RND_RN, _RZ, _RM, _RP (the integral rounding of F2I and .rint).
  input  logic [1:0]  rnd_i,
  /// DSETP's comparison: tsm_isa_pkg::FCMP_*.
  input  logic [3:0]  fcmp_i,
  /// F2I destination / I2F source type: tsm_isa_pkg::ITYPE_U8 .. ITYPE_S64.
  input  logic [2:0]  itype_i,
  /// F2F: round to an integral value in mode rnd_i first (cvt.rni/rzi/rmi/rpi).
  input  logic        rint_i,
  /// F2F f32 -> f64: flush a subnormal source (a NaN becomes canonical); f64 -> f32: flush a
  /// result tiny after rounding. Ignored elsewhere.
  input  logic        ftz_i,
  /// F2F: clamp the result to [+0.0, 1.0] (NaN and -0.0 give +0.0).
  input  logic        sat_i,
  /// DMIN/DMAX: any NaN operand gives the NaN result (min_f64's `nan`; PTX has no min.NaN.f64).
  input  logic        nan_i,
  /// The results of the operands given Stages cycles earlier.
  output logic        valid_o,
  output logic [63:0] result_o,
  output logic        pred_o
);

  localparam logic [3:0] DpAdd = 4'd0;
  localparam logic [3:0] DpMul = 4'd1;
  localparam logic [3:0] DpFma = 4'd2;
  localparam logic [3:0] DpMin = 4'd3;
  localparam logic [3:0] DpMax = 4'd4;
  localparam logic [3:0] DpSetp = 4'd5;
  localparam logic [3:0] DpF2F32To64 = 4'd6;
  localparam logic [3:0] DpF2F64To32 = 4'd7;
  localparam logic [3:0] DpF2F64To64 = 4'd8;
  localparam logic [3:0] DpF2I = 4'd9;
  localparam logic [3:0] DpI2F = 4'd10;
  localparam logic [3:0] DpF2F16To64 = 4'd11;
  localparam logic [3:0] DpF2F64To16 = 4'd12;

  localparam logic [63:0] DefaultNaN = 64'hFFF8_0000_0000_0000;
  localparam logic [63:0] QuietBit = 64'h0008_0000_0000_0000;
  localparam logic [63:0] One = 64'h3FF0_0000_0000_0000;

  // The rounder's result formats.
  localparam logic [1:0] Fmt64 = 2'd0;
  localparam logic [1:0] Fmt32 = 2'd1;
  localparam logic [1:0] Fmt16 = 2'd2;

  // Leading zeros of a 110-bit word (110 for zero).
  function automatic logic [6:0] lzc110(input logic [109:0] x);
    lzc110 = 7'd110;
    for (int i = 0; i < 110; i++) begin
      if (x[i]) lzc110 = 7'(109 - i);
    end
  endfunction

  // The variable shifts are barrel shifters of constant stages: Yosys' resource sharing would
  // otherwise try to prove pairs of shifters exclusive with a SAT problem through the 53x53
  // multiplier, and not finish.

  // x >> sh with every bit shifted out ORed into bit 0 (sh up to 127: all of x jammed).
  function automatic logic [111:0] shr_jam112(input logic [111:0] x, input logic [6:0] sh);
    logic [111:0] v;
    v = x;
    for (int k = 0; k < 7; k++) begin
      if (sh[k]) v = (v >> (1 << k)) | {111'd0, |(v & ((112'd1 << (1 << k)) - 112'd1))};
    end
    shr_jam112 = v;
  endfunction

  // x << sh, bits shifted out of the word lost.
  function automatic logic [109:0] shl110(input logic [109:0] x, input logic [6:0] sh);
    logic [109:0] v;
    v = x;
    for (int k = 0; k < 7; k++) begin
      if (sh[k]) v = v << (1 << k);
    end
    shl110 = v;
  endfunction

  // x >> sh as {kept, round bit, sticky}; the kept part has at most 54 bits where it is used (a
  // rounded significand and its carry). sh >= 111 leaves everything in the sticky bit.
  function automatic logic [55:0] shift_for_rounding(input logic [109:0] x, input logic [6:0] sh);
    shift_for_rounding = 56'(shr_jam112({x, 2'b00}, sh));
  endfunction

  // ---- Operands of the fused multiply-add: a * b + c, or the rewrites of DADD and DMUL ----
  logic [63:0] fa, fb, fc;
  always_comb begin
    fa = a_i;
    fb = b_i;
    fc = c_i;
    if (op_i == DpAdd) begin
      fb = One;
      fc = b_i;
    end else if (op_i == DpMul) begin
      fc = {a_i[63] ^ b_i[63], 63'd0};
    end
  end

  // ---- The fused multiply-add up to the unrounded sum ----
  logic         fma_sign;   // sign of the sum
  logic [109:0] fma_sum;    // |sum| = fma_sum * 2^fma_e0
  logic signed [13:0] fma_e0;
  logic [63:0]  fma_special;
  logic         fma_is_special;

  always_comb begin
    logic        sa, sb, sc, sp;
    logic        a_zero, b_zero, c_zero, a_inf, b_inf, c_inf, a_nan, b_nan, c_nan;
    logic [52:0] ma, mb, mc;
    logic signed [13:0] ea, eb, ec;          // exponents of the significands' bit 0
    logic [105:0] mp;
    logic [109:0] xp, xc, x, y, y_shifted;
    logic signed [13:0] le_p, le_c, le_x, le_y;
    logic [6:0]  lz_p, lz_c;
    logic        p_zero, swap;
    logic [13:0] diff;

    sa = fa[63];
    sb = fb[63];
    sc = fc[63];
    sp = sa ^ sb;
    a_zero = fa[62:0] == 63'd0;
    b_zero = fb[62:0] == 63'd0;
    c_zero = fc[62:0] == 63'd0;
    a_inf = fa[62:52] == 11'h7FF && fa[51:0] == 52'd0;
    b_inf = fb[62:52] == 11'h7FF && fb[51:0] == 52'd0;
    c_inf = fc[62:52] == 11'h7FF && fc[51:0] == 52'd0;
    a_nan = fa[62:52] == 11'h7FF && fa[51:0] != 52'd0;
    b_nan = fb[62:52] == 11'h7FF && fb[51:0] != 52'd0;
    c_nan = fc[62:52] == 11'h7FF && fc[51:0] != 52'd0;
    ma = {fa[62:52] != 11'd0, fa[51:0]};
    mb = {fb[62:52] != 11'd0, fb[51:0]};
    mc = {fc[62:52] != 11'd0, fc[51:0]};
    ea = $signed({3'd0, (fa[62:52] == 11'd0) ? 11'd1 : fa[62:52]}) - 14'sd1075;
    eb = $signed({3'd0, (fb[62:52] == 11'd0) ? 11'd1 : fb[62:52]}) - 14'sd1075;
    ec = $signed({3'd0, (fc[62:52] == 11'd0) ? 11'd1 : fc[62:52]}) - 14'sd1075;

    // ---- the two terms, leading bits at bit 108 ----
    mp = ma * mb;
    p_zero = a_zero | b_zero;
    lz_p = lzc110({4'd0, mp});
    lz_c = lzc110({57'd0, mc});
    // A term's leading bit k (= 109 - lz) moves to bit 108: shift left by lz - 1.
    xp = p_zero ? 110'd0 : shl110({4'd0, mp}, lz_p - 7'd1);
    xc = c_zero ? 110'd0 : shl110({57'd0, mc}, lz_c - 7'd1);
    le_p = ea + eb + 14'sd109 - $signed({7'd0, lz_p});
    le_c = ec + 14'sd109 - $signed({7'd0, lz_c});

    // ---- x: the larger term; y shifted to x's scale, lost bits jammed into bit 0 ----
    swap = p_zero || (!c_zero && (le_c > le_p || (le_c == le_p && xc > xp)));
    x = swap ? xc : xp;
    y = swap ? xp : xc;
    fma_sign = swap ? sc : sp;
    le_x = swap ? le_c : le_p;
    le_y = swap ? le_p : le_c;
    diff = (y == 110'd0) ? 14'd0 : 14'(le_x - le_y);
    y_shifted = 110'(shr_jam112({2'b00, y}, (diff > 14'd127) ? 7'd127 : 7'(diff)));
    fma_sum = (sp == sc) ? x + y_shifted : x - y_shifted;
    fma_e0 = le_x - 14'sd108;

    // ---- results that need no rounding ----
    fma_is_special = 1'b1;
    if (b_nan) begin
      fma_special = fb | QuietBit;
    end else if (c_nan) begin
      fma_special = fc | QuietBit;
    end else if (a_nan) begin
      fma_special = fa | QuietBit;
    end else if ((a_inf && b_zero) || (a_zero && b_inf) || ((a_inf || b_inf) && c_inf && sp != sc)) begin
      fma_special = DefaultNaN;
    end else if (a_inf || b_inf) begin
      fma_special = {sp, 11'h7FF, 52'd0};
    end else if (c_inf) begin
      fma_special = {sc, 11'h7FF, 52'd0};
    end else if (p_zero && c_zero) begin
      fma_special = {(sp == sc) ? sp : (rnd_i == tsm_isa_pkg::RND_RM), 63'd0};
    end else if (fma_sum == 110'd0) begin
      fma_special = {rnd_i == tsm_isa_pkg::RND_RM, 63'd0};
    end else begin
      fma_special = 64'd0;
      fma_is_special = 1'b0;
    end
  end

  // ---- The conversions' source: a float (binary64, binary32 or binary16) or an integer ----
  logic         src_neg, src_nan, src_inf;
  logic [52:0]  src_sig;                 // |value| = src_sig * 2^src_exp
  logic signed [13:0] src_exp;
  logic [63:0]  src_nan_result;          // a NaN source converted to the destination format
  logic [53:0]  int_sig;                 // the value rounded to an integral value: int_sig * 2^int_exp
  logic signed [13:0] int_exp;
  logic         int_neg;                 // I2F: the integer's sign and magnitude
  logic [63:0]  int_mag;
  logic [63:0]  umax, smax;              // the integer type's largest unsigned / signed value

  always_comb begin
    logic [31:0] f32;
    logic [15:0] f16;
    logic [6:0]  sh;
    logic [55:0] parts;
    logic [63:0] ext;

    // ---- float source, flushed under .ftz when it is binary32 ----
    f32 = a_i[31:0];
    if (ftz_i && f32[30:23] == 8'd0) f32 = {f32[31], 31'd0};
    if (ftz_i && f32[30:23] == 8'hFF && f32[22:0] != 23'd0) f32 = 32'h7FFF_FFFF;
    f16 = a_i[15:0];
    if (op_i == DpF2F32To64) begin
      src_neg = f32[31];
      src_nan = f32[30:23] == 8'hFF && f32[22:0] != 23'd0;
      src_inf = f32[30:23] == 8'hFF && f32[22:0] == 23'd0;
      src_sig = {29'd0, f32[30:23] != 8'd0, f32[22:0]};
      src_exp = $signed({6'd0, (f32[30:23] == 8'd0) ? 8'd1 : f32[30:23]}) - 14'sd150;
      src_nan_result = {f32[31], 11'h7FF, f32[22:0] | 23'h40_0000, 29'd0};
    end else if (op_i == DpF2F16To64) begin
      src_neg = f16[15];
      src_nan = f16[14:10] == 5'h1F && f16[9:0] != 10'd0;
      src_inf = f16[14:10] == 5'h1F && f16[9:0] == 10'd0;
      src_sig = {42'd0, f16[14:10] != 5'd0, f16[9:0]};
      src_exp = $signed({9'd0, (f16[14:10] == 5'd0) ? 5'd1 : f16[14:10]}) - 14'sd25;
      src_nan_result = {f16[15], 11'h7FF, f16[9:0] | 10'h200, 42'd0};
    end else begin
      src_neg = a_i[63];
      src_nan = a_i[62:52] == 11'h7FF && a_i[51:0] != 52'd0;
      src_inf = a_i[62:52] == 11'h7FF && a_i[51:0] == 52'd0;
      src_sig = {a_i[62:52] != 11'd0, a_i[51:0]};
      src_exp = $signed({3'd0, (a_i[62:52] == 11'd0) ? 11'd1 : a_i[62:52]}) - 14'sd1075;
      if (op_i == DpF2F64To32) src_nan_result = {32'd0, a_i[63], 8'hFF, a_i[51:29] | 23'h40_0000};
      else if (op_i == DpF2F64To16) src_nan_result = {48'd0, a_i[63], 5'h1F, a_i[51:42] | 10'h200};
      else src_nan_result = a_i | QuietBit;
    end

    // ---- the integral rounder (F2I, .rint): values with a fraction round at bit 2^0 ----
    sh = (src_exp < -14'sd127) ? 7'd127 : 7'(14'sd0 - src_exp);  // used where src_exp < 0
    parts = shift_for_rounding({57'd0, src_sig}, sh);
    if (src_exp < 0) begin
      int_sig = parts[55:2] + {53'd0, tsm_round_pkg::rounds_up(rnd_i, src_neg, parts[2], parts[1], parts[0])};
      int_exp = 14'sd0;
    end else begin
      int_sig = {1'b0, src_sig};
      int_exp = src_exp;
    end

    // ---- the integer type and the I2F source ----
    unique case (itype_i[2:1])
      2'd0:    umax = 64'h0000_0000_0000_00FF;
      2'd1:    umax = 64'h0000_0000_0000_FFFF;
      2'd2:    umax = 64'h0000_0000_FFFF_FFFF;
      default: umax = 64'hFFFF_FFFF_FFFF_FFFF;
    endcase
    smax = umax >> 1;
    // ITYPE_S8/S16/S32/S64 are the odd codes: sign-extend from the type's top bit.
    ext = (itype_i[0] && (a_i & ~smax & umax) != 64'd0) ? (a_i | ~umax) : (a_i & umax);
    int_neg = itype_i[0] && ext[63];
    int_mag = int_neg ? 64'd0 - ext : ext;
  end

  // ---- F2I: the integral value saturated to the integer type ----
  logic [63:0] f2i_result;
  always_comb begin
    logic        huge;
    logic [63:0] mag;
    // |value| >= 2^64 (infinity included) saturates every type; below, the magnitude fits 64 bits.
    huge = src_inf || int_exp >= 14'sd12;
    mag = {10'd0, int_sig};  // int_exp >= 0; below 12 the shift loses nothing
    for (int k = 0; k < 4; k++) begin
      if (int_exp[k]) mag = mag << (1 << k);
    end
    if (src_nan) begin
      f2i_result = ~smax & (itype_i[0] ? 64'hFFFF_FFFF_FFFF_FFFF : umax);
    end else if (!itype_i[0]) begin
      if (src_neg) f2i_result = 64'd0;
      else if (huge || mag > umax) f2i_result = umax;
      else f2i_result = mag;
    end else if (!src_neg) begin
      f2i_result = (huge || mag > smax) ? smax : mag;
    end else begin
      f2i_result = (huge || mag > smax + 64'd1) ? ~smax : 64'd0 - mag;
    end
  end

  // ---- The rounder: (-1)^r_neg * r_sum * 2^r_e0 (r_sum != 0) to binary64, 32 or 16 ----
  logic         r_neg;
  logic [109:0] r_sum;
  logic signed [13:0] r_e0;
  logic [1:0]   r_fmt;
  logic         r_ftz;
  logic [63:0]  rounded;

  always_comb begin
    r_neg = src_neg;
    r_sum = {56'd0, rint_i ? int_sig : {1'b0, src_sig}};
    r_e0 = rint_i ? int_exp : src_exp;
    r_fmt = Fmt64;
    r_ftz = 1'b0;
    unique case (op_i)
      DpAdd, DpMul, DpFma: begin
        r_neg = fma_sign;
        r_sum = fma_sum;
        r_e0 = fma_e0;
      end
      DpI2F: begin
        r_neg = int_neg;
        r_sum = {46'd0, int_mag};
        r_e0 = 14'sd0;
      end
      DpF2F64To32: begin
        r_fmt = Fmt32;
        r_ftz = ftz_i;
      end
      DpF2F64To16: r_fmt = Fmt16;
      default: ;
    endcase
  end

  always_comb begin
    logic [6:0]  prec, lz;
    logic signed [13:0] min_quantum, bias_offset, max_biased, lead_exp, quantum_exp, sh;
    logic [55:0] parts;
    logic [25:0] unbounded_parts;  // the low 24 kept bits, round bit, sticky
    logic [53:0] kept, mant;
    logic [1:0]  carry;
    logic signed [13:0] biased_minus_one;
    logic [63:0] enc, inf, max_finite;
    logic        up, tiny, unbounded_carry, to_inf;

    unique case (r_fmt)
      Fmt32: begin
        prec = 7'd23;
        min_quantum = -14'sd149;
        bias_offset = 14'sd149;
        max_biased = 14'sd255;
        inf = 64'h0000_0000_7F80_0000;
      end
      Fmt16: begin
        prec = 7'd10;
        min_quantum = -14'sd24;
        bias_offset = 14'sd24;
        max_biased = 14'sd31;
        inf = 64'h0000_0000_0000_7C00;
      end
      default: begin
        prec = 7'd52;
        min_quantum = -14'sd1074;
        bias_offset = 14'sd1074;
        max_biased = 14'sd2047;
        inf = 64'h7FF0_0000_0000_0000;
      end
    endcase
    max_finite = inf - 64'd1;

    // The weight of the last kept bit: prec bits below the leading one, never below the last
    // subnormal bit.
    lz = lzc110(r_sum);
    lead_exp = r_e0 + 14'sd109 - $signed({7'd0, lz});
    quantum_exp = (lead_exp - $signed({7'd0, prec}) > min_quantum) ? lead_exp - $signed({7'd0, prec})
                                                                   : min_quantum;
    sh = quantum_exp - r_e0;
    if (sh < 0) parts = {54'(shl110(r_sum, 7'(14'sd0 - sh))), 2'b00};  // no unary minus: see tsm_sfu.sv
    else parts = shift_for_rounding(r_sum, (sh > 14'sd127) ? 7'd127 : 7'(sh));
    kept = parts[55:2];
    up = tsm_round_pkg::rounds_up(rnd_i, r_neg, kept[0], parts[1], parts[0]);
    mant = kept + {53'd0, up};
    // mant carries the implicit bit: added to (biased exponent - 1) << prec it encodes normals and
    // subnormals alike, and a carry moves into the exponent by itself.
    biased_minus_one = quantum_exp + bias_offset;
    unique case (r_fmt)
      Fmt32: begin
        carry = mant[24:23];
        enc = {27'd0, biased_minus_one, 23'd0} + {10'd0, mant};
      end
      Fmt16: begin
        carry = mant[11:10];
        enc = {40'd0, biased_minus_one, 10'd0} + {10'd0, mant};
      end
      default: begin
        carry = mant[53:52];
        enc = {biased_minus_one[11:0], 52'd0} + {10'd0, mant};
      end
    endcase

    // .ftz (binary32 results): tiny if, rounded to 24 bits with an unbounded exponent, it stays
    // below 2^-126. The leading bit sits at 109 - lz; 24 bits keep it down to 86 - lz.
    unbounded_parts = (lz <= 7'd86) ? 26'(shift_for_rounding(r_sum, 7'd86 - lz)) : 26'd0;
    unbounded_carry = unbounded_parts[25:2] == 24'hFF_FFFF &&
                      tsm_round_pkg::rounds_up(rnd_i, r_neg, unbounded_parts[2], unbounded_parts[1], unbounded_parts[0]);
    tiny = lead_exp < -14'sd127 || (lead_exp == -14'sd127 && !unbounded_carry);

    to_inf = rnd_i == tsm_isa_pkg::RND_RN || (rnd_i == tsm_isa_pkg::RND_RP && !r_neg) ||
             (rnd_i == tsm_isa_pkg::RND_RM && r_neg);
    if (r_ftz && tiny) begin
      rounded = 64'd0;
    end else if (biased_minus_one + $signed({12'd0, carry}) >= max_biased) begin
      rounded = to_inf ? inf : max_finite;
    end else begin
      rounded = enc;
    end
    // the sign above the format's top bit
    unique case (r_fmt)
      Fmt32:   rounded[31] = r_neg;
      Fmt16:   rounded[15] = r_neg;
      default: rounded[63] = r_neg;
    endcase
  end

  // ---- min/max and compare ----
  logic        cmp_pred;
  logic [63:0] mnmx_result;
  always_comb begin
    logic a_nan, b_nan, unordered, eq, lt, a_below;
    a_nan = a_i[62:52] == 11'h7FF && a_i[51:0] != 52'd0;
    b_nan = b_i[62:52] == 11'h7FF && b_i[51:0] != 52'd0;
    unordered = a_nan | b_nan;
    // Numeric order (sign-magnitude): -0 == +0.
    eq = a_i == b_i || (a_i[62:0] == 63'd0 && b_i[62:0] == 63'd0);
    if (a_i[63] != b_i[63]) lt = a_i[63] && !eq;
    else if (a_i[63]) lt = a_i[62:0] > b_i[62:0];
    else lt = a_i[62:0] < b_i[62:0];
    unique case (fcmp_i)
      tsm_isa_pkg::FCMP_EQ:  cmp_pred = !unordered && eq;
      tsm_isa_pkg::FCMP_NE:  cmp_pred = !unordered && !eq;
      tsm_isa_pkg::FCMP_LT:  cmp_pred = !unordered && lt;
      tsm_isa_pkg::FCMP_LE:  cmp_pred = !unordered && (lt || eq);
      tsm_isa_pkg::FCMP_GT:  cmp_pred = !unordered && !lt && !eq;
      tsm_isa_pkg::FCMP_GE:  cmp_pred = !unordered && !lt;
      tsm_isa_pkg::FCMP_EQU: cmp_pred = unordered || eq;
      tsm_isa_pkg::FCMP_NEU: cmp_pred = unordered || !eq;
      tsm_isa_pkg::FCMP_LTU: cmp_pred = unordered || lt;
      tsm_isa_pkg::FCMP_LEU: cmp_pred = unordered || lt || eq;
      tsm_isa_pkg::FCMP_GTU: cmp_pred = unordered || (!lt && !eq);
      tsm_isa_pkg::FCMP_GEU: cmp_pred = unordered || !lt;
      tsm_isa_pkg::FCMP_NUM: cmp_pred = !unordered;
      tsm_isa_pkg::FCMP_NAN: cmp_pred = unordered;
      default:               cmp_pred = 1'b0;
    endcase
    // Total order for min/max: -0 below +0.
    if (a_i[63] != b_i[63]) a_below = a_i[63];
    else if (a_i[63]) a_below = a_i[62:0] > b_i[62:0];
    else a_below = a_i[62:0] < b_i[62:0];
    if (unordered && (nan_i || (a_nan && b_nan))) mnmx_result = (b_nan ? b_i : a_i) | QuietBit;
    else if (unordered) mnmx_result = a_nan ? b_i : a_i;
    else mnmx_result = (a_below == (op_i == DpMax)) ? b_i : a_i;
  end

  // ---- The result ----
  logic [63:0] result;
  logic        pred;
  always_comb begin
    logic [63:0] f2f, inf_or_zero, one;

    // F2F: NaN, infinity and zero need no rounding; the source's sign carries over.
    unique case (r_fmt)
      Fmt32: begin
        inf_or_zero = {32'd0, src_neg, src_inf ? 31'h7F80_0000 : 31'd0};
        one = 64'h0000_0000_3F80_0000;
      end
      Fmt16: begin
        inf_or_zero = {48'd0, src_neg, src_inf ? 15'h7C00 : 15'd0};
        one = 64'h0000_0000_0000_3C00;
      end
      default: begin
        inf_or_zero = {src_neg, src_inf ? 63'h7FF0_0000_0000_0000 : 63'd0};
        one = One;
      end
    endcase
    if (src_nan) f2f = src_nan_result;
    else if (src_inf || r_sum == 110'd0) f2f = inf_or_zero;
    else f2f = rounded;
    // .sat: NaN and every negative value (-0.0 too) give +0.0; the rest is clamped to 1.0.
    if (sat_i) begin
      if (src_nan || src_neg) f2f = 64'd0;
      else if (f2f > one) f2f = one;
    end

    pred = 1'b0;
    unique case (op_i)
      DpAdd, DpMul, DpFma: result = fma_is_special ? fma_special : rounded;
      DpMin, DpMax:        result = mnmx_result;
      DpSetp: begin
        result = 64'd0;
        pred = cmp_pred;
      end
      DpF2F32To64, DpF2F64To32, DpF2F64To64, DpF2F16To64, DpF2F64To16: result = f2f;
      DpF2I:               result = f2i_result;
      DpI2F:               result = (int_mag == 64'd0) ? 64'd0 : rounded;
      default:             result = 64'd0;
    endcase
  end

  // ---- pipeline ----
  tsm_delay #(.Stages(Stages), .Width(65)) u_delay (
    .clk_i, .rst_ni, .valid_i, .data_i({pred, result}), .valid_o, .data_o({pred_o, result_o})
  );

endmodule
