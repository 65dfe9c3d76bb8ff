// The SM's issue control (docs/sm-rtl.md §2.0, §2.3): may the engine's current instruction issue
// this clock, and where does it go; and may the engine select the next warp. It reads the decoder's
// facts (tsm_decode), the scoreboard's verdict (tsm_scoreboard) and the state of the units an
// instruction goes to, and decides:
//   - at the instruction's first visit of E_DISPATCH, what stops it: an invalid instruction (a
//     fault), a register of a load in flight (the warp parks on the scoreboard), the SFU pipe's
//     operand buffer in use (the warp parks until it frees), or a constant-bank operand B (read
//     first; the second visit issues);
//   - whether it issues (issue_o), and then whether it streams into the SP pipe (hand_sp_o: the
//     pipe can take it and its warp waits for no predicate the pipe writes), or is a control
//     instruction that only moves the PC and retires at once on the retire channel (quick_retire_o:
//     NOP, a BRA taken by every active lane or by none, any other whose guard holds in no lane);
//     every other instruction waits until the SP pipe is empty (a control instruction other than
//     EXIT only until the pipe holds nothing of its warp), since the engine's own uses of the
//     register file, the SP lanes and the commit port must not meet the pipe's;
//   - whether the engine selects the scheduler's choice this clock (select_o): in E_IDLE (unless a
//     fault, a stop or a block placement comes first), at a retirement (E_RET: unless the warp
//     exits, a barrier release is pending, or the SP pipe retires in the same clock:
//     retire_hold_o, one retirement a clock), and at a hand-over or a quick retirement.
//
// Contract: combinational, no state.
module tsm_issue #(
  /// The configuration has a DP unit (else a DP instruction is invalid).
  parameter bit HasDp = 1'b1
) (
  // ---- the engine's state ----
  input  logic        at_idle_i,             // E_IDLE
  input  logic        at_dispatch_i,         // E_DISPATCH
  input  logic        at_retire_i,           // E_RET
  input  logic        second_visit_i,        // E_DISPATCH again, after the constant operand arrived

  // ---- the instruction ----
  input  logic        valid_i,               // a defined encoding
  input  logic [7:0]  opcode_i,
  input  logic [2:0]  unit_i,
  input  logic        dp_i, wide_i, sp_stream_shape_i, has_b_i, b_const_i,
  input  logic        hazard_i, bad_register_i,  // the scoreboard's verdict
  input  logic [31:0] active_i,              // the warp's active lanes
  input  logic [31:0] guard_i,               // lanes whose guard predicate holds
  input  logic [31:0] exec_i,                // the executed lanes recorded at the first visit
  input  logic [31:0] pc_i, branch_target_i,

  // ---- the units ----
  input  logic        sfu_operands_free_i,
  input  logic        sp_take_i,             // tsm_sp_pipe: it can take an instruction
  input  logic        sp_predicate_pending_i, // ... it holds one of this warp that writes a predicate
  input  logic        sp_occupied_i,         // ... it holds one of this warp
  input  logic        sp_busy_i,             // ... it holds one
  input  logic        sp_retiring_i,         // ... its stage Y retires one this clock

  // ---- selection ----
  input  logic        choice_valid_i,        // the warp scheduler has a choice
  input  logic        stop_i, fault_i, placement_pending_i,
  input  logic        warp_exits_i,          // at E_RET: the retiring warp has no live lane left
  input  logic        release_pending_i,     // at E_RET: a barrier release follows

  output logic [31:0] exec_o,                // the executed lanes (at the first visit: active & guard)
  output logic        invalid_o,             // first visit: the instruction faults
  output logic        wait_scoreboard_o,     // first visit: the warp parks on the scoreboard
  output logic        wait_sfu_o,            // first visit: the warp parks until the SFU pipe frees
  output logic        constant_o,            // first visit: operand B is read from a constant bank first
  output logic        issue_o,               // the instruction issues this clock (E_DISPATCH)
  output logic        hand_sp_o,             // ... into the SP pipe
  output logic        quick_o,               // it only moves the PC ...
  output logic        quick_retire_o,        // ... and retires this clock
  output logic [31:0] quick_pc_o,            // ... to this PC
  output logic        retire_hold_o,         // E_RET waits: the SP pipe retires this clock
  output logic        select_o               // the engine selects the scheduler's choice this clock
);

  logic control, streams;
  always_comb begin
    exec_o = second_visit_i ? exec_i : (active_i & guard_i);
    control = unit_i == tsm_isa_pkg::UNIT_CTRL;
    streams = unit_i != tsm_isa_pkg::UNIT_SFU && unit_i != tsm_isa_pkg::UNIT_MEM && !control &&
              unit_i != tsm_isa_pkg::UNIT_SYNC && !dp_i && opcode_i != tsm_isa_pkg::OP_S2R &&
              opcode_i != tsm_isa_pkg::OP_VOTE && opcode_i != tsm_isa_pkg::OP_SHFL && !wide_i && sp_stream_shape_i;
    retire_hold_o = sp_retiring_i;

    invalid_o = !valid_i || bad_register_i || (!HasDp && dp_i);
    wait_scoreboard_o = !invalid_o && hazard_i;
    wait_sfu_o = !invalid_o && !hazard_i && unit_i == tsm_isa_pkg::UNIT_SFU && !sfu_operands_free_i;
    constant_o = !invalid_o && !hazard_i && !wait_sfu_o && has_b_i && b_const_i;

    quick_o = control && (opcode_i == tsm_isa_pkg::OP_NOP || exec_o == '0 ||
                          (opcode_i == tsm_isa_pkg::OP_BRA && exec_o == active_i));
    quick_pc_o = (opcode_i == tsm_isa_pkg::OP_BRA && exec_o == active_i) ? branch_target_i : pc_i + 32'd1;
    issue_o = at_dispatch_i && !(quick_o && retire_hold_o) &&
              (second_visit_i || (!invalid_o && !hazard_i && !wait_sfu_o && !(has_b_i && b_const_i))) &&
              (streams ? sp_take_i && !sp_predicate_pending_i :
               (control && opcode_i != tsm_isa_pkg::OP_EXIT) ? !sp_occupied_i : !sp_busy_i);
    hand_sp_o = issue_o && streams;
    quick_retire_o = issue_o && quick_o;
    select_o = choice_valid_i && !stop_i && !placement_pending_i &&
               ((at_idle_i && !fault_i) || (at_retire_i && !retire_hold_o && !warp_exits_i && !release_pending_i) ||
                ((hand_sp_o || quick_retire_o) && !fault_i));
  end

endmodule
