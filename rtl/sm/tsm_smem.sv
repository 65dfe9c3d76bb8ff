// The shared memory of the SM (docs/sm-rtl.md §2.8): Banks banks of 32-bit words, each a memory
// with one port (a write with byte enables, or a read whose data comes a clock later; both in one
// clock read the old word), the bank scheduling of a half-warp request (tsm_smem_sched) and the
// crossbar between the half-warp's lanes and the banks.
//
// - A half-warp step (step_i, the load/store unit's E_LS_SH): of the lanes still pending, the
//   scheduler serves the broadcast word's lanes and, per other bank, the lowest pending lane that
//   addresses it (serve_o). Each bank reads or writes the word of the lowest served lane in it; a
//   store merges the served lanes' bytes into it, the highest lane winning a byte two lanes store
//   (the golden model's lane order). A clock after a load's step, lane_word_o holds each lane's
//   word of its bank (the lanes' addresses held). The caller repeats steps until no lane is pending.
// - Otherwise the banks' ports are the caller's (we_i, be_i, addr_i, wdata_i, rdata_o): block
//   placement zeroes rows, the shared atomics read and write words.
// Accesses are aligned to their size (the address generation faults them otherwise), so a lane's
// bytes lie in one word, and its store data is replicated to fill the word: byte b of the bank's
// word is byte b of the lane's data. The banks infer as block RAM (DP16KD under synth_ecp5,
// docs/sm-rtl.md §2.12).
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
  /// word at the address of the previous clock). The caller's, except in a step.
  input  logic [Banks-1:0]       we_i,
  input  logic [Banks*4-1:0]     be_i,
  input  logic [Banks*RowBits-1:0] addr_i,
  input  logic [Banks*32-1:0]    wdata_i,
  output logic [Banks*32-1:0]    rdata_o,

  /// A half-warp step this clock: a store (else a load) of step_bytes_i bytes a lane (1, 2, 4; wider
  /// accesses go as 32-bit passes); the lanes still pending, their byte addresses in the shared
  /// memory and their store data (replicated to fill a word).
  input  logic                   step_i,
  input  logic                   step_store_i,
  input  logic [4:0]             step_bytes_i,
  input  logic [15:0]            pending_i,
  input  logic [16*32-1:0]       lane_address_i,
  input  logic [16*32-1:0]       lane_data_i,
  /// The lanes the step serves (also while step_i is low: the next step's).
  output logic [15:0]            serve_o,
  /// Each lane's word in its bank, at the address of the previous clock.
  output logic [16*32-1:0]       lane_word_o
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif

  // The banks' ports: the step's, or the caller's.
  logic [Banks-1:0]         step_we, bank_we;
  logic [Banks*4-1:0]       step_be, bank_be;
  logic [Banks*RowBits-1:0] step_addr, bank_addr;
  logic [Banks*32-1:0]      step_wdata, bank_wdata;

  for (genvar j = 0; j < Banks; j++) begin : g_bank
    logic [31:0] mem [Words];
    logic [31:0] rdata_q;
    always_ff @(posedge clk_i) begin
      if (bank_we[j] && bank_be[4*j + 0]) mem[bank_addr[RowBits*j +: RowBits]][7:0] <= bank_wdata[32*j + 0 +: 8];
      if (bank_we[j] && bank_be[4*j + 1]) mem[bank_addr[RowBits*j +: RowBits]][15:8] <= bank_wdata[32*j + 8 +: 8];
      if (bank_we[j] && bank_be[4*j + 2]) mem[bank_addr[RowBits*j +: RowBits]][23:16] <= bank_wdata[32*j + 16 +: 8];
      if (bank_we[j] && bank_be[4*j + 3]) mem[bank_addr[RowBits*j +: RowBits]][31:24] <= bank_wdata[32*j + 24 +: 8];
      rdata_q <= mem[bank_addr[RowBits*j +: RowBits]];
    end
    assign rdata_o[32*j +: 32] = rdata_q;
  end

  logic [16*WordBits-1:0] lane_word_address;
  always_comb
    for (int li = 0; li < 16; li++) lane_word_address[WordBits*li +: WordBits] = WordBits'(lane_address_i[32*li +: 32] >> 2);

  tsm_smem_sched #(.Lanes(16), .Banks(Banks), .AddrBits(WordBits)) u_sched (
    .pending_i, .addr_i(lane_word_address), .serve_o
  );

  // The step's crossbar: each bank's word address (the lowest served lane's), write, byte enables
  // and merged data.
  always_comb begin
    logic [16*4-1:0] enables;  // each lane's byte enables in its word
    logic [3:0]      winner;   // the lane whose byte a bank stores
    for (int li = 0; li < 16; li++)
      enables[4*li +: 4] = step_bytes_i == 5'd1 ? (4'b0001 << lane_address_i[32*li +: 2]) :
                           step_bytes_i == 5'd2 ? (4'b0011 << lane_address_i[32*li +: 2]) : 4'b1111;
    step_addr = '0; step_we = '0; step_be = '0; step_wdata = '0;
    for (int j = 0; j < Banks; j++) begin
      for (int li = 15; li >= 0; li--)
        if (serve_o[li] && (lane_address_i[32*li +: 32] >> 2) % Banks == j)
          step_addr[RowBits*j +: RowBits] = RowBits'((lane_address_i[32*li +: 32] >> 2) / Banks);
      for (int li = 0; li < 16; li++) begin
        if (step_store_i && serve_o[li] && (lane_address_i[32*li +: 32] >> 2) % Banks == j) begin
          step_we[j] = 1'b1;
          step_be[4*j +: 4] = step_be[4*j +: 4] | enables[4*li +: 4];
        end
      end
      // Byte bb of the bank's word comes from the highest served lane that stores it: that byte is
      // byte bb of the lane's replicated data, so no shifter per lane and byte. The lane is found
      // first and its byte selected once, not passed along a chain of 16 multiplexers per bit.
      for (int bb = 0; bb < 4; bb++) begin
        winner = '0;
        for (int li = 0; li < 16; li++)
          if (step_store_i && serve_o[li] && (lane_address_i[32*li +: 32] >> 2) % Banks == j && enables[4*li + bb])
            winner = 4'(li);
        // Selected by comparing with each lane number: lane_data_i[32 * winner + 8 * bb +: 8] would
        // shift all 512 bits by an index the constant 8 * bb was added to.
        if (step_be[4*j + bb])
          for (int li = 0; li < 16; li++)
            if (winner == 4'(li)) step_wdata[32*j + 8*bb +: 8] = lane_data_i[32*li + 8*bb +: 8];
      end
    end
`ifdef TSM_MUTANTS
    if (`TSM_MUT(7)) begin
      step_we = {step_we[Banks-2:0], step_we[Banks-1]};
      step_be = {step_be[Banks*4-5:0], step_be[Banks*4-1 -: 4]};
      step_wdata = {step_wdata[Banks*32-33:0], step_wdata[Banks*32-1 -: 32]};
      step_addr = {step_addr[Banks*RowBits-RowBits-1:0], step_addr[Banks*RowBits-1 -: RowBits]};
    end
`endif
  end

  always_comb begin
    bank_we = step_i ? step_we : we_i;
    bank_be = step_i ? step_be : be_i;
    bank_addr = step_i ? step_addr : addr_i;
    bank_wdata = step_i ? step_wdata : wdata_i;
  end

  // Each lane's word of its bank (the banks read the step's addresses).
  always_comb begin
    logic [31:0] word;
    for (int li = 0; li < 16; li++) begin
      word = lane_address_i[32*li +: 32] >> 2;
      lane_word_o[32*li +: 32] = rdata_o[32*(word % Banks) +: 32];
    end
  end

endmodule
