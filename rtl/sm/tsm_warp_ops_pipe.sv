// The warp-op pipe (docs/sm-rtl.md §2.10): runs one S2R, VOTE or SHFL warp instruction row by row
// around the arithmetic of tsm_warp_ops.
//
// - S2R: a row a clock, each row's special registers written to rd; thread coordinates by walking
//   from lane 0's thread (the warp table's), x fastest.
// - VOTE: operand B of the first executing lane (the membership mask) is read, the ballot and result
//   computed once; then per row the ballot to rd and the result to the predicate Pd2.
// - SHFL: every row's A, B and C are gathered into the load/store unit's lane buffers (borrowed:
//   the two never run at once); then per row each lane's source lane's A to rd and whether it was in
//   range to Pd2.
//
// Handshake: the engine raises start_i in the clock it issues the instruction (its fields, the
// warp's executed lanes exec_i and register-file base base_i are then held until the pipe is done)
// and waits in its state E_WARP_OP until finish_o, raised in the clock of the last row's write: the
// instruction retires (E_RET). Meanwhile the pipe's register-file, commit-event and predicate
// requests go out through the engine's ports; they are zero while it is idle, except the write and
// event data, which are don't-cares without their valid.
module tsm_warp_ops_pipe #(
  /// SP lanes (a row's lanes), rows of a warp (32 / Lanes) and the bits of a row number.
  parameter int unsigned Lanes = 8,
  parameter int unsigned Rows = 4,
  parameter int unsigned RowBits = 2,
  /// Warp slots of the SM and the bits of a warp slot number.
  parameter int unsigned Warps = 24,
  parameter int unsigned WarpBits = 5,
  /// Bits of a thread coordinate.
  parameter int unsigned DimBits = 10,
  /// Bits of a register-file row address.
  parameter int unsigned RegisterRowBits = 10
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,

  // ---- the instruction ----
  input  logic                         start_i,
  output logic                         finish_o,
  input  logic [7:0]                   opcode_i,             // OP_S2R, OP_VOTE or OP_SHFL
  input  logic [7:0]                   ra_i,                 // registers (255: RZ)
  input  logic [7:0]                   rb_i,
  input  logic [7:0]                   rc_i,
  input  logic [7:0]                   rd_i,
  input  logic [2:0]                   predicate_i,          // Pd2 (7: none)
  input  logic [4:0]                   special_register_i,   // S2R's (tsm_isa_pkg::SREG_*)
  input  logic [1:0]                   vote_mode_i,
  input  logic [1:0]                   shfl_mode_i,
  input  logic                         b_const_i,            // operand B is the constant-bank word b_word_i
  input  logic [31:0]                  b_word_i,
  input  logic                         b_immediate_i,        // ... or the immediate b_immediate_value_i
  input  logic [31:0]                  b_immediate_value_i,
  input  logic [31:0]                  exec_i,               // the lanes that execute it
  input  logic [31:0]                  source_predicates_i,  // each lane's predicate operand (VOTE), negation applied
  input  logic [WarpBits-1:0]          warp_i,
  input  logic [RegisterRowBits-1:0]   base_i,               // the warp's first register-file row
  input  logic [3*DimBits-1:0]         thread_i,             // lane 0's thread {z, y, x} (taken at start_i)
  input  logic [63:0]                  clock_i,              // the SM's clock (taken at start_i: SR_CLOCK)
  input  logic [31:0]                  sm_i,
  input  logic [31:0]                  sms_i,
  input  logic [3*32-1:0]              block_dim_i,          // {z, y, x}
  input  logic [47:0]                  block_index_i,        // {z, y, x}, 16 bits each
  input  logic [3*32-1:0]              grid_dim_i,           // {z, y, x}

  // ---- register file: three read ports (their data a clock later), the write request ----
  output logic [3*RegisterRowBits-1:0] read_rows_o,
  input  logic [3*Lanes*32-1:0]        read_data_i,
  output logic                         write_valid_o,
  output logic [Lanes-1:0]             write_lanes_o,
  output logic [RegisterRowBits-1:0]   write_row_o,
  output logic [Lanes*32-1:0]          write_data_o,

  // ---- the commit event of this clock (a register or predicate row) ----
  output logic                         event_valid_o,
  output logic [2:0]                   event_kind_o,
  output logic [7:0]                   event_register_o,
  output logic [RowBits-1:0]           event_group_o,
  output logic [Lanes-1:0]             event_lanes_o,
  output logic [Lanes*32-1:0]          event_data_o,

  // ---- predicate Pd2 of row row_o's lanes predicate_lanes_o becomes predicate_values_o ----
  output logic [RowBits-1:0]           row_o,
  output logic [Lanes-1:0]             predicate_lanes_o,
  output logic [Lanes-1:0]             predicate_values_o,

  // ---- the load/store unit's lane buffers, borrowed by SHFL (row row_o of them) ----
  output logic                         borrow_write_o,
  output logic [Lanes*32-1:0]          borrow_a_o,
  output logic [Lanes*32-1:0]          borrow_b_o,
  output logic [Lanes*32-1:0]          borrow_c_o,
  input  logic [Lanes*32-1:0]          borrow_b_i,
  input  logic [Lanes*32-1:0]          borrow_c_i,
  output logic                         borrow_read_o,        // buffer A's shared read port reads
  output logic [4:0]                   borrow_lane_o,        //   this lane,
  input  logic [31:0]                  lane_a_i,             //   which holds this;
  input  logic [32*32-1:0]             buffer_a_i,           // the whole of buffer A

  output logic [3:0]                   state_o               // debug (docs/waveforms.md): warp_op_state_e
);

  localparam int unsigned L = Lanes;
  localparam int unsigned RA = RegisterRowBits;
  localparam int unsigned GW = $clog2(Rows);

  function automatic logic [RA-1:0] register_row(input logic [RA-1:0] base, input logic [7:0] r, input logic [RowBits:0] g);
    register_row = base + RA'(({{(RA > 8 ? RA - 8 : 0){1'b0}}, r}) << GW) + RA'(g);
  endfunction
  function automatic logic [L-1:0] lanes_of_row(input logic [31:0] m, input logic [RowBits:0] g);  // lanes of row g
    lanes_of_row = L'(m >> (32'(g) * L));
  endfunction

  typedef enum logic [3:0] {
    S_IDLE,
    S_S2R,               // a row's special registers written
    S_VOTE_READ,         // the first executing lane's operand B is read
    S_VOTE_COMPUTE,      // the ballot and the result
    S_VOTE_WRITE,        // a row of the ballot to rd
    S_VOTE_PREDICATE,    // ... and of the result to Pd2
    S_SHFL_READ,         // a row's A, B and C are read
    S_SHFL_CAPTURE,      // ... into the lane buffers
    S_SHFL_WRITE,        // a row of the sources' A to rd
    S_SHFL_PREDICATE     // ... and of in-range to Pd2
  } warp_op_state_e;
  warp_op_state_e      state_q, state_d;
  logic [RowBits:0]    row_q, row_d;         // one bit more to count to Rows
  logic [3*DimBits-1:0] thread_q, thread_d;  // S2R: the row's first thread
  logic [63:0]         clock_q;              // S2R: SR_CLOCK, one value for the whole instruction
  logic [31:0]         ballot_q, ballot_d;
  logic                result_q, result_d;
  assign state_o = state_q;
  assign row_o = row_q[RowBits-1:0];

  // ---- the row's lanes and registers ----
  logic [L-1:0]  row_exec;
  logic [5:0]    first_lane;                 // the lowest executing lane
  logic [RA-1:0] row_a, row_b, row_c, row_d_register, first_b;
  always_comb begin
    row_exec = lanes_of_row(exec_i, row_q);
    first_lane = tsm_sm_pkg::lowest_lane(exec_i);
    row_a = register_row(base_i, ra_i, row_q);
    row_b = register_row(base_i, rb_i, row_q);
    row_c = register_row(base_i, rc_i, row_q);
    row_d_register = register_row(base_i, rd_i, row_q);
    first_b = register_row(base_i, rb_i, (RowBits + 1)'(32'(first_lane) / L));
  end

  // ---- operands: VOTE's membership mask (operand B of the first executing lane); SHFL's A, B and
  // C of the row ----
  logic [31:0]     vote_lanes;
  always_comb begin
    logic [31:0] b;
    b = (rb_i == 8'd255) ? 32'd0 : read_data_i[L*32 + 32*(32'(first_lane) % L) +: 32];
    if (b_const_i) b = b_word_i;
    if (b_immediate_i) b = b_immediate_value_i;
    vote_lanes = exec_i & b;
  end
  always_comb begin
    logic [31:0] b;
    for (int l = 0; l < L; l++) begin
      b = (rb_i == 8'd255) ? 32'd0 : read_data_i[L*32 + 32*l +: 32];
      if (b_const_i) b = b_word_i;
      if (b_immediate_i) b = b_immediate_value_i;
      borrow_a_o[32*l +: 32] = (ra_i == 8'd255) ? 32'd0 : read_data_i[32*l +: 32];
      borrow_b_o[32*l +: 32] = b;
      borrow_c_o[32*l +: 32] = (rc_i == 8'd255) ? 32'd0 : read_data_i[2*L*32 + 32*l +: 32];
    end
  end

  // ---- the arithmetic (rtl/sm/tsm_warp_ops.sv) ----
  logic [L*32-1:0] s2r_data;
  logic [3*DimBits-1:0] s2r_next_thread;
  logic [31:0]     vote_ballot;
  logic            vote_result;
  logic [L*5-1:0]  shfl_source;
  logic [L-1:0]    shfl_in_range;
  logic [L*32-1:0] shfl_data;
  tsm_warp_ops #(.Lanes(L), .RowBits(RowBits), .Warps(Warps), .WarpBits(WarpBits), .DimBits(DimBits)) u_warp_ops (
    .row_i(row_q[RowBits-1:0]),
    .s2r_register_i(special_register_i), .s2r_thread_i(thread_q), .s2r_clock_i(clock_q), .s2r_warp_i(warp_i),
    .s2r_sm_i(sm_i), .s2r_sms_i(sms_i), .s2r_block_dim_i(block_dim_i), .s2r_block_index_i(block_index_i),
    .s2r_grid_dim_i(grid_dim_i), .s2r_data_o(s2r_data), .s2r_next_thread_o(s2r_next_thread),
    .vote_mode_i, .vote_lanes_i(vote_lanes), .vote_predicates_i(source_predicates_i),
    .vote_ballot_o(vote_ballot), .vote_result_o(vote_result),
    .shfl_mode_i, .shfl_b_i(borrow_b_i), .shfl_c_i(borrow_c_i), .shfl_source_o(shfl_source),
    .shfl_in_range_o(shfl_in_range)
  );
  // SHFL's sources from lane buffer A: lane 0 of the row through the buffer's shared read port, the
  // row's other lanes on their own.
  assign borrow_lane_o = shfl_source[4:0];
  always_comb begin
    shfl_data[0 +: 32] = lane_a_i;
    for (int l = 1; l < L; l++) shfl_data[32*l +: 32] = buffer_a_i[32*shfl_source[5*l +: 5] +: 32];
  end

  // ---- the sequencer ----
  always_comb begin
    state_d = state_q; row_d = row_q; thread_d = thread_q; ballot_d = ballot_q; result_d = result_q;
    finish_o = 1'b0;
    read_rows_o = '0;
    write_valid_o = 1'b0; write_lanes_o = '0; write_row_o = row_d_register; write_data_o = '0;
    event_valid_o = 1'b0; event_kind_o = tsm_sm_pkg::EventRegister; event_register_o = '0; event_group_o = '0;
    event_lanes_o = '0; event_data_o = '0;
    predicate_lanes_o = '0; predicate_values_o = '0;
    borrow_write_o = 1'b0; borrow_read_o = 1'b0;

    unique case (state_q)
      S_IDLE: ;
      S_S2R: begin
        event_data_o = s2r_data;
        write_data_o = s2r_data;
        thread_d = s2r_next_thread;
        if (row_exec != '0 && rd_i != 8'd255) begin
          write_valid_o = 1'b1; write_lanes_o = row_exec;
          event_valid_o = 1'b1; event_register_o = rd_i; event_group_o = row_q[RowBits-1:0]; event_lanes_o = row_exec;
        end
        row_d = row_q + 1'b1;
        if (32'(row_q) + 1 == Rows) begin
          finish_o = 1'b1;
          state_d = S_IDLE;
        end
      end

      S_VOTE_READ: begin
        read_rows_o[RA +: RA] = first_b;
        state_d = S_VOTE_COMPUTE;
      end
      S_VOTE_COMPUTE: begin
        ballot_d = vote_ballot;
        result_d = vote_result;
        if (exec_i == '0) begin
          finish_o = 1'b1;
          state_d = S_IDLE;
        end else state_d = S_VOTE_WRITE;
      end
      S_VOTE_WRITE: begin
        if (row_exec != '0 && rd_i != 8'd255) begin
          write_valid_o = 1'b1; write_lanes_o = row_exec; write_data_o = {L{ballot_q}};
          event_valid_o = 1'b1; event_register_o = rd_i; event_group_o = row_q[RowBits-1:0]; event_lanes_o = row_exec;
          event_data_o = {L{ballot_q}};
        end
        state_d = S_VOTE_PREDICATE;
      end
      S_VOTE_PREDICATE: begin
        predicate_lanes_o = row_exec;
        predicate_values_o = {L{result_q}};
        if (row_exec != '0 && predicate_i != 3'd7) begin
          for (int l = 0; l < L; l++) event_data_o[32*l] = result_q;
          event_valid_o = 1'b1; event_kind_o = tsm_sm_pkg::EventPredicate; event_register_o = 8'(predicate_i);
          event_group_o = row_q[RowBits-1:0]; event_lanes_o = row_exec;
        end
        row_d = row_q + 1'b1;
        if (32'(row_q) + 1 == Rows) begin
          finish_o = 1'b1;
          state_d = S_IDLE;
        end else state_d = S_VOTE_WRITE;
      end

      S_SHFL_READ: begin
        read_rows_o = {row_c, row_b, row_a};
        state_d = S_SHFL_CAPTURE;
      end
      S_SHFL_CAPTURE: begin
        borrow_write_o = 1'b1;
        row_d = row_q + 1'b1;
        if (32'(row_q) + 1 == Rows) begin
          row_d = '0;
          state_d = S_SHFL_WRITE;
        end else state_d = S_SHFL_READ;
      end
      S_SHFL_WRITE: begin
        borrow_read_o = 1'b1;
        write_data_o = shfl_data;
        if (row_exec != '0 && rd_i != 8'd255) begin
          write_valid_o = 1'b1; write_lanes_o = row_exec;
          event_valid_o = 1'b1; event_register_o = rd_i; event_group_o = row_q[RowBits-1:0]; event_lanes_o = row_exec;
          event_data_o = shfl_data;
        end
        state_d = S_SHFL_PREDICATE;
      end
      S_SHFL_PREDICATE: begin
        borrow_read_o = 1'b1;
        write_data_o = shfl_data;
        predicate_lanes_o = row_exec;
        predicate_values_o = shfl_in_range;
        if (row_exec != '0 && predicate_i != 3'd7) begin
          for (int l = 0; l < L; l++) event_data_o[32*l] = shfl_in_range[l];
          event_valid_o = 1'b1; event_kind_o = tsm_sm_pkg::EventPredicate; event_register_o = 8'(predicate_i);
          event_group_o = row_q[RowBits-1:0]; event_lanes_o = row_exec;
        end
        row_d = row_q + 1'b1;
        if (32'(row_q) + 1 == Rows) begin
          finish_o = 1'b1;
          state_d = S_IDLE;
        end else state_d = S_SHFL_WRITE;
      end
      default: state_d = S_IDLE;
    endcase

    if (start_i) begin
      row_d = '0;
      thread_d = thread_i;
      state_d = opcode_i == tsm_isa_pkg::OP_S2R ? S_S2R : opcode_i == tsm_isa_pkg::OP_VOTE ? S_VOTE_READ : S_SHFL_READ;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_IDLE; row_q <= '0; thread_q <= '0; clock_q <= '0; ballot_q <= '0; result_q <= 1'b0;
    end else begin
      state_q <= state_d; row_q <= row_d; thread_q <= thread_d; ballot_q <= ballot_d; result_q <= result_d;
      if (start_i) clock_q <= clock_i;
    end
  end

endmodule
