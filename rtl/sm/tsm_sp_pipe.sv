// The SM's SP pipe (docs/sm-rtl.md §2.0, "the SP back end"): an SP instruction that writes one
// register, or no register and one predicate, is handed over at its issue and streams here, one
// row of Lanes lanes a clock, through three stages:
//   R  reads the row's operands (read_rows_o on the register file's three read ports),
//   X  executes it in the SP lanes (the engine feeds them execute_* while execute_valid_o),
//   Y  writes it and its commit event (write_*: the engine's write-back puts the lanes' result on
//      the register file's write port and the commit port; the last row's event also retires it).
// The next instruction enters R in the clock after the previous one's last row left R, so rows of
// consecutive instructions follow each other without a gap. One more instruction may wait in a
// queue (Q) before R, so the issue logic can run ahead by one instruction and a branch of another
// warp does not leave R empty. Three instruction contexts (slots, taken in turn) are enough: an
// instruction stays Rows >= 3 clocks in R, longer than the two clocks of X and Y, so when a slot
// comes round again its previous instruction is done.
//
// Handshake: hand_valid_i hands the instruction on the hand_* ports over; it may be raised only
// while take_o, and is taken in that clock. The engine checks the rest before it hands over: the
// scoreboard, the instruction's warp not waiting for a predicate this pipe writes
// (query_predicate_pending_o for query_warp_i), and nothing else of the engine's using the
// register file, the SP lanes or the commit port while busy_o (§2.0).
module tsm_sp_pipe #(
  /// SP lanes: a row's lanes.
  parameter int unsigned Lanes = 8,
  /// Rows of a warp (32 / Lanes) and the bits of a row number.
  parameter int unsigned Rows = 4,
  parameter int unsigned RowBits = 2,
  /// Bits of a warp slot number.
  parameter int unsigned WarpBits = 5,
  /// Bits of a register-file row address.
  parameter int unsigned RegisterRowBits = 10
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,

  // ---- hand-over (the engine's issue) ----
  input  logic                          hand_valid_i,
  /// A hand-over is taken this clock (Q is free, and R frees in time or a row of another unit does
  /// not need the write port: write_contention_i).
  output logic                          take_o,
  /// A row of load data or SFU results waits for the register file's write port.
  input  logic                          write_contention_i,
  input  logic [63:0]                   hand_insn_i,          // the SP lanes' controls
  input  logic [RegisterRowBits-1:0]    hand_base_i,          // the warp's first register-file row
  input  logic [31:0]                   hand_registers_i,     // {rd, rc, rb, ra}
  /// Operand selection: A read (not RZ); B is RZ; B is hand_b_i (a constant or immediate); C read.
  input  logic                          hand_a_used_i, hand_b_zero_i, hand_b_given_i, hand_c_used_i,
  input  logic [31:0]                   hand_b_i,
  input  logic [31:0]                   hand_exec_i, hand_active_i, hand_seq_i, hand_pc_i,
  input  logic [WarpBits-1:0]           hand_warp_i,
  input  logic [32*7-1:0]               hand_predicates_i,    // the warp's predicates at issue (SEL, carry-in)
  input  logic [2:0]                    hand_predicate_i,     // the predicate it writes (7: none)

  /// An instruction is in Q, or a row in R, X or Y.
  output logic                          busy_o,
  /// Of warp query_warp_i: an instruction is in the pipe; one of them writes a predicate.
  input  logic [WarpBits-1:0]           query_warp_i,
  output logic                          query_occupied_o,
  output logic                          query_predicate_pending_o,

  // ---- stage R ----
  output logic                          read_valid_o,
  output logic [3*RegisterRowBits-1:0]  read_rows_o,          // {C, B, A}

  // ---- stage X: the row read in the clock before, and the operands the SP lanes take ----
  output logic                          execute_valid_o,
  output logic [63:0]                   execute_insn_o,
  input  logic [3*Lanes*32-1:0]         read_data_i,          // {C, B, A} rows of the register file
  output logic [Lanes*32-1:0]           execute_a_o, execute_b_o, execute_c_o,
  output logic [Lanes*8-1:0]            execute_predicates_o, // each lane's P0..P6, P7 (true) on top

  // ---- stage Y: the row the SP lanes computed, to write and commit ----
  output logic                          write_valid_o,
  output logic                          write_last_o,         // the instruction's last row: it retires
  output logic [WarpBits-1:0]           write_warp_o,
  output logic [31:0]                   write_seq_o, write_pc_o, write_active_o, write_exec_o,
  output logic [RowBits-1:0]            write_group_o,        // the row's number
  output logic [Lanes-1:0]              write_lanes_o,        // its executing lanes
  output logic [RegisterRowBits-1:0]    write_row_o,          // its register-file row
  output logic [7:0]                    write_register_o,
  output logic [2:0]                    write_predicate_o     // 7: none
);

  localparam int unsigned Slots = 3;
  localparam int unsigned RowShift = $clog2(Rows);

  function automatic logic [RegisterRowBits-1:0] register_row(input logic [RegisterRowBits-1:0] base, input logic [7:0] r,
                                                              input logic [RowBits-1:0] row);
    register_row = base + RegisterRowBits'(({{(RegisterRowBits > 8 ? RegisterRowBits - 8 : 0){1'b0}}, r}) << RowShift) +
                   RegisterRowBits'(row);
  endfunction

  // Stages: an instruction waits in Q; a row is in R, X, Y; of the instruction in slot *_slot_q; row *_row_q.
  logic               queue_q, read_q, execute_q, write_q;
  logic [1:0]         queue_slot_q, read_slot_q, execute_slot_q, write_slot_q;
  logic [RowBits-1:0] read_row_q, execute_row_q, write_row_q;
  logic [1:0]         next_slot_q;  // the slot the next instruction takes

  // The slots' contexts, written at the hand-over.
  logic [Slots*64-1:0]              insn_q;
  logic [Slots*RegisterRowBits-1:0] base_q;
  logic [Slots*32-1:0]              registers_q;
  logic [Slots-1:0]                 a_used_q, b_zero_q, b_given_q, c_used_q;
  logic [Slots*32-1:0]              b_q, exec_q, active_q, seq_q, pc_q;
  logic [Slots*WarpBits-1:0]        warp_q;
  logic [Slots*32*7-1:0]            predicates_q;
  logic [Slots*3-1:0]               predicate_q;

  assign busy_o = queue_q || read_q || execute_q || write_q;
  assign take_o = !queue_q && (!busy_o || (Rows >= 3 && !write_contention_i));

  // Occupancy of the queried warp.
  always_comb begin
    query_occupied_o = 1'b0;
    query_predicate_pending_o = 1'b0;
    if (queue_q && warp_q[WarpBits*queue_slot_q +: WarpBits] == query_warp_i) begin
      query_occupied_o = 1'b1;
      query_predicate_pending_o = predicate_q[3*queue_slot_q +: 3] != 3'd7;
    end
    if (read_q && warp_q[WarpBits*read_slot_q +: WarpBits] == query_warp_i) begin
      query_occupied_o = 1'b1;
      query_predicate_pending_o = query_predicate_pending_o || predicate_q[3*read_slot_q +: 3] != 3'd7;
    end
    if (execute_q && warp_q[WarpBits*execute_slot_q +: WarpBits] == query_warp_i) begin
      query_occupied_o = 1'b1;
      query_predicate_pending_o = query_predicate_pending_o || predicate_q[3*execute_slot_q +: 3] != 3'd7;
    end
    if (write_q && warp_q[WarpBits*write_slot_q +: WarpBits] == query_warp_i) begin
      query_occupied_o = 1'b1;
      query_predicate_pending_o = query_predicate_pending_o || predicate_q[3*write_slot_q +: 3] != 3'd7;
    end
  end

  // Stage R: the rows read.
  always_comb begin
    logic [RegisterRowBits-1:0] base;
    logic [23:0]                registers;
    base = base_q[RegisterRowBits*read_slot_q +: RegisterRowBits];
    registers = registers_q[32*read_slot_q +: 24];
    read_valid_o = read_q;
    read_rows_o = {register_row(base, registers[23:16], read_row_q), register_row(base, registers[15:8], read_row_q),
                   register_row(base, registers[7:0], read_row_q)};
  end

  // Stage X: the operands, selected as the slot says.
  always_comb begin
    logic [32*7-1:0]    predicates;
    logic [Lanes*7-1:0] row_predicates;
    logic [31:0]        b;
    predicates = predicates_q[0 +: 32*7];  // the slot's, by comparing with each slot number
    for (int s = 1; s < Slots; s++) if (32'(execute_slot_q) == s) predicates = predicates_q[32*7*s +: 32*7];
    // The row picked by comparing with each row number: a part select at (row * Lanes + l) * 7 would
    // shift all 224 bits by a multiple of 7, once per lane.
    row_predicates = '0;
    for (int r = 0; r < Rows; r++) if (32'(execute_row_q) == r) row_predicates = predicates[7*Lanes*r +: 7*Lanes];
    b = b_q[32*execute_slot_q +: 32];
    execute_valid_o = execute_q;
    execute_insn_o = insn_q[64*execute_slot_q +: 64];
    for (int l = 0; l < Lanes; l++) begin
      execute_a_o[32*l +: 32] = a_used_q[execute_slot_q] ? read_data_i[32*l +: 32] : 32'd0;
      execute_b_o[32*l +: 32] = b_given_q[execute_slot_q] ? b : b_zero_q[execute_slot_q] ? 32'd0 : read_data_i[Lanes*32 + 32*l +: 32];
      execute_c_o[32*l +: 32] = c_used_q[execute_slot_q] ? read_data_i[2*Lanes*32 + 32*l +: 32] : 32'd0;
      execute_predicates_o[8*l +: 8] = {1'b1, row_predicates[7*l +: 7]};
    end
  end

  // Stage Y: the row to write.
  always_comb begin
    write_valid_o = write_q;
    write_last_o = 32'(write_row_q) + 1 == Rows;
    write_warp_o = warp_q[WarpBits*write_slot_q +: WarpBits];
    write_seq_o = seq_q[32*write_slot_q +: 32];
    write_pc_o = pc_q[32*write_slot_q +: 32];
    write_active_o = active_q[32*write_slot_q +: 32];
    write_exec_o = exec_q[32*write_slot_q +: 32];
    write_group_o = write_row_q;
    write_lanes_o = Lanes'(write_exec_o >> (32'(write_row_q) * Lanes));
    write_register_o = registers_q[32*write_slot_q + 24 +: 8];
    write_row_o = register_row(base_q[RegisterRowBits*write_slot_q +: RegisterRowBits], write_register_o, write_row_q);
    write_predicate_o = predicate_q[3*write_slot_q +: 3];
  end

  // The stages advance every clock; when R frees, the queued instruction, else a handed-over one,
  // enters it; a hand-over while R stays busy waits in Q.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      queue_q <= 1'b0; read_q <= 1'b0; execute_q <= 1'b0; write_q <= 1'b0;
      queue_slot_q <= '0; read_slot_q <= '0; execute_slot_q <= '0; write_slot_q <= '0;
      read_row_q <= '0; execute_row_q <= '0; write_row_q <= '0; next_slot_q <= '0;
    end else begin
      write_q <= execute_q; write_slot_q <= execute_slot_q; write_row_q <= execute_row_q;
      execute_q <= read_q; execute_slot_q <= read_slot_q; execute_row_q <= read_row_q;
      if (read_q && 32'(read_row_q) + 1 < Rows) begin
        read_row_q <= read_row_q + 1'b1;
        if (hand_valid_i) begin
          queue_q <= 1'b1; queue_slot_q <= next_slot_q;
        end
      end else if (queue_q) begin
        read_q <= 1'b1; read_slot_q <= queue_slot_q; read_row_q <= '0;
        queue_q <= hand_valid_i; queue_slot_q <= next_slot_q;
      end else begin
        read_q <= hand_valid_i; read_slot_q <= next_slot_q; read_row_q <= '0;
      end
      if (hand_valid_i) next_slot_q <= (32'(next_slot_q) + 1 == Slots) ? 2'd0 : next_slot_q + 2'd1;
    end
  end

  always_ff @(posedge clk_i) begin
    for (int s = 0; s < Slots; s++) begin
      if (hand_valid_i && 32'(next_slot_q) == s) begin
        insn_q[64*s +: 64] <= hand_insn_i;
        base_q[RegisterRowBits*s +: RegisterRowBits] <= hand_base_i;
        registers_q[32*s +: 32] <= hand_registers_i;
        a_used_q[s] <= hand_a_used_i;
        b_zero_q[s] <= hand_b_zero_i;
        b_given_q[s] <= hand_b_given_i;
        b_q[32*s +: 32] <= hand_b_i;
        c_used_q[s] <= hand_c_used_i;
        exec_q[32*s +: 32] <= hand_exec_i;
        active_q[32*s +: 32] <= hand_active_i;
        seq_q[32*s +: 32] <= hand_seq_i;
        pc_q[32*s +: 32] <= hand_pc_i;
        warp_q[WarpBits*s +: WarpBits] <= hand_warp_i;
        predicates_q[32*7*s +: 32*7] <= hand_predicates_i;
        predicate_q[3*s +: 3] <= hand_predicate_i;
      end
    end
  end

endmodule
