// The warp table (docs/sm-rtl.md §2.3): for every warp slot of the SM, whether a warp lives there,
// its PC, active and live lanes, the sequence number of its next instruction, where it lives (block
// slot, first register-file row, the thread index of its lane 0), and what it waits for: a barrier
// (and, for BAR.RED, where the reduction's value goes), a load in flight (the scoreboard), a global
// atomic's old values, the SFU pipe. The warp scheduler (tsm_warp_sched) picks among the warps that
// wait for nothing (ready_o).
//
// Handshake: none; every input is a command applied at the clock edge, the outputs are the
// registered table. The engine's commands name its current warp (warp_i), the block dispatch's a new
// warp (place_*), the barrier release walk's a slot (release_slot_i), the memory tracker's and the
// SFU pipe's the warp they finished. Commands for the same field of the same warp never meet in one
// clock except where the order is stated below (a wait set, then its end, wins; a launch clears all).
module tsm_warp_table #(
  /// Warp slots of the SM and the bits of a warp slot number.
  parameter int unsigned Warps = 24,
  parameter int unsigned WarpBits = 5,
  /// Bits of a block slot number.
  parameter int unsigned BlockBits = 3,
  /// Bits of a register-file row address.
  parameter int unsigned RegisterRowBits = 10,
  /// Bits of one thread-index coordinate (three of them: x, y, z).
  parameter int unsigned DimBits = 10
) (
  input  logic                               clk_i,
  input  logic                               rst_ni,
  input  logic                               start_i,             // a launch: no warp is resident, no store in flight

  // ---- placement (the block dispatch): a new warp in slot place_warp_i ----
  input  logic                               place_i,
  input  logic [WarpBits-1:0]                place_warp_i,
  input  logic [31:0]                        place_pc_i,
  input  logic [31:0]                        place_lanes_i,        // its threads (active and live)
  input  logic [BlockBits-1:0]               place_block_i,
  input  logic [RegisterRowBits-1:0]         place_base_i,
  input  logic [3*DimBits-1:0]               place_thread_i,       // lane 0's thread index {z, y, x}

  // ---- the engine's commands for its current warp ----
  input  logic [WarpBits-1:0]                warp_i,
  input  logic                               issue_i,              // an instruction issues: the sequence number counts
  input  logic                               scoreboard_wait_i,    // it waits for a load in flight
  input  logic                               sfu_wait_i,           // it waits until the SFU pipe takes operands
  input  logic                               sfu_issue_i,          // its SFU instruction is in the SFU pipe
  input  logic                               atomic_wait_i,        // it waits for its global atomic's old values
  input  logic                               load_issue_i,         // a load slot of it is allocated
  input  logic                               barrier_arrive_i,     // it waits at barrier barrier_id_i
  input  logic [3:0]                         barrier_id_i,
  input  logic                               reduction_i,          // BAR.RED: the value goes to
  input  logic [7:0]                         reduction_register_i, //   this register
  input  logic [31:0]                        reduction_lanes_i,    //   of these lanes, with
  input  logic [31:0]                        reduction_seq_i,      //   this instruction's sequence number
  input  logic                               pc_write_i,           // its PC becomes pc_i
  input  logic [31:0]                        pc_i,
  input  logic                               lanes_write_i,        // its active and live lanes become:
  input  logic [31:0]                        active_i,
  input  logic [31:0]                        live_i,
  input  logic                               finish_i,             // it has exited: the slot is free

  // ---- stores in flight: one issued (for store_warp_i), one acknowledged ----
  input  logic                               store_issue_i,
  input  logic [WarpBits-1:0]                store_warp_i,
  input  logic                               store_ack_i,
  input  logic [WarpBits-1:0]                store_ack_warp_i,

  // ---- the barrier release walk's slot ----
  input  logic [WarpBits-1:0]                release_slot_i,
  input  logic                               release_wake_i,       // it leaves its barrier
  input  logic                               release_reduction_done_i, // its reduction value is written

  // ---- the units that end a wait ----
  input  logic                               sfu_done_i,           // the SFU pipe wrote the warp's last row
  input  logic [WarpBits-1:0]                sfu_done_warp_i,
  input  logic                               sfu_free_i,           // the SFU pipe takes operands again: every SFU waiter may retry
  input  logic                               slot_done_i,          // the memory tracker finished a load slot of this warp
  input  logic [WarpBits-1:0]                slot_done_warp_i,
  input  logic                               slot_done_atomic_i,   //   ... a global atomic's

  // ---- the table ----
  output logic [Warps-1:0]                   valid_o,
  output logic [Warps-1:0]                   ready_o,              // resident and waiting for nothing
  output logic [WarpBits-1:0]                free_o,               // the lowest free slot (valid_o not all ones)
  output logic [Warps-1:0]                   barrier_wait_o,
  output logic [Warps-1:0]                   scoreboard_wait_o,
  output logic [Warps-1:0]                   atomic_wait_o,
  output logic [Warps-1:0]                   sfu_o,
  output logic [Warps-1:0]                   sfu_wait_o,
  output logic [Warps*32-1:0]                pc_o,
  output logic [Warps*32-1:0]                active_o,
  output logic [Warps*32-1:0]                live_o,
  output logic [Warps*32-1:0]                seq_o,
  output logic [Warps*BlockBits-1:0]         block_o,
  output logic [Warps*RegisterRowBits-1:0]   base_o,
  output logic [Warps*3*DimBits-1:0]         thread_o,
  output logic [Warps*4-1:0]                 barrier_o,
  output logic [Warps-1:0]                   reduction_o,
  output logic [Warps*8-1:0]                 reduction_register_o,
  output logic [Warps*32-1:0]                reduction_lanes_o,
  output logic [Warps*32-1:0]                reduction_seq_o,
  output logic [Warps*4-1:0]                 loads_o,              // load slots in flight
  output logic [Warps*6-1:0]                 stores_o              // stores awaiting acknowledgement
);

  // One slot per generate iteration: each compares its own number with the commands' (a write
  // through a variable index would expand over the whole vector in Yosys, docs/sm-rtl.md §2.11).
  for (genvar w = 0; w < Warps; w++) begin : g_slot
    logic                       placed, current, released;
    logic                       valid_q, wait_q, scoreboard_q, atomic_q, sfu_q, sfu_wait_q, reduction_q;
    logic [31:0]                pc_q, active_q, live_q, seq_q, reduction_lanes_q, reduction_seq_q;
    logic [BlockBits-1:0]       block_q;
    logic [RegisterRowBits-1:0] base_q;
    logic [3*DimBits-1:0]       thread_q;
    logic [3:0]                 barrier_q, loads_q;
    logic [7:0]                 reduction_register_q;
    logic [5:0]                 stores_q;
    assign placed = place_i && 32'(place_warp_i) == w;
    assign current = 32'(warp_i) == w;
    assign released = 32'(release_slot_i) == w;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q <= 1'b0; wait_q <= 1'b0; scoreboard_q <= 1'b0; atomic_q <= 1'b0; sfu_q <= 1'b0;
        sfu_wait_q <= 1'b0; reduction_q <= 1'b0;
        pc_q <= '0; active_q <= '0; live_q <= '0; seq_q <= '0; reduction_lanes_q <= '0; reduction_seq_q <= '0;
        block_q <= '0; base_q <= '0; thread_q <= '0; barrier_q <= '0; loads_q <= '0;
        reduction_register_q <= '0; stores_q <= '0;
      end else begin
        // Resident.
        if (start_i) valid_q <= 1'b0;
        else if (placed) valid_q <= 1'b1;
        else if (finish_i && current) valid_q <= 1'b0;
        // Where it lives, and its state.
        if (placed) begin
          block_q <= place_block_i; base_q <= place_base_i; thread_q <= place_thread_i;
        end
        if (placed) pc_q <= place_pc_i;
        else if (pc_write_i && current) pc_q <= pc_i;
        if (placed) begin
          active_q <= place_lanes_i; live_q <= place_lanes_i;
        end else if (lanes_write_i && current) begin
          active_q <= active_i; live_q <= live_i;
        end
        if (placed) seq_q <= '0;
        else if (issue_i && current) seq_q <= seq_q + 32'd1;
        // Barriers.
        if (placed) wait_q <= 1'b0;
        else if (barrier_arrive_i && current) wait_q <= 1'b1;
        else if (release_wake_i && released) wait_q <= 1'b0;
        if (barrier_arrive_i && current) barrier_q <= barrier_id_i;
        if (placed) reduction_q <= 1'b0;
        else if (reduction_i && current) reduction_q <= 1'b1;
        else if (release_reduction_done_i && released) reduction_q <= 1'b0;
        if (reduction_i && current) begin
          reduction_register_q <= reduction_register_i; reduction_lanes_q <= reduction_lanes_i;
          reduction_seq_q <= reduction_seq_i;
        end
        // Waits the other units end: the end wins over a set in the same clock.
        if (slot_done_i && 32'(slot_done_warp_i) == w) scoreboard_q <= 1'b0;
        else if (placed) scoreboard_q <= 1'b0;
        else if (scoreboard_wait_i && current) scoreboard_q <= 1'b1;
        if (slot_done_i && slot_done_atomic_i && 32'(slot_done_warp_i) == w) atomic_q <= 1'b0;
        else if (placed) atomic_q <= 1'b0;
        else if (atomic_wait_i && current) atomic_q <= 1'b1;
        if (sfu_done_i && 32'(sfu_done_warp_i) == w) sfu_q <= 1'b0;
        else if (placed) sfu_q <= 1'b0;
        else if (sfu_issue_i && current) sfu_q <= 1'b1;
        if (sfu_free_i || placed) sfu_wait_q <= 1'b0;
        else if (sfu_wait_i && current) sfu_wait_q <= 1'b1;
        // Memory in flight: a placed warp starts with no load slot; its slot's stores may still be
        // in flight from the slot's previous warp (their acknowledgements count down).
        loads_q <= (placed ? 4'd0 : loads_q + {3'd0, load_issue_i && current})
                   - {3'd0, slot_done_i && 32'(slot_done_warp_i) == w};
        if (start_i) stores_q <= '0;
        else stores_q <= stores_q + {5'd0, store_issue_i && 32'(store_warp_i) == w}
                         - {5'd0, store_ack_i && 32'(store_ack_warp_i) == w};
      end
    end

    assign valid_o[w] = valid_q;
    assign ready_o[w] = valid_q & ~wait_q & ~scoreboard_q & ~atomic_q & ~sfu_q & ~sfu_wait_q;
    assign barrier_wait_o[w] = wait_q;
    assign scoreboard_wait_o[w] = scoreboard_q;
    assign atomic_wait_o[w] = atomic_q;
    assign sfu_o[w] = sfu_q;
    assign sfu_wait_o[w] = sfu_wait_q;
    assign pc_o[32*w +: 32] = pc_q;
    assign active_o[32*w +: 32] = active_q;
    assign live_o[32*w +: 32] = live_q;
    assign seq_o[32*w +: 32] = seq_q;
    assign block_o[BlockBits*w +: BlockBits] = block_q;
    assign base_o[RegisterRowBits*w +: RegisterRowBits] = base_q;
    assign thread_o[3*DimBits*w +: 3*DimBits] = thread_q;
    assign barrier_o[4*w +: 4] = barrier_q;
    assign reduction_o[w] = reduction_q;
    assign reduction_register_o[8*w +: 8] = reduction_register_q;
    assign reduction_lanes_o[32*w +: 32] = reduction_lanes_q;
    assign reduction_seq_o[32*w +: 32] = reduction_seq_q;
    assign loads_o[4*w +: 4] = loads_q;
    assign stores_o[6*w +: 6] = stores_q;
  end

  always_comb begin
    free_o = '0;
    for (int w = Warps - 1; w >= 0; w--) if (!valid_o[w]) free_o = WarpBits'(w);
  end

endmodule
