// The load/store unit's transactions counter (docs/sm-rtl.md §4, §2.9): the memory transactions a
// compute capability 1.2 GPU would make for one word of a warp's global or local access. By that
// rule (CUDA C Programming Guide, compute capability 1.2 and 1.3), per half-warp, every distinct
// aligned segment that an executing lane touches is one transaction: 32-byte segments for 1-byte
// accesses, 64-byte for 2-byte and 128-byte for wider ones. (The GPU then shrinks a segment to 64
// or 32 bytes when only half of it is used; that changes a transaction's size, not their number.)
//
// It counts a segment a clock per half-warp: each step takes the lowest lane of the half still to
// count and retires every lane in that lane's segment, so both halves are done after at most 16
// counting clocks, and a half with n segments after n. The SM's LSU counts while it issues the
// word's line requests (the load/store unit's GLOBAL state), which take a clock for each distinct 16-byte line and one more:
// as many clocks as segments at least, so the count is complete when the word is.
//
// Contract: while load_i the lanes to count are taken from lanes_i and the count restarts at 0;
// otherwise each clock counts. lane_addr_i and bytes_i are held while counting. count_o is the
// count so far (registered).
module tsm_segment_counter (
  input  logic             clk_i,
  input  logic             rst_ni,
  /// Load the lanes to count (and clear the count) instead of counting.
  input  logic             load_i,
  input  logic [31:0]      lanes_i,
  /// Every lane's byte address of the word, and the access's bytes per lane (1, 2, or 4 and more).
  input  logic [32*32-1:0] lane_addr_i,
  input  logic [4:0]       bytes_i,
  /// Segments counted.
  output logic [5:0]       count_o
);

  logic [31:0] remaining_q, remaining_d;  // lanes still to count
  logic [5:0]  count_q, count_d;

  function automatic logic [3:0] lowest16(input logic [15:0] x);
    lowest16 = '0;
    for (int i = 15; i >= 0; i--) if (x[i]) lowest16 = 4'(i);
  endfunction

  always_comb begin
    logic [26:0]      address, first;  // addresses / 32
    logic [3:0]       p;               // the lowest lane of the half still to count
    logic [16*32-1:0] half_addr;       // the half's addresses: a lane of them is then a clean 16-way choice
    logic             same;
    remaining_d = remaining_q;
    count_d = count_q;
    address = '0; first = '0; p = '0; same = 1'b0; half_addr = '0;
    if (load_i) begin
      count_d = '0;
      remaining_d = lanes_i;
    end else begin
      for (int h = 0; h < 2; h++) begin
        p = lowest16(remaining_q[16*h +: 16]);
        half_addr = lane_addr_i[512*h +: 512];
        first = 27'(half_addr[32*p +: 32] >> 5);
        if (remaining_q[16*h +: 16] != '0) begin
          count_d = count_d + 6'd1;
          for (int l = 16 * h; l < 16 * h + 16; l++) begin
            address = lane_addr_i[32*l + 5 +: 27];
            same = address[26:2] == first[26:2] && (bytes_i > 5'd2 || address[1] == first[1]) &&
                   (bytes_i != 5'd1 || address[0] == first[0]);
            if (same) remaining_d[l] = 1'b0;
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      remaining_q <= '0;
      count_q <= '0;
    end else begin
      remaining_q <= remaining_d;
      count_q <= count_d;
    end
  end
  assign count_o = count_q;

endmodule
