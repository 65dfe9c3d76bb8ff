// binary32 compare, minimum and maximum of one SP lane (FSETP's comparison, FMNMX), bit-exact with
// sim/arith's cmp_f32, min_f32 and max_f32: .ftz flushes subnormal inputs; comparisons treat -0 as
// +0 and are false when ordered and unordered (U forms true); min/max order -0 below +0, return the
// other operand when one is NaN and the canonical NaN when both are (or, with `nan`, when either is).
// The results pass through `Stages` registers.
module tsm_fcmp32 #(
  /// Pipeline registers between the operands and the results (0: combinational).
  parameter int unsigned Stages = 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  /// Operands present this cycle.
  input  logic        valid_i,
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  /// Comparison: tsm_isa_pkg::FCMP_*.
  input  logic [3:0]  fcmp_i,
  /// Flush subnormal inputs to zero.
  input  logic        ftz_i,
  /// FMNMX.NAN: any NaN operand gives the canonical NaN.
  input  logic        nan_i,
  /// Results of the operands given Stages cycles earlier: the comparison, min(a, b), max(a, b).
  output logic        valid_o,
  output logic        pred_o,
  output logic [31:0] min_o,
  output logic [31:0] max_o
);

  localparam logic [31:0] CanonicalNaN = 32'h7FFF_FFFF;

  logic        pred;
  logic [31:0] min_v, max_v;

  always_comb begin
    logic [31:0] a, b;
    logic        a_nan, b_nan, unordered, eq, lt, a_below;
    a = (ftz_i && a_i[30:23] == 8'd0) ? {a_i[31], 31'd0} : a_i;
    b = (ftz_i && b_i[30:23] == 8'd0) ? {b_i[31], 31'd0} : b_i;
    a_nan = a[30:23] == 8'hFF && a[22:0] != 23'd0;
    b_nan = b[30:23] == 8'hFF && b[22:0] != 23'd0;
    unordered = a_nan | b_nan;
    // Numeric order (sign-magnitude): -0 == +0.
    eq = a == b || (a[30:0] == 31'd0 && b[30:0] == 31'd0);
    if (a[31] != b[31]) lt = a[31] && !eq;
    else if (a[31]) lt = a[30:0] > b[30:0];
    else lt = a[30:0] < b[30:0];
    unique case (fcmp_i)
      tsm_isa_pkg::FCMP_EQ:  pred = !unordered && eq;
      tsm_isa_pkg::FCMP_NE:  pred = !unordered && !eq;
      tsm_isa_pkg::FCMP_LT:  pred = !unordered && lt;
      tsm_isa_pkg::FCMP_LE:  pred = !unordered && (lt || eq);
      tsm_isa_pkg::FCMP_GT:  pred = !unordered && !lt && !eq;
      tsm_isa_pkg::FCMP_GE:  pred = !unordered && !lt;
      tsm_isa_pkg::FCMP_EQU: pred = unordered || eq;
      tsm_isa_pkg::FCMP_NEU: pred = unordered || !eq;
      tsm_isa_pkg::FCMP_LTU: pred = unordered || lt;
      tsm_isa_pkg::FCMP_LEU: pred = unordered || lt || eq;
      tsm_isa_pkg::FCMP_GTU: pred = unordered || (!lt && !eq);
      tsm_isa_pkg::FCMP_GEU: pred = unordered || !lt;
      tsm_isa_pkg::FCMP_NUM: pred = !unordered;
      tsm_isa_pkg::FCMP_NAN: pred = unordered;
      default:               pred = 1'b0;
    endcase
    // Total order for min/max: -0 below +0.
    if (a[31] != b[31]) a_below = a[31];
    else if (a[31]) a_below = a[30:0] > b[30:0];
    else a_below = a[30:0] < b[30:0];
    if (unordered && (nan_i || (a_nan && b_nan))) begin
      min_v = CanonicalNaN;
      max_v = CanonicalNaN;
    end else if (unordered) begin
      min_v = a_nan ? b : a;
      max_v = a_nan ? b : a;
    end else begin
      min_v = a_below ? a : b;
      max_v = a_below ? b : a;
    end
  end

  tsm_delay #(.Stages(Stages), .Width(65)) u_delay (
    .clk_i, .rst_ni, .valid_i, .data_i({pred, min_v, max_v}), .valid_o, .data_o({pred_o, min_o, max_o})
  );

endmodule
