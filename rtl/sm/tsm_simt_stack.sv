// The reconvergence (SIMT) stack of the SM (docs/sm-rtl.md §2.5): per warp, a stack of entries
// {kind, lane mask, PC} in one memory (Warps × Depth entries) and the warp's depth. The branch unit
// (the engine's E_CT) pushes an entry in one clock: a divergent branch's not-taken lanes (DIV),
// SSY's reconvergence point (SYNC), PBK's break target (BRK), CAL's return address (RET). The
// walks below run over several clocks, an entry a clock, by the golden model's rules
// (sim/golden/execute.cpp Exec::control, model.cpp pop_until_active and leave):
//
// - pop (SYNC): pop the top entry, its lanes (those still live) and PC become the warp's, and pop
//   again while no lane is active;
// - leave (BRK, RET): the lanes leave every entry above the topmost entry of the kind; that one
//   keeps them. If no lane of the warp stays active, pop as SYNC does. No such entry: an underflow;
// - exit (EXIT): the lanes leave every entry; if no lane stays active, pop.
//
// Handshake: a command (push_i, pop_i, leave_i, exit_i; one at a time) is taken while idle_o. A
// walk then runs with warp_i and the lanes inputs held, and ends in the clock with done_o (or
// fault_o: leave found no entry of its kind). active_valid_o/pc_valid_o carry the warp's new active
// lanes and PC in the clocks they change, the last of them with done_o. The entry read in a clock
// comes from the memory a clock after its address, so each entry costs two clocks.
module tsm_simt_stack #(
  /// Warp slots and the bits of a warp slot number.
  parameter int unsigned Warps = 24,
  parameter int unsigned WarpBits = 5,
  /// Entries per warp (tsm_cfg_pkg::StackDepth) and the bits of a depth (0 .. Depth).
  parameter int unsigned Depth = 16,
  parameter int unsigned DepthBits = 5
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  /// Every warp's depth (the branch unit checks for overflow and underflow before a command).
  output logic [Warps*DepthBits-1:0] depth_o,
  /// A warp slot is given a new warp: its stack empties.
  input  logic                      clear_i,
  input  logic [WarpBits-1:0]       clear_warp_i,

  /// The warp the command is for (held during a walk).
  input  logic [WarpBits-1:0]       warp_i,
  /// Push {push_kind_i, push_mask_i, push_pc_i} (tsm_sm's K_*: 0 SYNC, 1 DIV, 2 BRK, 3 RET).
  input  logic                      push_i,
  input  logic [1:0]                push_kind_i,
  input  logic [31:0]               push_mask_i,
  input  logic [31:0]               push_pc_i,
  /// Start a walk: pop (SYNC), leave entries above the topmost of leave_kind_i (BRK, RET), exit.
  input  logic                      pop_i,
  input  logic                      leave_i,
  input  logic [1:0]                leave_kind_i,
  input  logic                      exit_i,
  /// The instruction's executing lanes, the warp's active lanes before it, its live lanes after it
  /// (EXIT's lanes gone), and the instruction's PC. Held during the walk.
  input  logic [31:0]               lanes_i,
  input  logic [31:0]               active_i,
  input  logic [31:0]               live_i,
  input  logic [31:0]               pc_i,

  output logic                      idle_o,
  output logic                      done_o,
  output logic                      fault_o,
  output logic                      active_valid_o,
  output logic [31:0]               active_o,
  output logic                      pc_valid_o,
  output logic [31:0]               pc_o
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif
  localparam int unsigned AddrBits = $clog2(Warps * Depth);

  // A walk: read an entry's address (READ), use the entry (USE), or let a write land before a pop
  // reads (SETTLE).
  typedef enum logic [1:0] { S_IDLE, S_READ, S_USE, S_SETTLE } state_e;
  typedef enum logic [1:0] { W_POP, W_LEAVE, W_EXIT } walk_e;
  state_e                  state_q, state_d;
  walk_e                   walk_q, walk_d;
  logic [DepthBits:0]      index_q, index_d;     // the entry the walk is at
  logic [1:0]              kind_q, kind_d;       // leave: the kind it looks for
  logic [Warps*DepthBits-1:0] depth_q, depth_d;

  logic [65:0]             entries [Warps * Depth];
  logic [65:0]             entry_q;              // the entry at the previous clock's address
  logic                    write;
  logic [AddrBits-1:0]     address;
  logic [65:0]             write_data;

  logic [DepthBits-1:0]    depth;                // the warp's
  logic [1:0]              entry_kind;
  logic [31:0]             entry_mask, entry_pc;
  assign depth = depth_q[DepthBits*warp_i +: DepthBits];
  assign {entry_kind, entry_mask, entry_pc} = entry_q;
  assign depth_o = depth_q;
  assign idle_o = state_q == S_IDLE;

  always_comb begin
    state_d = state_q; walk_d = walk_q; index_d = index_q; kind_d = kind_q; depth_d = depth_q;
    write = 1'b0;
    address = AddrBits'(32'(warp_i) * Depth + 32'(depth));
    write_data = {push_kind_i, push_mask_i, push_pc_i};
    done_o = 1'b0; fault_o = 1'b0;
    active_valid_o = 1'b0; active_o = '0; pc_valid_o = 1'b0; pc_o = '0;
    unique case (state_q)
      S_IDLE: begin
        if (push_i) begin
          write = 1'b1;
          for (int w = 0; w < Warps; w++)
            if (32'(warp_i) == w) depth_d[DepthBits*w +: DepthBits] = depth + 1'b1;
        end
        if (pop_i || leave_i) begin
          walk_d = pop_i ? W_POP : W_LEAVE;
          kind_d = leave_kind_i;
          index_d = (DepthBits + 1)'(depth) - 1'b1;
          state_d = S_READ;
        end
        if (exit_i) begin
          walk_d = W_EXIT;
          index_d = '0;
          state_d = S_READ;
        end
      end
      S_READ: begin
        address = AddrBits'(32'(warp_i) * Depth + 32'(index_q));
        state_d = S_USE;
      end
      S_USE: begin
        address = AddrBits'(32'(warp_i) * Depth + 32'(index_q));
        unique case (walk_q)
          W_POP: begin
            // Pop the entry; keep popping while no lane is active.
            for (int w = 0; w < Warps; w++)
              if (32'(warp_i) == w) depth_d[DepthBits*w +: DepthBits] = DepthBits'(index_q);
`ifdef TSM_MUTANTS
            if (`TSM_MUT(5)) depth_d = depth_q;
`endif
            active_valid_o = 1'b1; active_o = entry_mask & live_i;
            pc_valid_o = 1'b1; pc_o = entry_pc;
            if ((entry_mask & live_i) == '0 && index_q != '0) begin
              index_d = index_q - 1'b1;
              state_d = S_READ;
            end else begin
              done_o = 1'b1;
              state_d = S_IDLE;
            end
          end
          W_LEAVE: begin
            if (entry_kind == kind_q) begin
              active_valid_o = 1'b1; active_o = active_i & ~lanes_i;
              if ((active_i & ~lanes_i) == '0) begin
                pc_valid_o = 1'b1; pc_o = pc_i + 32'd1;
                walk_d = W_POP;
                index_d = (DepthBits + 1)'(depth) - 1'b1;
                state_d = S_READ;
              end else begin
                done_o = 1'b1;
                state_d = S_IDLE;
              end
            end else begin
              // The leaving lanes leave every entry above the matching one.
              write = 1'b1;
              write_data = {entry_kind, entry_mask & ~lanes_i, entry_pc};
              if (index_q == '0) begin
                fault_o = 1'b1;
                state_d = S_IDLE;
              end else begin
                index_d = index_q - 1'b1;
                state_d = S_READ;
              end
            end
          end
          default: begin  // W_EXIT: the exited lanes leave every entry
            write = 1'b1;
            write_data = {entry_kind, entry_mask & ~lanes_i, entry_pc};
            if (32'(index_q) + 1 == 32'(depth)) begin
              if ((active_i & ~lanes_i) == '0) begin
                pc_valid_o = 1'b1; pc_o = pc_i + 32'd1;
                walk_d = W_POP;
                index_d = (DepthBits + 1)'(depth) - 1'b1;
                state_d = S_SETTLE;
              end else begin
                done_o = 1'b1;
                state_d = S_IDLE;
              end
            end else begin
              index_d = index_q + 1'b1;
              state_d = S_READ;
            end
          end
        endcase
      end
      default: begin  // S_SETTLE
        address = '0;
        state_d = S_READ;
      end
    endcase
    if (clear_i)
      for (int w = 0; w < Warps; w++)
        if (32'(clear_warp_i) == w) depth_d[DepthBits*w +: DepthBits] = '0;
  end

  always_ff @(posedge clk_i) begin
    if (write) entries[address] <= write_data;
    entry_q <= entries[address];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_IDLE;
      walk_q <= W_POP;
      index_q <= '0;
      kind_q <= '0;
      depth_q <= '0;
    end else begin
      state_q <= state_d;
      walk_q <= walk_d;
      index_q <= index_d;
      kind_q <= kind_d;
      depth_q <= depth_d;
    end
  end

  if (Warps < 1 || (1 << WarpBits) < Warps || (1 << DepthBits) <= Depth) begin : gen_bad_params
    $error("tsm_simt_stack: Warps must fit in WarpBits bits, and Depth in DepthBits bits");
  end

endmodule
