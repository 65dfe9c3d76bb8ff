// What the SM's units share: the commit port's event kinds (docs/gpu-interfaces.md §3), the fault
// kinds as FAULT_KIND reports them (1 + golden::FaultKind, sim/golden/fault.hpp), and the lowest set
// lane of a warp's lane mask.
package tsm_sm_pkg;
  // Commit events.
  localparam logic [2:0] EventRetire = 3'd0;             // an instruction retires
  localparam logic [2:0] EventRegister = 3'd1;           // a row of a register is written
  localparam logic [2:0] EventPredicate = 3'd2;          // a row of a predicate is written
  localparam logic [2:0] EventStore = 3'd3;              // a store's line leaves the SM
  localparam logic [2:0] EventPlace = 3'd4;              // a block's warp is placed
  localparam logic [2:0] EventRegisterRetire = 3'd5;     // a register row, and its instruction retires
  localparam logic [2:0] EventPredicateRetire = 3'd6;    // a predicate row, and its instruction retires

  // Faults.
  localparam logic [3:0] FaultOutOfBounds = 4'd1;
  localparam logic [3:0] FaultMisaligned = 4'd2;
  localparam logic [3:0] FaultAddressRange = 4'd3;
  localparam logic [3:0] FaultDivergentBarrier = 4'd4;
  localparam logic [3:0] FaultBarrierDeadlock = 4'd5;
  localparam logic [3:0] FaultStackOverflow = 4'd6;
  localparam logic [3:0] FaultStackUnderflow = 4'd7;
  localparam logic [3:0] FaultInvalidInstruction = 4'd9;
  localparam logic [3:0] FaultTrap = 4'd10;

  // The lowest lane set in a 32-lane mask; 32 when none is.
  function automatic logic [5:0] lowest_lane(input logic [31:0] lanes);
    lowest_lane = 6'd32;
    for (int i = 31; i >= 0; i--) if (lanes[i]) lowest_lane = 6'(i);
  endfunction
endpackage
