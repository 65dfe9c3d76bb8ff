// The SM's write-back and commit arbiter (docs/sm-rtl.md §2.0, §3): who writes the register file's
// one write port and who sends the one commit-port event this clock. In priority order:
//   1. the engine's states (engine_*), which never wait: a state that writes does so in its clock;
//   2. the SP pipe's stage Y (sp_*), a row a clock; the engine and stage Y never write in the same
//      clock (the engine hands nothing to the SP pipe, and runs no writing state, while it is busy);
//   3. a row of SFU results (sfu_row_*, valid/ready): written when the port and the commit port are
//      free; a row with no executing lane or for RZ needs no write and is taken at once;
//   4. a row of load data or atomic old values from the memory tracker (tracker_row_*, valid/ready):
//      written when the port and the commit port are free;
//   5. an atomic's retirement from the memory tracker (tracker_retire_*, valid/ready): when the
//      commit port is free.
// A REG event carries the row written; the SP pipe's last row also retires its instruction (REG
// and RETIRE, or PRED and RETIRE, in one event: commit kinds 5 and 6, gpu-interfaces.md §3).
//
// Handshake: the valid/ready pairs of 3 to 5 as in AXI4 (a requester holds its row until ready).
// Contract: combinational, no state; the caller registers the event onto the commit port.
module tsm_writeback #(
  /// SP lanes: a row's lanes.
  parameter int unsigned Lanes = 8,
  /// Bits of a row number, of a warp slot number, of a register-file row address.
  parameter int unsigned RowBits = 2,
  parameter int unsigned WarpBits = 5,
  parameter int unsigned RegisterRowBits = 10
) (
  // ---- 1. the engine ----
  input  logic                       engine_write_i,          // the engine uses the write port this clock
  input  logic [Lanes-1:0]           engine_write_lanes_i,
  input  logic [RegisterRowBits-1:0] engine_write_row_i,
  input  logic [Lanes*32-1:0]        engine_write_data_i,
  input  logic                       engine_event_valid_i,
  input  logic [2:0]                 engine_event_kind_i,
  input  logic [WarpBits-1:0]        engine_event_warp_i,
  input  logic [31:0]                engine_event_seq_i, engine_event_pc_i, engine_event_active_i, engine_event_exec_i,
  input  logic                       engine_event_exit_i,
  input  logic [7:0]                 engine_event_register_i,
  input  logic [RowBits-1:0]         engine_event_group_i,
  input  logic [Lanes-1:0]           engine_event_lanes_i,
  input  logic [Lanes*32-1:0]        engine_event_data_i,
  input  logic [31:0]                engine_event_address_i,
  input  logic [15:0]                engine_event_mask_i,
  input  logic [127:0]               engine_event_store_data_i,

  // ---- 2. the SP pipe's stage Y (tsm_sp_pipe) and the SP lanes' results of its row ----
  input  logic                       sp_valid_i,
  input  logic                       sp_last_i,
  input  logic [WarpBits-1:0]        sp_warp_i,
  input  logic [31:0]                sp_seq_i, sp_pc_i, sp_active_i, sp_exec_i,
  input  logic [RowBits-1:0]         sp_group_i,
  input  logic [Lanes-1:0]           sp_lanes_i,
  input  logic [RegisterRowBits-1:0] sp_row_i,
  input  logic [7:0]                 sp_register_i,
  input  logic [2:0]                 sp_predicate_i,          // 7: none
  input  logic                       sp_result_write_i,       // the lanes write a register
  input  logic [Lanes*32-1:0]        sp_result_i,
  input  logic [Lanes*8-1:0]         sp_predicates_i,         // each lane's predicates after the row

  // ---- 3. SFU rows (tsm_sfu_pipe) ----
  input  logic                       sfu_row_valid_i,
  output logic                       sfu_row_ready_o,
  input  logic [WarpBits-1:0]        sfu_row_warp_i,
  input  logic [31:0]                sfu_row_seq_i,
  input  logic [7:0]                 sfu_row_register_i,
  input  logic [RowBits-1:0]         sfu_row_group_i,
  input  logic [Lanes-1:0]           sfu_row_lanes_i,
  input  logic [RegisterRowBits-1:0] sfu_row_row_i,
  input  logic [Lanes*32-1:0]        sfu_row_data_i,

  // ---- 4. memory tracker rows, 5. its atomics' retirements (tsm_mem_tracker) ----
  input  logic                       tracker_row_valid_i,
  output logic                       tracker_row_ready_o,
  input  logic [WarpBits-1:0]        tracker_row_warp_i,
  input  logic [31:0]                tracker_row_seq_i,
  input  logic [7:0]                 tracker_row_register_i,
  input  logic [RowBits-1:0]         tracker_row_group_i,
  input  logic [Lanes-1:0]           tracker_row_lanes_i,
  input  logic [RegisterRowBits-1:0] tracker_row_row_i,
  input  logic [Lanes*32-1:0]        tracker_row_data_i,
  input  logic                       tracker_retire_valid_i,
  output logic                       tracker_retire_ready_o,
  input  logic [WarpBits-1:0]        tracker_retire_warp_i,
  input  logic [31:0]                tracker_retire_seq_i, tracker_retire_pc_i, tracker_retire_active_i, tracker_retire_exec_i,

  // ---- the register file's write port ----
  output logic [Lanes-1:0]           write_lanes_o,
  output logic [RegisterRowBits-1:0] write_row_o,
  output logic [Lanes*32-1:0]        write_data_o,

  // ---- the commit event (tsm_sm registers it onto cm_*) ----
  output logic                       event_valid_o,
  output logic [2:0]                 event_kind_o,
  output logic [WarpBits-1:0]        event_warp_o,
  output logic [31:0]                event_seq_o, event_pc_o, event_active_o, event_exec_o,
  output logic                       event_exit_o,
  output logic [7:0]                 event_register_o,
  output logic [RowBits-1:0]         event_group_o,
  output logic [Lanes-1:0]           event_lanes_o,
  output logic [Lanes*32-1:0]        event_data_o,
  output logic [31:0]                event_address_o,
  output logic [15:0]                event_mask_o,
  output logic [127:0]               event_store_data_o
);

  always_comb begin
    logic port_busy;  // the write port is taken this clock
    // 1. The engine.
    port_busy = engine_write_i;
    write_lanes_o = engine_write_lanes_i;
    write_row_o = engine_write_row_i;
    write_data_o = engine_write_data_i;
    event_valid_o = engine_event_valid_i;
    event_kind_o = engine_event_kind_i;
    event_warp_o = engine_event_warp_i;
    event_seq_o = engine_event_seq_i;
    event_pc_o = engine_event_pc_i;
    event_active_o = engine_event_active_i;
    event_exec_o = engine_event_exec_i;
    event_exit_o = engine_event_exit_i;
    event_register_o = engine_event_register_i;
    event_group_o = engine_event_group_i;
    event_lanes_o = engine_event_lanes_i;
    event_data_o = engine_event_data_i;
    event_address_o = engine_event_address_i;
    event_mask_o = engine_event_mask_i;
    event_store_data_o = engine_event_store_data_i;

    // 2. The SP pipe's stage Y: its row's register or predicate, and on its last row the retirement.
    if (sp_valid_i) begin
      event_warp_o = sp_warp_i; event_seq_o = sp_seq_i; event_pc_o = sp_pc_i; event_active_o = sp_active_i;
      event_exec_o = sp_exec_i; event_exit_o = 1'b0;
      if (sp_lanes_i != '0 && sp_result_write_i && sp_register_i != 8'd255) begin
        write_lanes_o = sp_lanes_i;
        write_row_o = sp_row_i;
        write_data_o = sp_result_i;
        port_busy = 1'b1;
        event_valid_o = 1'b1; event_kind_o = tsm_sm_pkg::EventRegister; event_register_o = sp_register_i; event_group_o = sp_group_i;
        event_lanes_o = sp_lanes_i; event_data_o = sp_result_i;
      end
      if (sp_lanes_i != '0 && sp_predicate_i != 3'd7) begin
        event_valid_o = 1'b1; event_kind_o = tsm_sm_pkg::EventPredicate; event_register_o = 8'(sp_predicate_i); event_group_o = sp_group_i;
        event_lanes_o = sp_lanes_i;
        event_data_o = '0;
        for (int l = 0; l < Lanes; l++) event_data_o[32*l] = sp_predicates_i[8*l + 32'(sp_predicate_i)];
      end
      if (sp_last_i) begin
        event_kind_o = !event_valid_o ? tsm_sm_pkg::EventRetire : (event_kind_o == tsm_sm_pkg::EventPredicate) ? tsm_sm_pkg::EventPredicateRetire : tsm_sm_pkg::EventRegisterRetire;
        event_valid_o = 1'b1;
      end
    end

    // 3. An SFU row.
    sfu_row_ready_o = 1'b0;
    if (sfu_row_valid_i) begin
      if (sfu_row_lanes_i == '0 || sfu_row_register_i == 8'd255) sfu_row_ready_o = 1'b1;
      else if (!port_busy && !event_valid_o) begin
        write_lanes_o = sfu_row_lanes_i;
        write_row_o = sfu_row_row_i;
        write_data_o = sfu_row_data_i;
        event_valid_o = 1'b1; event_kind_o = tsm_sm_pkg::EventRegister; event_warp_o = sfu_row_warp_i; event_seq_o = sfu_row_seq_i;
        event_register_o = sfu_row_register_i; event_group_o = sfu_row_group_i; event_lanes_o = sfu_row_lanes_i;
        event_data_o = sfu_row_data_i;
        sfu_row_ready_o = 1'b1;
      end
    end

    // 4. A memory tracker row.
    tracker_row_ready_o = !port_busy && !event_valid_o;
    if (tracker_row_valid_i && tracker_row_ready_o) begin
      write_lanes_o = tracker_row_lanes_i;
      write_row_o = tracker_row_row_i;
      write_data_o = tracker_row_data_i;
      event_valid_o = 1'b1; event_kind_o = tsm_sm_pkg::EventRegister; event_warp_o = tracker_row_warp_i; event_seq_o = tracker_row_seq_i;
      event_register_o = tracker_row_register_i; event_group_o = tracker_row_group_i; event_lanes_o = tracker_row_lanes_i;
      event_data_o = tracker_row_data_i;
    end

    // 5. An atomic's retirement.
    tracker_retire_ready_o = !event_valid_o;
    if (tracker_retire_valid_i && tracker_retire_ready_o) begin
      event_valid_o = 1'b1; event_kind_o = tsm_sm_pkg::EventRetire; event_warp_o = tracker_retire_warp_i; event_seq_o = tracker_retire_seq_i;
      event_pc_o = tracker_retire_pc_i; event_active_o = tracker_retire_active_i; event_exec_o = tracker_retire_exec_i;
      event_exit_o = 1'b0;
    end
  end

endmodule
