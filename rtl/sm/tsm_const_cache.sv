// The SM's constant cache (docs/sm-rtl.md §2.9): constant-bank operands (c[bank][offset]) come
// from a direct-mapped cache of Lines 16-byte lines, a data memory and a tag memory ({valid, line
// address}) with one address port (block RAM or LUT RAM on the FPGA). A miss fetches the line with
// one request (ID CcId) and fills it when the response comes.
//
// Handshakes with the engine, which sequences a constant operand (E_CONST reads, E_CONST_CHK
// decides, E_CC_REQ sends the request, E_CC_WAIT waits for the line):
// - addr_i (the operand's byte address) addresses a line; its data and tag are read a clock later
//   (hit_o, word_o and word_hi_o from them: the 32-bit word at addr_i and, for 64-bit operands,
//   the word after it);
// - miss_i (the line read does not hold addr_i) starts waiting for the line; req_id_o/req_addr_o
//   are its request; resp_valid_i marks the response (always accepted: the line is written at
//   addr_i's line), and line_in_o says it has come since the miss (fill_i then writes its tag);
// - clear_i empties line clear_line_i (a launch clears them all, one a clock: E_CLEAR).
module tsm_const_cache #(
  /// Lines of 16 bytes (tsm_cfg_pkg::ConstCacheBytes / 16).
  parameter int unsigned Lines = 64,
  /// Bits of a memory-request ID, and the cache's ID.
  parameter int unsigned IdBits = 6,
  parameter logic [IdBits-1:0] CcId = IdBits'(48)
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  /// Address a line (the operand's byte address), or a line to clear.
  input  logic                       lookup_i,
  input  logic [31:0]                addr_i,
  input  logic                       clear_i,
  input  logic [$clog2(Lines)-1:0]   clear_line_i,
  /// The line read (addressed the clock before) holds addr_i, and its words.
  output logic                       hit_o,
  output logic [31:0]                word_o,
  output logic [31:0]                word_hi_o,
  /// A miss, its request, its response, and writing the line's tag once it is in.
  input  logic                       miss_i,
  output logic [IdBits-1:0]          req_id_o,
  output logic [31:0]                req_addr_o,
  input  logic                       resp_valid_i,
  input  logic [127:0]               resp_data_i,
  output logic                       line_in_o,
  input  logic                       fill_i
);

  localparam int unsigned LineBits = $clog2(Lines);

  logic [127:0] data [Lines];
  logic [28:0]  tags [Lines];
  logic [127:0] data_q;
  logic [28:0]  tag_q;
  logic         got_q;        // the response to the miss's request has come
  logic [LineBits-1:0] address;
  logic         tag_write;
  logic [28:0]  tag_data;

  always_comb begin
    address = '0;
    tag_write = 1'b0;
    tag_data = '0;
    if (lookup_i) address = LineBits'((addr_i >> 4) % Lines);
    if (clear_i) begin
      address = clear_line_i;
      tag_write = 1'b1;
    end
    if (fill_i) begin
      tag_write = 1'b1;
      tag_data = {1'b1, addr_i[31:4]};
    end
  end

  assign hit_o = tag_q == {1'b1, addr_i[31:4]};
  assign word_o = data_q[32*addr_i[3:2] +: 32];
  assign word_hi_o = data_q[32*32'({addr_i[3], 1'b1}) +: 32];  // 64-bit offsets are 8-aligned
  assign req_id_o = CcId;
  assign req_addr_o = addr_i & ~32'hF;
  assign line_in_o = got_q;

  always_ff @(posedge clk_i) begin
    if (resp_valid_i) data[address] <= resp_data_i;
    data_q <= data[address];
    if (tag_write) tags[address] <= tag_data;
    tag_q <= tags[address];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) got_q <= 1'b0;
    else if (miss_i) got_q <= 1'b0;
    else if (resp_valid_i) got_q <= 1'b1;
  end

endmodule
