// The warp scheduler of the SM: which ready warp the engine issues from next. It keeps what a
// policy needs across clocks -- the warp chosen last and the warps' ages (the order they became
// resident) -- and asks the policy SCHED_POLICY names (tsm_sched_*.sv, one small module each) for
// this clock's choice. Which warps are ready is the warp table's business (resident, not at a
// barrier, not blocked by the scoreboard, ...), not the scheduler's. Theory of operation:
// docs/sm-rtl.md §2.3, with "how to add a policy".
//
// Handshake: choice_valid_o/choice_warp_o depend only on this clock's inputs and registered state,
// never on take_i; take_i (the engine issues from the choice this clock) may only be high with
// choice_valid_o, and makes the choice the last warp from the next clock on.
module tsm_warp_sched #(
  /// Warp slots of the SM.
  parameter int unsigned Warps = 8,
  /// Bits of a warp slot number.
  parameter int unsigned WarpBits = 3
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  /// The policy (SCHED_POLICY, docs/gpu-interfaces.md §1): 0 loose round-robin, 1 greedy then
  /// oldest; other values choose loose round-robin. Stable during a launch.
  input  logic [3:0]          policy_i,
  /// A warp becomes resident this clock (block placement): it is the youngest from now on.
  input  logic                place_i,
  input  logic [WarpBits-1:0] place_warp_i,
  /// Warps ready to issue (the warp table's view).
  input  logic [Warps-1:0]    ready_i,
  /// The engine holds warp hold_warp_i this clock (its retirement or hand-over, when its own state
  /// changes): it is not a candidate.
  input  logic                hold_valid_i,
  input  logic [WarpBits-1:0] hold_warp_i,
  /// The choice of this clock.
  output logic                choice_valid_o,
  output logic [WarpBits-1:0] choice_warp_o,
  /// The engine issues from the choice this clock.
  input  logic                take_i
);

  localparam logic [3:0] PolicyGto = 4'd1;

  logic [WarpBits-1:0]    last_q, last_d;     // the warp chosen last
  logic [Warps*Warps-1:0] older_q, older_d;   // row i (bits Warps*i +: Warps): the warps resident before warp i
  logic [Warps-1:0]       candidate;
  logic [Warps-1:0]       placed;             // the warp placed, one-hot
  logic                   last_held;

  always_comb begin
    candidate = ready_i;
    for (int i = 0; i < Warps; i++) if (hold_valid_i && 32'(hold_warp_i) == i) candidate[i] = 1'b0;
    last_held = hold_valid_i && hold_warp_i == last_q;
  end

  logic                lrr_valid, gto_valid;
  logic [WarpBits-1:0] lrr_warp, gto_warp;
  tsm_sched_lrr #(.Warps(Warps), .WarpBits(WarpBits)) u_lrr (
    .candidate_i(candidate), .last_i(last_q), .last_held_i(last_held), .older_i(older_q),
    .choice_valid_o(lrr_valid), .choice_warp_o(lrr_warp)
  );
  tsm_sched_gto #(.Warps(Warps), .WarpBits(WarpBits)) u_gto (
    .candidate_i(candidate), .last_i(last_q), .last_held_i(last_held), .older_i(older_q),
    .choice_valid_o(gto_valid), .choice_warp_o(gto_warp)
  );
  assign choice_valid_o = (policy_i == PolicyGto) ? gto_valid : lrr_valid;
  assign choice_warp_o = (policy_i == PolicyGto) ? gto_warp : lrr_warp;

  // Next state: apart from the choice, so that the choice never depends on take_i or place_i.
  always_comb begin
    last_d = take_i ? choice_warp_o : last_q;
    older_d = older_q;
    placed = '0;
    placed[place_warp_i] = 1'b1;
    if (place_i)
      for (int i = 0; i < Warps; i++) begin
        // The placed warp is younger than every other (its row: all of them), and older than none
        // (it leaves every other row).
        if (32'(place_warp_i) == i) older_d[Warps*i +: Warps] = ~placed;
        else older_d[Warps*i +: Warps] = older_q[Warps*i +: Warps] & ~placed;
      end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_q <= WarpBits'(Warps - 1);  // the first choice after reset starts at warp 0
      older_q <= '0;
    end else begin
      last_q <= last_d;
      older_q <= older_d;
    end
  end

  if (Warps < 1 || (1 << WarpBits) < Warps) begin : gen_bad_params
    $error("tsm_warp_sched: Warps must be at least 1 and fit in WarpBits bits");
  end

endmodule
