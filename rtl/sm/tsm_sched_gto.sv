// Warp-scheduling policy "greedy then oldest" (gto, SCHED_POLICY 1; Rogers, O'Connor and Aamodt,
// "Cache-Conscious Wavefront Scheduling", MICRO 2012): keep choosing the warp chosen last while it
// is ready; when it is not, the oldest ready warp, the one that became resident first. While the
// engine holds the last warp (its retirement or hand-over clock, when its own state changes) no
// warp is chosen: the engine selects a clock later, when the greedy warp is a candidate again if it
// is still ready. Not starvation-free by design: a warp that never stalls keeps the SM to itself.
// Same ports as every policy (docs/sm-rtl.md §2.3).
module tsm_sched_gto #(
  /// Warp slots of the SM.
  parameter int unsigned Warps = 8,
  /// Bits of a warp slot number.
  parameter int unsigned WarpBits = 3
) (
  /// Warps that may be chosen this clock.
  input  logic [Warps-1:0]    candidate_i,
  /// The warp chosen last.
  input  logic [WarpBits-1:0] last_i,
  /// The engine holds the last warp this clock (it is no candidate now, but may be one a clock later).
  input  logic                last_held_i,
  /// Row i (bits Warps*i +: Warps): the warps that became resident before warp i.
  input  logic [Warps*Warps-1:0] older_i,
  /// A warp is chosen.
  output logic                choice_valid_o,
  /// ... this one.
  output logic [WarpBits-1:0] choice_warp_o
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif
  always_comb begin
    logic [Warps-1:0] oldest;  // candidates no other candidate is older than
    choice_valid_o = 1'b0;
    choice_warp_o = '0;
    // Whole rows at a time: row i of older_i is the set of warps older than warp i.
    for (int i = 0; i < Warps; i++) oldest[i] = candidate_i[i] && (candidate_i & older_i[Warps*i +: Warps]) == '0;
`ifdef TSM_MUTANTS
    // The youngest instead: no other candidate is younger (warp i is in no candidate's row).
    if (`TSM_MUT(14)) begin
      for (int m = 0; m < Warps; m++) begin
        oldest[m] = candidate_i[m];
        for (int j = 0; j < Warps; j++)
          if (j != m && candidate_i[j] && older_i[Warps*j + m]) oldest[m] = 1'b0;
      end
    end
`endif
    if (32'(last_i) < Warps && candidate_i[last_i]) begin
      choice_valid_o = 1'b1;
      choice_warp_o = last_i;
    end else if (!last_held_i) begin
      for (int i = Warps - 1; i >= 0; i--) begin
        if (oldest[i]) begin
          choice_valid_o = 1'b1;
          choice_warp_o = WarpBits'(i);
        end
      end
    end
  end

endmodule
