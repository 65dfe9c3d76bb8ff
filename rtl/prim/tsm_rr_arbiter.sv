// Round-robin arbiter: of the requesters asking this clock, the first one after the one granted
// last, in cyclic order (so a requester that keeps asking is granted at least once in every
// Requesters grants). Combinational: the caller keeps the last grant, since only it knows whether
// a grant was taken.
module tsm_rr_arbiter #(
  /// Requesters (at least 1).
  parameter int unsigned Requesters = 4,
  /// Bits of a requester index (at least $clog2(Requesters), at least 1).
  parameter int unsigned IndexBits = (Requesters > 1) ? $clog2(Requesters) : 1
) (
  /// The requesters asking this clock.
  input  logic [Requesters-1:0] request_i,
  /// The requester granted last: the search starts after it.
  input  logic [IndexBits-1:0]  last_i,
  /// A requester is granted.
  output logic                  grant_valid_o,
  /// ... this one (0 when none is).
  output logic [IndexBits-1:0]  grant_o
);

  always_comb begin
    grant_valid_o = 1'b0;
    grant_o = '0;
    // From the farthest after last_i to the nearest: the nearest asking one is granted.
    for (int i = Requesters; i >= 1; i--) begin
      if (request_i[(32'(last_i) + i) % Requesters]) begin
        grant_o = IndexBits'((32'(last_i) + i) % Requesters);
        grant_valid_o = 1'b1;
      end
    end
  end

  if (Requesters < 1 || (Requesters > 1 && (1 << IndexBits) < Requesters)) begin : gen_bad_params
    $error("tsm_rr_arbiter: Requesters must be at least 1 and fit in IndexBits bits");
  end

endmodule
