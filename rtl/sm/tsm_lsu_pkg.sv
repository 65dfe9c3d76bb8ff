// What the load/store path of the SM shares between its units: the spaces a lane's access goes to,
// and the extraction of a loaded value from the bytes memory returned (docs/sm-rtl.md §2.9). Used by
// the address generation, the engine's shared-memory loads and the memory tracker's write-back of
// global and local loads.
package tsm_lsu_pkg;

  // A lane's space (2 bits a lane in the engine's space record).
  localparam logic [1:0] SpaceGlobal = 2'd0;  // global memory, and constants
  localparam logic [1:0] SpaceShared = 2'd1;  // the block's shared memory
  localparam logic [1:0] SpaceLocal = 2'd2;   // the thread's local memory

  // The 32-bit value at byte offset o of a 16-byte line (a 4-byte-or-wider window), extended per the
  // access size m (tsm_isa_pkg::MSZ_*): 8- and 16-bit values zero- or sign-extended, wider ones a
  // word of them.
  function automatic logic [31:0] extract(input logic [127:0] line, input logic [3:0] o, input logic [2:0] m);
    logic [31:0] shifted;
    shifted = 32'(line >> {o, 3'b000});
    unique case (m)
      tsm_isa_pkg::MSZ_U8:  extract = {24'd0, shifted[7:0]};
      tsm_isa_pkg::MSZ_S8:  extract = {{24{shifted[7]}}, shifted[7:0]};
      tsm_isa_pkg::MSZ_U16: extract = {16'd0, shifted[15:0]};
      tsm_isa_pkg::MSZ_S16: extract = {{16{shifted[15]}}, shifted[15:0]};
      default:              extract = shifted[31:0];
    endcase
  endfunction

endpackage
