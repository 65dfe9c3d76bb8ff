// The compute work distributor of the GPU top (docs/sm-rtl.md §1): hands a launch's blocks, in
// linear block order, to the SMs that take part (ACTIVE_SMS), round-robin over those with room
// (tsm_rr_arbiter, the search starting after the SM served last), each block with its linear index
// and its (x, y, z) block index.
//
// Handshake per SM: blk_valid_o[s] with the block, blk_ready_i[s] when SM s has room; a block
// passes on a clock where both are high. Only one SM is offered a block a clock, and only one it
// said it has room for, so an offered block is always taken.
module tsm_work_distributor #(
  /// SMs in the GPU.
  parameter int unsigned NumSms = 2,
  /// Bits of an SM number (at least 1).
  parameter int unsigned SmBits = (NumSms > 1) ? $clog2(NumSms) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  /// A launch starts (CTRL written): begin again at block 0.
  input  logic              launch_i,
  /// Hand out blocks (the launch runs and has not faulted).
  input  logic              enable_i,
  /// Blocks in the grid, the grid's x and y dimensions, the SMs that take blocks (1 to NumSms).
  input  logic [31:0]       total_i,
  input  logic [31:0]       grid_x_i,
  input  logic [31:0]       grid_y_i,
  input  logic [31:0]       active_i,
  /// Per SM: a block is offered / the SM has room for one.
  output logic [NumSms-1:0] blk_valid_o,
  input  logic [NumSms-1:0] blk_ready_i,
  /// The block offered: its linear index and its index as three 16-bit words {z, y, x}.
  output logic [31:0]       blk_linear_o,
  output logic [47:0]       blk_ctaid_o,
  /// Every block of the launch has been handed out.
  output logic              all_issued_o
);

  logic [31:0]       next_q;     // the next block's linear index
  logic [47:0]       ctaid_q;    // ... and its block index
  logic [SmBits-1:0] last_q;     // the SM served last
  logic [NumSms-1:0] with_room;  // active SMs with room
  logic [SmBits-1:0] pick;
  logic              pick_ok;

  always_comb begin
    with_room = '0;
    for (int s = 0; s < NumSms; s++) with_room[s] = blk_ready_i[s] && s < active_i;
  end
  tsm_rr_arbiter #(.Requesters(NumSms), .IndexBits(SmBits)) u_arbiter (
    .request_i(with_room), .last_i(last_q), .grant_valid_o(pick_ok), .grant_o(pick)
  );

  always_comb begin
    blk_valid_o = '0;
    if (enable_i && next_q < total_i && pick_ok) blk_valid_o[pick] = 1'b1;
    blk_linear_o = next_q;
    blk_ctaid_o = ctaid_q;
    all_issued_o = next_q >= total_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      next_q <= '0; ctaid_q <= '0; last_q <= '0;
    end else if (launch_i) begin
      next_q <= '0; ctaid_q <= '0;
    end else if (|blk_valid_o) begin
      last_q <= pick;
      next_q <= next_q + 32'd1;
      if (32'(ctaid_q[15:0]) + 1 < grid_x_i) ctaid_q[15:0] <= ctaid_q[15:0] + 16'd1;
      else begin
        ctaid_q[15:0] <= '0;
        if (32'(ctaid_q[31:16]) + 1 < grid_y_i) ctaid_q[31:16] <= ctaid_q[31:16] + 16'd1;
        else begin
          ctaid_q[31:16] <= '0;
          ctaid_q[47:32] <= ctaid_q[47:32] + 16'd1;
        end
      end
    end
  end

endmodule
