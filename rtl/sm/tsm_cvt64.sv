// Conversions between binary32 and 64-bit integers (F2I to U64/S64, I2F from U64/S64), bit-exact
// with sim/arith's f2i and i2f. F2I rounds to an integral value in the instruction's mode, then
// saturates to the destination type (.ftz flushes a subnormal input); a NaN gives the integer with
// only its top bit set, 0x8000000000000000, for both types (measured on the 64-bit converter,
// docs/floating-point.md §4). I2F takes the magnitude of the integer and rounds it once to
// binary32. Both directions share one aligner: the operand shifts right to the rounding position
// (the integral bit for F2I, 24 bits below the leading one for I2F) with its round and sticky bits,
// or left when it lies above it, and one increment rounds. The result passes through `Stages`
// registers.
module tsm_cvt64 #(
  /// Pipeline registers between the operand and the result (0: combinational).
  parameter int unsigned Stages = 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  /// Operand present this cycle.
  input  logic        valid_i,
  /// 0: F2I (binary32 -> 64-bit integer), 1: I2F (64-bit integer -> binary32).
  input  logic        to_float_i,
  /// I2F: the integer; F2I: the binary32 value in bits [31:0] (bits [63:32] are ignored).
  input  logic [63:0] x_i,
  /// The integer type is S64 (1) or U64 (0): tsm_isa_pkg::ITYPE_S64 / ITYPE_U64.
  input  logic        signed_i,
  /// Rounding mode: tsm_isa_pkg::RND_*.
  input  logic [1:0]  rnd_i,
  /// F2I: flush a subnormal input to zero.
  input  logic        ftz_i,
  /// The result of the operand given Stages cycles earlier: F2I the integer, I2F the binary32
  /// value in bits [31:0] with bits [63:32] zero.
  output logic        valid_o,
  output logic [63:0] result_o
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

    // ---- F2I operand: |x| = sig * 2^(efield - 150) ----
    f = (ftz_i && x_i[30:23] == 8'd0) ? {x_i[31], 31'd0} : x_i[31:0];
    fneg = f[31];
    field = f[30:23];
    efield = (field == 8'd0) ? 8'd1 : field;
    is_nan = field == 8'hFF && f[22:0] != 23'd0;
    huge = field > 8'd190;  // |x| >= 2^64 or infinity: saturates both types

    // ---- I2F operand: the magnitude and the weight of its leading bit ----
    ineg = signed_i && x_i[63];
    imag = ineg ? 64'd0 - x_i : x_i;
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
    mag = kept + {63'd0, rounds_up(rnd_i, neg, kept[0], round_bit, sticky)};

    // ---- I2F: (lead + 126) << 23 plus the mantissa with its implicit bit ----
    fbits = {{2'd0, lead} + 8'd126, 23'd0} + {6'd0, mag[24:0]};

    if (to_float_i) begin
      result = (imag == 64'd0) ? 64'd0 : {32'd0, ineg, fbits};
    end else if (is_nan) begin
      result = TopBit;
    end else if (signed_i) begin
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
