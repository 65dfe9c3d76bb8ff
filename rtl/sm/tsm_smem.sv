// The shared memory of the SM (docs/sm-rtl.md §2.8): Banks banks of 32-bit words, each a memory
// with one port (a write with byte enables, or a read whose data comes a clock later; both in one
// clock read the old word), and the bank scheduling of a half-warp request (tsm_smem_sched): of the
// lanes still pending, the ones served in this step. The load/store unit drives the banks' ports
// and repeats the scheduling step until no lane is pending; the shared atomics use the same ports.
// The banks infer as block RAM (DP16KD under synth_ecp5, docs/sm-rtl.md §2.12).
module tsm_smem #(
  /// Banks: tsm_cfg_pkg::SharedBanks.
  parameter int unsigned Banks = 16,
  /// Words per bank: tsm_cfg_pkg::SharedWordsPerBank.
  parameter int unsigned Words = 256,
  /// Bits of a word address within a bank.
  parameter int unsigned RowBits = 8,
  /// Bits of a word address in the whole shared memory (for the scheduling step).
  parameter int unsigned WordBits = 12
) (
  input  logic                   clk_i,
  /// Per bank (bank j in slice j): write, byte enables, word address, write data, read data (the
  /// word at the address of the previous clock).
  input  logic [Banks-1:0]       we_i,
  input  logic [Banks*4-1:0]     be_i,
  input  logic [Banks*RowBits-1:0] addr_i,
  input  logic [Banks*32-1:0]    wdata_i,
  output logic [Banks*32-1:0]    rdata_o,
  /// Bank scheduling of one half-warp request: the lanes still pending, each lane's word address,
  /// and the lanes this step serves.
  input  logic [15:0]            pending_i,
  input  logic [16*WordBits-1:0] lane_addr_i,
  output logic [15:0]            serve_o
);

  for (genvar j = 0; j < Banks; j++) begin : g_bank
    logic [31:0] mem [Words];
    logic [31:0] rdata_q;
    always_ff @(posedge clk_i) begin
      if (we_i[j] && be_i[4*j + 0]) mem[addr_i[RowBits*j +: RowBits]][7:0] <= wdata_i[32*j + 0 +: 8];
      if (we_i[j] && be_i[4*j + 1]) mem[addr_i[RowBits*j +: RowBits]][15:8] <= wdata_i[32*j + 8 +: 8];
      if (we_i[j] && be_i[4*j + 2]) mem[addr_i[RowBits*j +: RowBits]][23:16] <= wdata_i[32*j + 16 +: 8];
      if (we_i[j] && be_i[4*j + 3]) mem[addr_i[RowBits*j +: RowBits]][31:24] <= wdata_i[32*j + 24 +: 8];
      rdata_q <= mem[addr_i[RowBits*j +: RowBits]];
    end
    assign rdata_o[32*j +: 32] = rdata_q;
  end

  tsm_smem_sched #(.Lanes(16), .Banks(Banks), .AddrBits(WordBits)) u_sched (
    .pending_i, .addr_i(lane_addr_i), .serve_o
  );

endmodule
