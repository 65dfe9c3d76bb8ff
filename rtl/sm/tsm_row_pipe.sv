// The row pipe (docs/sm-rtl.md §2.0): the SP instructions that do not stream through the SP pipe
// (tsm_sp_pipe: those with a 64-bit source, two results or two predicates) and the DP instructions,
// a row of Lanes lanes at a time, each row to the end before the next:
//   SP: [the high words of a 64-bit source], read A, B, C; execute in the SP lanes; write rd
//       [and rd+1]; then two clocks of predicate events (the predicates the instruction names, in
//       order) while the predicates themselves are written with the row's results.
//   DP: read the low words of A, B, C, then the high ones, into the DP pipe (tsm_dp_pipe); execute
//       DpUnits lanes a clock until it is done; write rd [and rd+1], or DSETP's predicates by
//       FSETP's rule; then the same two clocks of predicate events.
// A row without executing lanes is skipped in one clock.
//
// Handshake: the engine raises start_i in the clock it issues the instruction (its fields, the
// warp's executed lanes exec_i and register-file base base_i are then held until the pipe is done)
// and waits in its state E_ROWS until finish_o, raised in the clock of the last row's last step:
// the instruction retires (E_RET). Meanwhile the pipe drives the SP lanes (lanes_valid_o and the
// high source words; the engine gives the lanes the row's operands from the register file's read
// data) and the DP pipe (dp_*), and its register-file, commit-event and predicate requests go out
// through the engine's ports. They are zero while it is idle.
module tsm_row_pipe #(
  /// SP lanes (a row's lanes), rows of a warp (32 / Lanes) and the bits of a row number.
  parameter int unsigned Lanes = 8,
  parameter int unsigned Rows = 4,
  parameter int unsigned RowBits = 2,
  /// Bits of a register-file row address.
  parameter int unsigned RegisterRowBits = 10
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,

  // ---- the instruction ----
  input  logic                         start_i,
  output logic                         finish_o,
  input  logic                         dp_i,                 // a DP instruction
  input  logic                         wide_source_i,        // an SP instruction with a 64-bit source
  input  logic [7:0]                   opcode_i,
  input  logic [7:0]                   ra_i,                 // registers (255: RZ)
  input  logic [7:0]                   rb_i,
  input  logic [7:0]                   rc_i,
  input  logic [7:0]                   rd_i,
  input  logic [2:0]                   rd_registers_i,       // registers rd names (2: rd and rd+1)
  input  logic [2:0]                   pd_i,                 // predicates it names:
  input  logic [2:0]                   pq_i,
  input  logic [2:0]                   carry_predicate_i,
  input  logic                         writes_pd_i,
  input  logic                         writes_pq_i,
  input  logic                         carry_write_i,        // it writes the carry predicate
  input  logic [1:0]                   predicate_op_i,       // DSETP's (tsm_isa_pkg::BOP_*)
  input  logic [31:0]                  source_predicates_i,  // each lane's predicate operand, negation applied
  input  logic [31:0]                  exec_i,               // the lanes that execute it
  input  logic [RegisterRowBits-1:0]   base_i,               // the warp's first register-file row

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

  // ---- the row: its number and executing lanes; its predicates written (P0..P6 of each lane) ----
  output logic [RowBits-1:0]           row_o,
  output logic [Lanes-1:0]             row_lanes_o,
  output logic [Lanes*7-1:0]           predicate_we_o,
  output logic [Lanes*7-1:0]           predicate_values_o,

  // ---- the SP lanes: execute the row (their operands are the read data of the clock before) ----
  output logic                         lanes_valid_o,
  output logic [Lanes*32-1:0]          lanes_high_o,         // the high words of a 64-bit source
  input  logic [Lanes*32-1:0]          lanes_result_i,
  input  logic [Lanes*32-1:0]          lanes_result_high_i,
  input  logic                         lanes_write_i,        // the instruction writes rd
  input  logic                         lanes_wide_i,         // ... and rd+1
  input  logic [Lanes*8-1:0]           lanes_predicates_i,   // each lane's predicates after it
  input  logic [Lanes*8-1:0]           lanes_predicate_we_i, // ... and which it writes

  // ---- the DP pipe ----
  output logic                         dp_capture_o,         // the read data are a row's operands:
  output logic                         dp_capture_high_o,    //   their high words
  output logic                         dp_execute_o,
  input  logic                         dp_done_i,
  input  logic [Lanes*32-1:0]          dp_result_low_i,
  input  logic [Lanes*32-1:0]          dp_result_high_i,
  input  logic [Lanes-1:0]             dp_compare_i,         // DSETP's comparisons

  output logic                         perf_sp_busy_o,       // the SP lanes execute a row (COUNTER 3)
  output logic [3:0]                   state_o               // debug (docs/waveforms.md): row_state_e
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
    S_SP_HIGH,             // the high words of a 64-bit source are read
    S_SP_WIDE_READ,        // ... taken; A, B, C are read
    S_SP_READ,             // A, B, C are read
    S_SP_EXECUTE,          // the SP lanes execute the row
    S_SP_WRITE,            // rd and the row's predicates are written
    S_SP_WRITE_HIGH,       // rd+1 is written
    S_PREDICATE_FIRST,     // the first predicate's commit event
    S_PREDICATE_SECOND,    // the second's
    S_DP_READ,             // the low words of A, B, C are read
    S_DP_LOW,              // ... the DP pipe takes them; the high words are read
    S_DP_HIGH,             // ... the DP pipe takes them
    S_DP_EXECUTE,          // the DP pipe runs the row
    S_DP_WRITE,            // rd, or DSETP's predicates, are written
    S_DP_WRITE_HIGH        // rd+1 is written
  } row_state_e;
  row_state_e        state_q, state_d;
  logic [RowBits:0]  row_q, row_d;             // one bit more to count to Rows
  logic [L*32-1:0]   high_q, high_d;           // the high words of a 64-bit SP source
  logic [L*32-1:0]   result_high_q, result_high_d;  // the SP lanes' rd+1
  logic [L*8-1:0]    predicates_q, predicates_d;    // each lane's predicates after the row
  assign state_o = state_q;
  assign row_o = row_q[RowBits-1:0];
  assign lanes_high_o = high_q;

  // ---- the row's lanes and registers ----
  logic [L-1:0]  row_exec;
  logic [RA-1:0] row_a, row_b, row_c, row_d_register, row_a1, row_b1, row_c1, row_d1, row_high;
  logic [L*32-1:0] high_row;                   // the high source words in the read data
  always_comb begin
    row_exec = lanes_of_row(exec_i, row_q);
    row_a = register_row(base_i, ra_i, row_q);
    row_b = register_row(base_i, rb_i, row_q);
    row_c = register_row(base_i, rc_i, row_q);
    row_d_register = register_row(base_i, rd_i, row_q);
    row_a1 = register_row(base_i, ra_i + 8'd1, row_q);
    row_b1 = register_row(base_i, rb_i + 8'd1, row_q);
    row_c1 = register_row(base_i, rc_i + 8'd1, row_q);
    row_d1 = register_row(base_i, rd_i + 8'd1, row_q);
    // The high words of A (of C for IMAD).
    row_high = register_row(base_i, opcode_i == tsm_isa_pkg::OP_IMAD ? rc_i + 8'd1 : ra_i + 8'd1, row_q);
    for (int l = 0; l < L; l++)
      high_row[32*l +: 32] = ((opcode_i == tsm_isa_pkg::OP_IMAD ? rc_i : ra_i) == 8'd255) ? 32'd0 : read_data_i[2*L*32 + 32*l +: 32];
  end
  assign row_lanes_o = row_exec;

  // ---- DSETP as FSETP: Pd = t bop s, then Pq = !t bop s (Pq wins when both name one predicate);
  // the row's predicates after it, for the predicate events ----
  logic [L-1:0]   dsetp_pd, dsetp_pq;
  logic [L*8-1:0] dsetp_predicates;
  always_comb begin
    logic         s, t;
    logic [L-1:0] row_sources;
    row_sources = lanes_of_row(source_predicates_i, row_q);
    dsetp_predicates = predicates_q;
    for (int l = 0; l < L; l++) begin
      s = row_sources[l];
      t = dp_compare_i[l];
      unique case (predicate_op_i)
        tsm_isa_pkg::BOP_AND: begin dsetp_pd[l] = t & s; dsetp_pq[l] = ~t & s; end
        tsm_isa_pkg::BOP_OR:  begin dsetp_pd[l] = t | s; dsetp_pq[l] = ~t | s; end
        default:              begin dsetp_pd[l] = t ^ s; dsetp_pq[l] = ~t ^ s; end
      endcase
      for (int p = 0; p < 8; p++) begin
        if (32'(pd_i) == p) dsetp_predicates[8*l + p] = dsetp_pd[l];
        if (32'(pq_i) == p) dsetp_predicates[8*l + p] = dsetp_pq[l];
      end
    end
  end

  // ---- the predicate events (S_PREDICATE_FIRST, S_PREDICATE_SECOND): the predicates the
  // instruction names, in order ----
  logic [2:0]      event_predicate;
  logic            event_named;
  logic [L*32-1:0] event_predicate_data;
  always_comb begin
    event_predicate = 3'd7;
    event_named = 1'b0;
    if (state_q == S_PREDICATE_FIRST) begin
      if (writes_pd_i) begin
        event_predicate = pd_i; event_named = 1'b1;
      end else if (carry_write_i) begin
        event_predicate = carry_predicate_i; event_named = 1'b1;
      end
    end else if (writes_pq_i && pq_i != pd_i) begin
      event_predicate = pq_i; event_named = 1'b1;
    end
    event_predicate_data = '0;
    for (int l = 0; l < L; l++) event_predicate_data[32*l] = predicates_q[8*l + 32'(event_predicate)];
  end

  // ---- the sequencer ----
  always_comb begin
    state_d = state_q; row_d = row_q; high_d = high_q; result_high_d = result_high_q; predicates_d = predicates_q;
    finish_o = 1'b0;
    read_rows_o = '0;
    write_valid_o = 1'b0; write_lanes_o = '0; write_row_o = row_d_register; write_data_o = '0;
    event_valid_o = 1'b0; event_kind_o = tsm_sm_pkg::EventRegister; event_register_o = '0; event_group_o = '0;
    event_lanes_o = '0; event_data_o = '0;
    predicate_we_o = '0; predicate_values_o = '0;
    lanes_valid_o = 1'b0; perf_sp_busy_o = 1'b0;
    dp_capture_o = 1'b0; dp_capture_high_o = 1'b0; dp_execute_o = 1'b0;

    unique case (state_q)
      S_IDLE: ;
      // ---- SP ----
      S_SP_HIGH, S_SP_READ, S_DP_READ: begin
        if (row_exec == '0) begin
          row_d = row_q + 1'b1;
          if (32'(row_q) + 1 == Rows) begin
            finish_o = 1'b1;
            state_d = S_IDLE;
          end
        end else if (state_q == S_SP_HIGH) begin
          read_rows_o[2*RA +: RA] = row_high;
          state_d = S_SP_WIDE_READ;
        end else begin
          read_rows_o = {row_c, row_b, row_a};
          state_d = state_q == S_DP_READ ? S_DP_LOW : S_SP_EXECUTE;
        end
      end
      S_SP_WIDE_READ: begin
        high_d = high_row;
        read_rows_o = {row_c, row_b, row_a};
        state_d = S_SP_EXECUTE;
      end
      S_SP_EXECUTE: begin
        perf_sp_busy_o = 1'b1;
        lanes_valid_o = 1'b1;
        state_d = S_SP_WRITE;
      end
      S_SP_WRITE: begin
        result_high_d = lanes_result_high_i;
        predicates_d = lanes_predicates_i;
        for (int l = 0; l < L; l++)
          for (int p = 0; p < 7; p++) begin
            predicate_we_o[7*l + p] = row_exec[l] && lanes_predicate_we_i[8*l + p];
            predicate_values_o[7*l + p] = lanes_predicates_i[8*l + p];
          end
        if (lanes_write_i && rd_i != 8'd255) begin
          write_valid_o = 1'b1; write_lanes_o = row_exec; write_data_o = lanes_result_i;
          event_valid_o = 1'b1; event_register_o = rd_i; event_group_o = row_q[RowBits-1:0]; event_lanes_o = row_exec;
          event_data_o = lanes_result_i;
        end
        state_d = (lanes_write_i && lanes_wide_i) ? S_SP_WRITE_HIGH : S_PREDICATE_FIRST;
      end
      S_SP_WRITE_HIGH: begin
        write_row_o = row_d1;
        if (rd_i != 8'd255) begin
          write_valid_o = 1'b1; write_lanes_o = row_exec; write_data_o = result_high_q;
          event_valid_o = 1'b1; event_register_o = rd_i + 8'd1; event_group_o = row_q[RowBits-1:0];
          event_lanes_o = row_exec; event_data_o = result_high_q;
        end
        state_d = S_PREDICATE_FIRST;
      end
      S_PREDICATE_FIRST, S_PREDICATE_SECOND: begin
        if (event_named && event_predicate != 3'd7) begin
          event_valid_o = 1'b1; event_kind_o = tsm_sm_pkg::EventPredicate; event_register_o = 8'(event_predicate);
          event_group_o = row_q[RowBits-1:0]; event_lanes_o = row_exec; event_data_o = event_predicate_data;
        end
        if (state_q == S_PREDICATE_FIRST) state_d = S_PREDICATE_SECOND;
        else begin
          row_d = row_q + 1'b1;
          if (32'(row_q) + 1 == Rows) begin
            finish_o = 1'b1;
            state_d = S_IDLE;
          end else state_d = dp_i ? S_DP_READ : wide_source_i ? S_SP_HIGH : S_SP_READ;
        end
      end

      // ---- DP ----
      S_DP_LOW: begin
        dp_capture_o = 1'b1;
        read_rows_o = {row_c1, row_b1, row_a1};
        state_d = S_DP_HIGH;
      end
      S_DP_HIGH: begin
        dp_capture_o = 1'b1;
        dp_capture_high_o = 1'b1;
        state_d = S_DP_EXECUTE;
      end
      S_DP_EXECUTE: begin
        dp_execute_o = 1'b1;
        if (dp_done_i) state_d = S_DP_WRITE;
      end
      S_DP_WRITE: begin
        if (opcode_i == tsm_isa_pkg::OP_DSETP) begin
          predicates_d = dsetp_predicates;
          for (int l = 0; l < L; l++)
            for (int p = 0; p < 7; p++) begin
              if (32'(pd_i) == p) begin predicate_we_o[7*l + p] = row_exec[l]; predicate_values_o[7*l + p] = dsetp_pd[l]; end
              if (32'(pq_i) == p) begin predicate_we_o[7*l + p] = row_exec[l]; predicate_values_o[7*l + p] = dsetp_pq[l]; end
            end
          state_d = S_PREDICATE_FIRST;
        end else begin
          if (rd_i != 8'd255) begin
            write_valid_o = 1'b1; write_lanes_o = row_exec; write_data_o = dp_result_low_i;
            event_valid_o = 1'b1; event_register_o = rd_i; event_group_o = row_q[RowBits-1:0]; event_lanes_o = row_exec;
            event_data_o = dp_result_low_i;
          end
          state_d = (rd_registers_i == 3'd2) ? S_DP_WRITE_HIGH : S_PREDICATE_FIRST;
        end
      end
      S_DP_WRITE_HIGH: begin
        write_row_o = row_d1;
        if (rd_i != 8'd255) begin
          write_valid_o = 1'b1; write_lanes_o = row_exec; write_data_o = dp_result_high_i;
          event_valid_o = 1'b1; event_register_o = rd_i + 8'd1; event_group_o = row_q[RowBits-1:0];
          event_lanes_o = row_exec; event_data_o = dp_result_high_i;
        end
        state_d = S_PREDICATE_FIRST;
      end
      default: state_d = S_IDLE;
    endcase

    if (start_i) begin
      row_d = '0;
      state_d = dp_i ? S_DP_READ : wide_source_i ? S_SP_HIGH : S_SP_READ;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_IDLE; row_q <= '0; high_q <= '0; result_high_q <= '0; predicates_q <= '0;
    end else begin
      state_q <= state_d; row_q <= row_d; high_q <= high_d; result_high_q <= result_high_d; predicates_q <= predicates_d;
    end
  end

endmodule
