// The SM's branch unit (docs/sm-rtl.md §2.5): what a control instruction that does more than move
// the PC does to its warp, by the golden model's rules (sim/golden/execute.cpp Exec::control):
//   BRA            taken by every active lane: the target; by some: push the other lanes (DIV, to
//                  resume at the next instruction) and go on with the taken ones at the target;
//   SSY, PBK, CAL  push the reconvergence point (SYNC), the break target (BRK), the return address
//                  (RET; CAL then jumps); every active lane must execute it;
//   SYNC           pop (a stack walk); every active lane must execute it;
//   BRK, RET       the executing lanes leave up to the innermost BRK / RET entry (a stack walk);
//   EXIT           the executing lanes die; with entries on the stack, they leave every entry (a
//                  stack walk); with none and no active lane left, the warp ends at the next PC;
//   TRAP           a trap fault when any lane executes it.
// An instruction that no lane executes does nothing. The reconvergence stack (tsm_simt_stack) holds
// the entries and runs the walks; this unit decides which command it gets.
//
// Contract: combinational, no state. The outputs are for the instruction on the inputs; the caller
// applies them in the clock it executes the instruction (E_CT).
module tsm_branch #(
  /// Reconvergence-stack entries per warp, and the bits of a depth.
  parameter int unsigned Depth = 16,
  parameter int unsigned DepthBits = 5
) (
  input  logic [7:0]           opcode_i,
  input  logic [23:0]          target_i,         // the branch offset (tsm_isa_pkg::f_target)
  input  logic [31:0]          pc_i,
  input  logic [31:0]          exec_i,           // the lanes whose guard holds
  input  logic [31:0]          active_i,         // the warp's active and live lanes
  input  logic [31:0]          live_i,
  input  logic [DepthBits-1:0] depth_i,          // the warp's stack entries

  /// The branch target (PC + offset).
  output logic [31:0]          target_o,
  /// A fault (tsm_sm_pkg's kinds: trap, stack overflow, stack underflow, invalid instruction).
  output logic                 fault_o,
  output logic [3:0]           fault_kind_o,
  /// Stack commands: push an entry; pop (SYNC); leave up to an entry of a kind (BRK, RET); exit.
  output logic                 push_o,
  output logic [1:0]           push_kind_o,
  output logic [31:0]          push_mask_o,
  output logic [31:0]          push_pc_o,
  output logic                 pop_o,
  output logic                 leave_o,
  output logic [1:0]           leave_kind_o,
  output logic                 exit_o,
  /// The warp's next PC, active and live lanes, where this instruction sets them (before a walk).
  output logic                 next_pc_valid_o,
  output logic [31:0]          next_pc_o,
  output logic                 next_active_valid_o,
  output logic [31:0]          next_active_o,
  output logic                 next_live_valid_o,
  output logic [31:0]          next_live_o
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif

  // Stack entry kinds (golden StackKind).
  localparam logic [1:0] KindSync = 2'd0, KindDivergence = 2'd1, KindBreak = 2'd2, KindReturn = 2'd3;

  assign target_o = pc_i + {{8{target_i[23]}}, target_i};

  always_comb begin
    logic executes, everyone, full, empty;
    executes = exec_i != '0;
    everyone = exec_i == active_i;  // every active lane executes it
    full = 32'(depth_i) >= Depth;
    empty = depth_i == '0;
    fault_o = 1'b0; fault_kind_o = '0;
    push_o = 1'b0; push_kind_o = KindSync; push_mask_o = '0; push_pc_o = '0;
    pop_o = 1'b0; leave_o = 1'b0; leave_kind_o = KindBreak; exit_o = 1'b0;
    next_pc_valid_o = 1'b0; next_pc_o = target_o;
    next_active_valid_o = 1'b0; next_active_o = exec_i;
    next_live_valid_o = 1'b0; next_live_o = live_i & ~exec_i;
    unique case (opcode_i)
      tsm_isa_pkg::OP_TRAP: if (executes) begin fault_o = 1'b1; fault_kind_o = tsm_sm_pkg::FaultTrap; end
      tsm_isa_pkg::OP_BRA: begin
        if (everyone) next_pc_valid_o = 1'b1;
        else if (executes) begin
          if (full) begin
            fault_o = 1'b1; fault_kind_o = tsm_sm_pkg::FaultStackOverflow;
          end else begin
            push_o = 1'b1; push_kind_o = KindDivergence; push_mask_o = active_i & ~exec_i; push_pc_o = pc_i + 32'd1;
`ifdef TSM_MUTANTS
            if (`TSM_MUT(6)) push_mask_o = active_i;
`endif
            next_active_valid_o = 1'b1;
            next_pc_valid_o = 1'b1;
          end
        end
      end
      tsm_isa_pkg::OP_SSY, tsm_isa_pkg::OP_PBK, tsm_isa_pkg::OP_CAL: begin
        if (executes) begin
          if (!everyone) begin
            fault_o = 1'b1; fault_kind_o = tsm_sm_pkg::FaultInvalidInstruction;
          end else if (full) begin
            fault_o = 1'b1; fault_kind_o = tsm_sm_pkg::FaultStackOverflow;
          end else begin
            push_o = 1'b1;
            push_kind_o = opcode_i == tsm_isa_pkg::OP_SSY ? KindSync : opcode_i == tsm_isa_pkg::OP_PBK ? KindBreak : KindReturn;
            push_mask_o = active_i;
            push_pc_o = opcode_i == tsm_isa_pkg::OP_CAL ? pc_i + 32'd1 : target_o;
            next_pc_valid_o = opcode_i == tsm_isa_pkg::OP_CAL;
          end
        end
      end
      tsm_isa_pkg::OP_SYNC: begin
        if (executes) begin
          if (!everyone) begin
            fault_o = 1'b1; fault_kind_o = tsm_sm_pkg::FaultInvalidInstruction;
          end else if (empty) begin
            fault_o = 1'b1; fault_kind_o = tsm_sm_pkg::FaultStackUnderflow;
          end else pop_o = 1'b1;
        end
      end
      tsm_isa_pkg::OP_BRK, tsm_isa_pkg::OP_RET: begin
        if (executes) begin
          if (empty) begin
            fault_o = 1'b1; fault_kind_o = tsm_sm_pkg::FaultStackUnderflow;
          end else begin
            leave_o = 1'b1;
            leave_kind_o = opcode_i == tsm_isa_pkg::OP_BRK ? KindBreak : KindReturn;
          end
        end
      end
      tsm_isa_pkg::OP_EXIT: begin
        if (executes) begin
          next_live_valid_o = 1'b1;
          next_active_valid_o = 1'b1;
          next_active_o = active_i & ~exec_i;
          if (!empty) exit_o = 1'b1;
          else if ((active_i & ~exec_i) == '0) begin
            next_pc_valid_o = 1'b1; next_pc_o = pc_i + 32'd1;
          end
        end
      end
      default: ;  // NOP
    endcase
  end

endmodule
