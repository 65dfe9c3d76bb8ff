// The SM's block dispatch (docs/sm-rtl.md §2.10): the blocks resident on the SM and the placement
// of a new one. It takes a block from the work distributor (block_valid_i/block_ready_o, as AXI4:
// the block is taken in a clock with both high) while the SM runs, has room for one more block
// (blocks_per_sm_i) and holds none waiting. The engine then gives it the SM for the placement
// (go_i, its state E_PLACE, entered from E_IDLE while pending_o and the SP pipe is empty); clock by
// clock, as the golden model lays a block out:
//   1. start: the lowest free block slot; its CTA index, its warps still to finish, its shared
//      memory (slot × the block's shared bytes rounded up to whole bank rows) and its register
//      rows (slot × warps × registers × rows per warp); the PLACE commit event (place_event_o);
//   2. walk, one thread a clock (x, then y, then z): every 32nd thread starts a warp
//      (warp_valid_o) in the warp table's lowest free slot (free_warp_i) with its warp number in
//      the block, register-file base, first thread and lanes;
//   3. zero, one step a clock: the block's register rows (the register file's write port), its
//      shared memory's bank rows and its 16 barriers, until all three are done;
//   4. local (when the kernel has local memory): per warp of the block and local word, the warp's
//      32 words as 8 line stores of zeros (local_request_*, valid/ready: the engine sends one when
//      a request ID and the request queue have room).
// done_o marks the last clock; the engine returns to E_IDLE. A warp's exit lowers its block's
// count of unfinished warps (finish_i); the last one frees the block slot. start_i (a launch)
// empties the table.
module tsm_block_dispatch #(
  /// Block slots and the bits of a block slot number.
  parameter int unsigned Blocks = 8,
  parameter int unsigned BlockBits = 3,
  /// Warp slots of the SM and the bits of a warp slot number.
  parameter int unsigned Warps = 24,
  parameter int unsigned WarpBits = 5,
  /// Rows of a warp in the register file (32 / SP lanes), and the bits of a row address.
  parameter int unsigned Rows = 4,
  parameter int unsigned RegisterRowBits = 10,
  /// Shared memory: banks, the bits of a bank row address, the bits of a byte address.
  parameter int unsigned SharedBanks = 16,
  parameter int unsigned SharedRowBits = 8,
  parameter int unsigned SharedAddrBits = 14,
  /// Bits of a thread coordinate.
  parameter int unsigned DimBits = 10,
  /// Bytes between a thread's consecutive local words (SMs × warps × 32 threads × 4 bytes).
  parameter int unsigned LocalStride = 3072
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  /// A launch starts: no block is resident.
  input  logic                          start_i,
  /// The SM takes blocks (it runs, has no fault and is not stopped).
  input  logic                          accept_i,

  // ---- the launch ----
  input  logic [31:0]                   threads_i,          // threads of a block
  input  logic [31:0]                   warps_i,            // warps of a block
  input  logic [31:0]                   registers_i,        // registers per thread
  input  logic [31:0]                   shared_bytes_i,     // shared memory of a block
  input  logic [31:0]                   local_bytes_i,      // local memory of a thread
  input  logic [31:0]                   local_base_i,
  input  logic [31:0]                   sm_i,
  input  logic [31:0]                   block_x_i, block_y_i,
  input  logic [31:0]                   blocks_per_sm_i,

  // ---- the work distributor ----
  input  logic                          block_valid_i,
  output logic                          block_ready_o,
  input  logic [31:0]                   block_linear_i,
  input  logic [47:0]                   block_ctaid_i,

  // ---- placement ----
  output logic                          pending_o,          // a block waits for its placement
  input  logic                          go_i,               // the engine gives the SM to the placement
  output logic                          done_o,             // the placement's last clock
  output logic                          place_event_o,      // the PLACE event of block place_linear_o
  output logic [31:0]                   place_linear_o,
  input  logic [WarpBits-1:0]           free_warp_i,        // the warp table's lowest free slot
  output logic                          warp_valid_o,       // a warp starts in slot free_warp_i:
  output logic [BlockBits-1:0]          warp_block_o,       //   its block slot,
  output logic [RegisterRowBits-1:0]    warp_base_o,        //   its first register-file row,
  output logic [3*DimBits-1:0]          warp_thread_o,      //   its first thread {z, y, x},
  output logic [31:0]                   warp_lanes_o,       //   its lanes
  output logic                          zero_register_o,    // zero register-file row zero_register_row_o
  output logic [RegisterRowBits-1:0]    zero_register_row_o,
  output logic                          zero_shared_o,      // zero every bank's row zero_shared_row_o
  output logic [SharedRowBits-1:0]      zero_shared_row_o,
  output logic                          clear_barrier_o,    // clear barrier clear_barrier_id_o of warp_block_o
  output logic [3:0]                    clear_barrier_id_o,
  output logic                          local_request_valid_o,  // a line store of zeros to local memory
  input  logic                          local_request_ready_i,
  output logic [31:0]                   local_request_address_o,
  output logic [WarpBits-1:0]           local_request_warp_o,   // ... for this warp's threads

  // ---- a warp's exit ----
  input  logic                          finish_i,
  input  logic [BlockBits-1:0]          finish_block_i,

  // ---- the resident blocks ----
  output logic [Blocks-1:0]             valid_o,
  output logic [Blocks*48-1:0]          ctaid_o,            // {z, y, x}, 16 bits each
  output logic [Blocks*5-1:0]           unfinished_o,       // warps not yet exited
  output logic [Blocks*SharedAddrBits-1:0] shared_base_o    // byte address of the shared memory
);

  typedef enum logic [1:0] { S_IDLE, S_WALK, S_ZERO, S_LOCAL } state_e;
  state_e                  state_q, state_d;
  logic [Blocks-1:0]       valid_q, valid_d;
  logic [Blocks*48-1:0]    ctaid_q, ctaid_d;
  logic [Blocks*5-1:0]     unfinished_q, unfinished_d;
  logic [Blocks*SharedAddrBits-1:0] shared_base_q, shared_base_d;
  logic [31:0]             resident_q, resident_d;
  logic                    pending_q, pending_d;
  logic [31:0]             linear_q, linear_d;
  logic [47:0]             pending_ctaid_q, pending_ctaid_d;
  logic [BlockBits-1:0]    block_q, block_d;            // the block being placed
  logic [31:0]             row_base_q, row_base_d;      // its first register-file row
  logic [31:0]             step_q, step_d;              // walk: the thread; zero, local: the step
  logic [5:0]              warp_number_q, warp_number_d;  // warps started
  logic [3*DimBits-1:0]    walk_q, walk_d;              // the thread's coordinates {z, y, x}
  logic [Warps-1:0]        placed_q, placed_d;          // the warp slots of the block
  logic [WarpBits-1:0]     local_warp_q, local_warp_d;  // local: the warp slot being zeroed

  assign valid_o = valid_q;
  assign ctaid_o = ctaid_q;
  assign unfinished_o = unfinished_q;
  assign shared_base_o = shared_base_q;
  assign pending_o = pending_q;
  assign block_ready_o = accept_i && !pending_q && (resident_q < blocks_per_sm_i);

  logic [BlockBits-1:0] free_block;
  logic [31:0]          shared_span;   // a block's shared memory, rounded up to whole bank rows
  logic [31:0]          shared_rows;   // ... in bank rows
  logic [31:0]          register_rows; // the block's register rows
  logic [31:0]          left;          // threads not yet walked
  always_comb begin
    free_block = '0;
    for (int i = Blocks - 1; i >= 0; i--) if (!valid_q[i]) free_block = BlockBits'(i);
    // No unary operator in front of a size cast anywhere in the RTL: Yosys 0.23 drops it.
    shared_span = (shared_bytes_i + 32'(SharedBanks*4 - 1)) - ((shared_bytes_i + 32'(SharedBanks*4 - 1)) & 32'(SharedBanks*4 - 1));
    shared_rows = (shared_bytes_i + 32'(SharedBanks*4 - 1)) / 32'(SharedBanks*4);
    register_rows = warps_i * registers_i * Rows;
    left = threads_i - step_q;
  end

  always_comb begin
    logic [31:0] x, y, z;
    state_d = state_q;
    valid_d = valid_q; ctaid_d = ctaid_q; unfinished_d = unfinished_q; shared_base_d = shared_base_q;
    resident_d = resident_q; pending_d = pending_q; linear_d = linear_q; pending_ctaid_d = pending_ctaid_q;
    block_d = block_q; row_base_d = row_base_q; step_d = step_q; warp_number_d = warp_number_q; walk_d = walk_q;
    placed_d = placed_q; local_warp_d = local_warp_q;
    done_o = 1'b0; place_event_o = 1'b0; place_linear_o = linear_q;
    warp_valid_o = 1'b0; warp_block_o = block_q;
    warp_base_o = RegisterRowBits'(row_base_q + 32'(warp_number_q) * registers_i * Rows);
    warp_thread_o = walk_q;
    warp_lanes_o = (left >= 32'd32) ? 32'hFFFF_FFFF : ((32'd1 << left[4:0]) - 32'd1);
    zero_register_o = 1'b0; zero_register_row_o = RegisterRowBits'(row_base_q + step_q);
    zero_shared_o = 1'b0;
    zero_shared_row_o = SharedRowBits'((32'(shared_base_q[SharedAddrBits*block_q +: SharedAddrBits]) / 32'(SharedBanks*4)) + step_q);
    clear_barrier_o = 1'b0; clear_barrier_id_o = step_q[3:0];
    local_request_valid_o = 1'b0; local_request_warp_o = local_warp_q;
    local_request_address_o = local_base_i + (step_q >> 3) * LocalStride + (((sm_i * Warps + 32'(local_warp_q)) * 32) << 2) +
                              ({29'd0, step_q[2:0]} << 4);
    x = 32'(walk_q[0 +: DimBits]);
    y = 32'(walk_q[DimBits +: DimBits]);
    z = 32'(walk_q[2*DimBits +: DimBits]);

    if (go_i) begin
      unique case (state_q)
        S_IDLE: begin
          // Start: the block's slot and records, the PLACE event.
          place_event_o = 1'b1;
          for (int i = 0; i < Blocks; i++)
            if (32'(free_block) == i) begin
              valid_d[i] = 1'b1;
              ctaid_d[48*i +: 48] = pending_ctaid_q;
              unfinished_d[5*i +: 5] = warps_i[4:0];
              shared_base_d[SharedAddrBits*i +: SharedAddrBits] = SharedAddrBits'(32'(free_block) * shared_span);
            end
          resident_d = resident_q + 32'd1;
          block_d = free_block;
          row_base_d = 32'(free_block) * register_rows;
          walk_d = '0;
          step_d = '0;
          warp_number_d = '0;
          placed_d = '0;
          pending_d = 1'b0;
          state_d = S_WALK;
        end
        S_WALK: begin
          // One thread a clock; every 32nd starts a warp.
          if (step_q[4:0] == 5'd0) begin
            warp_valid_o = 1'b1;
            for (int i = 0; i < Warps; i++) if (32'(free_warp_i) == i) placed_d[i] = 1'b1;
            warp_number_d = warp_number_q + 6'd1;
          end
          if (x + 32'd1 < block_x_i) walk_d[0 +: DimBits] = DimBits'(x + 32'd1);
          else begin
            walk_d[0 +: DimBits] = '0;
            if (y + 32'd1 < block_y_i) walk_d[DimBits +: DimBits] = DimBits'(y + 32'd1);
            else begin
              walk_d[DimBits +: DimBits] = '0;
              walk_d[2*DimBits +: DimBits] = DimBits'(z + 32'd1);
            end
          end
          step_d = step_q + 32'd1;
          if (step_q + 32'd1 >= threads_i) begin
            step_d = '0;
            state_d = S_ZERO;
          end
        end
        S_ZERO: begin
          // The block's registers, shared memory and barriers (the golden model starts from zeros).
          zero_register_o = step_q < register_rows;
          zero_shared_o = step_q < shared_rows;
          clear_barrier_o = step_q < 32'd16;
          step_d = step_q + 32'd1;
          if (step_q + 32'd1 >= register_rows && step_q + 32'd1 >= shared_rows && step_q + 32'd1 >= 32'd16) begin
            step_d = '0;
            local_warp_d = '0;
            if (local_bytes_i != '0) state_d = S_LOCAL;
            else begin
              done_o = 1'b1;
              state_d = S_IDLE;
            end
          end
        end
        default: begin  // S_LOCAL
          // The local memory of the block's threads: per warp slot of the block and local word, the
          // warp's 32 words are 8 consecutive lines.
          if (!placed_q[local_warp_q] || step_q >= (local_bytes_i >> 2) * 8) begin
            step_d = '0;
            local_warp_d = local_warp_q + 1'b1;
            if (32'(local_warp_q) + 1 == Warps) begin
              done_o = 1'b1;
              state_d = S_IDLE;
            end
          end else begin
            local_request_valid_o = 1'b1;
            if (local_request_ready_i) step_d = step_q + 32'd1;
          end
        end
      endcase
    end

    // A warp's exit; the block's last frees its slot.
    if (finish_i) begin
      for (int i = 0; i < Blocks; i++)
        if (32'(finish_block_i) == i) begin
          unfinished_d[5*i +: 5] = unfinished_q[5*i +: 5] - 5'd1;
          if (unfinished_q[5*i +: 5] == 5'd1) valid_d[i] = 1'b0;
        end
      if (unfinished_q[5*finish_block_i +: 5] == 5'd1) resident_d = resident_q - 32'd1;
    end

    // A block from the work distributor.
    if (block_valid_i && block_ready_o) begin
      pending_d = 1'b1;
      linear_d = block_linear_i;
      pending_ctaid_d = block_ctaid_i;
    end
    // A launch: nothing is resident.
    if (start_i) begin
      valid_d = '0;
      resident_d = '0;
      pending_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_IDLE;
      valid_q <= '0; ctaid_q <= '0; unfinished_q <= '0; shared_base_q <= '0; resident_q <= '0;
      pending_q <= 1'b0; linear_q <= '0; pending_ctaid_q <= '0; block_q <= '0; row_base_q <= '0; step_q <= '0;
      warp_number_q <= '0; walk_q <= '0; placed_q <= '0; local_warp_q <= '0;
    end else begin
      state_q <= state_d;
      valid_q <= valid_d; ctaid_q <= ctaid_d; unfinished_q <= unfinished_d; shared_base_q <= shared_base_d;
      resident_q <= resident_d; pending_q <= pending_d; linear_q <= linear_d; pending_ctaid_q <= pending_ctaid_d;
      block_q <= block_d; row_base_q <= row_base_d; step_q <= step_d; warp_number_q <= warp_number_d; walk_q <= walk_d;
      placed_q <= placed_d; local_warp_q <= local_warp_d;
    end
  end

endmodule
