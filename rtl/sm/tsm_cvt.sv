// Conversions between binary32 and integers of 8 to 64 bits in one SP lane (F2I, I2F), bit-exact
// with sim/arith's f2i and i2f. F2I rounds to an integral value in the instruction's mode, then
// saturates to the destination type (.ftz flushes a subnormal input); a NaN gives 0 for the types
// of up to 32 bits and the integer with only its top bit set, 0x8000000000000000, for U64 and S64
// (measured on the GPU's converters, docs/floating-point.md §4). Results of up to 32 bits are
// sign- or zero-extended to 64. I2F extends the source type to 64 bits, takes the magnitude and
// rounds it once to binary32. Both directions share one aligner: the operand shifts right to the
// rounding position (the integral bit for F2I, 24 bits below the leading one for I2F) with its
// round and sticky bits, or left when it lies above it, and one increment rounds; the narrow F2I
// types then clamp the 64-bit magnitude. One unit for every type: a separate 32-bit converter
// beside the 64-bit one cost about 1,200 LUT4 a lane on the ECP5 (docs/fpga.md). The result
// passes through `Stages` registers.
module tsm_cvt #(
  /// Pipeline registers between the operand and the result (0: combinational).
  parameter int unsigned Stages = 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  /// Operand present this cycle.
  input  logic        valid_i,
  /// 0: F2I (binary32 -> integer), 1: I2F (integer -> binary32).
  input  logic        to_float_i,
  /// I2F: the integer in its type's low bits (the bits above are ignored); F2I: the binary32 value
  /// in bits [31:0] (bits [63:32] are ignored).
  input  logic [63:0] x_i,
  /// The integer type (destination of F2I, source of I2F): tsm_isa_pkg::ITYPE_U8 .. ITYPE_S64.
  input  logic [2:0]  itype_i,
  /// Rounding mode: tsm_isa_pkg::RND_*.
  input  logic [1:0]  rnd_i,
  /// F2I: flush a subnormal input to zero.
  input  logic        ftz_i,
  /// The result of the operand given Stages cycles earlier: F2I the integer, I2F the binary32
  /// value in bits [31:0] with bits [63:32] zero.
  output logic        valid_o,
  output logic [63:0] result_o
);

  localparam logic [63:0] TopBit = 64'h8000_0000_0000_0000;

  logic [63:0] result;

  always_comb begin
    // F2I operand
    logic [31:0] f;
    logic        fneg, is_nan, huge;
    logic [7:0]  field, efield;
    // I2F operand
    logic        ineg;
    logic [63:0] imag;
    logic [5:0]  lz;
    logic [5:0]  lead;
    // The shared aligner: shift = amount + 40, amount = the value's shift right (negative: left).
    logic        neg;
    logic [63:0] value;
    logic signed [8:0] amount;
    logic [6:0]  shift;
    logic [103:0] ext;  // kept bits, round bit, sticky bits
    logic [63:0] kept;
    logic        round_bit, sticky;
    logic [63:0] mag;  // no carry out: operands that could carry are huge
    logic [30:0] fbits;
    // The integer type
    logic        is_signed, narrow;
    logic [63:0] ix, lim;  // I2F: the source extended to 64 bits; F2I: the largest magnitude

    is_signed = itype_i[0];
    narrow = itype_i != tsm_isa_pkg::ITYPE_U64 && itype_i != tsm_isa_pkg::ITYPE_S64;
    unique case (itype_i)
      tsm_isa_pkg::ITYPE_U8:  begin ix = {56'd0, x_i[7:0]};            lim = 64'hFF; end
      tsm_isa_pkg::ITYPE_S8:  begin ix = {{56{x_i[7]}}, x_i[7:0]};     lim = 64'h7F; end
      tsm_isa_pkg::ITYPE_U16: begin ix = {48'd0, x_i[15:0]};           lim = 64'hFFFF; end
      tsm_isa_pkg::ITYPE_S16: begin ix = {{48{x_i[15]}}, x_i[15:0]};   lim = 64'h7FFF; end
      tsm_isa_pkg::ITYPE_U32: begin ix = {32'd0, x_i[31:0]};           lim = 64'hFFFF_FFFF; end
      tsm_isa_pkg::ITYPE_S32: begin ix = {{32{x_i[31]}}, x_i[31:0]};   lim = 64'h7FFF_FFFF; end
      default:                begin ix = x_i;                          lim = '1; end
    endcase

    // ---- F2I operand: |x| = sig * 2^(efield - 150) ----
    f = (ftz_i && x_i[30:23] == 8'd0) ? {x_i[31], 31'd0} : x_i[31:0];
    fneg = f[31];
    field = f[30:23];
    efield = (field == 8'd0) ? 8'd1 : field;
    is_nan = field == 8'hFF && f[22:0] != 23'd0;
    huge = field > 8'd190;  // |x| >= 2^64 or infinity: saturates every type

    // ---- I2F operand: the magnitude and the weight of its leading bit ----
    ineg = is_signed && ix[63];
    imag = ineg ? 64'd0 - ix : ix;
    lz = 6'd63;
    for (int i = 0; i < 64; i++) begin
      if (imag[i]) lz = 6'(63 - i);
    end
    lead = 6'd63 - lz;

    // ---- Align to the rounding position and round once ----
    if (to_float_i) begin
      neg = ineg;
      value = imag;
      amount = $signed({3'd0, lead}) - 9'sd23;  // -23 .. 40
    end else begin
      neg = fneg;
      value = {40'd0, field != 8'd0, f[22:0]};
      amount = 9'sd150 - $signed({1'b0, efield});  // -104 .. 149
    end
    // At most 40 either way: more to the left only when huge, and a 24-bit F2I operand shifted
    // right by 25 or more is all sticky anyway.
    if (amount < -9'sd40) shift = 7'd0;
    else if (amount > 9'sd40) shift = 7'd80;
    else shift = 7'(amount + 9'sd40);
    ext = 104'({value, 80'd0} >> shift);
    kept = ext[103:40];
    round_bit = ext[39];
    sticky = |ext[38:0];
    mag = kept + {63'd0, tsm_round_pkg::rounds_up(rnd_i, neg, kept[0], round_bit, sticky)};

    // ---- I2F: (lead + 126) << 23 plus the mantissa with its implicit bit ----
    fbits = {{2'd0, lead} + 8'd126, 23'd0} + {6'd0, mag[24:0]};

    if (to_float_i) begin
      result = (imag == 64'd0) ? 64'd0 : {32'd0, ineg, fbits};
    end else if (is_nan) begin
      result = narrow ? 64'd0 : TopBit;
    end else if (narrow) begin
      // Clamp the magnitude to the type: up to lim above zero, lim + 1 below it for signed types
      // (a negative value of an unsigned type saturates to 0), then sign-extend.
      if (fneg && !is_signed) result = 64'd0;
      else if (!fneg && (huge || mag > lim)) result = lim;
      else if (fneg && (huge || mag > lim + 64'd1)) result = 64'd0 - (lim + 64'd1);
      else result = fneg ? 64'd0 - mag : mag;
    end else if (is_signed) begin
      if (huge || (!fneg && mag[63]) || (fneg && mag > TopBit)) result = fneg ? TopBit : ~TopBit;
      else result = fneg ? 64'd0 - mag : mag;
    end else begin
      if (fneg) result = 64'd0;
      else if (huge) result = '1;
      else result = mag;
    end
  end

  tsm_delay #(.Stages(Stages), .Width(64)) u_delay (
    .clk_i, .rst_ni, .valid_i, .data_i(result), .valid_o, .data_o(result_o)
  );

endmodule
