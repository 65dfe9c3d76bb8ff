// The SFU pipe of the SM (the "SFU sequencer", docs/sm-rtl.md §2.7): runs one warp's MUFU beside
// the engine. The engine streams the warp's operand rows in (capture port, one row a clock), then
// hands the instruction over (start) and retires it; the pipe feeds the SFU pipelines Units lanes a
// clock without a pause (32/Units clocks, Tesla's SFU rate), collects the results, and offers each
// result row on the row port once its results are in. The next instruction's operands may stream in
// while this one's last chunks are fed (operands_free_o).
//
// Handshakes: start_i only while busy_o is low (the engine's E_SFU_GO); capture_i only while
// operands_free_o is high. Row port: row_valid_o with the row's warp, sequence number, register,
// row group, lanes and register-file row; the engine raises row_ready_i in the clock it writes the
// row (or finds it needs no write) and the pipe moves to the next row; row_last_o marks the
// instruction's last row, after which busy_o falls.
module tsm_sfu_pipe #(
  /// Directory of the SFU ROM images, with a trailing '/'.
  parameter HexDir = "",
  /// SP lanes (a register-file row's threads): tsm_cfg_pkg::SpLanes.
  parameter int unsigned Lanes = 8,
  /// SFU lanes: tsm_cfg_pkg::SfuUnits.
  parameter int unsigned Units = 2,
  /// Pipeline stages of tsm_sfu.
  parameter int unsigned Stages = 2,
  /// Bits of a warp slot number, a register-file row, a row-group index.
  parameter int unsigned WarpBits = 3,
  parameter int unsigned RowBits = 10,
  parameter int unsigned GroupBits = 2
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  /// Start: the instruction (function and .ftz), its warp, sequence number, executing lanes,
  /// destination register and the warp's first register-file row.
  input  logic                  start_i,
  input  logic [63:0]           start_insn_i,
  input  logic [WarpBits-1:0]   start_warp_i,
  input  logic [31:0]           start_seq_i,
  input  logic [31:0]           start_exec_i,
  input  logic [7:0]            start_reg_i,
  input  logic [RowBits-1:0]    start_base_i,
  /// An instruction is in the pipe.
  output logic                  busy_o,
  /// Capture: operand row capture_row_i (of the next instruction) is on capture_data_i.
  input  logic                  capture_i,
  input  logic [GroupBits:0]    capture_row_i,
  input  logic [Lanes*32-1:0]   capture_data_i,
  /// The operand buffer may take the next instruction's rows.
  output logic                  operands_free_o,
  /// Row port: a result row to write.
  output logic                  row_valid_o,
  input  logic                  row_ready_i,
  output logic [WarpBits-1:0]   row_warp_o,
  output logic [31:0]           row_seq_o,
  output logic [7:0]            row_reg_o,
  output logic [GroupBits-1:0]  row_group_o,
  output logic [Lanes-1:0]      row_lanes_o,
  output logic [RowBits-1:0]    row_addr_o,
  output logic [Lanes*32-1:0]   row_data_o,
  output logic                  row_last_o
);

  localparam int unsigned Rows = 32 / Lanes;      // register-file rows of a warp
  localparam int unsigned GroupShift = $clog2(Rows);
  localparam int unsigned Chunks = 32 / Units;    // Units-lane chunks of a warp

  typedef enum logic {Q_IDLE, Q_RUN} qstate_e;
  qstate_e               state_q, state_d;
  logic [WarpBits-1:0]   warp_q, warp_d;
  logic [31:0]           seq_q, seq_d, exec_q, exec_d;
  logic [7:0]            reg_q, reg_d;
  logic [RowBits-1:0]    base_q, base_d;
  logic [63:0]           insn_q, insn_d;    // for the SFU's function and .ftz
  // Operands and results, one 32-bit word a lane: memories written a row (results: a chunk) at a
  // time and read a chunk (results: a row) at a time. With one SP and one SFU lane (tiny) each is
  // one write and one read port, LUT RAM on the FPGA rather than 1,024 flip-flops and a 32-way select.
  logic [31:0]           operand_mem [32];
  logic [31:0]           result_mem [32];
  logic [5:0]            fed_q, fed_d;      // chunks fed
  logic [5:0]            done_q, done_d;    // chunks whose results are in
  logic [GroupBits:0]    row_q, row_d;      // the next row to write

  logic            sfu_valid;
  logic [Units*32-1:0] sfu_x, sfu_r;
  logic [Units-1:0]    sfu_valid_out;
  logic            unused_valids;  // results are timed by the pipe, not by the units' valid bits
  assign unused_valids = ^sfu_valid_out;
  for (genvar s = 0; s < Units; s++) begin : g_sfu
    tsm_sfu #(.Stages(Stages), .HexDir(HexDir)) u_sfu (
      .clk_i, .rst_ni, .valid_i(sfu_valid), .func_i(tsm_isa_pkg::f_mufu(insn_q)), .x_i(sfu_x[32*s +: 32]),
      .ftz_i(tsm_isa_pkg::f_ftz(insn_q)), .valid_o(sfu_valid_out[s]), .result_o(sfu_r[32*s +: 32])
    );
  end
  logic [5:0] chunk_out;
  logic       chunk_valid;
  tsm_delay #(.Stages(Stages), .Width(6)) u_chunk (
    .clk_i, .rst_ni, .valid_i(sfu_valid), .data_i(fed_q), .valid_o(chunk_valid), .data_o(chunk_out)
  );

  always_comb begin
    busy_o = state_q != Q_IDLE;
    row_warp_o = warp_q;
    row_seq_o = seq_q;
    row_reg_o = reg_q;
    row_group_o = row_q[GroupBits-1:0];
    row_lanes_o = Lanes'(exec_q >> (32'(row_q) * Lanes));
    row_addr_o = base_q + RowBits'(({{(RowBits > 8 ? RowBits - 8 : 0){1'b0}}, reg_q}) << GroupShift) + RowBits'(row_q);
    row_last_o = 32'(row_q) + 1 == Rows;
    row_valid_o = state_q == Q_RUN && 32'(done_q) >= (32'(row_q) + 1) * (Lanes / Units);
    row_data_o = '0;
    if (32'(row_q) < Rows)
      for (int l = 0; l < Lanes; l++) row_data_o[32*l +: 32] = result_mem[5'(32'(row_q) * Lanes + l)];
    // The next SFU instruction may stream its operands in (E_SFU_RD, one row a clock from the
    // clock after its dispatch) once the feed is far enough ahead that it never overwrites a row
    // not yet fed: row r is written r + 2 clocks after the dispatch, and its last chunk
    // ((r + 1) * Lanes/Units - 1) is fed by then once Chunks - Rows - 2 chunks were fed at the
    // dispatch; Chunks - Rows keeps two clocks to spare. It starts in E_SFU_GO.
    operands_free_o = state_q == Q_IDLE || 32'(fed_q) + Rows >= Chunks;
    sfu_valid = state_q == Q_RUN && 32'(fed_q) < Chunks;
    sfu_x = '0;
    if (32'(fed_q) < Chunks)
      for (int s = 0; s < Units; s++) sfu_x[32*s +: 32] = operand_mem[5'(32'(fed_q) * Units + s)];
  end

  always_comb begin
    state_d = state_q; warp_d = warp_q; seq_d = seq_q; exec_d = exec_q; reg_d = reg_q; base_d = base_q;
    insn_d = insn_q; fed_d = fed_q; done_d = done_q; row_d = row_q;
    if (sfu_valid) fed_d = fed_q + 6'd1;
    if (chunk_valid) done_d = done_q + 6'd1;
    if (row_ready_i) begin
      row_d = row_q + 1'b1;
      if (row_last_o) state_d = Q_IDLE;
    end
    if (start_i) begin
      warp_d = start_warp_i; seq_d = start_seq_i; exec_d = start_exec_i; reg_d = start_reg_i; base_d = start_base_i;
      insn_d = start_insn_i;
      fed_d = '0; done_d = '0; row_d = '0;
      state_d = Q_RUN;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= Q_IDLE; warp_q <= '0; seq_q <= '0; exec_q <= '0; reg_q <= '0; base_q <= '0; insn_q <= '0;
      fed_q <= '0; done_q <= '0; row_q <= '0;
    end else begin
      state_q <= state_d; warp_q <= warp_d; seq_q <= seq_d; exec_q <= exec_d; reg_q <= reg_d; base_q <= base_d;
      insn_q <= insn_d; fed_q <= fed_d; done_q <= done_d; row_q <= row_d;
    end
  end
  always_ff @(posedge clk_i) begin
    if (capture_i && 32'(capture_row_i) < Rows)
      for (int l = 0; l < Lanes; l++) operand_mem[5'(32'(capture_row_i) * Lanes + l)] <= capture_data_i[32*l +: 32];
    if (chunk_valid && 32'(chunk_out) < Chunks)
      for (int s = 0; s < Units; s++) result_mem[5'(32'(chunk_out) * Units + s)] <= sfu_r[32*s +: 32];
  end

  if (Lanes < 1 || 32 % Lanes != 0 || Units < 1 || Lanes % Units != 0) begin : gen_bad_params
    $error("tsm_sfu_pipe: Lanes must divide 32 and Units must divide Lanes");
  end

endmodule
