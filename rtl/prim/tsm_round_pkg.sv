// IEEE-754 rounding shared by the arithmetic units (tsm_fma32, tsm_f2f, tsm_cvt, tsm_dp): one
// definition of the round-up decision for the ISA's four rounding modes (tsm_isa_pkg::RND_*).
package tsm_round_pkg;
  // Whether a value truncated to its kept bits rounds up by one unit in the last place: `odd` is
  // the last kept bit, `round_bit` the first bit below it, `sticky` the OR of all bits below that,
  // `negative` the sign. RN: ties to even; RZ: never; RM: toward -inf; RP: toward +inf.
  function automatic logic rounds_up(input logic [1:0] rnd, input logic negative, input logic odd,
                                     input logic round_bit, input logic sticky);
    unique case (rnd)
      tsm_isa_pkg::RND_RN: rounds_up = round_bit & (sticky | odd);
      tsm_isa_pkg::RND_RM: rounds_up = negative & (round_bit | sticky);
      tsm_isa_pkg::RND_RP: rounds_up = ~negative & (round_bit | sticky);
      default:             rounds_up = 1'b0;
    endcase
  endfunction
endpackage
