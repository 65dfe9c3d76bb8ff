// The warp-level operations of the SM (docs/sm-rtl.md §2.10): what S2R, VOTE and SHFL compute,
// a row of Lanes lanes at a time, by the golden model's rules (sim/golden/execute.cpp
// Exec::warp_op). The warp-op pipe (tsm_warp_ops_pipe) reads the operands, sequences the
// rows and asks for the writes; this unit is the arithmetic of each.
//
// - S2R: the special register of each lane of row row_i. Thread coordinates come from a walker:
//   the caller gives the coordinates of the row's first lane and gets those of the next row's.
// - VOTE: of the voting lanes (executing lanes in the membership mask), the ballot of their
//   predicates and the .ALL/.ANY/.UNI result.
// - SHFL: each lane of the row's source lane and whether it is in range (SHFL's predicate), from
//   its B (lane or offset) and C (clamp, segment mask) operands.
//
// Contract: combinational, no state; every output depends only on the inputs of its own group.
module tsm_warp_ops #(
  /// SP lanes: a row's lanes.
  parameter int unsigned Lanes = 8,
  /// Bits of a row number (rows = 32 / Lanes).
  parameter int unsigned RowBits = 2,
  /// Warp slots of the SM (%nwarpid) and the bits of a warp slot number.
  parameter int unsigned Warps = 24,
  parameter int unsigned WarpBits = 5,
  /// Bits of a thread coordinate.
  parameter int unsigned DimBits = 10
) (
  /// The row (lanes row_i * Lanes ..).
  input  logic [RowBits-1:0]     row_i,

  /// S2R: the register (tsm_isa_pkg::SREG_*), the coordinates of the row's first thread, and the
  /// values the registers read.
  input  logic [4:0]             s2r_register_i,
  input  logic [3*DimBits-1:0]   s2r_thread_i,      // {z, y, x}
  input  logic [63:0]            s2r_clock_i,
  input  logic [WarpBits-1:0]    s2r_warp_i,
  input  logic [31:0]            s2r_sm_i,
  input  logic [31:0]            s2r_sms_i,
  input  logic [3*32-1:0]        s2r_block_dim_i,   // {z, y, x}
  input  logic [47:0]            s2r_block_index_i, // {z, y, x}, 16 bits each
  input  logic [3*32-1:0]        s2r_grid_dim_i,    // {z, y, x}
  output logic [Lanes*32-1:0]    s2r_data_o,
  output logic [3*DimBits-1:0]   s2r_next_thread_o, // the next row's first thread

  /// VOTE: the mode (tsm_isa_pkg::VOTE_*), the voting lanes, every lane's predicate operand.
  input  logic [1:0]             vote_mode_i,
  input  logic [31:0]            vote_lanes_i,
  input  logic [31:0]            vote_predicates_i,
  output logic [31:0]            vote_ballot_o,
  output logic                   vote_result_o,

  /// SHFL: the mode (tsm_isa_pkg::SHFL_*), each lane's B and C operands.
  input  logic [1:0]             shfl_mode_i,
  input  logic [Lanes*32-1:0]    shfl_b_i,
  input  logic [Lanes*32-1:0]    shfl_c_i,
  output logic [Lanes*5-1:0]     shfl_source_o,
  output logic [Lanes-1:0]       shfl_in_range_o
);

  // ---- S2R ----
  always_comb begin
    logic [31:0] value;
    logic [31:0] x, y, z;
    logic [31:0] block_x, block_y, block_z;
    logic [5:0]  lane;
    x = 32'(s2r_thread_i[0 +: DimBits]);
    y = 32'(s2r_thread_i[DimBits +: DimBits]);
    z = 32'(s2r_thread_i[2*DimBits +: DimBits]);
    {block_z, block_y, block_x} = s2r_block_dim_i;
    for (int l = 0; l < Lanes; l++) begin
      lane = 6'(32'(row_i) * Lanes + l);
      unique case (s2r_register_i)
        tsm_isa_pkg::SREG_LANEID: value = 32'(lane);
        tsm_isa_pkg::SREG_CLOCK: value = s2r_clock_i[31:0];
        tsm_isa_pkg::SREG_CLOCK_HI: value = s2r_clock_i[63:32];
        tsm_isa_pkg::SREG_WARPID: value = 32'(s2r_warp_i);
        tsm_isa_pkg::SREG_NWARPID: value = Warps;
        tsm_isa_pkg::SREG_SMID: value = s2r_sm_i;
        tsm_isa_pkg::SREG_NSMID: value = s2r_sms_i;
        tsm_isa_pkg::SREG_TID_X: value = x;
        tsm_isa_pkg::SREG_TID_Y: value = y;
        tsm_isa_pkg::SREG_TID_Z: value = z;
        tsm_isa_pkg::SREG_NTID_X: value = block_x;
        tsm_isa_pkg::SREG_NTID_Y: value = block_y;
        tsm_isa_pkg::SREG_NTID_Z: value = block_z;
        tsm_isa_pkg::SREG_CTAID_X: value = {16'd0, s2r_block_index_i[0 +: 16]};
        tsm_isa_pkg::SREG_CTAID_Y: value = {16'd0, s2r_block_index_i[16 +: 16]};
        tsm_isa_pkg::SREG_CTAID_Z: value = {16'd0, s2r_block_index_i[32 +: 16]};
        tsm_isa_pkg::SREG_NCTAID_X: value = s2r_grid_dim_i[0 +: 32];
        tsm_isa_pkg::SREG_NCTAID_Y: value = s2r_grid_dim_i[32 +: 32];
        tsm_isa_pkg::SREG_NCTAID_Z: value = s2r_grid_dim_i[64 +: 32];
        tsm_isa_pkg::SREG_LANEMASK_EQ: value = 32'd1 << lane;
        tsm_isa_pkg::SREG_LANEMASK_LT: value = (32'd1 << lane) - 32'd1;
        tsm_isa_pkg::SREG_LANEMASK_LE: value = lane == 6'd31 ? 32'hFFFF_FFFF : (32'd2 << lane) - 32'd1;
        tsm_isa_pkg::SREG_LANEMASK_GT: value = lane == 6'd31 ? 32'd0 : ~((32'd2 << lane) - 32'd1);
        default: value = ~((32'd1 << lane) - 32'd1);  // LANEMASK_GE
      endcase
      s2r_data_o[32*l +: 32] = value;
      // The next thread: x fastest, then y, then z.
      if (x + 32'd1 < block_x) x = x + 32'd1;
      else begin
        x = '0;
        if (y + 32'd1 < block_y) y = y + 32'd1;
        else begin y = '0; z = z + 32'd1; end
      end
    end
    s2r_next_thread_o = {DimBits'(z), DimBits'(y), DimBits'(x)};
  end

  // ---- VOTE ----
  always_comb begin
    vote_ballot_o = vote_lanes_i & vote_predicates_i;
    unique case (vote_mode_i)
      tsm_isa_pkg::VOTE_ALL: vote_result_o = vote_ballot_o == vote_lanes_i;
      tsm_isa_pkg::VOTE_ANY: vote_result_o = vote_ballot_o != 32'd0;
      default:               vote_result_o = vote_ballot_o == 32'd0 || vote_ballot_o == vote_lanes_i;
    endcase
  end

  // ---- SHFL ----
  always_comb begin
    logic [5:0] lane, b, source, max_lane, min_lane, segment_mask, clamp;
    logic       in_range;
    for (int l = 0; l < Lanes; l++) begin
      lane = 6'(32'(row_i) * Lanes + l);
      b = {1'b0, shfl_b_i[32*l +: 5]};
      clamp = {1'b0, shfl_c_i[32*l +: 5]};
      segment_mask = {1'b0, shfl_c_i[32*l + 8 +: 5]};
      max_lane = (lane & segment_mask) | (clamp & ~segment_mask);
      min_lane = lane & segment_mask;
      source = lane;
      in_range = 1'b0;
      unique case (shfl_mode_i)
        tsm_isa_pkg::SHFL_UP: begin
          in_range = {1'b0, lane} >= {1'b0, b} + {1'b0, max_lane};
          source = lane - b;
        end
        tsm_isa_pkg::SHFL_DOWN: begin source = lane + b; in_range = source <= max_lane; end
        tsm_isa_pkg::SHFL_BFLY: begin source = lane ^ b; in_range = source <= max_lane; end
        default: begin source = min_lane | (b & ~segment_mask); in_range = source <= max_lane; end
      endcase
      if (!in_range) source = lane;
      shfl_in_range_o[l] = in_range;
      shfl_source_o[5*l +: 5] = source[4:0];
    end
  end

endmodule
