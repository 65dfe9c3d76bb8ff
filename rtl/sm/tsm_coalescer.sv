// The load/store unit's line coalescer (docs/sm-rtl.md §2.9): of a warp's global, local or constant
// lanes still pending for one word of their access, the 16-byte line of the lowest pending lane,
// every pending lane whose address lies in that line, the bytes of the line they touch, and for a
// store the line's data merged from them. The LSU sends one memory request per such line and
// repeats with the lanes left, so a warp whose lanes share lines costs one request per line.
//
// Contract: combinational, no state. Every lane's access is aligned to its size (the LSU faults a
// misaligned one before); accesses of 8 or 16 bytes come a 32-bit word at a time (bytes_i 4). The
// store data of each lane is replicated to fill its word (byte b of the word stored into is byte
// b % 4 of it). Where lanes store to the same byte, the highest lane's byte is kept, as the golden
// model's lane order leaves it.
module tsm_coalescer (
  /// Lanes still pending (at least one when the outputs are used).
  input  logic [31:0]      pending_i,
  /// Every lane's byte address of this word of its access.
  input  logic [32*32-1:0] lane_addr_i,
  /// The address of the lowest pending lane (lane_addr_i of it; the LSU has it from a multiplexer it
  /// shares).
  input  logic [31:0]      first_addr_i,
  /// The access: its bytes per lane (1, 2, or 4 and more), whether it stores.
  input  logic [4:0]       bytes_i,
  input  logic             store_i,
  /// Every lane's store word (replicated to fill it).
  input  logic [32*32-1:0] store_data_i,
  /// The line (a 16-byte-aligned address), its lanes, the bytes they access, the merged store data
  /// (zero for a load).
  output logic [31:0]      line_o,
  output logic [31:0]      lanes_o,
  output logic [15:0]      byte_mask_o,
  output logic [127:0]     data_o
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif
  always_comb begin
    logic [31:0]      address;
    logic [15:0]      bytes, taken;
    logic [32*16-1:0] lane_bytes;  // the bytes of the line each lane in it accesses
    line_o = first_addr_i & ~32'hF;
    lanes_o = '0;
    byte_mask_o = '0;
    data_o = '0;
    lane_bytes = '0;
    for (int q = 0; q < 32; q++) begin
      address = lane_addr_i[32*q +: 32];
      bytes = (bytes_i == 5'd1 ? 16'h0001 : bytes_i == 5'd2 ? 16'h0003 : 16'h000F) << address[3:0];
`ifdef TSM_MUTANTS
      if (`TSM_MUT(9) && store_i && bytes_i < 5'd4) bytes = 16'h000F << {address[3:2], 2'b00};
`endif
      if (pending_i[q] && (address & ~32'hF) == line_o) begin
        lanes_o[q] = 1'b1;
        byte_mask_o = byte_mask_o | bytes;
        lane_bytes[16*q +: 16] = bytes;
      end
    end
    // Byte b of the line comes from the highest lane that writes it: byte b % 4 of its store word.
    // Each lane's byte is masked by "no higher lane writes it" and the masked bytes are ORed: an OR
    // tree per bit rather than a chain of 32 multiplexers.
    taken = '0;
    for (int q = 31; q >= 0; q--) begin
      for (int b = 0; b < 16; b++)
        if (store_i && lane_bytes[16*q + b] && !taken[b]) data_o[8*b +: 8] = data_o[8*b +: 8] | store_data_i[32*q + 8*(b % 4) +: 8];
      taken = taken | lane_bytes[16*q +: 16];
    end
  end

endmodule
