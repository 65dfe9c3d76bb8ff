// The release of a barrier's waiting warps (docs/sm-rtl.md §2.8): once the barrier unit (tsm_barrier)
// finds barrier id_i of block block_i complete, this walk wakes the block's warps that wait at it,
// one warp slot a clock in slot order, as the golden model releases them (State::try_release). A
// woken warp that arrived with BAR.RED gets the reduction's value in its destination register, a row
// of its arriving lanes a clock (the engine puts the value on the register file's write port and a
// REG event), before the walk goes on. The walk ends by clearing the barrier's record.
//
// Handshake: the engine raises go_i (its state E_REL) from the walk's first clock to its last,
// done_o; block_i and id_i are held meanwhile. The walk asks for one warp slot at a time
// (slot_o) and reads that slot's warp-table fields (slot_*_i) in the same clock.
module tsm_barrier_release #(
  /// Warp slots of the SM and the bits of a warp slot number.
  parameter int unsigned Warps = 24,
  parameter int unsigned WarpBits = 5,
  /// Bits of a block slot number.
  parameter int unsigned BlockBits = 3,
  /// SP lanes (a row's lanes), rows of a warp (32 / Lanes) and the bits of a row number.
  parameter int unsigned Lanes = 8,
  parameter int unsigned Rows = 4,
  parameter int unsigned RowBits = 2,
  /// Bits of a register-file row address.
  parameter int unsigned RegisterRowBits = 10
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       go_i,
  input  logic [BlockBits-1:0]       block_i,
  input  logic [3:0]                 id_i,
  output logic                       done_o,

  // ---- the warp slot looked at ----
  output logic [WarpBits-1:0]        slot_o,
  input  logic                       slot_valid_i,       // resident
  input  logic [BlockBits-1:0]       slot_block_i,
  input  logic                       slot_waiting_i,     // at a barrier ...
  input  logic [3:0]                 slot_barrier_i,     // ... this one
  input  logic                       slot_reduction_i,   // it arrived with BAR.RED:
  input  logic [31:0]                slot_reduction_lanes_i,    // its arriving lanes,
  input  logic [7:0]                 slot_reduction_register_i, // its destination,
  input  logic [RegisterRowBits-1:0] slot_base_i,        // its first register-file row

  // ---- what the walk does this clock ----
  output logic                       wake_o,             // the slot's warp leaves the barrier
  output logic                       write_o,            // a row of the reduction's value:
  output logic [Lanes-1:0]           write_lanes_o,
  output logic [RegisterRowBits-1:0] write_row_o,
  output logic [RowBits-1:0]         write_group_o,
  output logic                       reduction_done_o,   // the slot's reduction is written
  output logic                       clear_o             // clear the barrier's record (with done_o)
);

  localparam int unsigned RowShift = $clog2(Rows);

  typedef enum logic { S_SCAN, S_WRITE } state_e;
  state_e              state_q, state_d;
  logic [WarpBits-1:0] slot_q, slot_d;
  logic [RowBits:0]    row_q, row_d;     // S_WRITE: the row written (one bit more to count to Rows)

  assign slot_o = slot_q;

  always_comb begin
    logic match;
    state_d = state_q;
    slot_d = slot_q;
    row_d = row_q;
    done_o = 1'b0; wake_o = 1'b0; write_o = 1'b0; reduction_done_o = 1'b0; clear_o = 1'b0;
    write_lanes_o = Lanes'(slot_reduction_lanes_i >> (32'(row_q) * Lanes));
    write_group_o = RowBits'(row_q);
    write_row_o = slot_base_i + RegisterRowBits'(({{(RegisterRowBits > 8 ? RegisterRowBits - 8 : 0){1'b0}}, slot_reduction_register_i}) << RowShift) +
                  RegisterRowBits'(row_q);
    match = slot_valid_i && slot_block_i == block_i && slot_waiting_i && slot_barrier_i == id_i;
    if (go_i) begin
      unique case (state_q)
        S_SCAN: begin
          if (match) begin
            wake_o = 1'b1;
            if (slot_reduction_i) begin
              row_d = '0;
              state_d = S_WRITE;
            end
          end
          if (!(match && slot_reduction_i)) begin
            if (32'(slot_q) + 1 == Warps) begin
              clear_o = 1'b1;
              done_o = 1'b1;
              slot_d = '0;
            end else slot_d = slot_q + 1'b1;
          end
        end
        default: begin  // S_WRITE: a row of the reduction's value; then the slot again (no longer waiting)
          write_o = write_lanes_o != '0 && slot_reduction_register_i != 8'd255;
          row_d = row_q + 1'b1;
          if (32'(row_q) + 1 == Rows) begin
            reduction_done_o = 1'b1;
            state_d = S_SCAN;
          end
        end
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_SCAN; slot_q <= '0; row_q <= '0;
    end else begin
      state_q <= state_d; slot_q <= slot_d; row_q <= row_d;
    end
  end

endmodule
