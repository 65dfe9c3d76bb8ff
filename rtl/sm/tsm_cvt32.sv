// Conversions between binary32 and integers of up to 32 bits in one SP lane (F2I, I2F), bit-exact
// with sim/arith's f2i and i2f: F2I rounds to an integral value in the instruction's mode, then
// saturates to the destination type (NaN gives 0; .ftz flushes a subnormal input), sign- or
// zero-extended to 32 bits; I2F extends the source type and rounds once to binary32. The 64-bit
// integer forms run on register pairs elsewhere. The result passes through `Stages` registers.
module tsm_cvt32 #(
  /// Pipeline registers between the operand and the result (0: combinational).
  parameter int unsigned Stages = 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  /// Operand present this cycle.
  input  logic        valid_i,
  /// 0: F2I (binary32 -> integer), 1: I2F (integer -> binary32).
  input  logic        to_float_i,
  input  logic [31:0] x_i,
  /// The integer type (destination of F2I, source of I2F): tsm_isa_pkg::ITYPE_U8 .. ITYPE_S32.
  input  logic [2:0]  itype_i,
  /// Rounding mode: tsm_isa_pkg::RND_*.
  input  logic [1:0]  rnd_i,
  /// F2I: flush a subnormal input to zero.
  input  logic        ftz_i,
  /// The result of the operand given Stages cycles earlier.
  output logic        valid_o,
  output logic [31:0] result_o
);

  function automatic logic rounds_up(input logic [1:0] rnd, input logic negative, input logic odd,
                                     input logic round_bit, input logic sticky);
    unique case (rnd)
      tsm_isa_pkg::RND_RN: rounds_up = round_bit & (sticky | odd);
      tsm_isa_pkg::RND_RM: rounds_up = negative & (round_bit | sticky);
      tsm_isa_pkg::RND_RP: rounds_up = ~negative & (round_bit | sticky);
      default:             rounds_up = 1'b0;
    endcase
  endfunction

  logic [31:0] result;

  always_comb begin
    // F2I
    logic [31:0] x;
    logic        neg, is_nan, huge;
    logic [7:0]  field;
    logic [23:0] sig;
    logic [8:0]  sh;
    logic [40:0] mag;
    logic [23:0] kept;
    logic        round_bit, sticky;
    logic signed [42:0] value, lo, hi;
    logic [5:0]  bits;
    logic        is_signed;
    // I2F
    logic [31:0] ext, imag;
    logic        ineg;
    logic [4:0]  lz, lead;
    logic [24:0] ikept;
    logic        iround, isticky;
    logic [4:0]  ish;
    logic [24:0] mant;
    logic [30:0] fbits;

    // Defaults first: every variable is assigned on every path.
    sh = 9'd0;
    value = 43'sd0;
    hi = 43'sd0;
    lo = 43'sd0;

    unique case (itype_i)
      tsm_isa_pkg::ITYPE_U8, tsm_isa_pkg::ITYPE_S8:   bits = 6'd8;
      tsm_isa_pkg::ITYPE_U16, tsm_isa_pkg::ITYPE_S16: bits = 6'd16;
      default:                                        bits = 6'd32;
    endcase
    is_signed = itype_i[0];

    // ---- F2I ----
    x = (ftz_i && x_i[30:23] == 8'd0) ? {x_i[31], 31'd0} : x_i;
    neg = x[31];
    field = x[30:23];
    is_nan = field == 8'hFF && x[22:0] != 23'd0;
    sig = {field != 8'd0, x[22:0]};
    huge = field == 8'hFF || field > 8'd166;  // |x| >= 2^40: saturates every type here
    mag = 41'd0;
    kept = 24'd0;
    round_bit = 1'b0;
    sticky = 1'b0;
    if (field >= 8'd150) begin
      mag = {17'd0, sig} << (field - 8'd150);
    end else begin
      sh = 9'd150 - {1'b0, (field == 8'd0) ? 8'd1 : field};  // 1 .. 149
      if (sh <= 9'd24) begin
        kept = sig >> sh;
        round_bit = sig[5'(sh - 9'd1)];
        sticky = |(sig & ((24'd1 << 5'(sh - 9'd1)) - 24'd1));
      end else begin
        sticky = |sig;
      end
      mag = {17'd0, kept} + {40'd0, rounds_up(rnd_i, neg, kept[0], round_bit, sticky)};
    end
    value = neg ? 43'sd0 - $signed({2'b00, mag}) : $signed({2'b00, mag});
    if (is_signed) begin
      hi = (43'sd1 <<< (bits - 6'd1)) - 43'sd1;
      lo = 43'sd0 - (43'sd1 <<< (bits - 6'd1));
    end else begin
      hi = (43'sd1 <<< bits) - 43'sd1;
      lo = 43'sd0;
    end
    if (huge) value = neg ? lo : hi;
    else if (value > hi) value = hi;
    else if (value < lo) value = lo;
    if (is_nan) value = 43'sd0;

    // ---- I2F ----
    unique case (itype_i)
      tsm_isa_pkg::ITYPE_U8:  ext = {24'd0, x_i[7:0]};
      tsm_isa_pkg::ITYPE_S8:  ext = {{24{x_i[7]}}, x_i[7:0]};
      tsm_isa_pkg::ITYPE_U16: ext = {16'd0, x_i[15:0]};
      tsm_isa_pkg::ITYPE_S16: ext = {{16{x_i[15]}}, x_i[15:0]};
      default:                ext = x_i;
    endcase
    ineg = is_signed && ext[31];
    imag = ineg ? 32'd0 - ext : ext;
    lz = 5'd31;
    for (int i = 0; i < 32; i++) begin
      if (imag[i]) lz = 5'(31 - i);
    end
    lead = 5'd31 - lz;
    ikept = 25'd0;
    iround = 1'b0;
    isticky = 1'b0;
    ish = 5'd0;
    if (lead > 5'd23) begin
      ish = lead - 5'd23;
      ikept = 25'(imag >> ish);
      iround = imag[ish - 5'd1];
      isticky = |(imag & ((32'd1 << (ish - 5'd1)) - 32'd1));
    end else begin
      ikept = 25'(imag << (5'd23 - lead));
    end
    mant = ikept + {24'd0, rounds_up(rnd_i, ineg, ikept[0], iround, isticky)};
    // (lead + 126) << 23 plus the mantissa with its implicit bit: a carry moves into the exponent.
    fbits = 31'(({26'd0, lead} + 31'd126) << 23) + {6'd0, mant};
    if (imag == 32'd0) fbits = 31'd0;

    if (to_float_i) result = {ineg && imag != 32'd0, fbits};
    else result = value[31:0];
  end

  tsm_delay #(.Stages(Stages), .Width(32)) u_delay (
    .clk_i, .rst_ni, .valid_i, .data_i(result), .valid_o, .data_o(result_o)
  );

endmodule
