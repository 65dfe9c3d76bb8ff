// The SM's DP pipe (docs/sm-rtl.md §2.7): a row of Lanes lanes of a double-precision instruction
// (DADD DMUL DFMA DMNMX DSETP, and F2F/F2I/I2F with a binary64 source or result) through Units
// tsm_dp units, Units lanes a clock. The row pipe (tsm_row_pipe) sequences the rows:
//   capture  the row's operand words from the register file's three read ports, the low words in
//            one clock and the high words in the next (capture_high_i); B from a constant bank or
//            an immediate comes from b_value_i (b_given_i);
//   execute  raise execute_i and hold it until execute_done_o: Lanes / Units clocks feed the units
//            (each operand's sign decoration applied), Stages clocks later the last results are in;
//   result   result_low_o / result_high_o (the words of each lane's 64-bit result) and compare_o
//            (DSETP's comparisons) hold until the next execution.
// A configuration without DP units (Units = 0) builds no tsm_dp: the engine faults DP instructions at
// issue, so the pipe never runs, and a DP unit would only cost area.
module tsm_dp_pipe #(
  /// SP lanes: a row's lanes.
  parameter int unsigned Lanes = 8,
  /// DP units: lanes fed per clock (0: none built). At most Lanes, and Lanes a multiple of it.
  parameter int unsigned Units = 1,
  /// Register stages of each tsm_dp.
  parameter int unsigned Stages = 2
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  /// The instruction word (rounding, comparison, integer type, F2F's flags, the operands' sign
  /// decorations) and the DP unit's operation (tsm_decode's dp_operation_o).
  input  logic [63:0]          insn_i,
  input  logic [3:0]           operation_i,

  // ---- capture ----
  input  logic                 capture_i,
  input  logic                 capture_high_i,
  input  logic [3*Lanes*32-1:0] read_data_i,     // {C, B, A} rows of the register file
  /// Per operand: read (not RZ, the instruction reads it); 64 bits wide (else its high word is 0).
  input  logic                 a_used_i, a_wide_i, b_used_i, b_wide_i, c_used_i, c_wide_i,
  /// B is b_value_i (a constant or an immediate's binary64), not a register.
  input  logic                 b_given_i,
  input  logic [63:0]          b_value_i,

  // ---- execute ----
  input  logic                 execute_i,
  output logic                 execute_done_o,  // the last clock of the execution

  // ---- results ----
  output logic [Lanes*32-1:0]  result_low_o,
  output logic [Lanes*32-1:0]  result_high_o,
  output logic [Lanes-1:0]     compare_o
);

  localparam int unsigned FeedLanes = (Units == 0) ? 1 : (Units > Lanes ? Lanes : Units);
  localparam int unsigned FeedSteps = Lanes / FeedLanes;  // clocks to feed one row
  localparam int unsigned Steps = FeedSteps + Stages;

  logic [Lanes*64-1:0] a_q, a_d, b_q, b_d, c_q, c_d;      // the row's operands
  logic [Lanes*64-1:0] result_q, result_d;
  logic [Lanes-1:0]    compare_q, compare_d;
  logic [31:0]         step_q, step_d;                    // the execution's clock: feed step, collect step - Stages

  // The units' ports.
  logic                    unit_valid;
  logic [FeedLanes*64-1:0] unit_a, unit_b, unit_c, unit_result;
  logic [FeedLanes-1:0]    unit_compare, unit_valid_out;
  logic                    f2f;
  assign f2f = tsm_isa_pkg::f_op(insn_i) == tsm_isa_pkg::OP_F2F;

  // Capture: the low or the high words of A, B and C. Words of sources narrower than 64 bits, of
  // RZ, and absent operands are 0.
  always_comb begin
    logic [31:0] a, b, c;
    logic        high;
    high = capture_high_i;
    a = '0; b = '0; c = '0;
    a_d = a_q;
    b_d = b_q;
    c_d = c_q;
    if (capture_i) begin
      for (int l = 0; l < Lanes; l++) begin
        a = (a_used_i && (!high || a_wide_i)) ? read_data_i[32*l +: 32] : 32'd0;
        b = (b_used_i && (!high || b_wide_i)) ? read_data_i[Lanes*32 + 32*l +: 32] : 32'd0;
        if (b_given_i) b = high ? b_value_i[63:32] : b_value_i[31:0];
        c = (c_used_i && (!high || c_wide_i)) ? read_data_i[2*Lanes*32 + 32*l +: 32] : 32'd0;
        if (high) begin
          a_d[64*l + 32 +: 32] = a; b_d[64*l + 32 +: 32] = b; c_d[64*l + 32 +: 32] = c;
        end else begin
          a_d[64*l +: 32] = a; b_d[64*l +: 32] = b; c_d[64*l +: 32] = c;
        end
      end
    end
  end

  // Execute: feed step step_q (lanes step_q * FeedLanes ..), collect step step_q - Stages.
  always_comb begin
    logic [1:0]  da, db, dc;
    logic [63:0] a;
    logic [31:0] j;
    logic [1:0]  source_format;
    da = tsm_isa_pkg::dec_ra(insn_i);
    db = tsm_isa_pkg::dec_b(insn_i);
    dc = tsm_isa_pkg::dec_rc(insn_i);
    source_format = tsm_isa_pkg::f_sfmt(insn_i);
    a = '0;
    j = '0;
    unit_valid = execute_i && step_q < 32'(FeedSteps);
    unit_a = '0;
    unit_b = '0;
    unit_c = '0;
    if (unit_valid) begin
      for (int d = 0; d < FeedLanes; d++) begin
        j = step_q * FeedLanes + 32'(d);
        a = a_q[64*j +: 64];
        // The decorations act on the source's sign: bit 63, or 31 / 15 for F2F's narrower sources.
        if (f2f && source_format == tsm_isa_pkg::FTYPE_F32) a[31] = (a[31] & ~da[1]) ^ da[0];
        else if (f2f && source_format == tsm_isa_pkg::FTYPE_F16) a[15] = (a[15] & ~da[1]) ^ da[0];
        else a[63] = (a[63] & ~da[1]) ^ da[0];
        unit_a[64*d +: 64] = a;
        unit_b[64*d +: 64] = {(b_q[64*j + 63] & ~db[1]) ^ db[0], b_q[64*j +: 63]};
        unit_c[64*d +: 64] = {(c_q[64*j + 63] & ~dc[1]) ^ dc[0], c_q[64*j +: 63]};
      end
    end
    result_d = result_q;
    compare_d = compare_q;
    if (execute_i && step_q >= 32'(Stages)) begin
      for (int d = 0; d < FeedLanes; d++) begin
        j = (step_q - 32'(Stages)) * FeedLanes + 32'(d);
        for (int l = 0; l < Lanes; l++)
          if (j == l) begin result_d[64*l +: 64] = unit_result[64*d +: 64]; compare_d[l] = unit_compare[d]; end
      end
    end
    execute_done_o = execute_i && step_q + 32'd1 == 32'(Steps);
    step_d = !execute_i ? 32'd0 : execute_done_o ? 32'd0 : step_q + 32'd1;
  end

  always_comb begin
    for (int l = 0; l < Lanes; l++) begin
      result_low_o[32*l +: 32] = result_q[64*l +: 32];
      result_high_o[32*l +: 32] = result_q[64*l + 32 +: 32];
    end
  end
  assign compare_o = compare_q;

  if (Units == 0) begin : g_no_dp
    assign unit_valid_out = '0;
    assign unit_result = '0;
    assign unit_compare = '0;
    logic unused_feed;
    assign unused_feed = ^{f2f, unit_valid, operation_i, unit_a, unit_b, unit_c};
  end
  for (genvar d = 0; d < (Units == 0 ? 0 : FeedLanes); d++) begin : g_dp
    tsm_dp #(.Stages(Stages)) u_dp (
      .clk_i, .rst_ni, .valid_i(unit_valid), .op_i(operation_i), .a_i(unit_a[64*d +: 64]), .b_i(unit_b[64*d +: 64]),
      .c_i(unit_c[64*d +: 64]), .rnd_i(tsm_isa_pkg::f_rnd(insn_i)), .fcmp_i(tsm_isa_pkg::f_fcmp(insn_i)),
      .itype_i(tsm_isa_pkg::f_itype(insn_i)), .rint_i(f2f & tsm_isa_pkg::f_rint(insn_i)),
      .ftz_i(f2f & tsm_isa_pkg::f_ftz(insn_i)), .sat_i(f2f & tsm_isa_pkg::f_sat(insn_i)), .nan_i(1'b0),
      .valid_o(unit_valid_out[d]), .result_o(unit_result[64*d +: 64]), .pred_o(unit_compare[d])
    );
  end
  logic unused_valid_out;  // the results are timed by the step counter
  assign unused_valid_out = ^unit_valid_out;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_q <= '0; b_q <= '0; c_q <= '0; result_q <= '0; compare_q <= '0; step_q <= '0;
    end else begin
      a_q <= a_d; b_q <= b_d; c_q <= c_d; result_q <= result_d; compare_q <= compare_d; step_q <= step_d;
    end
  end

endmodule
