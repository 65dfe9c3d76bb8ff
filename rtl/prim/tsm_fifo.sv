// A first-in first-out queue of Depth entries with valid/ready on both sides: an entry is pushed on
// a clock where push_valid_i and push_ready_o are high, and popped on a clock where pop_valid_o and
// pop_ready_i are high (both may happen in one clock, also when full: the push waits for room as
// the clock starts). Entries leave in the order they came. pop_data_o shows the oldest entry and is
// stable until it is popped; push_ready_o does not depend on pop_ready_i (no path from one side to
// the other). Storage is a flat vector of flip-flops, reset to zero.
module tsm_fifo #(
  /// Bits of an entry.
  parameter int unsigned Width = 32,
  /// Entries (at least 1).
  parameter int unsigned Depth = 2,
  /// Derived, do not override: bits of an entry index and of the count.
  parameter int unsigned IndexBits = (Depth > 1) ? $clog2(Depth) : 1,
  parameter int unsigned CountBits = $clog2(Depth + 1)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             push_valid_i,
  output logic             push_ready_o,
  input  logic [Width-1:0] push_data_i,
  output logic             pop_valid_o,
  input  logic             pop_ready_i,
  output logic [Width-1:0] pop_data_o
);

  logic [Depth*Width-1:0] data_q;
  logic [IndexBits-1:0]   head_q;    // the oldest entry
  logic [CountBits-1:0]   count_q;   // entries held
  logic                   push, pop;
  logic [IndexBits-1:0]   tail;      // where a push goes

  // The outputs from the registers alone; the handshakes apart (no combinational path through here).
  assign push_ready_o = 32'(count_q) != Depth;
  assign pop_valid_o = count_q != '0;
  assign pop_data_o = data_q[Width*32'(head_q) +: Width];
  assign push = push_valid_i && push_ready_o;
  assign pop = pop_valid_o && pop_ready_i;
  assign tail = IndexBits'((32'(head_q) + 32'(count_q)) % Depth);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      data_q <= '0;
      head_q <= '0;
      count_q <= '0;
    end else begin
      if (push) data_q[Width*32'(tail) +: Width] <= push_data_i;
      if (pop) head_q <= IndexBits'((32'(head_q) + 1) % Depth);
      count_q <= count_q + CountBits'(push) - CountBits'(pop);
    end
  end

  if (Depth < 1) begin : gen_bad_params
    $error("tsm_fifo: Depth must be at least 1");
  end

endmodule
