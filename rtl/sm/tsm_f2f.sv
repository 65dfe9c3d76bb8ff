// F2F between binary16 and binary32 in one SP lane (all four source/destination combinations),
// bit-exact with sim/arith's f2f: the source is unpacked and normalized (leading bit at bit 23),
// optionally rounded to an integral value in the mode (.rint), then rounded once to the
// destination format, subnormal results and overflow included. A NaN gives the destination's
// canonical NaN (0x7FFFFFFF, 0x00007FFF). .ftz flushes a subnormal source of binary32 -> binary32
// only: cvt.ftz.f16.f32 ignores it, and no result here can be tiny once the source is flushed (a
// binary16 value is far above binary32's subnormals). .sat then clamps to [+0.0, 1.0] (NaN and
// -0.0 give +0.0). binary16 lives in the low 16 bits: the source's upper bits are ignored, the
// result's are 0. binary64 is the DP unit's; with it in either format the result is don't-care.
// The result passes through `Stages` registers.
module tsm_f2f #(
  /// Pipeline registers between the operand and the result (0: combinational).
  parameter int unsigned Stages = 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  /// Operand present this cycle.
  input  logic        valid_i,
  /// The source value (already negated or made absolute by the caller).
  input  logic [31:0] x_i,
  /// Source and destination formats: tsm_isa_pkg::FTYPE_F16 or FTYPE_F32.
  input  logic [1:0]  sfmt_i,
  input  logic [1:0]  dfmt_i,
  /// Rounding mode: tsm_isa_pkg::RND_*.
  input  logic [1:0]  rnd_i,
  /// Round to an integral value in mode rnd_i first.
  input  logic        rint_i,
  /// Flush a subnormal binary32 source to zero (binary32 -> binary32 only, see above).
  input  logic        ftz_i,
  /// Clamp the result to [+0.0, 1.0].
  input  logic        sat_i,
  /// The result of the operand given Stages cycles earlier.
  output logic        valid_o,
  output logic [31:0] result_o
);

  logic [31:0] result;

  always_comb begin
    logic        s16, d16, ftz_in, neg, field_max, is_nan, is_inf, is_zero, to_inf;
    logic [7:0]  field, efield;
    logic [22:0] frac;
    logic [23:0] sig, sig_n, sig_f;
    logic [4:0]  lz;
    logic signed [9:0] lead, lead_c, lead_f, t;
    // .rint: the integral position p of the normalized significand, widened by two bits so that
    // a value below 1 (p = 24, or 25 for anything below 0.5) rounds like the rest.
    logic        need_rint, r_up;
    logic [4:0]  p;
    logic [25:0] sig_e, mask, sig_r;
    // Rounding to the destination.
    logic [8:0]  bem1;   // biased exponent - 1 (0 for subnormal results)
    logic [9:0]  drop_w;
    logic [4:0]  drop;
    logic [48:0] ext;
    logic [23:0] kept;
    logic        round_bit, sticky, up, overflow;
    logic [24:0] mant;
    logic [8:0]  top;

    s16 = sfmt_i == tsm_isa_pkg::FTYPE_F16;
    d16 = dfmt_i == tsm_isa_pkg::FTYPE_F16;
    ftz_in = ftz_i && !s16 && !d16;

    // ---- Unpack: binary16's fraction goes to the top of the 23-bit field ----
    if (s16) begin
      neg = x_i[15];
      field = {3'd0, x_i[14:10]};
      frac = {x_i[9:0], 13'd0};
      field_max = x_i[14:10] == 5'h1F;
    end else begin
      neg = x_i[31];
      field = x_i[30:23];
      frac = x_i[22:0];
      field_max = x_i[30:23] == 8'hFF;
    end
    is_nan = field_max && frac != 23'd0;
    is_inf = field_max && frac == 23'd0;
    is_zero = field == 8'd0 && (frac == 23'd0 || ftz_in);
    sig = {field != 8'd0, frac};
    lz = 5'd0;
    for (int i = 0; i < 24; i++) begin
      if (sig[i]) lz = 5'(23 - i);
    end
    sig_n = sig << lz;
    efield = (field == 8'd0) ? 8'd1 : field;
    // Exponent of the leading bit: efield - bias - lz.
    lead = $signed({2'd0, efield}) - (s16 ? 10'sd15 : 10'sd127) - $signed({5'd0, lz});

    // ---- .rint: round at the integral position in place ----
    need_rint = rint_i && lead < 10'sd23;
    lead_c = (lead < -10'sd2) ? -10'sd2 : lead;
    p = 5'(10'sd23 - lead_c);  // 1 .. 25 when need_rint
    sig_e = {2'd0, sig_n};
    mask = (26'd1 << p) - 26'd1;
    r_up = tsm_round_pkg::rounds_up(rnd_i, neg, sig_e[p], sig_e[p - 5'd1], |(sig_e & (mask >> 1)));
    sig_r = (sig_e & ~mask) + ({25'd0, r_up} << p);
    sig_f = sig_n;
    lead_f = lead;
    if (need_rint) begin
      if (sig_r == 26'd0) is_zero = 1'b1;
      // A carry out of the kept bits makes a power of two.
      sig_f = (sig_r[25] | sig_r[24]) ? 24'h80_0000 : sig_r[23:0];
      lead_f = lead_c + $signed({8'd0, sig_r[25:24]});  // 2^25 or 2^24: up two or one
    end

    // ---- Round to the destination (as round_pack: never below the last subnormal bit) ----
    t = lead_f + (d16 ? 10'sd14 : 10'sd126);  // biased exponent - 1 of a normal result
    bem1 = (t > 10'sd0) ? t[8:0] : 9'd0;
    drop_w = (d16 ? 10'd13 : 10'd0) + ((t < 10'sd0) ? 10'(10'sd0 - t) : 10'd0);
    drop = (drop_w > 10'd25) ? 5'd25 : drop_w[4:0];
    ext = {sig_f, 25'd0} >> drop;
    kept = ext[48:25];
    round_bit = ext[24];
    sticky = |ext[23:0];
    up = tsm_round_pkg::rounds_up(rnd_i, neg, kept[0], round_bit, sticky);
    mant = {1'b0, kept} + {24'd0, up};
    // mant carries the implicit bit: adding it to (biased exponent - 1) encodes normals and
    // subnormals alike, and a carry out of the fraction moves into the exponent.
    top = d16 ? {7'd0, mant[11:10]} : {7'd0, mant[24:23]};
    overflow = bem1 + top >= (d16 ? 9'd31 : 9'd255);
    to_inf = rnd_i == tsm_isa_pkg::RND_RN || (rnd_i == tsm_isa_pkg::RND_RP && !neg) ||
             (rnd_i == tsm_isa_pkg::RND_RM && neg);

    if (d16) begin
      if (is_nan) result = 32'h0000_7FFF;
      else if (is_inf) result = {16'd0, neg, 15'h7C00};
      else if (is_zero) result = {16'd0, neg, 15'd0};
      else if (overflow) result = {16'd0, neg, to_inf ? 15'h7C00 : 15'h7BFF};
      else result = {16'd0, neg, {bem1[4:0], 10'd0} + mant[14:0]};
      if (sat_i) begin
        if (is_nan || neg) result = 32'd0;
        else if (result[14:0] > 15'h3C00) result = 32'h0000_3C00;
      end
    end else begin
      if (is_nan) result = 32'h7FFF_FFFF;
      else if (is_inf) result = {neg, 31'h7F80_0000};
      else if (is_zero) result = {neg, 31'd0};
      else if (overflow) result = {neg, to_inf ? 31'h7F80_0000 : 31'h7F7F_FFFF};
      else result = {neg, {bem1[7:0], 23'd0} + {6'd0, mant}};
      if (sat_i) begin
        if (is_nan || neg) result = 32'd0;
        else if (result[30:0] > 31'h3F80_0000) result = 32'h3F80_0000;
      end
    end
  end

  tsm_delay #(.Stages(Stages), .Width(32)) u_delay (
    .clk_i, .rst_ni, .valid_i, .data_i(result), .valid_o, .data_o(result_o)
  );

endmodule
