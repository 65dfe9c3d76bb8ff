// binary32 addition a + b, rounded to nearest even, combinational, bit-exact with sim/arith's
// add_f32(a, b, RN, ftz, false): the atomics' float add (the SM's shared-memory atomics without
// .ftz, the board memory's global ones with it). A dedicated adder costs a third of tsm_fma32's
// LUTs with an operand fixed at 1.0 (docs/fpga.md).
//
// Theory of operation: x is the operand of larger magnitude and y the smaller, aligned to x with
// guard, round and sticky bits; one add or subtract; the sum is normalised by a left shift that
// stops at the smallest normal exponent (a result below it is subnormal, its leading bit below
// the implicit position), and rounded once. The rounded mantissa, implicit bit included, is added
// to (exponent - 1) << 23, so a carry out of the mantissa and a subnormal rounding up to the
// smallest normal both move into the exponent field by themselves. Specials: a NaN or inf - inf
// gives the canonical NaN 0x7FFFFFFF, an infinity itself, an exact zero sum +0 (-0 only for
// -0 + -0), an exponent past 254 infinity. With .ftz subnormal operands are zeros of their sign,
// and a result in the subnormal range is flushed to a zero of its sign: with normal operands such
// a result is exact, so "tiny before rounding" and "tiny after rounding" agree.
module tsm_fadd32 (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  /// Flush subnormal operands and results to zero.
  input  logic        ftz_i,
  output logic [31:0] sum_o
);

  always_comb begin
    logic [31:0] a, b, x, y, mag;
    logic        a_nan, b_nan, a_inf, b_inf, a_zero, b_zero, sub;
    logic [7:0]  ex, ey, d;
    logic [4:0]  dd, lz, sh;
    logic [50:0] y_wide;
    logic [26:0] xm, ym, norm;
    logic [27:0] sum;
    logic [24:0] mant;
    logic [8:0]  e;  // the exponent of norm's bit 26, at least 1
    a = (ftz_i && a_i[30:23] == 8'd0) ? {a_i[31], 31'd0} : a_i;
    b = (ftz_i && b_i[30:23] == 8'd0) ? {b_i[31], 31'd0} : b_i;
    a_nan = a[30:23] == 8'hFF && a[22:0] != '0;
    b_nan = b[30:23] == 8'hFF && b[22:0] != '0;
    a_inf = a[30:23] == 8'hFF && a[22:0] == '0;
    b_inf = b[30:23] == 8'hFF && b[22:0] == '0;
    a_zero = a[30:0] == '0;
    b_zero = b[30:0] == '0;
    x = (a[30:0] >= b[30:0]) ? a : b;
    y = (a[30:0] >= b[30:0]) ? b : a;
    sub = x[31] != y[31];
    // Subnormals have exponent 1 and no implicit bit.
    ex = (x[30:23] == 8'd0) ? 8'd1 : x[30:23];
    ey = (y[30:23] == 8'd0) ? 8'd1 : y[30:23];
    d = ex - ey;
    dd = (d > 8'd27) ? 5'd27 : d[4:0];
    xm = {x[30:23] != 8'd0, x[22:0], 3'b000};
    y_wide = {y[30:23] != 8'd0, y[22:0], 27'd0} >> dd;
    ym = y_wide[50:24] | {26'd0, |y_wide[23:0]};
    sum = sub ? {1'b0, xm} - {1'b0, ym} : {1'b0, xm} + {1'b0, ym};
    lz = 5'd0;
    sh = 5'd0;
    for (int i = 0; i < 27; i++) begin
      if (sum[i]) lz = 5'(26 - i);
    end
    if (sum[27]) begin
      norm = {sum[27:2], sum[1] | sum[0]};
      e = {1'b0, ex} + 9'd1;
    end else begin
      sh = ({4'd0, lz} < {1'b0, ex} - 9'd1) ? lz : 5'(ex - 8'd1);  // not below exponent 1
      norm = sum[26:0] << sh;
      e = {1'b0, ex} - {4'd0, sh};
    end
    mant = {1'b0, norm[26:3]} + {24'd0, norm[2] & (norm[1] | norm[0] | norm[3])};
    mag = {(e - 9'd1), 23'd0} + {7'd0, mant};
    if (a_nan || b_nan || (a_inf && b_inf && a[31] != b[31])) sum_o = 32'h7FFF_FFFF;
    else if (a_inf) sum_o = a;
    else if (b_inf) sum_o = b;
    else if (a_zero && b_zero) sum_o = {a[31] & b[31], 31'd0};
    else if (b_zero) sum_o = a;
    else if (a_zero) sum_o = b;
    else if (sum == '0) sum_o = 32'd0;                                  // exact cancellation: +0
    else if (mag >= 32'h7F80_0000) sum_o = {x[31], 8'hFF, 23'd0};      // overflow: infinity
    else if (ftz_i && mag[30:23] == 8'd0) sum_o = {x[31], 31'd0};      // subnormal: flushed
    else sum_o = {x[31], mag[30:0]};
  end

endmodule
