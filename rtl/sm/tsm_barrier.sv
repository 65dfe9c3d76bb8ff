// The barrier unit of the SM (docs/sm-rtl.md §2.8): per block slot, 16 barriers (BAR.SYNC,
// BAR.ARV, BAR.RED), each a record of the warps that arrived, the thread count the first of them
// named, the reduction and its running value. It decides when a barrier is complete -- on an
// arrival, or when a warp of the block exits and so need no longer be waited for -- and what a
// BAR.RED returns. Which warps wait and their release, one warp slot a clock, are the warp
// table's; the unit only holds the records and their rules.
//
// Port contract: one record access a clock, at {block_i, barrier_i}. The record read there comes
// a clock later, and the decisions (arrive_*, check_*) are made from it: an arrival is the
// address held for two clocks, the second with arrive_i (the record read in the first is updated
// and written back). clear_i empties the record at the address (block placement; a release).
// Both decisions depend only on the record read and on their own inputs, never on arrive_i or
// clear_i. The record memory infers as LUT RAM or block RAM (a read a clock after its address).
module tsm_barrier #(
  /// Block slots of the SM (tsm_cfg_pkg::MaxBlocks).
  parameter int unsigned Blocks = 8,
  /// Bits of a block slot number.
  parameter int unsigned BlockBits = 3
) (
  input  logic                 clk_i,
  /// The record this clock reads (and writes with arrive_i or clear_i).
  input  logic [BlockBits-1:0] block_i,
  input  logic [3:0]           barrier_i,
  /// Empty the record.
  input  logic                 clear_i,
  /// A warp arrives: the record read last clock, at this same address, becomes arrive_record_o.
  input  logic                 arrive_i,
  /// The arriving warp's instruction: BAR.RED (the reduction counts; else a plain arrival), its
  /// reduction (tsm_isa_pkg::REDOP_*), its thread count (0: every unfinished warp of the block).
  input  logic                 arrive_reduce_i,
  input  logic [1:0]           arrive_redop_i,
  input  logic [11:0]          arrive_count_i,
  /// Its executing lanes, and those of them whose predicate operand is true (BAR.RED).
  input  logic [31:0]          arrive_lanes_i,
  input  logic [31:0]          arrive_votes_i,
  /// Warps of the block that have not exited (the arriving one included).
  input  logic [4:0]           arrive_unfinished_i,
  /// With this warp's arrival the barrier is complete: release its warps, BAR.RED's result.
  output logic                 arrive_release_o,
  output logic [31:0]          arrive_value_o,
  /// Warps arrived, this one included (the waveform's barrier count).
  output logic [5:0]           arrive_count_o,
  /// A warp of the block has exited: with arrive_unfinished_i one less, the record read last clock
  /// is complete (some warp waits at it, and all that are left have arrived); its BAR.RED result.
  input  logic [4:0]           check_unfinished_i,
  output logic                 check_release_o,
  output logic [31:0]          check_value_o
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif
  // A record (32 bits): {any, not all, population count (10), reduction (2), thread count (12),
  // warps arrived (6)}. Kept as plain words: Yosys 0.23 drops the dimension of a memory of structs.
  logic [31:0] records [Blocks*16];
  logic [31:0] read_q, arrival;

  function automatic logic [5:0] count_ones(input logic [31:0] x);
    count_ones = '0;
    for (int i = 0; i < 32; i++) count_ones = count_ones + 6'(x[i]);
  endfunction
  // The warps a record waits for: its thread count rounded up to warps, or every unfinished warp.
  function automatic logic [31:0] expected_warps(input logic [11:0] count, input logic [4:0] unfinished);
    expected_warps = (count != '0) ? (32'(count) + 32'd31) / 32'd32 : 32'(unfinished);
  endfunction
  function automatic logic [31:0] reduction(input logic [1:0] redop, input logic [9:0] popc,
                                            input logic not_all, input logic any);
    unique case (redop)
      tsm_isa_pkg::REDOP_POPC: reduction = 32'(popc);
      tsm_isa_pkg::REDOP_AND:  reduction = 32'(!not_all);
      default:                 reduction = 32'(any);
    endcase
  endfunction

  // The record read, field by field.
  logic        read_any, read_not_all;
  logic [9:0]  read_popc;
  logic [1:0]  read_redop;
  logic [11:0] read_count;
  logic [5:0]  read_arrived;
  assign {read_any, read_not_all, read_popc, read_redop, read_count, read_arrived} = read_q;

  // An arrival: the first warp names the count and the reduction (a plain arrival counts lanes).
  always_comb begin
    logic        any, not_all;
    logic [9:0]  popc;
    logic [1:0]  redop;
    logic [11:0] count;
    logic [5:0]  arrived;
    {any, not_all, popc, redop, count} = {read_any, read_not_all, read_popc, read_redop, read_count};
    if (read_arrived == '0) begin
      count = arrive_count_i;
      redop = arrive_reduce_i ? arrive_redop_i : tsm_isa_pkg::REDOP_POPC;
    end
    arrived = read_arrived + 6'd1;
    if (arrive_reduce_i) begin
      popc = popc + 10'(count_ones(arrive_votes_i));
      not_all = not_all | (arrive_votes_i != arrive_lanes_i);
      any = any | (arrive_votes_i != '0);
    end
    arrival = {any, not_all, popc, redop, count, arrived};
    arrive_release_o = 32'(arrived) >= expected_warps(count, arrive_unfinished_i);
`ifdef TSM_MUTANTS
    if (`TSM_MUT(8)) arrive_release_o = 32'(arrived) + 32'd1 >= expected_warps(count, arrive_unfinished_i);
`endif
    arrive_value_o = reduction(redop, popc, not_all, any);
    arrive_count_o = arrived;
  end

  // After an exit: complete when some warp waits and every warp left has arrived.
  assign check_release_o = read_arrived != '0 && 32'(read_arrived) >= expected_warps(read_count, check_unfinished_i);
  assign check_value_o = reduction(read_redop, read_popc, read_not_all, read_any);

  logic [$clog2(Blocks*16)-1:0] index;
  assign index = ($clog2(Blocks*16))'(32'(block_i) * 16 + 32'(barrier_i));
  always_ff @(posedge clk_i) begin
    if (clear_i) records[index] <= '0;
    else if (arrive_i) records[index] <= arrival;
    read_q <= records[index];
  end

  if (Blocks < 1 || (1 << BlockBits) < Blocks) begin : gen_bad_params
    $error("tsm_barrier: Blocks must be at least 1 and fit in BlockBits bits");
  end

endmodule
