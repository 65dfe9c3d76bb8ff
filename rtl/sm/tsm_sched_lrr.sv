// Warp-scheduling policy "loose round-robin" (lrr, SCHED_POLICY 0, the default): the first ready
// warp after the one chosen last, in warp-slot order. Every warp that stays ready is chosen within
// Warps choices, whatever the others do. The policy interface (docs/sm-rtl.md §2.3): a choice among
// the candidates of this clock, combinational, the same ports in every policy.
module tsm_sched_lrr #(
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
  /// Row i (bits Warps*i +: Warps): the warps that became resident before warp i (unused here).
  input  logic [Warps*Warps-1:0] older_i,
  /// A warp is chosen.
  output logic                choice_valid_o,
  /// ... this one.
  output logic [WarpBits-1:0] choice_warp_o
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif
  // Where the search starts: after the warp chosen last.
  logic [WarpBits-1:0] search_after;
  always_comb begin
    search_after = last_i;
`ifdef TSM_MUTANTS
    if (`TSM_MUT(13)) search_after = WarpBits'((32'(last_i) + Warps - 1) % Warps);
`endif
  end

  tsm_rr_arbiter #(.Requesters(Warps), .IndexBits(WarpBits)) u_arbiter (
    .request_i(candidate_i), .last_i(search_after), .grant_valid_o(choice_valid_o), .grant_o(choice_warp_o)
  );

  logic unused_inputs;
  assign unused_inputs = ^{last_held_i, older_i};

endmodule
