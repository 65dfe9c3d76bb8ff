// The SM's scoreboard and register-range check (docs/sm-rtl.md §2.3): may the current instruction
// of warp warp_i issue as far as its registers are concerned? The register ranges a load or global
// atomic in flight will write are the memory tracker's load slots (tsm_mem_tracker); an instruction
// waits (hazard_o) while any register range it reads or writes overlaps one of its own warp's slots.
// EXIT waits for its warp's loads as well, MEMBAR for its stores. bad_register_o: a register the
// instruction names lies beyond the kernel's register count (a fault, not a wait).
//
// Contract: combinational, no state.
module tsm_scoreboard #(
  /// Load slots of the memory tracker.
  parameter int unsigned Slots = 8,
  /// Bits of a warp slot number.
  parameter int unsigned WarpBits = 5
) (
  /// The instruction's warp.
  input  logic [WarpBits-1:0]       warp_i,
  /// Its registers (first register, count; 255 is RZ): A, B, C, D, as tsm_decode gives them; which
  /// it reads and writes; B read as a register beside an immediate or constant (reads_rb_i: one
  /// register).
  input  logic [7:0]                ra_i, rb_i, rc_i, rd_i,
  input  logic [2:0]                ra_regs_i, b_regs_i, rc_regs_i, rd_regs_i,
  input  logic                      reads_ra_i, reads_b_i, reads_rb_i, reads_rc_i, reads_rd_i, writes_rd_i,
  /// It is EXIT / MEMBAR.
  input  logic                      exit_i, membar_i,
  /// The load slots: in use, their warp, first register and register count (bits 8*s, 3*s).
  input  logic [Slots-1:0]          slot_valid_i,
  input  logic [Slots*WarpBits-1:0] slot_warp_i,
  input  logic [Slots*8-1:0]        slot_register_i,
  input  logic [Slots*3-1:0]        slot_registers_i,
  /// The warp has loads (load slots) / stores (unacknowledged) in flight.
  input  logic                      loads_in_flight_i, stores_in_flight_i,
  /// The kernel's registers per thread.
  input  logic [31:0]               kernel_registers_i,
  output logic                      hazard_o,
  output logic                      bad_register_o
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif

  // Do the register ranges [x, x+n) and [y, y+m) overlap (RZ excluded)?
  function automatic logic overlap(input logic [7:0] x, input logic [2:0] n, input logic [7:0] y, input logic [2:0] m);
    overlap = x != 8'd255 && y != 8'd255 && n != 3'd0 && m != 3'd0 &&
              ({1'b0, x} < {1'b0, y} + 9'(m)) && ({1'b0, y} < {1'b0, x} + 9'(n));
  endfunction

  logic [2:0] b_count;  // registers of B read: one when B is read beside an immediate or constant
  assign b_count = reads_rb_i ? 3'd1 : b_regs_i;

  always_comb begin
    logic [7:0] r;
    logic [2:0] n;
    hazard_o = 1'b0;
    for (int s = 0; s < Slots; s++) begin
      r = slot_register_i[8*s +: 8];
      n = slot_registers_i[3*s +: 3];
      if (slot_valid_i[s] && slot_warp_i[WarpBits*s +: WarpBits] == warp_i) begin
        if (reads_ra_i && overlap(ra_i, ra_regs_i, r, n)) hazard_o = 1'b1;
        if (reads_b_i && overlap(rb_i, b_count, r, n)
`ifdef TSM_MUTANTS
            && !`TSM_MUT(10)
`endif
           ) hazard_o = 1'b1;
        if (reads_rc_i && overlap(rc_i, rc_regs_i, r, n)) hazard_o = 1'b1;
        if ((reads_rd_i || writes_rd_i) && overlap(rd_i, rd_regs_i, r, n)) hazard_o = 1'b1;
      end
    end
    if (exit_i && loads_in_flight_i) hazard_o = 1'b1;
    if (membar_i && stores_in_flight_i) hazard_o = 1'b1;
  end

  always_comb begin
    bad_register_o = 1'b0;
    if (reads_ra_i && ra_i != 8'd255 && 32'(ra_i) + 32'(ra_regs_i) > kernel_registers_i) bad_register_o = 1'b1;
    if (reads_b_i && rb_i != 8'd255 && 32'(rb_i) + 32'(b_count) > kernel_registers_i) bad_register_o = 1'b1;
    if (reads_rc_i && rc_i != 8'd255 && 32'(rc_i) + 32'(rc_regs_i) > kernel_registers_i) bad_register_o = 1'b1;
    if ((reads_rd_i || writes_rd_i) && rd_i != 8'd255 && 32'(rd_i) + 32'(rd_regs_i) > kernel_registers_i)
      bad_register_o = 1'b1;
  end

endmodule
