// One streaming multiprocessor: the engine (docs/sm-rtl.md §2.0) -- the state machine that takes a
// warp instruction from selection through fetch, the constant operand and issue to retirement,
// feeds the SFU pipe, and runs branches, barriers and a warp's end, waiting while a unit runs the
// rest (the row pipe, the warp-op pipe, the load/store unit) -- with a commit port for lockstep;
// and the units it instantiates: the warp table (tsm_warp_table) and scheduler (tsm_warp_sched),
// decode (tsm_decode), the scoreboard (tsm_scoreboard), issue control (tsm_issue), the register
// file (tsm_regfile), the SP lanes and pipe (tsm_sp_group, tsm_sp_pipe), the row pipe
// (tsm_row_pipe), the SFU pipe (tsm_sfu_pipe), the DP pipe (tsm_dp_pipe), the warp-op pipe
// (tsm_warp_ops_pipe), the branch unit (tsm_branch) and reconvergence stack (tsm_simt_stack), the
// barrier records and release walk (tsm_barrier, tsm_barrier_release), the shared memory
// (tsm_smem), the load/store unit (tsm_lsu), the memory tracker (tsm_mem_tracker), block dispatch
// (tsm_block_dispatch), the write-back and commit arbiter (tsm_writeback), the instruction cache
// (tsm_fetch), the constant cache (tsm_const_cache) and the outgoing request queue (tsm_fifo).
// Theory of operation: docs/sm-rtl.md.
//
// Why this file is still over 700 lines: it is the engine being taken apart into units, one
// cycle-neutral step at a time; docs/sm-rtl.md §2 lists what is still to come out of it (the
// sequencing of fetch, the constant operand, the SFU operand feed, barrier arrival, a warp's end).
module tsm_sm #(
  /// Directory of the SFU ROM images, with a trailing '/'.
  parameter HexDir = "",
  /// SMs in the GPU (for the local-memory layout, docs/gpu-interfaces.md §2.3).
  parameter int unsigned NumSms = 1,
  /// Bits of a memory request ID inside the SM.
  parameter int unsigned IdBits = 6,
  /// Derived, do not override: bits of a row-group index, performance event count.
  parameter int unsigned GroupBits = (tsm_cfg_pkg::SpClocksPerWarp > 1) ? $clog2(tsm_cfg_pkg::SpClocksPerWarp) : 1,
  parameter int unsigned PerfEvents = 9
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  /// This SM's index, and the number of SMs taking part in the launch.
  input  logic [31:0] sm_id_i,
  input  logic [31:0] num_sms_i,
  /// Launch descriptor (docs/gpu-interfaces.md §1), stable while busy.
  input  logic [31:0] code_base_i,
  input  logic [31:0] code_words_i,
  input  logic [31:0] entry_pc_i,
  input  logic [31:0] grid_x_i,
  input  logic [31:0] grid_y_i,
  input  logic [31:0] grid_z_i,
  input  logic [31:0] block_x_i,
  input  logic [31:0] block_y_i,
  input  logic [31:0] block_z_i,
  input  logic [31:0] threads_i,
  input  logic [31:0] warps_i,
  input  logic [31:0] regs_i,
  input  logic [31:0] shared_i,
  input  logic [31:0] local_bytes_i,
  input  logic [31:0] local_base_i,
  input  logic [31:0] blocks_per_sm_i,
  input  logic [16*32-1:0] cbank_base_i,
  /// The warp-scheduling policy (SCHED_POLICY: 0 loose round-robin, 1 greedy then oldest).
  input  logic [3:0]  sched_policy_i,
  /// A launch starts: forget caches and state.
  input  logic        start_i,
  /// Another SM faulted: stop issuing.
  input  logic        stop_i,
  /// Block dispatch from the work distributor.
  input  logic        blk_valid_i,
  output logic        blk_ready_o,
  input  logic [31:0] blk_linear_i,
  input  logic [47:0] blk_ctaid_i,
  /// No resident block and nothing outstanding.
  output logic        idle_o,
  /// The first fault of this SM (held until start_i).
  output logic        fault_o,
  output logic [3:0]  fault_kind_o,
  output logic [31:0] fault_warp_o,
  output logic [31:0] fault_pc_o,
  output logic [31:0] fault_addr_o,
  output logic [31:0] fault_lane_o,
  /// Memory port (docs/gpu-interfaces.md §2).
  output logic              mem_req_valid_o,
  input  logic              mem_req_ready_i,
  output logic [IdBits-1:0] mem_req_id_o,
  output logic [1:0]        mem_req_kind_o,
  output logic [31:0]       mem_req_addr_o,
  output logic [15:0]       mem_req_mask_o,
  output logic [127:0]      mem_req_data_o,
  output logic [7:0]        mem_req_atom_o,
  input  logic              mem_resp_valid_i,
  output logic              mem_resp_ready_o,
  input  logic [IdBits-1:0] mem_resp_id_i,
  input  logic [127:0]      mem_resp_data_i,
  input  logic              mem_resp_write_i,
  input  logic              mem_resp_err_i,
  /// Commit port (docs/gpu-interfaces.md §3).
  output logic                                   cm_valid_o,
  output logic [2:0]                             cm_kind_o,
  output logic [tsm_cfg_pkg::WarpIdWidth-1:0]    cm_warp_o,
  output logic [31:0]                            cm_seq_o,
  output logic [31:0]                            cm_pc_o,
  output logic [31:0]                            cm_active_o,
  output logic [31:0]                            cm_exec_o,
  output logic                                   cm_exit_o,
  output logic [7:0]                             cm_reg_o,
  output logic [GroupBits-1:0]                   cm_group_o,
  output logic [tsm_cfg_pkg::SpLanes-1:0]        cm_lanes_o,
  output logic [tsm_cfg_pkg::SpLanes*32-1:0]     cm_data_o,
  output logic [31:0]                            cm_addr_o,
  output logic [15:0]                            cm_mask_o,
  output logic [127:0]                           cm_wdata_o,
  // Retire channel: the engine's RETIRE events, after the commit port's event of the same clock
  output logic                                   cr_valid_o,
  output logic [tsm_cfg_pkg::WarpIdWidth-1:0]    cr_warp_o,
  output logic [31:0]                            cr_seq_o,
  output logic [31:0]                            cr_pc_o,
  output logic [31:0]                            cr_active_o,
  output logic [31:0]                            cr_exec_o,
  output logic                                   cr_exit_o,
  /// Performance events this cycle (docs/sm-rtl.md §4), summed by the GPU top.
  output logic [PerfEvents-1:0]                  perf_o,
  output logic [5:0]                             perf_lanes_o,
  /// Transactions counter increment (docs/sm-rtl.md §4: compute capability 1.2 segments).
  output logic [5:0]                             perf_tx_o,
  // Debug port (docs/waveforms.md §2): an instruction issues this clock, its warp and sequence
  // number; the stall reasons of this clock (bit 0 scoreboard, 1 barrier, 2 fetch).
  output logic                                   dbg_issue_o,
  output logic [tsm_cfg_pkg::WarpIdWidth-1:0]    dbg_warp_o,
  output logic [31:0]                            dbg_seq_o,
  output logic [2:0]                             dbg_stall_o
);

  // ---- sizes ----------------------------------------------------------------------------------
  localparam int unsigned L = tsm_cfg_pkg::SpLanes;
  localparam int unsigned G = tsm_cfg_pkg::SpClocksPerWarp;
  localparam int unsigned GW = $clog2(G);
  localparam int unsigned W = tsm_cfg_pkg::MaxWarps;
  localparam int unsigned WW = tsm_cfg_pkg::WarpIdWidth;
  localparam int unsigned NB = tsm_cfg_pkg::MaxBlocks;
  localparam int unsigned BW = tsm_cfg_pkg::BlockSlotWidth;
  localparam int unsigned RA = tsm_cfg_pkg::RegLaneAddrWidth;
  localparam int unsigned SD = tsm_cfg_pkg::StackDepth;
  localparam int unsigned SPW = tsm_cfg_pkg::StackPtrWidth;
  localparam int unsigned SB = tsm_cfg_pkg::SharedBanks;
  localparam int unsigned SRW = tsm_cfg_pkg::SharedBankAddrWidth;
  localparam int unsigned SAW = tsm_cfg_pkg::SharedAddrWidth;
  localparam int unsigned DW = tsm_cfg_pkg::BlockDimWidth;
  localparam int unsigned S = tsm_cfg_pkg::SfuUnits;
  localparam int unsigned SfuStages = 2;
  // The DP unit (gt200): DpUnits lanes a clock through the DP pipe; a configuration without one
  // faults on DP instructions.
  localparam int unsigned DpUnits = tsm_cfg_pkg::DpUnits;
  localparam int unsigned IcLines = tsm_cfg_pkg::IcacheLines;
  localparam int unsigned IcWords = tsm_cfg_pkg::IcacheLineWords;
  localparam int unsigned IcChunks = IcWords / 2;
  localparam int unsigned CcLines = tsm_cfg_pkg::ConstCacheBytes / 16;
  localparam int unsigned NIds = 48;           // IDs 0..47: loads, stores, atomics
  localparam logic [IdBits-1:0] CcId = IdBits'(48);
  localparam logic [IdBits-1:0] IcId = IdBits'(56);
  localparam int unsigned NSlots = 8;          // loads / global atomics in flight per SM
  localparam int unsigned LocalStride = NumSms * W * 32 * 4;  // bytes between a thread's local words

  // Event kinds of the commit port.
  localparam logic [2:0] EV_RETIRE = tsm_sm_pkg::EventRetire, EV_REG = tsm_sm_pkg::EventRegister,
                         EV_PLACE = tsm_sm_pkg::EventPlace;
  // Fault kinds as FAULT_KIND reports them (1 + golden::FaultKind).
  localparam logic [3:0] F_OOB = tsm_sm_pkg::FaultOutOfBounds, F_DIVBAR = tsm_sm_pkg::FaultDivergentBarrier,
                         F_DEADLOCK = tsm_sm_pkg::FaultBarrierDeadlock, F_UNDERFLOW = tsm_sm_pkg::FaultStackUnderflow,
                         F_INVALID = tsm_sm_pkg::FaultInvalidInstruction, F_TRAP = tsm_sm_pkg::FaultTrap;
  // What a fault the engine finds records besides its kind (the fault registers below).
  localparam logic [2:0] EF_NONE = 3'd0, EF_PLAIN = 3'd1, EF_TRAP = 3'd2, EF_AG = 3'd3, EF_DEADLOCK = 3'd4;

  // ---- engine states ----------------------------------------------------------------------------
  typedef enum logic [6:0] {
    E_IDLE, E_HALT, E_FAULT, E_CLEAR,
    E_PLACE,
    E_FETCH, E_DECODE, E_IC_REQ, E_IC_WAIT, E_CONST, E_CONST_CHK, E_CC_REQ, E_CC_WAIT, E_DISPATCH,
    E_ROWS,
    E_SFU_RD, E_SFU_GO,
    E_WARP_OP,
    E_CT, E_STK,
    E_BAR_RD, E_BAR_UPD, E_REL,
    E_LSU,
    E_RET, E_FIN, E_FIN_BAR, E_FIN_BAR_CHK
  } estate_e;

  // ---- state --------------------------------------------------------------------------------------
  estate_e st_q, st_d;
  logic    running_q, running_d;

  // Warp table (rtl/sm/tsm_warp_table.sv): the slots' state, and the engine's commands to it.
  logic [W-1:0]      warp_valid, warp_ready, warp_barrier_wait, warp_scoreboard_wait, warp_atomic_wait, warp_sfu, warp_sfu_wait;
  logic [W*32-1:0]   warp_pc, warp_active, warp_live, warp_seq;
  logic [W*BW-1:0]   warp_block;
  logic [W*RA-1:0]   warp_base;
  logic [W*4-1:0]    warp_barrier;
  logic [W-1:0]      warp_reduction;
  logic [W*8-1:0]    warp_reduction_register;
  logic [W*32-1:0]   warp_reduction_lanes, warp_reduction_seq;
  logic [W*3*DW-1:0] warp_thread;
  logic [W*4-1:0]    warp_loads;        // load slots in flight
  logic [W*6-1:0]    warp_stores;       // stores awaiting acknowledgement
  logic              table_place, table_issue, table_scoreboard_wait, table_sfu_wait, table_sfu_issue;
  logic              table_atomic_wait, table_load_issue, table_barrier_arrive, table_reduction;
  logic              table_pc_write, table_lanes_write, table_finish, table_store_issue;
  logic [31:0]       table_pc;
  logic [WW-1:0]     table_store_warp;
  logic [W*32*7-1:0] pred_q, pred_d;


  // Current instruction: the engine's warp and its instruction word, PC, executed lanes and sequence
  // number; B's constant-bank word; the warp's next PC, active and live lanes after it.
  logic [WW-1:0]  warp_q, warp_d;
  logic [63:0]    insn_q, insn_d;
  logic [31:0]    pc_q, pc_d, exec_q, exec_d, seq_q, seq_d, bconst_q, bconst_d;
  logic [31:0]    bconst_hi_q, bconst_hi_d;  // the word after it (64-bit operands B)
  logic [31:0]    npc_q, npc_d, nact_q, nact_d, nlive_q, nlive_d;
  logic [31:0]    step_q, step_d;        // the step of a multi-clock state: placement, zeroing, tag clearing, DP feed
  logic           rel_pend_q, rel_pend_d, fin_q, fin_d;
  logic [BW-1:0]  rel_blk_q, rel_blk_d;
  logic [3:0]     rel_id_q, rel_id_d;
  logic [31:0]    rel_val_q, rel_val_d;
  logic [4:0]     fin_id_q, fin_id_d;
  logic [63:0]    clock_q, clock_d;      // clocks since the launch (S2R SR_CLOCK)

  // Caches.
  // Constant-cache tags live in a memory ({valid, line address}); a launch starts by clearing them.
  logic [31:0]           caddr_q, caddr_d;  // the constant operand's byte address

  // Faults.
  logic        flt_q, flt_d;
  logic [3:0]  flt_kind_q, flt_kind_d;
  logic [31:0] flt_warp_q, flt_warp_d, flt_pc_q, flt_pc_d, flt_addr_q, flt_addr_d, flt_lane_q, flt_lane_d;
  logic [2:0]  ef_src;  // EF_*: set where the engine's case finds a fault, applied after it
  // The fault's warp and lane are a slot or lane number, 0 or all ones (none): their registers keep
  // the number and whether it is all ones, so that the engine's many fault sites select 4 to 7 bits,
  // not 32.
  logic          flt_warp_none_q, flt_lane_none_q;
  logic [WW-1:0] flt_warp_n_q;
  logic [5:0]    flt_lane_n_q;
  assign flt_warp_q = flt_warp_none_q ? 32'hFFFF_FFFF : 32'(flt_warp_n_q);
  assign flt_lane_q = flt_lane_none_q ? 32'hFFFF_FFFF : 32'(flt_lane_n_q);
  logic unused_flt_bits;
  assign unused_flt_bits = ^{flt_warp_d[30:WW], flt_lane_d[30:6]};

  // Commit port (registered).
  logic        ev_valid;
  logic        rt_valid;   // the retire channel (E_RET): the current instruction retires
  logic [2:0]  ev_kind;
  logic [WW-1:0] ev_warp;
  logic [31:0] ev_seq, ev_pc, ev_active, ev_exec, ev_addr;
  logic        ev_exit;
  logic [7:0]  ev_reg;
  logic [GroupBits-1:0] ev_group;
  logic [L-1:0] ev_lanes;
  logic [L*32-1:0] ev_data;
  logic [15:0] ev_mask;
  logic [127:0] ev_wdata;

  // Memories' ports.
  logic [3*RA-1:0]   rf_raddr;
  logic [3*L*32-1:0] rf_rdata;
  logic [L-1:0]      rf_we;
  logic [RA-1:0]     rf_waddr;
  logic [L*32-1:0]   rf_wdata;
  logic              ic_miss, ic_req_valid, ic_req_last, ic_fill_done, ic_hit, ic_prefetch_busy;
  logic [31:0]       ic_read_pc, ic_req_addr;
  logic [IdBits-1:0] ic_req_id;
  logic [127:0]      ic_rdata;
  logic              cc_lookup, cc_clear, cc_miss, cc_fill, cc_hit, cc_line_in;
  logic [31:0]       cc_word, cc_word_hi, cc_req_addr;
  logic [IdBits-1:0] cc_req_id;
  logic [BW-1:0]     bar_block;          // the barrier unit's record port
  logic [3:0]        bar_id;
  logic              bar_clear, bar_arrive;
  logic [SB-1:0]     sh_we;
  logic [SB*4-1:0]   sh_be;
  logic [SB*SRW-1:0] sh_addr;
  logic [SB*32-1:0]  sh_wdata, sh_rdata;

  // The load/store unit's requests and results (u_lsu, below).
  logic                 lsu_start, lsu_finish, lsu_park, lsu_fault;
  logic [3:0]           lsu_fault_kind, lsu_state;
  logic [31:0]          lsu_fault_address;
  logic [5:0]           lsu_fault_lane;
  logic [3*RA-1:0]      lsu_read_rows;
  logic                 lsu_write_valid;
  logic [L-1:0]         lsu_write_lanes;
  logic [RA-1:0]        lsu_write_row;
  logic [L*32-1:0]      lsu_write_data;
  logic                 lsu_event_valid;
  logic [2:0]           lsu_event_kind;
  logic [7:0]           lsu_event_register;
  logic [GroupBits-1:0] lsu_event_group;
  logic [L-1:0]         lsu_event_lanes;
  logic [L*32-1:0]      lsu_event_data;
  logic [31:0]          lsu_event_address;
  logic [15:0]          lsu_event_mask;
  logic [127:0]         lsu_event_store_data;
  logic [SB-1:0]        lsu_bank_we;
  logic [SB*4-1:0]      lsu_bank_be;
  logic [SB*SRW-1:0]    lsu_bank_addr;
  logic [SB*32-1:0]     lsu_bank_wdata;
  logic                 lsu_step;
  logic [15:0]          lsu_step_pending;
  logic [16*32-1:0]     lsu_step_address, lsu_step_data;
  logic                 lsu_req_valid;
  logic [IdBits-1:0]    lsu_req_id;
  logic [1:0]           lsu_req_kind;
  logic [31:0]          lsu_req_addr;
  logic [15:0]          lsu_req_mask;
  logic [127:0]         lsu_req_data;
  logic [7:0]           lsu_req_atom;
  logic                 lsu_id_alloc, lsu_id_alloc_store, lsu_id_alloc_local;
  logic [2:0]           lsu_id_alloc_slot;
  logic [1:0]           lsu_id_alloc_word;
  logic [31:0]          lsu_id_alloc_lanes, lsu_id_alloc_addr;
  logic                 lsu_slot_alloc, lsu_slot_alloc_atomic, lsu_slot_alloc_wide, lsu_slot_alloc_offsets_valid;
  logic [2:0]           lsu_slot_alloc_registers, lsu_slot_alloc_size;
  logic [32*4-1:0]      lsu_slot_offsets;
  logic [$clog2(NSlots)-1:0] lsu_slot;
  logic                 lsu_slot_request, lsu_slot_issued, lsu_slot_atomic;
  logic                 lsu_load_issue, lsu_store_issue, lsu_perf_request, lsu_perf_conflict;
  logic [5:0]           lsu_perf_transactions;
  logic [L*32-1:0]      lsu_borrow_b, lsu_borrow_c;
  logic [31:0]          lsu_lane_a;
  logic [32*32-1:0]     lsu_buffer_a;
  // The warp-op pipe's requests and results (u_warp_ops_pipe, below).
  logic                 warp_op_start, warp_op_finish;
  logic [3:0]           warp_op_state;
  logic [3*RA-1:0]      warp_op_read_rows;
  logic                 warp_op_write_valid;
  logic [L-1:0]         warp_op_write_lanes;
  logic [RA-1:0]        warp_op_write_row;
  logic [L*32-1:0]      warp_op_write_data;
  logic                 warp_op_event_valid;
  logic [2:0]           warp_op_event_kind;
  logic [7:0]           warp_op_event_register;
  logic [GroupBits-1:0] warp_op_event_group, warp_op_row;
  logic [L-1:0]         warp_op_event_lanes, warp_op_predicate_lanes, warp_op_predicate_values;
  logic [L*32-1:0]      warp_op_event_data;
  logic                 warp_op_borrow_write, warp_op_borrow_read;
  logic [L*32-1:0]      warp_op_borrow_a, warp_op_borrow_b, warp_op_borrow_c;
  logic [4:0]           warp_op_borrow_lane;
  // The row pipe's requests and results (u_row_pipe, below).
  logic                 rows_start, rows_finish, rows_lanes_valid, rows_sp_busy;
  logic                 rows_dp_capture, rows_dp_capture_high, rows_dp_execute;
  logic [3:0]           rows_state;
  logic [3*RA-1:0]      rows_read_rows;
  logic                 rows_write_valid;
  logic [L-1:0]         rows_write_lanes;
  logic [RA-1:0]        rows_write_row;
  logic [L*32-1:0]      rows_write_data, rows_high;
  logic                 rows_event_valid;
  logic [2:0]           rows_event_kind;
  logic [7:0]           rows_event_register;
  logic [GroupBits-1:0] rows_event_group, rows_row;
  logic [L-1:0]         rows_event_lanes, rows_row_lanes;
  logic [L*32-1:0]      rows_event_data;
  logic [L*7-1:0]       rows_predicate_we, rows_predicate_values;
  // ---- helpers --------------------------------------------------------------------------------------
  function automatic logic [RA-1:0] rowof(input logic [RA-1:0] base, input logic [7:0] r, input logic [GroupBits:0] g);
    rowof = base + RA'(({{(RA > 8 ? RA - 8 : 0){1'b0}}, r}) << GW) + RA'(g);
  endfunction
  function automatic logic [5:0] popc32(input logic [31:0] x);
    popc32 = '0;
    for (int i = 0; i < 32; i++) popc32 = popc32 + 6'(x[i]);
  endfunction

  // ---- decode of the current instruction (rtl/sm/tsm_decode.sv, docs/sm-rtl.md §2.2) ----------------
  logic        insn_valid;
  logic [7:0]  op;
  logic [7:0]  f_ra, f_rb, f_rc, f_rd;
  logic [2:0]  n_ra, n_b, n_rc, n_rd;
  logic        rd_ra, rd_b, rd_rc, rd_rd, wr_rd;
  logic [31:0] imm_b;
  logic [19:0] imm20_w;
  logic [4:0]  sreg_w;
  logic [23:0] target_w, moff_w;
  logic [11:0] bcount_w;
  logic [2:0]  pd2_w, ps_w, pg_w, pd_w, pq_w, pcc_w;
  logic        psn_w, pgn_w;
  logic [3:0]  cbank_w, barid_w;
  logic        has_b_w, b_const_w, b_imm_w, reads_rb_w, memoff_w, writes_pd_w, writes_pq_w, wide_w, barmode_w;
  logic [1:0]  bop_w, vote_w, shfl_w, redop_w;
  logic [2:0]  unit_w, atype_w;
  logic [3:0]  aop_w;
  logic [15:0] coff_w;
  logic        sp_pcc, sp_stream;
  logic [2:0]  sp_pev;                // the predicate a streaming instruction writes (7: none)
  logic        dp_insn;
  logic [3:0]  dp_op;
  logic        is_load, is_store, is_atom, is_cas, a64, shared_only, wide_addr;
  logic [2:0]  msz;
  logic [4:0]  nbytes;
  logic [2:0]  nwords;
  tsm_decode u_decode (
    .insn_i(insn_q), .valid_o(insn_valid), .opcode_o(op), .ra_o(f_ra), .rb_o(f_rb), .rc_o(f_rc), .rd_o(f_rd),
    .ra_regs_o(n_ra), .b_regs_o(n_b), .rc_regs_o(n_rc), .rd_regs_o(n_rd),
    .reads_ra_o(rd_ra), .reads_b_o(rd_b), .reads_rc_o(rd_rc), .reads_rd_o(rd_rd), .writes_rd_o(wr_rd),
    .imm_b_o(imm_b), .imm20_o(imm20_w), .special_register_o(sreg_w), .target_o(target_w),
    .memory_offset_o(moff_w), .barrier_count_o(bcount_w), .guard_o(pg_w), .guard_negate_o(pgn_w),
    .source_predicate_o(ps_w), .source_negate_o(psn_w), .pd_o(pd_w), .pq_o(pq_w), .pd2_o(pd2_w),
    .carry_predicate_o(pcc_w), .const_bank_o(cbank_w), .const_offset_o(coff_w), .barrier_id_o(barid_w),
    .barrier_sync_o(barmode_w), .predicate_op_o(bop_w), .vote_mode_o(vote_w),
    .shuffle_mode_o(shfl_w), .reduction_op_o(redop_w), .atomic_type_o(atype_w), .atomic_op_o(aop_w),
    .unit_o(unit_w), .has_b_o(has_b_w), .b_const_o(b_const_w), .b_imm_o(b_imm_w), .reads_rb_o(reads_rb_w),
    .memory_offset_used_o(memoff_w), .writes_pd_o(writes_pd_w), .writes_pq_o(writes_pq_w), .wide_o(wide_w),
    .carry_write_o(sp_pcc), .stream_predicate_o(sp_pev), .sp_stream_shape_o(sp_stream), .dp_o(dp_insn),
    .dp_operation_o(dp_op), .load_o(is_load), .store_o(is_store), .atomic_o(is_atom), .compare_swap_o(is_cas),
    .atomic_64_o(a64), .shared_only_o(shared_only), .wide_address_o(wide_addr), .memory_size_o(msz),
    .access_bytes_o(nbytes), .access_words_o(nwords)
  );

  // ---- SP pipe (rtl/sm/tsm_sp_pipe.sv, docs/sm-rtl.md §2.0): an SP instruction that writes one
  // register and no predicate (or one predicate and no register) is handed over at its issue and
  // streams there, a row a clock through stages R (read), X (execute in the SP lanes) and Y (write
  // and commit; the last row's event retires it). The engine's write-back puts stage Y's row on the
  // register file's write port and the commit port. ----
  logic                 sp_pipe_hand;               // engine: hand the current instruction over (E_DISPATCH)
  logic                 sp_pipe_take;               // the pipe can take one this clock
  logic                 sp_pipe_busy;               // an instruction is in the pipe
  logic                 sp_pipe_occupied;           // ... of the current warp
  logic                 sp_pipe_predicate_pending;  // ... one that writes a predicate
  logic                 sp_pipe_read_valid;         // stage R reads rows sp_pipe_read_rows
  logic [3*RA-1:0]      sp_pipe_read_rows;
  logic                 sp_pipe_execute_valid;      // stage X: the SP lanes take its instruction and operands
  logic [63:0]          sp_pipe_execute_insn;
  logic [L*32-1:0]      sp_pipe_a, sp_pipe_b, sp_pipe_c;
  logic [L*8-1:0]       sp_pipe_predicates;
  logic                 sp_pipe_write_valid;        // stage Y: a row to write and commit
  logic                 sp_pipe_write_last;
  logic [WW-1:0]        sp_pipe_write_warp;
  logic [31:0]          sp_pipe_write_seq, sp_pipe_write_pc, sp_pipe_write_active, sp_pipe_write_exec;
  logic [GroupBits-1:0] sp_pipe_write_group;
  logic [L-1:0]         sp_pipe_write_lanes;
  logic [RA-1:0]        sp_pipe_write_row;
  logic [7:0]           sp_pipe_write_register;
  logic [2:0]           sp_pipe_write_predicate;

  // ---- SP lanes and SFUs --------------------------------------------------------------------------
  logic            sp_valid, sp_valid_o, sp_we_o, sp_wide_o;
  logic [L*32-1:0] sp_a, sp_b, sp_c, sp_d, sp_dhi;
  logic [L*8-1:0]  sp_preds, sp_preds_o, sp_pwe_o;
  tsm_sp_group #(.Lanes(L)) u_sp (
    .clk_i, .rst_ni, .valid_i(sp_valid), .insn_i(sp_pipe_execute_valid ? sp_pipe_execute_insn : insn_q), .a_i(sp_a), .a_hi_i(rows_high), .b_i(sp_b), .c_i(sp_c),
    .c_hi_i(rows_high), .preds_i(sp_preds), .valid_o(sp_valid_o), .d_o(sp_d), .d_hi_o(sp_dhi), .d_we_o(sp_we_o),
    .d_wide_o(sp_wide_o), .preds_o(sp_preds_o), .preds_we_o(sp_pwe_o)
  );

  // ---- SFU pipe (rtl/sm/tsm_sfu_pipe.sv, docs/sm-rtl.md §2.7): an SFU instruction runs there,
  // beside the engine. The engine streams the operand rows in (E_SFU_RD), hands the instruction over
  // (E_SFU_GO) and retires it; the pipe offers each result row, and the engine writes it when it
  // leaves the register file's write port and the commit port free. The warp issues nothing until
  // its SFU instruction is written (the warp table's sfu_o). ----
  logic               sfu_start;             // engine: hand the current instruction over
  logic               sfu_busy;              // an instruction is in the pipe
  logic               sfu_capture;           // engine: row sfu_capture_row of operand A is on port A
  logic [GroupBits:0] sfu_capture_row;
  logic               sfu_operands_free;     // the pipe may take the next instruction's operands
  logic               sfu_row_valid;         // a result row is ready to write
  logic               sfu_row_ready;         // engine: it is written (or needs no write)
  logic [WW-1:0]      sfu_row_warp;
  logic [31:0]        sfu_row_seq;
  logic [7:0]         sfu_row_reg;
  logic [GroupBits-1:0] sfu_row_group;
  logic [L-1:0]       sfu_row_lanes;         // its lanes that write
  logic [RA-1:0]      sfu_row_addr;          // its register-file row
  logic [L*32-1:0]    sfu_row_data;          // its results
  logic               sfu_row_last;          // it is the instruction's last row
  tsm_sfu_pipe #(
    .HexDir(HexDir), .Lanes(L), .Units(S), .Stages(SfuStages), .WarpBits(WW), .RowBits(RA), .GroupBits(GroupBits)
  ) u_sfu_pipe (
    .clk_i, .rst_ni,
    .start_i(sfu_start), .start_insn_i(insn_q), .start_warp_i(warp_q), .start_seq_i(seq_q), .start_exec_i(exec_q),
    .start_reg_i(f_rd), .start_base_i(base_c), .busy_o(sfu_busy),
    .capture_i(sfu_capture), .capture_row_i(sfu_capture_row),
    .capture_data_i((f_ra == 8'd255) ? '0 : rf_rdata[L*32-1:0]), .operands_free_o(sfu_operands_free),
    .row_valid_o(sfu_row_valid), .row_ready_i(sfu_row_ready), .row_warp_o(sfu_row_warp), .row_seq_o(sfu_row_seq),
    .row_reg_o(sfu_row_reg), .row_group_o(sfu_row_group), .row_lanes_o(sfu_row_lanes), .row_addr_o(sfu_row_addr),
    .row_data_o(sfu_row_data), .row_last_o(sfu_row_last)
  );
  logic unused_sp_valid;  // SP results are timed by the engine and the back end, not by the lanes' valid bit
  assign unused_sp_valid = sp_valid_o;


  // The shared memory (tsm_smem: the banks and the bank scheduling of the half-warp in flight).
  logic [15:0]          sh_serve;
  logic [16*32-1:0]     shd_word;         // the loaded word of each lane of the half-warp step

  // ---- memories ---------------------------------------------------------------------------------------
  tsm_regfile #(.Lanes(L), .Rows(tsm_cfg_pkg::RegsPerLane), .AddrBits(RA)) u_rf (
    .clk_i, .raddr_i(rf_raddr), .rdata_o(rf_rdata), .we_i(write_lanes), .waddr_i(write_row), .wdata_i(write_data)
  );

  // The instruction cache (rtl/sm/tsm_fetch.sv, docs/sm-rtl.md §2.1): E_FETCH looks the current PC
  // up and reports a miss, E_IC_REQ sends the refill's requests it offers, E_IC_WAIT waits for the
  // line; the selection reads the chosen warp's instruction when it hits. A miss also fetches the
  // next line when the line holds at most four chunks (docs/sm-rtl.md §2.1).
  tsm_fetch #(
    .Lines(IcLines), .LineWords(IcWords), .Prefetch(IcLines > 1 && 2 * IcChunks <= 8), .IdBits(IdBits), .IcId(IcId)
  ) u_fetch (
    .clk_i, .rst_ni, .start_i, .code_base_i, .code_words_i, .pc_i(pc_q), .hit_o(ic_hit),
    .select_pc_i(sel_pc), .select_hit_o(sel_hit), .read_pc_i(ic_read_pc), .instruction_o(ic_rdata),
    .miss_i(ic_miss), .prefetch_busy_o(ic_prefetch_busy), .req_valid_o(ic_req_valid), .req_ready_i(rq_room),
    .req_id_o(ic_req_id), .req_addr_o(ic_req_addr), .req_last_o(ic_req_last), .fill_done_o(ic_fill_done),
    .resp_valid_i(mem_resp_valid_i && mem_resp_id_i >= IcId), .resp_id_i(mem_resp_id_i), .resp_data_i(mem_resp_data_i)
  );
  logic unused_ic_req_valid;  // the engine is in E_IC_REQ exactly while a request is offered
  assign unused_ic_req_valid = ic_req_valid;

  // The constant cache (rtl/sm/tsm_const_cache.sv, docs/sm-rtl.md §2.9): E_CONST reads the operand's
  // line, E_CONST_CHK takes the word or reports a miss, E_CC_REQ sends the request, E_CC_WAIT waits
  // for the line and writes its tag; a launch clears every tag first (E_CLEAR).
  tsm_const_cache #(.Lines(CcLines), .IdBits(IdBits), .CcId(CcId)) u_const_cache (
    .clk_i, .rst_ni, .lookup_i(cc_lookup), .addr_i(caddr_q), .clear_i(cc_clear),
    .clear_line_i(($clog2(CcLines))'(step_q)), .hit_o(cc_hit), .word_o(cc_word), .word_hi_o(cc_word_hi),
    .miss_i(cc_miss), .req_id_o(cc_req_id), .req_addr_o(cc_req_addr),
    .resp_valid_i(mem_resp_valid_i && mem_resp_id_i >= CcId && mem_resp_id_i < IcId), .resp_data_i(mem_resp_data_i),
    .line_in_o(cc_line_in), .fill_i(cc_fill)
  );

  // The shared-memory unit (rtl/sm/tsm_smem.sv, docs/sm-rtl.md §2.8): the banks, the bank
  // scheduling and the crossbar of a half-warp step (the load/store unit's lsu_step); otherwise the banks' ports
  // are the engine's (placement's zeroing, the shared atomics).
  tsm_smem #(.Banks(SB), .Words(tsm_cfg_pkg::SharedWordsPerBank), .RowBits(SRW), .WordBits(SAW - 2)) u_smem (
    .clk_i, .we_i(sh_we), .be_i(sh_be), .addr_i(sh_addr), .wdata_i(sh_wdata), .rdata_o(sh_rdata),
    .step_i(lsu_step), .step_store_i(is_store), .step_bytes_i(nbytes), .pending_i(lsu_step_pending),
    .lane_address_i(lsu_step_address), .lane_data_i(lsu_step_data), .serve_o(sh_serve), .lane_word_o(shd_word)
  );

  // ---- outgoing memory requests: a two-entry queue, so the engine never waits on mem_req_ready_i ----
  logic              rq_valid;          // the engine pushes a request this cycle
  logic [IdBits-1:0] rq_id;
  logic [1:0]        rq_kind;
  logic [31:0]       rq_addr;
  logic [15:0]       rq_mask;
  logic [127:0]      rq_data;
  logic [7:0]        rq_atom;
  logic              rq_room;           // the queue has room for it
  tsm_fifo #(.Width(IdBits + 2 + 32 + 16 + 128 + 8), .Depth(2)) u_request_queue (
    .clk_i, .rst_ni,
    .push_valid_i(rq_valid), .push_ready_o(rq_room), .push_data_i({rq_id, rq_kind, rq_addr, rq_mask, rq_data, rq_atom}),
    .pop_valid_o(mem_req_valid_o), .pop_ready_i(mem_req_ready_i),
    .pop_data_o({mem_req_id_o, mem_req_kind_o, mem_req_addr_o, mem_req_mask_o, mem_req_data_o, mem_req_atom_o})
  );
  assign mem_resp_ready_o = 1'b1;  // responses land in rm_mem / the caches; there is always room

  // ===================================================================================================
  // Everything the engine's states compute lane by lane, from registered state only. Each block is
  // its own small process: inside the engine's one big case, every local variable, loop variable and
  // inlined function call would be held in every state, and Yosys's proc_mux walks all of those
  // holds once for every bit range it builds a multiplexer for (docs/sm-rtl.md §2.11).
  // ===================================================================================================

  // ---- the current warp, the scheduler's choice, the checks before issue ----
  logic [WW-1:0] sel_w;              // the warp scheduler's choice
  logic          sel_ok;             // ... there is one
  logic [31:0]   sel_pc;             // the chosen warp's PC
  logic          sel_hit;            // ... is valid code and in the instruction cache: fetch now
  logic          sel_go;             // the engine selects sel_w this clock (E_IDLE, E_RET)
  logic          disp_go;            // E_DISPATCH issues the instruction this clock
  logic          ret_hold;           // E_RET waits: the back end retires an instruction this clock
  logic          ctl_quick;          // the current control instruction only moves the PC: E_DISPATCH retires it
  logic          ctl_go;             // ... and does so this clock
  logic [31:0]   ctl_npc;            // ... to this PC
  logic [31:0]   dexec;              // the current instruction's executed lanes, as E_DISPATCH computes them
  logic [31:0]   guard;
  logic [RA-1:0] base_c;
  logic [31:0]   act_c, live_c;
  // Not traced (rtl/trace.vlt says why): wide values the hot loops below read and write many times
  // an evaluation; pred_q holds the same predicates, one clock later.
  /* verilator tracing_off */
  logic [32*7-1:0] wp_c, wp_d;        // the current warp's predicates: before, after this clock
  logic [31:0]     wp_g, wp_s;        // each lane's guard predicate (pg_w) and source predicate (ps_w)
  /* verilator tracing_on */
  logic [BW-1:0] blk_c;
  logic [SPW-1:0] spt_c;
  logic          hazard;
  logic          bad_reg;
  logic [5:0]    free_id;
  logic          free_id_ok;
  logic [$clog2(NSlots)-1:0] free_slot;
  logic          free_slot_ok;
  logic [WW-1:0] free_warp;
  logic [5:0]    ctz_exec, popc_exec;
  always_comb begin
    logic [7:0] pl8;  // a lane's predicates, P7 (true) on top
    act_c = warp_active[32*warp_q +: 32];
    live_c = warp_live[32*warp_q +: 32];
    base_c = warp_base[RA*warp_q +: RA];
    blk_c = warp_block[BW*warp_q +: BW];
    spt_c = stk_depth[SPW*warp_q +: SPW];
    // The warp's predicates picked by comparing with each warp number: a part select at
    // 32 * 7 * warp_q shifts all W * 224 bits by a multiple of 224.
    wp_c = pred_q[0 +: 32*7];
    for (int w = 1; w < W; w++) if (32'(warp_q) == w) wp_c = pred_q[32*7*w +: 32*7];
    // A lane's seven predicates are a constant part select, then one of eight (P7 reads true) is
    // picked: wp_c[7 * l + pg_w] would shift all 224 bits, once for each lane.
    guard = '0; wp_g = '0; wp_s = '0;
    for (int l = 0; l < 32; l++) begin
      pl8 = {1'b1, wp_c[7*l +: 7]};
      wp_g[l] = pl8[pg_w];
      wp_s[l] = pl8[ps_w];
      guard[l] = wp_g[l] ^ pgn_w;
    end
    ctz_exec = tsm_sm_pkg::lowest_lane(exec_q);
    popc_exec = popc32(exec_q);

    // The warp scheduler's choice (u_warp_sched, below): its PC, and whether its instruction is in
    // the instruction cache.
    sel_pc = warp_pc[32*sel_w +: 32];

  end

  // ---- scoreboard (rtl/sm/tsm_scoreboard.sv, docs/sm-rtl.md §2.3): the current instruction waits
  // while a register it reads or writes is one a load of its warp in flight will write; a register
  // beyond the kernel's count is a fault ----
  tsm_scoreboard #(.Slots(NSlots), .WarpBits(WW)) u_scoreboard (
    .warp_i(warp_q), .ra_i(f_ra), .rb_i(f_rb), .rc_i(f_rc), .rd_i(f_rd),
    .ra_regs_i(n_ra), .b_regs_i(n_b), .rc_regs_i(n_rc), .rd_regs_i(n_rd),
    .reads_ra_i(rd_ra), .reads_b_i(rd_b), .reads_rb_i(reads_rb_w), .reads_rc_i(rd_rc), .reads_rd_i(rd_rd),
    .writes_rd_i(wr_rd), .exit_i(op == tsm_isa_pkg::OP_EXIT), .membar_i(op == tsm_isa_pkg::OP_MEMBAR),
    .slot_valid_i(mt_slot_valid), .slot_warp_i(mt_slot_warp), .slot_register_i(mt_slot_register),
    .slot_registers_i(mt_slot_registers), .loads_in_flight_i(warp_loads[4*warp_q +: 4] != 4'd0),
    .stores_in_flight_i(warp_stores[6*warp_q +: 6] != 6'd0), .kernel_registers_i(regs_i),
    .hazard_o(hazard), .bad_register_o(bad_reg)
  );

  // ---- issue control (rtl/sm/tsm_issue.sv, docs/sm-rtl.md §2.0): what stops the current instruction
  // at its first visit of E_DISPATCH, whether it issues and where it goes, and when the engine
  // selects the next warp ----
  logic issue_invalid, issue_wait_scoreboard, issue_wait_sfu, issue_constant;
  tsm_issue #(.HasDp(DpUnits != 0)) u_issue (
    .at_idle_i(st_q == E_IDLE), .at_dispatch_i(st_q == E_DISPATCH), .at_retire_i(st_q == E_RET),
    .second_visit_i(step_q != 32'd0), .valid_i(insn_valid), .opcode_i(op), .unit_i(unit_w), .dp_i(dp_insn),
    .wide_i(wide_w), .sp_stream_shape_i(sp_stream), .has_b_i(has_b_w), .b_const_i(b_const_w),
    .hazard_i(hazard), .bad_register_i(bad_reg), .active_i(act_c), .guard_i(guard), .exec_i(exec_q), .pc_i(pc_q),
    .branch_target_i(branch_target), .sfu_operands_free_i(sfu_operands_free), .sp_take_i(sp_pipe_take),
    .sp_predicate_pending_i(sp_pipe_predicate_pending), .sp_occupied_i(sp_pipe_occupied), .sp_busy_i(sp_pipe_busy),
    .sp_retiring_i(sp_pipe_write_valid && sp_pipe_write_last), .choice_valid_i(sel_ok), .stop_i, .fault_i(flt_q),
    .placement_pending_i(bd_pending), .warp_exits_i(nlive_q == '0), .release_pending_i(rel_pend_q),
    .exec_o(dexec), .invalid_o(issue_invalid), .wait_scoreboard_o(issue_wait_scoreboard), .wait_sfu_o(issue_wait_sfu),
    .constant_o(issue_constant), .issue_o(disp_go), .hand_sp_o(sp_pipe_hand), .quick_o(ctl_quick),
    .quick_retire_o(ctl_go), .quick_pc_o(ctl_npc), .retire_hold_o(ret_hold), .select_o(sel_go)
  );

  // ---- block dispatch (rtl/sm/tsm_block_dispatch.sv, docs/sm-rtl.md §2.10): the resident blocks,
  // a block taken from the work distributor, its placement while the engine is in E_PLACE ----
  logic                 bd_pending, bd_done, bd_place_event, bd_warp_valid;
  logic [31:0]          bd_place_linear, bd_warp_lanes, bd_local_address;
  logic [BW-1:0]        bd_warp_block;
  logic [RA-1:0]        bd_warp_base, bd_zero_register_row;
  logic [3*DW-1:0]      bd_warp_thread;
  logic                 bd_zero_register, bd_zero_shared, bd_clear_barrier, bd_local_valid;
  logic [SRW-1:0]       bd_zero_shared_row;
  logic [3:0]           bd_clear_barrier_id;
  logic [WW-1:0]        bd_local_warp;
  logic [NB-1:0]        bd_valid;
  logic [NB*48-1:0]     bd_ctaid;
  logic [NB*5-1:0]      bd_unfinished;
  logic [NB*SAW-1:0]    bd_shared_base;
  tsm_block_dispatch #(
    .Blocks(NB), .BlockBits(BW), .Warps(W), .WarpBits(WW), .Rows(G), .RegisterRowBits(RA), .SharedBanks(SB),
    .SharedRowBits(SRW), .SharedAddrBits(SAW), .DimBits(DW), .LocalStride(LocalStride)
  ) u_block_dispatch (
    .clk_i, .rst_ni, .start_i, .accept_i(running_q && !flt_q && !stop_i),
    .threads_i, .warps_i, .registers_i(regs_i), .shared_bytes_i(shared_i), .local_bytes_i, .local_base_i, .sm_i(sm_id_i),
    .block_x_i, .block_y_i, .blocks_per_sm_i,
    .block_valid_i(blk_valid_i), .block_ready_o(blk_ready_o), .block_linear_i(blk_linear_i), .block_ctaid_i(blk_ctaid_i),
    .pending_o(bd_pending), .go_i(st_q == E_PLACE), .done_o(bd_done), .place_event_o(bd_place_event),
    .place_linear_o(bd_place_linear), .free_warp_i(free_warp), .warp_valid_o(bd_warp_valid), .warp_block_o(bd_warp_block),
    .warp_base_o(bd_warp_base), .warp_thread_o(bd_warp_thread),
    .warp_lanes_o(bd_warp_lanes), .zero_register_o(bd_zero_register), .zero_register_row_o(bd_zero_register_row),
    .zero_shared_o(bd_zero_shared), .zero_shared_row_o(bd_zero_shared_row), .clear_barrier_o(bd_clear_barrier),
    .clear_barrier_id_o(bd_clear_barrier_id), .local_request_valid_o(bd_local_valid),
    .local_request_ready_i(free_id_ok && rq_room), .local_request_address_o(bd_local_address),
    .local_request_warp_o(bd_local_warp), .finish_i(st_q == E_FIN), .finish_block_i(blk_c),
    .valid_o(bd_valid), .ctaid_o(bd_ctaid), .unfinished_o(bd_unfinished), .shared_base_o(bd_shared_base)
  );

  // ---- warp table (rtl/sm/tsm_warp_table.sv, docs/sm-rtl.md §2.3): every slot's warp, what it
  // waits for, and the engine's, block dispatch's, release walk's, memory tracker's and SFU pipe's
  // commands to it (table_*) ----
  tsm_warp_table #(.Warps(W), .WarpBits(WW), .BlockBits(BW), .RegisterRowBits(RA), .DimBits(DW)) u_warp_table (
    .clk_i, .rst_ni, .start_i,
    .place_i(table_place), .place_warp_i(free_warp), .place_pc_i(entry_pc_i), .place_lanes_i(bd_warp_lanes),
    .place_block_i(bd_warp_block), .place_base_i(bd_warp_base), .place_thread_i(bd_warp_thread),
    .warp_i(warp_q), .issue_i(table_issue), .scoreboard_wait_i(table_scoreboard_wait), .sfu_wait_i(table_sfu_wait),
    .sfu_issue_i(table_sfu_issue), .atomic_wait_i(table_atomic_wait), .load_issue_i(table_load_issue),
    .barrier_arrive_i(table_barrier_arrive), .barrier_id_i(barid_w), .reduction_i(table_reduction),
    .reduction_register_i(f_rd), .reduction_lanes_i(exec_q), .reduction_seq_i(seq_q),
    .pc_write_i(table_pc_write), .pc_i(table_pc), .lanes_write_i(table_lanes_write), .active_i(nact_q), .live_i(nlive_q),
    .finish_i(table_finish),
    .store_issue_i(table_store_issue), .store_warp_i(table_store_warp),
    .store_ack_i(mem_resp_valid_i && mem_resp_id_i < CcId && mem_resp_write_i), .store_ack_warp_i(mt_resp_warp),
    .release_slot_i(release_slot), .release_wake_i(st_q == E_REL && release_wake),
    .release_reduction_done_i(st_q == E_REL && release_reduction_done),
    .sfu_done_i(sfu_row_ready && sfu_row_last), .sfu_done_warp_i(sfu_row_warp), .sfu_free_i(sfu_operands_free),
    .slot_done_i(mt_done_valid), .slot_done_warp_i(mt_done_warp), .slot_done_atomic_i(mt_done_atomic),
    .valid_o(warp_valid), .ready_o(warp_ready), .free_o(free_warp), .barrier_wait_o(warp_barrier_wait),
    .scoreboard_wait_o(warp_scoreboard_wait), .atomic_wait_o(warp_atomic_wait), .sfu_o(warp_sfu),
    .sfu_wait_o(warp_sfu_wait), .pc_o(warp_pc), .active_o(warp_active), .live_o(warp_live), .seq_o(warp_seq),
    .block_o(warp_block), .base_o(warp_base), .thread_o(warp_thread), .barrier_o(warp_barrier),
    .reduction_o(warp_reduction), .reduction_register_o(warp_reduction_register),
    .reduction_lanes_o(warp_reduction_lanes), .reduction_seq_o(warp_reduction_seq),
    .loads_o(warp_loads), .stores_o(warp_stores)
  );

  // ---- warp scheduler (rtl/sm/tsm_warp_sched.sv, docs/sm-rtl.md §2.3): of the ready warps, the one
  // the engine selects next (E_IDLE, E_RET, a hand-over), by the launch's policy. A warp is ready
  // when it is resident, not at a barrier, not blocked by the scoreboard, without a global atomic
  // in flight and without an SFU instruction in (or parked for) the SFU sequencer. In E_RET the
  // retiring warp is not a candidate, its own state changes this clock; nor is, in E_DISPATCH, the
  // warp whose instruction goes to the back end. A warp placed (E_PLACE) is the youngest. ----
  logic         warp_placed;
  assign warp_placed = bd_warp_valid;
  tsm_warp_sched #(.Warps(W), .WarpBits(WW)) u_warp_sched (
    .clk_i, .rst_ni, .policy_i(sched_policy_i), .place_i(warp_placed), .place_warp_i(free_warp),
    .ready_i(warp_ready), .hold_valid_i(st_q == E_RET || st_q == E_DISPATCH), .hold_warp_i(warp_q),
    .choice_valid_o(sel_ok), .choice_warp_o(sel_w), .take_i(sel_go)
  );

  tsm_sp_pipe #(.Lanes(L), .Rows(G), .RowBits(GroupBits), .WarpBits(WW), .RegisterRowBits(RA)) u_sp_pipe (
    .clk_i, .rst_ni, .hand_valid_i(sp_pipe_hand), .take_o(sp_pipe_take), .write_contention_i(mt_row_phase || sfu_row_valid),
    .hand_insn_i(insn_q), .hand_base_i(base_c), .hand_registers_i({f_rd, f_rc, f_rb, f_ra}),
    .hand_a_used_i(rd_ra && f_ra != 8'd255), .hand_b_zero_i(f_rb == 8'd255), .hand_b_given_i(has_b_w && (b_const_w || b_imm_w)),
    .hand_c_used_i(f_rc != 8'd255), .hand_b_i(b_const_w ? bconst_q : imm_b), .hand_exec_i(dexec), .hand_active_i(act_c),
    .hand_seq_i(warp_seq[32*warp_q +: 32]), .hand_pc_i(pc_q), .hand_warp_i(warp_q), .hand_predicates_i(wp_c),
    .hand_predicate_i(sp_pev), .busy_o(sp_pipe_busy), .query_warp_i(warp_q), .query_occupied_o(sp_pipe_occupied),
    .query_predicate_pending_o(sp_pipe_predicate_pending), .read_valid_o(sp_pipe_read_valid), .read_rows_o(sp_pipe_read_rows),
    .execute_valid_o(sp_pipe_execute_valid), .execute_insn_o(sp_pipe_execute_insn), .read_data_i(rf_rdata),
    .execute_a_o(sp_pipe_a), .execute_b_o(sp_pipe_b), .execute_c_o(sp_pipe_c), .execute_predicates_o(sp_pipe_predicates),
    .write_valid_o(sp_pipe_write_valid), .write_last_o(sp_pipe_write_last), .write_warp_o(sp_pipe_write_warp),
    .write_seq_o(sp_pipe_write_seq), .write_pc_o(sp_pipe_write_pc), .write_active_o(sp_pipe_write_active),
    .write_exec_o(sp_pipe_write_exec), .write_group_o(sp_pipe_write_group), .write_lanes_o(sp_pipe_write_lanes),
    .write_row_o(sp_pipe_write_row), .write_register_o(sp_pipe_write_register), .write_predicate_o(sp_pipe_write_predicate)
  );

  // ---- the register-file row of operand A that E_SFU_RD reads (row step_q) ----
  logic [RA-1:0] st_ra;
  assign st_ra = rowof(base_c, f_ra, (GroupBits + 1)'(step_q));

  // ---- SP operands: row data of ports A, B, C; B replaced by the constant or immediate; the SP
  // pipe's stage X gives its own ----
  always_comb begin
    logic [L*7-1:0] wprow;  // the predicates of the row pipe's row
    // The row picked by comparing with each row number: a part select at (row * L + l) * 7 would
    // shift all 224 bits by a multiple of 7, once per lane.
    wprow = '0;
    for (int r = 0; r < G; r++) if (32'(rows_row) == r) wprow = wp_c[7*L*r +: 7*L];
    for (int l = 0; l < L; l++) begin
      sp_a[32*l +: 32] = (rd_ra && f_ra != 8'd255) ? rf_rdata[32*l +: 32] : 32'd0;
      sp_b[32*l +: 32] = (f_rb == 8'd255) ? 32'd0 : rf_rdata[L*32 + 32*l +: 32];
      if (has_b_w && b_const_w) sp_b[32*l +: 32] = bconst_q;
      if (has_b_w && b_imm_w) sp_b[32*l +: 32] = imm_b;
      sp_c[32*l +: 32] = (f_rc == 8'd255) ? 32'd0 : rf_rdata[2*L*32 + 32*l +: 32];
      sp_preds[8*l +: 8] = {1'b1, wprow[7*l +: 7]};
    end
    if (sp_pipe_execute_valid) begin
      sp_a = sp_pipe_a; sp_b = sp_pipe_b; sp_c = sp_pipe_c; sp_preds = sp_pipe_predicates;
    end
  end

  // ---- DP pipe (rtl/sm/tsm_dp_pipe.sv, docs/sm-rtl.md §2.7): a row's operands are captured from the
  // register file (low words, then high words), executed DpUnits lanes a clock (until dp_pipe_done)
  // and written from its results, as the row pipe (u_row_pipe) says. ----
  logic            dp_pipe_done;
  logic [L*32-1:0] dp_pipe_result_low, dp_pipe_result_high;
  logic [L-1:0]    dp_pipe_compare;  // DSETP's comparisons
  tsm_dp_pipe #(.Lanes(L), .Units(DpUnits), .Stages(2)) u_dp_pipe (
    .clk_i, .rst_ni, .insn_i(insn_q), .operation_i(dp_op),
    .capture_i(rows_dp_capture), .capture_high_i(rows_dp_capture_high), .read_data_i(rf_rdata),
    .a_used_i(rd_ra && f_ra != 8'd255), .a_wide_i(n_ra == 3'd2), .b_used_i(rd_b && f_rb != 8'd255), .b_wide_i(n_b == 3'd2),
    .c_used_i(rd_rc && f_rc != 8'd255), .c_wide_i(n_rc == 3'd2), .b_given_i(has_b_w && (b_const_w || b_imm_w)),
    .b_value_i(b_const_w ? {bconst_hi_q, bconst_q} : {imm20_w, 44'd0}),
    .execute_i(rows_dp_execute), .execute_done_o(dp_pipe_done),
    .result_low_o(dp_pipe_result_low), .result_high_o(dp_pipe_result_high), .compare_o(dp_pipe_compare)
  );


  // ---- warp-op pipe (rtl/sm/tsm_warp_ops_pipe.sv, docs/sm-rtl.md §2.10): S2R, VOTE and SHFL row by
  // row around their arithmetic (tsm_warp_ops), while the engine is in E_WARP_OP; SHFL gathers its
  // operands in the load/store unit's lane buffers ----
  logic [31:0] source_predicates;  // each lane's predicate operand, negation applied (VOTE, BAR.RED)
  always_comb for (int l = 0; l < 32; l++) source_predicates[l] = wp_s[l] ^ psn_w;
  tsm_warp_ops_pipe #(
    .Lanes(L), .Rows(G), .RowBits(GroupBits), .Warps(W), .WarpBits(WW), .DimBits(DW), .RegisterRowBits(RA)
  ) u_warp_ops_pipe (
    .clk_i, .rst_ni, .start_i(warp_op_start), .finish_o(warp_op_finish), .opcode_i(op), .ra_i(f_ra), .rb_i(f_rb),
    .rc_i(f_rc), .rd_i(f_rd), .predicate_i(pd2_w), .special_register_i(sreg_w), .vote_mode_i(vote_w),
    .shfl_mode_i(shfl_w), .b_const_i(b_const_w), .b_word_i(bconst_q), .b_immediate_i(b_imm_w),
    .b_immediate_value_i(imm_b), .exec_i(exec_q), .source_predicates_i(source_predicates), .warp_i(warp_q),
    .base_i(base_c), .thread_i(warp_thread[3*DW*warp_q +: 3*DW]), .clock_i(clock_q), .sm_i(sm_id_i),
    .sms_i(num_sms_i), .block_dim_i({block_z_i, block_y_i, block_x_i}), .block_index_i(bd_ctaid[48*blk_c +: 48]),
    .grid_dim_i({grid_z_i, grid_y_i, grid_x_i}),
    .read_rows_o(warp_op_read_rows), .read_data_i(rf_rdata), .write_valid_o(warp_op_write_valid),
    .write_lanes_o(warp_op_write_lanes), .write_row_o(warp_op_write_row), .write_data_o(warp_op_write_data),
    .event_valid_o(warp_op_event_valid), .event_kind_o(warp_op_event_kind), .event_register_o(warp_op_event_register),
    .event_group_o(warp_op_event_group), .event_lanes_o(warp_op_event_lanes), .event_data_o(warp_op_event_data),
    .row_o(warp_op_row), .predicate_lanes_o(warp_op_predicate_lanes), .predicate_values_o(warp_op_predicate_values),
    .borrow_write_o(warp_op_borrow_write), .borrow_a_o(warp_op_borrow_a), .borrow_b_o(warp_op_borrow_b),
    .borrow_c_o(warp_op_borrow_c), .borrow_b_i(lsu_borrow_b), .borrow_c_i(lsu_borrow_c),
    .borrow_read_o(warp_op_borrow_read), .borrow_lane_o(warp_op_borrow_lane), .lane_a_i(lsu_lane_a),
    .buffer_a_i(lsu_buffer_a), .state_o(warp_op_state)
  );

  // ---- predicates: the updates of the row's executing lanes, and the current warp's write-back ----
  // Which predicate of each lane a state writes (pu_we) and the value (pu_val); DSETP's predicate
  // row for its PRED events (dsetp_prow).
  /* verilator tracing_off */  // not traced: as wp_d above
  logic [L*7-1:0] pu_we, pu_val;
  /* verilator tracing_on */
  // The row written and its lanes: the warp-op pipe's (E_WARP_OP), else the row pipe's (E_ROWS).
  logic [GroupBits-1:0] predicate_row;
  logic [L-1:0]         predicate_lanes;
  assign predicate_row = st_q == E_WARP_OP ? warp_op_row : rows_row;
  assign predicate_lanes = st_q == E_WARP_OP ? warp_op_predicate_lanes : rows_row_lanes;
  always_comb begin
    pu_we = '0;
    pu_val = '0;
    for (int l = 0; l < L; l++) begin
      for (int pp = 0; pp < 7; pp++) begin
        unique case (st_q)
          E_WARP_OP: if (32'(pd2_w) == pp) begin pu_we[7*l + pp] = 1'b1; pu_val[7*l + pp] = warp_op_predicate_values[l]; end
          E_ROWS: begin pu_we[7*l + pp] = rows_predicate_we[7*l + pp]; pu_val[7*l + pp] = rows_predicate_values[7*l + pp]; end
          default: ;
        endcase
      end
      if (!predicate_lanes[l]) pu_we[7*l +: 7] = '0;
    end
    wp_d = wp_c;
    for (int l = 0; l < L; l++)
      for (int gg = 0; gg < G; gg++)
        for (int pp = 0; pp < 7; pp++)
          wp_d[(gg*L + l)*7 + pp] = (32'(predicate_row) == gg && pu_we[7*l + pp]) ? pu_val[7*l + pp] : wp_d[(gg*L + l)*7 + pp];
    // The current warp's predicates go back with constant indices (see §2.11 of docs/sm-rtl.md).
    pred_d = pred_q;
    for (int w = 0; w < W; w++) if (32'(warp_q) == w) pred_d[32*7*w +: 32*7] = wp_d;
    // The SP pipe's stage Y writes its row's predicates (never in a clock the engine writes any).
    for (int w = 0; w < W; w++)
      for (int gg = 0; gg < G; gg++)
        for (int l = 0; l < L; l++)
          for (int pp = 0; pp < 7; pp++)
            if (sp_pipe_write_valid && sp_pipe_write_predicate != 3'd7 && 32'(sp_pipe_write_warp) == w &&
                32'(sp_pipe_write_group) == gg && sp_pipe_write_lanes[l] && sp_pwe_o[8*l + pp])
              pred_d[32*7*w + (gg*L + l)*7 + pp] = sp_preds_o[8*l + pp];
  end

  // ---- row pipe (rtl/sm/tsm_row_pipe.sv, docs/sm-rtl.md §2.0): the SP instructions that do not
  // stream and the DP instructions, row by row through the SP lanes or the DP pipe, while the engine
  // is in E_ROWS ----
  tsm_row_pipe #(.Lanes(L), .Rows(G), .RowBits(GroupBits), .RegisterRowBits(RA)) u_row_pipe (
    .clk_i, .rst_ni, .start_i(rows_start), .finish_o(rows_finish), .dp_i(dp_insn), .wide_source_i(wide_w),
    .opcode_i(op), .ra_i(f_ra), .rb_i(f_rb), .rc_i(f_rc), .rd_i(f_rd), .rd_registers_i(n_rd), .pd_i(pd_w), .pq_i(pq_w),
    .carry_predicate_i(pcc_w), .writes_pd_i(writes_pd_w), .writes_pq_i(writes_pq_w), .carry_write_i(sp_pcc),
    .predicate_op_i(bop_w), .source_predicates_i(source_predicates), .exec_i(exec_q), .base_i(base_c),
    .read_rows_o(rows_read_rows), .read_data_i(rf_rdata), .write_valid_o(rows_write_valid),
    .write_lanes_o(rows_write_lanes), .write_row_o(rows_write_row), .write_data_o(rows_write_data),
    .event_valid_o(rows_event_valid), .event_kind_o(rows_event_kind), .event_register_o(rows_event_register),
    .event_group_o(rows_event_group), .event_lanes_o(rows_event_lanes), .event_data_o(rows_event_data),
    .row_o(rows_row), .row_lanes_o(rows_row_lanes), .predicate_we_o(rows_predicate_we),
    .predicate_values_o(rows_predicate_values), .lanes_valid_o(rows_lanes_valid), .lanes_high_o(rows_high),
    .lanes_result_i(sp_d), .lanes_result_high_i(sp_dhi), .lanes_write_i(sp_we_o), .lanes_wide_i(sp_wide_o),
    .lanes_predicates_i(sp_preds_o), .lanes_predicate_we_i(sp_pwe_o), .dp_capture_o(rows_dp_capture),
    .dp_capture_high_o(rows_dp_capture_high), .dp_execute_o(rows_dp_execute), .dp_done_i(dp_pipe_done),
    .dp_result_low_i(dp_pipe_result_low), .dp_result_high_i(dp_pipe_result_high), .dp_compare_i(dp_pipe_compare),
    .perf_sp_busy_o(rows_sp_busy), .state_o(rows_state)
  );

  // ---- load/store unit (rtl/sm/tsm_lsu.sv, docs/sm-rtl.md §2.9): a load, store or atomic from its
  // first address to its last request, while the engine is in E_LSU; its register-file, commit,
  // shared-memory, request-queue and memory-tracker requests go out through the engine's ports.
  // SHFL borrows its lane buffers (lsu_borrow_*). ----
  tsm_lsu #(
    .Lanes(L), .Rows(G), .RowBits(GroupBits), .Warps(W), .WarpBits(WW), .RegisterRowBits(RA), .SharedBanks(SB),
    .SharedRowBits(SRW), .IdBits(IdBits), .SlotBits($clog2(NSlots)), .LocalStride(LocalStride)
  ) u_lsu (
    .clk_i, .rst_ni, .start_i(lsu_start), .finish_o(lsu_finish), .park_o(lsu_park), .fault_o(lsu_fault),
    .fault_kind_o(lsu_fault_kind), .fault_address_o(lsu_fault_address), .fault_lane_o(lsu_fault_lane),
    .opcode_i(op), .ra_i(f_ra), .rb_i(f_rb), .rc_i(f_rc), .rd_i(f_rd), .load_i(is_load), .store_i(is_store),
    .atomic_i(is_atom), .compare_swap_i(is_cas), .atomic_64_i(a64), .atomic_type_i(atype_w), .atomic_op_i(aop_w),
    .shared_only_i(shared_only), .wide_address_i(wide_addr), .memory_size_i(msz), .access_bytes_i(nbytes),
    .access_words_i(nwords), .memory_offset_used_i(memoff_w), .memory_offset_i(moff_w), .const_offset_i(coff_w),
    .b_const_i(b_const_w), .b_word_i(bconst_q), .b_word_high_i(bconst_hi_q), .b_immediate_i(b_imm_w),
    .b_immediate_value_i(imm_b), .exec_i(exec_q), .warp_i(warp_q), .base_i(base_c),
    .shared_base_i(32'(bd_shared_base[SAW*blk_c +: SAW])), .shared_bytes_i(shared_i), .local_base_i, .local_bytes_i,
    .const_base_i(cbank_base_i[32*cbank_w +: 32]), .sm_i(sm_id_i),
    .read_rows_o(lsu_read_rows), .read_data_i(rf_rdata), .write_valid_o(lsu_write_valid),
    .write_lanes_o(lsu_write_lanes), .write_row_o(lsu_write_row), .write_data_o(lsu_write_data),
    .event_valid_o(lsu_event_valid), .event_kind_o(lsu_event_kind), .event_register_o(lsu_event_register),
    .event_group_o(lsu_event_group), .event_lanes_o(lsu_event_lanes), .event_data_o(lsu_event_data),
    .event_address_o(lsu_event_address), .event_mask_o(lsu_event_mask), .event_store_data_o(lsu_event_store_data),
    .bank_we_o(lsu_bank_we), .bank_be_o(lsu_bank_be), .bank_addr_o(lsu_bank_addr), .bank_wdata_o(lsu_bank_wdata),
    .bank_rdata_i(sh_rdata), .step_o(lsu_step), .step_pending_o(lsu_step_pending), .step_address_o(lsu_step_address),
    .step_data_o(lsu_step_data), .step_serve_i(sh_serve), .step_word_i(shd_word),
    .req_valid_o(lsu_req_valid), .req_id_o(lsu_req_id), .req_kind_o(lsu_req_kind), .req_addr_o(lsu_req_addr),
    .req_mask_o(lsu_req_mask), .req_data_o(lsu_req_data), .req_atom_o(lsu_req_atom), .req_room_i(rq_room),
    .free_id_i(free_id), .free_id_valid_i(free_id_ok), .free_slot_i(free_slot), .free_slot_valid_i(free_slot_ok),
    .id_alloc_o(lsu_id_alloc), .id_alloc_store_o(lsu_id_alloc_store), .id_alloc_slot_o(lsu_id_alloc_slot),
    .id_alloc_word_o(lsu_id_alloc_word), .id_alloc_lanes_o(lsu_id_alloc_lanes), .id_alloc_addr_o(lsu_id_alloc_addr),
    .id_alloc_local_o(lsu_id_alloc_local), .slot_alloc_o(lsu_slot_alloc), .slot_alloc_atomic_o(lsu_slot_alloc_atomic),
    .slot_alloc_wide_o(lsu_slot_alloc_wide), .slot_alloc_registers_o(lsu_slot_alloc_registers),
    .slot_alloc_size_o(lsu_slot_alloc_size), .slot_alloc_offsets_valid_o(lsu_slot_alloc_offsets_valid),
    .slot_offsets_o(lsu_slot_offsets), .slot_o(lsu_slot), .slot_request_o(lsu_slot_request),
    .slot_issued_o(lsu_slot_issued), .slot_atomic_o(lsu_slot_atomic),
    .load_issue_o(lsu_load_issue), .store_issue_o(lsu_store_issue), .perf_request_o(lsu_perf_request),
    .perf_conflict_o(lsu_perf_conflict), .perf_transactions_o(lsu_perf_transactions),
    .borrow_write_i(warp_op_borrow_write), .borrow_row_i(warp_op_row), .borrow_a_i(warp_op_borrow_a),
    .borrow_b_i(warp_op_borrow_b), .borrow_c_i(warp_op_borrow_c), .borrow_b_o(lsu_borrow_b), .borrow_c_o(lsu_borrow_c),
    .borrow_read_i(warp_op_borrow_read), .borrow_lane_i(warp_op_borrow_lane), .lane_a_o(lsu_lane_a),
    .buffer_a_o(lsu_buffer_a), .state_o(lsu_state)
  );

  // ---- barrier unit (rtl/sm/tsm_barrier.sv, docs/sm-rtl.md §2.8): the records of the blocks'
  // barriers; the arrival of the current warp (E_BAR_RD reads, E_BAR_UPD arrives) and, after a warp
  // exits, whether the barrier being checked is complete (E_FIN_BAR reads, E_FIN_BAR_CHK) ----
  logic [31:0] bar_votes, bu_val, fb_val;
  logic [5:0]  bu_count;
  logic        bu_rel, fb_rel;
  always_comb
    for (int l = 0; l < 32; l++) bar_votes[l] = exec_q[l] && (wp_s[l] ^ psn_w);
  tsm_barrier #(.Blocks(NB), .BlockBits(BW)) u_barrier (
    .clk_i, .block_i(bar_block), .barrier_i(bar_id), .clear_i(bar_clear), .arrive_i(bar_arrive),
    .arrive_reduce_i(op == tsm_isa_pkg::OP_BRED), .arrive_redop_i(redop_w), .arrive_count_i(bcount_w),
    .arrive_lanes_i(exec_q), .arrive_votes_i(bar_votes), .arrive_unfinished_i(bd_unfinished[5*blk_c +: 5]),
    .arrive_release_o(bu_rel), .arrive_value_o(bu_val), .arrive_count_o(bu_count),
    .check_unfinished_i(bd_unfinished[5*rel_blk_q +: 5]), .check_release_o(fb_rel), .check_value_o(fb_val)
  );

  // ---- a barrier's release (rtl/sm/tsm_barrier_release.sv, docs/sm-rtl.md §2.8): the walk over
  // the warp slots while the engine is in E_REL ----
  logic          release_done, release_wake, release_write, release_reduction_done, release_clear;
  logic [WW-1:0] release_slot;
  logic [L-1:0]  release_lanes;
  logic [RA-1:0] release_row;
  logic [GroupBits-1:0] release_group;
  tsm_barrier_release #(
    .Warps(W), .WarpBits(WW), .BlockBits(BW), .Lanes(L), .Rows(G), .RowBits(GroupBits), .RegisterRowBits(RA)
  ) u_barrier_release (
    .clk_i, .rst_ni, .go_i(st_q == E_REL), .block_i(rel_blk_q), .id_i(rel_id_q), .done_o(release_done),
    .slot_o(release_slot), .slot_valid_i(warp_valid[release_slot]), .slot_block_i(warp_block[BW*release_slot +: BW]),
    .slot_waiting_i(warp_barrier_wait[release_slot]), .slot_barrier_i(warp_barrier[4*release_slot +: 4]),
    .slot_reduction_i(warp_reduction[release_slot]), .slot_reduction_lanes_i(warp_reduction_lanes[32*release_slot +: 32]),
    .slot_reduction_register_i(warp_reduction_register[8*release_slot +: 8]), .slot_base_i(warp_base[RA*release_slot +: RA]),
    .wake_o(release_wake), .write_o(release_write), .write_lanes_o(release_lanes), .write_row_o(release_row),
    .write_group_o(release_group), .reduction_done_o(release_reduction_done), .clear_o(release_clear)
  );

  // ---- branch unit (rtl/sm/tsm_branch.sv, docs/sm-rtl.md §2.5): what the current control
  // instruction does to its warp (E_CT) ----
  logic [W*SPW-1:0] stk_depth;
  logic [31:0]      branch_target;
  logic             branch_fault;
  logic [3:0]       branch_fault_kind;
  logic             branch_push, branch_pop, branch_leave, branch_exit;
  logic [1:0]       branch_push_kind, branch_leave_kind;
  logic [31:0]      branch_push_mask, branch_push_pc;
  logic             branch_next_pc_valid, branch_next_active_valid, branch_next_live_valid;
  logic [31:0]      branch_next_pc, branch_next_active, branch_next_live;
  tsm_branch #(.Depth(SD), .DepthBits(SPW)) u_branch (
    .opcode_i(op), .target_i(target_w), .pc_i(pc_q), .exec_i(exec_q), .active_i(act_c), .live_i(live_c), .depth_i(spt_c),
    .target_o(branch_target), .fault_o(branch_fault), .fault_kind_o(branch_fault_kind),
    .push_o(branch_push), .push_kind_o(branch_push_kind), .push_mask_o(branch_push_mask), .push_pc_o(branch_push_pc),
    .pop_o(branch_pop), .leave_o(branch_leave), .leave_kind_o(branch_leave_kind), .exit_o(branch_exit),
    .next_pc_valid_o(branch_next_pc_valid), .next_pc_o(branch_next_pc), .next_active_valid_o(branch_next_active_valid),
    .next_active_o(branch_next_active), .next_live_valid_o(branch_next_live_valid), .next_live_o(branch_next_live)
  );

  // ---- reconvergence stack (rtl/sm/tsm_simt_stack.sv, docs/sm-rtl.md §2.5): E_CT pushes an entry or
  // starts a walk (SYNC's pop, BRK's and RET's leave, EXIT) as the branch unit decides, E_STK waits
  // for its end ----
  logic             stk_clear, stk_command;
  logic [31:0]      stk_active, stk_pc;
  logic             stk_idle, stk_done, stk_fault, stk_active_valid, stk_pc_valid;
  assign stk_command = st_q == E_CT && !branch_fault;
  tsm_simt_stack #(.Warps(W), .WarpBits(WW), .Depth(SD), .DepthBits(SPW)) u_simt_stack (
    .clk_i, .rst_ni, .depth_o(stk_depth), .clear_i(stk_clear), .clear_warp_i(free_warp),
    .warp_i(warp_q), .push_i(stk_command && branch_push), .push_kind_i(branch_push_kind), .push_mask_i(branch_push_mask),
    .push_pc_i(branch_push_pc), .pop_i(stk_command && branch_pop), .leave_i(stk_command && branch_leave),
    .leave_kind_i(branch_leave_kind), .exit_i(stk_command && branch_exit),
    .lanes_i(exec_q), .active_i(act_c), .live_i(nlive_q), .pc_i(pc_q),
    .idle_o(stk_idle), .done_o(stk_done), .fault_o(stk_fault),
    .active_valid_o(stk_active_valid), .active_o(stk_active), .pc_valid_o(stk_pc_valid), .pc_o(stk_pc)
  );
  logic unused_stk_idle;
  assign unused_stk_idle = stk_idle;  // the engine is in E_STK exactly while the stack walks

  // ---- memory tracker (rtl/sm/tsm_mem_tracker.sv, docs/sm-rtl.md §2.9): the request-ID table, the
  // load-slot table and the response processor. The load/store states allocate IDs (ida_*, at
  // free_id) and slots (sla_*, at free_slot) and mark the slot they issue (slc_inc, sld_*, at
  // cslot_q); it offers rows of load data and atomic retirements for the write and commit ports,
  // and reports a slot done to the warp table ----
  logic          ida_we, ida_store, ida_loc;
  logic [2:0]    ida_slot;
  logic [1:0]    ida_k;
  logic [31:0]   ida_lanes, ida_addr;
  logic [WW-1:0] ida_warp;
  logic          sla_we, sla_atom, sla_w64, sla_off, slc_inc, sld_ret, sld_atom;
  logic [2:0]    sla_n, sla_msz;
  logic [NSlots-1:0]    mt_slot_valid;
  logic [NSlots*WW-1:0] mt_slot_warp;
  logic [NSlots*8-1:0]  mt_slot_register;
  logic [NSlots*3-1:0]  mt_slot_registers;
  logic [NIds-1:0]      mt_id_busy;
  logic [WW-1:0]        mt_resp_warp, mt_row_warp, mt_retire_warp, mt_done_warp;
  logic                 mt_resp_store, mt_row_valid, mt_row_ready, mt_row_phase, mt_retire_valid, mt_retire_ready;
  logic                 mt_done_valid, mt_done_atomic, mt_idle;
  logic [31:0]          mt_resp_pc, mt_resp_addr, mt_row_seq, mt_retire_seq, mt_retire_pc, mt_retire_active, mt_retire_exec;
  logic [L-1:0]         mt_row_lanes;
  logic [RA-1:0]        mt_row_address;
  logic [L*32-1:0]      mt_row_data;
  logic [7:0]           mt_row_register;
  logic [GroupBits-1:0] mt_row_group;
  tsm_mem_tracker #(
    .Lanes(L), .Rows(G), .RowBits(GroupBits), .Warps(W), .WarpBits(WW), .RegAddrBits(RA), .Ids(NIds), .Slots(NSlots)
  ) u_mem_tracker (
    .clk_i, .rst_ni, .start_i,
    .free_id_o(free_id), .free_id_valid_o(free_id_ok), .free_slot_o(free_slot), .free_slot_valid_o(free_slot_ok),
    .id_alloc_i(ida_we), .id_alloc_store_i(ida_store), .id_alloc_slot_i(ida_slot), .id_alloc_word_i(ida_k),
    .id_alloc_lanes_i(ida_lanes), .id_alloc_addr_i(ida_addr), .id_alloc_local_i(ida_loc), .id_alloc_warp_i(ida_warp),
    .slot_alloc_i(sla_we), .slot_alloc_atomic_i(sla_atom), .slot_alloc_wide_i(sla_w64), .slot_alloc_warp_i(warp_q),
    .slot_alloc_register_i(f_rd), .slot_alloc_registers_i(sla_n), .slot_alloc_size_i(sla_msz),
    .slot_alloc_seq_i(seq_q), .slot_alloc_pc_i(pc_q), .slot_alloc_active_i(act_c), .slot_alloc_exec_i(exec_q),
    .slot_alloc_offsets_valid_i(sla_off), .slot_alloc_offsets_i(lsu_slot_offsets),
    .slot_index_i(lsu_slot), .slot_request_i(slc_inc), .slot_issued_i(sld_ret), .slot_atomic_i(sld_atom),
    .slot_valid_o(mt_slot_valid), .slot_warp_o(mt_slot_warp), .slot_register_o(mt_slot_register),
    .slot_registers_o(mt_slot_registers), .id_busy_o(mt_id_busy),
    .resp_valid_i(mem_resp_valid_i && mem_resp_id_i < CcId), .resp_id_i(mem_resp_id_i[5:0]),
    .resp_write_i(mem_resp_write_i), .resp_data_i(mem_resp_data_i),
    .resp_warp_o(mt_resp_warp), .resp_store_o(mt_resp_store), .resp_pc_o(mt_resp_pc), .resp_addr_o(mt_resp_addr),
    .warp_base_i(warp_base),
    .row_valid_o(mt_row_valid), .row_ready_i(mt_row_ready), .row_lanes_o(mt_row_lanes), .row_address_o(mt_row_address),
    .row_data_o(mt_row_data), .row_warp_o(mt_row_warp), .row_seq_o(mt_row_seq), .row_register_o(mt_row_register),
    .row_group_o(mt_row_group), .row_phase_o(mt_row_phase),
    .retire_valid_o(mt_retire_valid), .retire_ready_i(mt_retire_ready), .retire_warp_o(mt_retire_warp),
    .retire_seq_o(mt_retire_seq), .retire_pc_o(mt_retire_pc), .retire_active_o(mt_retire_active),
    .retire_exec_o(mt_retire_exec),
    .done_valid_o(mt_done_valid), .done_warp_o(mt_done_warp), .done_atomic_o(mt_done_atomic), .idle_o(mt_idle)
  );

  // ===================================================================================================
  // Engine: one warp instruction at a time, row by row (docs/sm-rtl.md §2.0). Its register-file
  // writes and commit events (rf_we .., ev_*) are requests to the write-back arbiter (u_writeback),
  // which gives the ports it leaves free to the SP pipe, the SFU pipe and the memory tracker.
  // ===================================================================================================
  logic          eng_rf_busy;
  always_comb begin
    // The block declares no variable: each would be held in every state (docs/sm-rtl.md §2.11).
    // ---- defaults: hold every register ----
    st_d = st_q; running_d = running_q;
    table_place = 1'b0; table_issue = 1'b0; table_scoreboard_wait = 1'b0; table_sfu_wait = 1'b0; table_sfu_issue = 1'b0;
    table_atomic_wait = 1'b0; table_load_issue = 1'b0; table_barrier_arrive = 1'b0; table_reduction = 1'b0;
    table_pc_write = 1'b0; table_pc = npc_q; table_lanes_write = 1'b0; table_finish = 1'b0;
    table_store_issue = 1'b0; table_store_warp = warp_q;
    warp_d = warp_q; insn_d = insn_q; pc_d = pc_q; exec_d = exec_q; seq_d = seq_q; bconst_d = bconst_q; bconst_hi_d = bconst_hi_q;
    npc_d = npc_q; nact_d = nact_q; nlive_d = nlive_q; step_d = step_q;
    rel_pend_d = rel_pend_q; fin_d = fin_q;
    rel_blk_d = rel_blk_q; rel_id_d = rel_id_q; rel_val_d = rel_val_q; fin_id_d = fin_id_q;
    clock_d = clock_q + 64'd1;
    caddr_d = caddr_q;
    flt_d = flt_q; flt_kind_d = flt_kind_q; flt_warp_d = flt_warp_q; flt_pc_d = flt_pc_q;
    flt_addr_d = flt_addr_q; flt_lane_d = flt_lane_q;
    ef_src = EF_NONE;

    // ---- default port values ----
    rf_raddr = '0; rf_we = '0; rf_waddr = '0; rf_wdata = '0;
    ic_miss = 1'b0; ic_read_pc = pc_q; cc_lookup = 1'b0; cc_clear = 1'b0; cc_miss = 1'b0; cc_fill = 1'b0;
    stk_clear = 1'b0;
    bar_block = '0; bar_id = '0; bar_clear = 1'b0; bar_arrive = 1'b0;
    sh_we = '0; sh_be = '0; sh_addr = '0; sh_wdata = '0; lsu_start = 1'b0; warp_op_start = 1'b0; rows_start = 1'b0;
    rq_valid = 1'b0; rq_id = '0; rq_kind = 2'd0; rq_addr = '0;
    rq_mask = '0; rq_data = '0; rq_atom = '0;
    ida_we = 1'b0; ida_store = 1'b0; ida_slot = '0; ida_k = '0; ida_lanes = '0; ida_addr = '0; ida_loc = 1'b0;
    ida_warp = '0;
    sla_we = 1'b0; sla_atom = 1'b0; sla_w64 = 1'b0; sla_off = 1'b0; sla_n = '0; sla_msz = '0; slc_inc = 1'b0;
    sld_ret = 1'b0; sld_atom = 1'b0;
    ev_valid = 1'b0; ev_kind = EV_RETIRE; ev_warp = warp_q; ev_seq = seq_q; ev_pc = pc_q; ev_active = '0;
    ev_exec = '0; ev_exit = 1'b0; ev_reg = '0; ev_group = '0; ev_lanes = '0; ev_data = '0; ev_addr = '0;
    ev_mask = '0; ev_wdata = '0;
    rt_valid = 1'b0;
    sp_valid = 1'b0; sfu_start = 1'b0; sfu_capture = 1'b0; sfu_capture_row = '0; 
    perf_o = '0; perf_lanes_o = '0; perf_tx_o = '0;

    eng_rf_busy = 1'b0;

    // ---- memory responses: always accepted ----
    if (mem_resp_valid_i) begin
      // A store's acknowledgement lowers its warp's stores in flight (the warp table); load data and
      // atomic old values go to the memory tracker, the caches' lines to the caches.
      if (mem_resp_err_i && !flt_q && mem_resp_id_i < CcId) begin
        flt_d = 1'b1; flt_kind_d = F_OOB; flt_warp_d = 32'(mt_resp_warp);
        flt_pc_d = mt_resp_store ? 32'hFFFF_FFFF : mt_resp_pc;
        flt_addr_d = mt_resp_addr; flt_lane_d = 32'hFFFF_FFFF;
      end
    end

    if (start_i) begin
      running_d = 1'b1;
      flt_d = 1'b0; flt_kind_d = '0; flt_warp_d = '0; flt_pc_d = '0; flt_addr_d = '0; flt_lane_d = '0;
      clock_d = '0;
    end

    // ---- engine ----
    unique case (st_q)
      E_HALT: ;
      E_CLEAR: begin
        cc_clear = 1'b1;
        step_d = step_q + 32'd1;
        if (step_q + 32'd1 == CcLines) st_d = E_IDLE;
      end
      E_FAULT: begin
        if (!flt_q) begin
          flt_d = 1'b1;
        end
        st_d = E_HALT;
      end

      E_IDLE: begin
        if (flt_q || stop_i) begin
          st_d = E_HALT;
        end else if (bd_pending) begin
          if (!sp_pipe_busy) st_d = E_PLACE;  // placement writes registers and commits a PLACE event
        end else if (sel_ok) begin
          // Select a warp: after the case (sel_go).
        end else if (|warp_valid && (warp_valid & ~warp_barrier_wait) == '0 && mt_slot_valid == '0 && mt_idle) begin
          // Every resident warp waits at a barrier that cannot complete.
          flt_kind_d = F_DEADLOCK; ef_src = EF_DEADLOCK;
          st_d = E_FAULT;
        end
        if (|warp_valid && !sel_ok) begin
          perf_o[4] = |(warp_valid & warp_scoreboard_wait);   // scoreboard stall
          perf_o[5] = |(warp_valid & warp_barrier_wait); // barrier stall
        end
      end

      // ---- block placement (u_block_dispatch): its PLACE event, its warps into the warp table, its
      // registers, shared memory and barriers zeroed, its local memory zeroed by line stores ----
      E_PLACE: begin
        if (bd_place_event) begin
          ev_valid = 1'b1; ev_kind = EV_PLACE; ev_data[31:0] = bd_place_linear;
        end
        if (bd_warp_valid) begin
          table_place = 1'b1;  // the warp into the warp table
          stk_clear = 1'b1;
        end
        if (bd_zero_register) begin
          rf_we = '1;
          rf_waddr = bd_zero_register_row;
          eng_rf_busy = 1'b1;
        end
        if (bd_zero_shared) begin
          sh_we = '1;
          sh_be = '1;
          sh_addr = {SB{bd_zero_shared_row}};
        end
        if (bd_clear_barrier) begin
          bar_clear = 1'b1;
          bar_block = bd_warp_block;
          bar_id = bd_clear_barrier_id;
        end
        if (bd_local_valid) begin
          rq_valid = free_id_ok;
          rq_id = IdBits'(free_id);
          rq_kind = 2'd1;
          rq_addr = bd_local_address;
          rq_mask = 16'hFFFF;
          rq_data = '0;
          if (free_id_ok && rq_room) begin
            ida_we = 1'b1; ida_store = 1'b1; ida_addr = rq_addr; ida_warp = bd_local_warp;
            table_store_issue = 1'b1; table_store_warp = bd_local_warp;
          end
        end
        if (bd_done) st_d = E_IDLE;
      end

      // ---- fetch and decode ----
      E_FETCH: begin
        if (pc_q >= code_words_i) begin
          flt_kind_d = F_INVALID; ef_src = EF_PLAIN;
          st_d = E_FAULT;
        end else if (ic_hit) begin
          st_d = E_DECODE;  // u_fetch reads pc_q's instruction (ic_read_pc)
        end else if (ic_prefetch_busy) begin
          perf_o[6] = 1'b1;  // a miss waits for the prefetch in flight (it may be this line, or share its cache line)
        end else begin
          ic_miss = 1'b1;
          st_d = E_IC_REQ;
          perf_o[6] = 1'b1;
        end
      end
      E_IC_REQ: begin
        perf_o[6] = 1'b1;
        rq_valid = 1'b1;
        rq_id = ic_req_id;
        rq_kind = 2'd0;
        rq_addr = ic_req_addr;
        if (rq_room) begin
          perf_o[7] = 1'b1;
          if (ic_req_last) st_d = E_IC_WAIT;
        end
      end
      E_IC_WAIT: begin
        perf_o[6] = 1'b1;
        if (ic_fill_done) st_d = E_FETCH;
      end
      E_DECODE: begin
        insn_d = pc_q[0] ? ic_rdata[127:64] : ic_rdata[63:0];
        st_d = E_DISPATCH;  // checks happen in E_DISPATCH with insn_q valid
        step_d = '0;
      end
      E_DISPATCH: begin
        if (step_q == 32'd0) begin
          // First visit: checks, guard, scoreboard.
          exec_d = act_c & guard;
          if (issue_invalid) begin
            flt_kind_d = F_INVALID; ef_src = EF_PLAIN;
            st_d = E_FAULT;
          end else if (issue_wait_scoreboard) begin
            table_scoreboard_wait = op != tsm_isa_pkg::OP_MEMBAR;
            st_d = E_IDLE;
          end else if (issue_wait_sfu) begin
            // The SFU sequencer still feeds another instruction: park the warp until it is done.
            table_sfu_wait = 1'b1;
            st_d = E_IDLE;
          end else if (issue_constant) begin
            caddr_d = cbank_base_i[32*cbank_w +: 32] + 32'(coff_w);
            st_d = E_CONST;
          end
        end
        if (disp_go) begin
          // Go: the instruction issues.
          seq_d = warp_seq[32*warp_q +: 32];
          table_issue = 1'b1;
          npc_d = pc_q + 32'd1;
          nact_d = act_c;
          nlive_d = live_c;
          step_d = '0;
          rel_pend_d = 1'b0;
          fin_d = 1'b0;
          unique case (unit_w)
            tsm_isa_pkg::UNIT_SFU: st_d = E_SFU_RD;
            tsm_isa_pkg::UNIT_MEM: begin
              if (op == tsm_isa_pkg::OP_MEMBAR) st_d = E_RET;
              else begin
                lsu_start = 1'b1;
                st_d = E_LSU;
              end
            end
            tsm_isa_pkg::UNIT_CTRL: st_d = ctl_quick ? E_IDLE : E_CT;  // quick: retired below; the next warp after the case
            tsm_isa_pkg::UNIT_SYNC: st_d = E_BAR_RD;
            default: begin
              if (dp_insn) begin
                rows_start = 1'b1;
                st_d = E_ROWS;
              end
              else if (op == tsm_isa_pkg::OP_S2R || op == tsm_isa_pkg::OP_VOTE || op == tsm_isa_pkg::OP_SHFL) begin
                warp_op_start = 1'b1;
                st_d = E_WARP_OP;
              end
              else if (wide_w) begin
                rows_start = 1'b1;
                st_d = E_ROWS;
              end
              else if (sp_stream) st_d = E_IDLE;  // handed to the back end (sp_pipe_hand); the next warp: after the case
              else begin
                rows_start = 1'b1;
                st_d = E_ROWS;
              end
            end
          endcase
        end
      end
      E_CONST: begin
        cc_lookup = 1'b1;
        st_d = E_CONST_CHK;
      end
      E_CONST_CHK: begin
        cc_lookup = 1'b1;
        if (cc_hit) begin
          bconst_d = cc_word;
          bconst_hi_d = cc_word_hi;
          step_d = 32'd1;
          st_d = E_DISPATCH;
        end else begin
          cc_miss = 1'b1;
          st_d = E_CC_REQ;
        end
      end
      E_CC_REQ: begin
        perf_o[6] = 1'b1;
        cc_lookup = 1'b1;
        rq_valid = 1'b1;
        rq_id = cc_req_id;
        rq_kind = 2'd0;
        rq_addr = cc_req_addr;
        if (rq_room) begin
          perf_o[7] = 1'b1;
          st_d = E_CC_WAIT;
        end
      end
      E_CC_WAIT: begin
        perf_o[6] = 1'b1;
        cc_lookup = 1'b1;
        if (cc_line_in) begin
          cc_fill = 1'b1;
          st_d = E_CONST;
        end
      end

      // ---- SP rows that do not stream, DP rows (u_row_pipe): its register-file, commit and
      // predicate requests go out through the engine's ports until it finishes ----
      E_ROWS: begin
        rf_raddr = rows_read_rows;
        rf_we = rows_write_lanes;
        rf_waddr = rows_write_row;
        rf_wdata = rows_write_data;
        eng_rf_busy = rows_write_valid;
        ev_valid = rows_event_valid; ev_kind = rows_event_kind; ev_reg = rows_event_register;
        ev_group = rows_event_group; ev_lanes = rows_event_lanes; ev_data = rows_event_data;
        sp_valid = rows_lanes_valid;
        perf_o[2] = rows_sp_busy;
        if (rows_finish) st_d = E_RET;
      end

      // ---- SFU: the operands into the SFU sequencer, which runs the instruction beside the engine ----
      E_SFU_RD: begin
        // Operand rows stream into the SFU sequencer at one a clock (read row cnt, capture row
        // cnt - 1); then the instruction retires and its rows run beside the engine.
        if (step_q < 32'(G)) rf_raddr[0 +: RA] = st_ra;
        if (step_q >= 32'd1) begin
          sfu_capture = 1'b1;
          sfu_capture_row = (GroupBits + 1)'(step_q - 32'd1);
        end
        step_d = step_q + 32'd1;
        if (step_q == 32'(G)) st_d = E_SFU_GO;
      end
      E_SFU_GO: begin
        // Hand over when the sequencer has written the previous instruction's last row.
        if (!sfu_busy) begin
          sfu_start = 1'b1;
          table_sfu_issue = 1'b1;
          st_d = E_RET;
        end
      end

      // ---- S2R, VOTE, SHFL (u_warp_ops_pipe): its register-file, commit and predicate requests go
      // out through the engine's ports until it finishes ----
      E_WARP_OP: begin
        rf_raddr = warp_op_read_rows;
        rf_we = warp_op_write_lanes;
        rf_waddr = warp_op_write_row;
        rf_wdata = warp_op_write_data;
        eng_rf_busy = warp_op_write_valid;
        ev_valid = warp_op_event_valid; ev_kind = warp_op_event_kind; ev_reg = warp_op_event_register;
        ev_group = warp_op_event_group; ev_lanes = warp_op_event_lanes; ev_data = warp_op_event_data;
        if (warp_op_finish) st_d = E_RET;
      end

      // ---- control flow ----
      E_CT: begin
        // The branch unit's decision (u_branch): a fault, or the stack's push or walk (E_STK), and the
        // warp's next PC and lanes.
        st_d = branch_fault ? E_FAULT : (branch_pop || branch_leave || branch_exit) ? E_STK : E_RET;
        if (branch_fault) begin
          flt_kind_d = branch_fault_kind; ef_src = (branch_fault_kind == F_TRAP) ? EF_TRAP : EF_PLAIN;
        end
        if (branch_next_pc_valid) npc_d = branch_next_pc;
        if (branch_next_active_valid) nact_d = branch_next_active;
        if (branch_next_live_valid) nlive_d = branch_next_live;
      end
      E_STK: begin
        // The reconvergence stack walks (u_simt_stack): the warp's new active lanes and PC as it
        // gives them, until it is done (or finds no entry for BRK or RET).
        if (stk_active_valid) nact_d = stk_active;
        if (stk_pc_valid) npc_d = stk_pc;
        if (stk_fault) begin
          flt_kind_d = F_UNDERFLOW; ef_src = EF_PLAIN;
          st_d = E_FAULT;
        end else if (stk_done) st_d = E_RET;
      end

      // ---- barriers ----
      E_BAR_RD: begin
        bar_block = blk_c;
        bar_id = barid_w;
        if (exec_q == '0) st_d = E_RET;
        else if (exec_q != act_c || act_c != live_c) begin
          flt_kind_d = F_DIVBAR; ef_src = EF_PLAIN;
          st_d = E_FAULT;
        end else if (bcount_w[4:0] != 5'd0) begin
          flt_kind_d = F_INVALID; ef_src = EF_PLAIN;
          st_d = E_FAULT;
        end else st_d = E_BAR_UPD;
      end
      E_BAR_UPD: begin
        // The arrival itself: the barrier unit (bu_rel, bu_val).
        // The warp waits (BAR.SYNC, BAR.RED), BAR.RED's value to its destination (the warp table).
        table_reduction = op == tsm_isa_pkg::OP_BRED;
        table_barrier_arrive = op == tsm_isa_pkg::OP_BRED || barmode_w;
        bar_arrive = 1'b1;
        bar_block = blk_c;
        bar_id = barid_w;
        if (bu_rel) begin
          rel_pend_d = 1'b1;
          rel_blk_d = blk_c;
          rel_id_d = barid_w;
          rel_val_d = bu_val;
        end
        st_d = E_RET;
      end
      E_REL: begin
        // The release walk (u_barrier_release): the block's waiting warps leave the barrier, one warp
        // slot a clock, BAR.RED's value written to each that asked for it; then the record is cleared.
        if (release_write) begin
          rf_we = release_lanes;
          rf_waddr = release_row;
          rf_wdata = {L{rel_val_q}};
          eng_rf_busy = 1'b1;
          ev_valid = 1'b1; ev_kind = EV_REG; ev_warp = release_slot; ev_seq = warp_reduction_seq[32*release_slot +: 32];
          ev_reg = warp_reduction_register[8*release_slot +: 8]; ev_group = release_group; ev_lanes = release_lanes;
          ev_data = {L{rel_val_q}};
        end
        if (release_clear) begin
          bar_clear = 1'b1;
          bar_block = rel_blk_q;
          bar_id = rel_id_q;
        end
        if (release_done) begin
          rel_pend_d = 1'b0;
          if (fin_q) begin
            fin_id_d = fin_id_q + 5'd1;
            st_d = (fin_id_q + 5'd1 == 5'd16) ? E_IDLE : E_FIN_BAR;
          end else st_d = E_IDLE;
        end
      end

      // ---- load/store unit (u_lsu): its requests go out through the engine's ports until it
      // finishes (the instruction retires), parks the warp (a global atomic waits for its old
      // values) or finds an address fault ----
      E_LSU: begin
        rf_raddr = lsu_read_rows;
        rf_we = lsu_write_lanes;
        rf_waddr = lsu_write_row;
        rf_wdata = lsu_write_data;
        eng_rf_busy = lsu_write_valid;
        ev_valid = lsu_event_valid; ev_kind = lsu_event_kind; ev_reg = lsu_event_register; ev_group = lsu_event_group;
        ev_lanes = lsu_event_lanes; ev_data = lsu_event_data; ev_addr = lsu_event_address; ev_mask = lsu_event_mask;
        ev_wdata = lsu_event_store_data;
        sh_we = lsu_bank_we; sh_be = lsu_bank_be; sh_addr = lsu_bank_addr; sh_wdata = lsu_bank_wdata;
        rq_valid = lsu_req_valid; rq_id = lsu_req_id; rq_kind = lsu_req_kind; rq_addr = lsu_req_addr;
        rq_mask = lsu_req_mask; rq_data = lsu_req_data; rq_atom = lsu_req_atom;
        ida_we = lsu_id_alloc; ida_store = lsu_id_alloc_store; ida_slot = lsu_id_alloc_slot; ida_k = lsu_id_alloc_word;
        ida_lanes = lsu_id_alloc_lanes; ida_addr = lsu_id_alloc_addr; ida_loc = lsu_id_alloc_local; ida_warp = warp_q;
        sla_we = lsu_slot_alloc; sla_atom = lsu_slot_alloc_atomic; sla_w64 = lsu_slot_alloc_wide;
        sla_n = lsu_slot_alloc_registers; sla_msz = lsu_slot_alloc_size; sla_off = lsu_slot_alloc_offsets_valid;
        slc_inc = lsu_slot_request; sld_ret = lsu_slot_issued; sld_atom = lsu_slot_atomic;
        table_load_issue = lsu_load_issue;
        table_store_issue = lsu_store_issue;
        perf_o[7] = lsu_perf_request;
        perf_o[8] = lsu_perf_conflict;
        perf_tx_o = lsu_perf_transactions;
        if (lsu_fault) begin
          flt_kind_d = lsu_fault_kind; ef_src = EF_AG;
          st_d = E_FAULT;
        end else if (lsu_park) begin
          // A global atomic retires when its old values are back (the memory tracker).
          table_atomic_wait = 1'b1;
          table_pc_write = 1'b1;
          perf_o[0] = 1'b1;
          perf_lanes_o = popc_exec;
          st_d = E_IDLE;
        end else if (lsu_finish) st_d = E_RET;
      end

      // ---- retire and warp end ----
      E_RET: begin
        // The RETIRE goes on the retire channel, since the back end may use the commit port; in the
        // clock the back end retires an instruction, this one waits (one retirement a clock).
        if (!ret_hold) begin
          rt_valid = 1'b1;
          table_pc_write = 1'b1;
          table_lanes_write = 1'b1;
          perf_o[0] = 1'b1;
          perf_lanes_o = popc_exec;
          if (nlive_q == '0) st_d = E_FIN;
          else if (rel_pend_q) begin
            st_d = E_REL;
          end else if (!sel_go) st_d = E_IDLE;  // else the next warp (never this one): after the case
        end
      end
      E_FIN: begin
        table_finish = 1'b1;
        // The block dispatch lowers the block's unfinished warps (bd_finish); the last frees the block.
        if (bd_unfinished[5*blk_c +: 5] == 5'd1) begin
          st_d = E_IDLE;
        end else begin
          // One warp fewer may complete a barrier of the block.
          fin_d = 1'b1;
          fin_id_d = '0;
          rel_blk_d = blk_c;
          st_d = E_FIN_BAR;
        end
      end
      E_FIN_BAR: begin
        bar_block = rel_blk_q;
        bar_id = fin_id_q[3:0];
        st_d = E_FIN_BAR_CHK;
      end
      E_FIN_BAR_CHK: begin
        if (fb_rel) begin
          rel_id_d = fin_id_q[3:0];
          rel_val_d = fb_val;
          st_d = E_REL;
        end else begin
          fin_id_d = fin_id_q + 5'd1;
          st_d = (fin_id_q + 5'd1 == 5'd16) ? E_IDLE : E_FIN_BAR;
        end
      end
      default: st_d = E_HALT;
    endcase
    // Where the engine found a fault, the warp, PC, address and lane it records (set here, once,
    // rather than at every site inside the case: each site would add its own multiplexers).
    unique case (ef_src)
      EF_PLAIN: begin
        flt_warp_d = 32'(warp_q); flt_pc_d = pc_q; flt_addr_d = '0; flt_lane_d = 32'hFFFF_FFFF;
      end
      EF_TRAP: begin
        flt_warp_d = 32'(warp_q); flt_pc_d = pc_q; flt_addr_d = '0; flt_lane_d = 32'(ctz_exec);
      end
      EF_AG: begin
        flt_warp_d = 32'(warp_q); flt_pc_d = pc_q; flt_addr_d = lsu_fault_address; flt_lane_d = 32'(lsu_fault_lane);
      end
      EF_DEADLOCK: begin
        flt_warp_d = 32'hFFFF_FFFF; flt_pc_d = 32'hFFFF_FFFF; flt_addr_d = '0; flt_lane_d = 32'hFFFF_FFFF;
      end
      default: ;
    endcase

    // ---- SP back end: the hand-over retires the instruction in the warp's state (its PC; the
    // active and live lanes do not change); stage R reads a row, X executes one, Y writes one with
    // its commit event, and the last row's event retires the instruction ----
    if (sp_pipe_hand) begin
      table_pc_write = 1'b1;
      table_pc = pc_q + 32'd1;
    end
    // A quick control instruction retires in its issue clock (on the retire channel).
    if (ctl_go) begin
      rt_valid = 1'b1;
      table_pc_write = 1'b1;
      table_pc = ctl_npc;
      perf_o[0] = 1'b1;
      perf_lanes_o = popc32(dexec);
    end
    if (sp_pipe_read_valid) rf_raddr = sp_pipe_read_rows;
    if (sp_pipe_execute_valid) begin
      perf_o[2] = 1'b1;
      sp_valid = 1'b1;
    end
    if (sp_pipe_write_valid && sp_pipe_write_last) begin
      perf_o[0] = 1'b1;
      perf_lanes_o = popc32(sp_pipe_write_exec);
    end

    // ---- selection (E_IDLE, and E_RET for the next warp): the warp, and on an instruction-cache hit
    // its instruction read in the same clock ----
    if (sel_go) begin
      warp_d = sel_w;
      pc_d = sel_pc;
      st_d = sel_hit ? E_DECODE : E_FETCH;
      ic_read_pc = sel_pc;
    end

    // ---- SFU pipe: busy (operands streaming in, or results); warps parked because it could not take
    // their SFU instruction may try again ----
    perf_o[3] = sfu_busy || st_q == E_SFU_RD || st_q == E_SFU_GO;

    if (start_i) begin
      // A new launch: nothing is resident (the previous one finished or faulted); clear the
      // constant-cache tags first.
      st_d = E_CLEAR;
      step_d = '0;
    end
  end

  // ---- write-back and commit arbiter (rtl/sm/tsm_writeback.sv, docs/sm-rtl.md §2.0): the register
  // file's write port and the commit event, for the engine, the SP pipe's stage Y, the SFU pipe's
  // rows and the memory tracker's rows and atomic retirements, in that order ----
  logic [L-1:0]         write_lanes;
  logic [RA-1:0]        write_row;
  logic [L*32-1:0]      write_data;
  logic                 commit_valid;
  logic [2:0]           commit_kind;
  logic [WW-1:0]        commit_warp;
  logic [31:0]          commit_seq, commit_pc, commit_active, commit_exec, commit_address;
  logic                 commit_exit;
  logic [7:0]           commit_register;
  logic [GroupBits-1:0] commit_group;
  logic [L-1:0]         commit_lanes;
  logic [L*32-1:0]      commit_data;
  logic [15:0]          commit_mask;
  logic [127:0]         commit_store_data;
  tsm_writeback #(.Lanes(L), .RowBits(GroupBits), .WarpBits(WW), .RegisterRowBits(RA)) u_writeback (
    .engine_write_i(eng_rf_busy), .engine_write_lanes_i(rf_we), .engine_write_row_i(rf_waddr), .engine_write_data_i(rf_wdata),
    .engine_event_valid_i(ev_valid), .engine_event_kind_i(ev_kind), .engine_event_warp_i(ev_warp),
    .engine_event_seq_i(ev_seq), .engine_event_pc_i(ev_pc), .engine_event_active_i(ev_active),
    .engine_event_exec_i(ev_exec), .engine_event_exit_i(ev_exit), .engine_event_register_i(ev_reg),
    .engine_event_group_i(ev_group), .engine_event_lanes_i(ev_lanes), .engine_event_data_i(ev_data),
    .engine_event_address_i(ev_addr), .engine_event_mask_i(ev_mask), .engine_event_store_data_i(ev_wdata),
    .sp_valid_i(sp_pipe_write_valid), .sp_last_i(sp_pipe_write_last), .sp_warp_i(sp_pipe_write_warp),
    .sp_seq_i(sp_pipe_write_seq), .sp_pc_i(sp_pipe_write_pc), .sp_active_i(sp_pipe_write_active),
    .sp_exec_i(sp_pipe_write_exec), .sp_group_i(sp_pipe_write_group), .sp_lanes_i(sp_pipe_write_lanes),
    .sp_row_i(sp_pipe_write_row), .sp_register_i(sp_pipe_write_register), .sp_predicate_i(sp_pipe_write_predicate),
    .sp_result_write_i(sp_we_o), .sp_result_i(sp_d), .sp_predicates_i(sp_preds_o),
    .sfu_row_valid_i(sfu_row_valid), .sfu_row_ready_o(sfu_row_ready), .sfu_row_warp_i(sfu_row_warp),
    .sfu_row_seq_i(sfu_row_seq), .sfu_row_register_i(sfu_row_reg), .sfu_row_group_i(sfu_row_group),
    .sfu_row_lanes_i(sfu_row_lanes), .sfu_row_row_i(sfu_row_addr), .sfu_row_data_i(sfu_row_data),
    .tracker_row_valid_i(mt_row_valid), .tracker_row_ready_o(mt_row_ready), .tracker_row_warp_i(mt_row_warp),
    .tracker_row_seq_i(mt_row_seq), .tracker_row_register_i(mt_row_register), .tracker_row_group_i(mt_row_group),
    .tracker_row_lanes_i(mt_row_lanes), .tracker_row_row_i(mt_row_address), .tracker_row_data_i(mt_row_data),
    .tracker_retire_valid_i(mt_retire_valid), .tracker_retire_ready_o(mt_retire_ready),
    .tracker_retire_warp_i(mt_retire_warp), .tracker_retire_seq_i(mt_retire_seq), .tracker_retire_pc_i(mt_retire_pc),
    .tracker_retire_active_i(mt_retire_active), .tracker_retire_exec_i(mt_retire_exec),
    .write_lanes_o(write_lanes), .write_row_o(write_row), .write_data_o(write_data),
    .event_valid_o(commit_valid), .event_kind_o(commit_kind), .event_warp_o(commit_warp), .event_seq_o(commit_seq),
    .event_pc_o(commit_pc), .event_active_o(commit_active), .event_exec_o(commit_exec), .event_exit_o(commit_exit),
    .event_register_o(commit_register), .event_group_o(commit_group), .event_lanes_o(commit_lanes),
    .event_data_o(commit_data), .event_address_o(commit_address), .event_mask_o(commit_mask),
    .event_store_data_o(commit_store_data)
  );

  assign idle_o = bd_valid == '0 && mt_id_busy == '0 && mt_slot_valid == '0 && !bd_pending && st_q == E_IDLE && !sp_pipe_busy && !ic_prefetch_busy;
  assign fault_o = flt_q;
  assign fault_kind_o = flt_kind_q;
  assign fault_warp_o = flt_warp_q;
  assign fault_pc_o = flt_pc_q;
  assign fault_addr_o = flt_addr_q;
  assign fault_lane_o = flt_lane_q;



  // ---- debug signals (docs/waveforms.md §2) -------------------------------------------------------
  // The warp story for waveforms and the timeline: nothing in the SM reads them, Verilator traces
  // them, synthesis removes what the debug port does not carry. Their names and encodings are a
  // documented interface: the GTKWave views and translate filters (sim/tools/wave_views.py) are
  // generated from this enum, the engine's estate_e and the ISA table.
  typedef enum logic [2:0] {
    WS_EXITED,      // no live warp in the slot: exited, or not placed yet
    WS_READY,       // the scheduler may pick it
    WS_RUNNING,     // the engine works on its instruction
    WS_SCOREBOARD,  // an operand waits for a load in flight
    WS_MEMORY,      // an atomic of the warp is in flight
    WS_BARRIER,     // waits at a barrier
    WS_SFU          // its SFU instruction waits for, or is in, the SFU sequencer
  } dbg_wstate_e;
  /* verilator lint_off UNUSEDSIGNAL */
  logic          dbg_issue;          // an instruction issues this clock
  logic [WW-1:0] dbg_warp;           // the engine's current warp ...
  logic [31:0]   dbg_pc;             // ... its PC (instruction index)
  logic [7:0]    dbg_opcode;         // ... the instruction's opcode (tsm_isa_pkg::OP_*)
  logic [2:0]    dbg_unit;           // ... its unit (tsm_isa_pkg::UNIT_*)
  logic [31:0]   dbg_active;         // ... the warp's active lanes
  logic [31:0]   dbg_exec;           // ... lanes whose guard holds (valid at issue)
  logic [6:0]    dbg_engine;         // the issue engine's state (estate_e)
  logic [3:0]    dbg_lsu;            // the load/store unit's state (tsm_lsu's lsu_state_e)
  logic [3:0]    dbg_warp_op;        // the warp-op pipe's state (tsm_warp_ops_pipe's warp_op_state_e)
  logic [3:0]    dbg_rows;           // the row pipe's state (tsm_row_pipe's row_state_e)
  logic          dbg_stall_sb, dbg_stall_bar, dbg_stall_fetch;  // why nothing issues (COUNTER 5, 6, 7)
  logic          dbg_bar_arrive;     // the current warp arrives at barrier dbg_bar_id ...
  logic [3:0]    dbg_bar_id;
  logic [5:0]    dbg_bar_count;      // ... as arrival number dbg_bar_count
  logic          dbg_bar_release;    // the barrier released: its warps wake one a clock (E_REL)
  logic          dbg_bank_conflict;  // a shared-memory access takes one more step for a bank conflict
  logic [5:0]    dbg_mem_inflight;   // memory requests sent and not answered (loads, stores, atomics)
  logic [3:0]    dbg_load_slots;     // load and atomic slots in use
  // Continuous assignments of values the SM has anyway, and word-wide operations over the warp
  // slots: with tracing compiled in these are computed in every evaluation, so they are kept to a
  // few operations (docs/waveforms.md §1, the cost of tracing when off).
  assign dbg_issue = st_q == E_DISPATCH && disp_go;
  assign dbg_warp = warp_q;
  assign dbg_pc = pc_q;
  assign dbg_opcode = op;
  assign dbg_unit = unit_w;
  assign dbg_active = act_c;
  assign dbg_exec = dexec;
  assign dbg_engine = st_q;
  assign dbg_lsu = lsu_state;
  assign dbg_warp_op = warp_op_state;
  assign dbg_rows = rows_state;
  assign dbg_stall_sb = perf_o[4];
  assign dbg_stall_bar = perf_o[5];
  assign dbg_stall_fetch = perf_o[6];
  assign dbg_bar_arrive = st_q == E_BAR_UPD;
  assign dbg_bar_id = barid_w;
  assign dbg_bar_count = bu_count;
  assign dbg_bar_release = st_q == E_BAR_UPD && bu_rel;
  assign dbg_bank_conflict = perf_o[8];
  assign dbg_mem_inflight = 6'($countones(mt_id_busy));
  assign dbg_load_slots = 4'($countones(mt_slot_valid));
  // The warp states as one mask per state, in the order the states take precedence; then each
  // warp slot's state is the value of the state whose mask has its bit.
  logic [W-1:0] ws_barrier, ws_scoreboard, ws_memory, ws_sfu, ws_running, ws_ready;
  always_comb begin
    ws_barrier = warp_valid & warp_barrier_wait;
    ws_scoreboard = warp_valid & ~warp_barrier_wait & warp_scoreboard_wait;
    ws_memory = warp_valid & ~warp_barrier_wait & ~warp_scoreboard_wait & warp_atomic_wait;
    ws_sfu = warp_valid & ~warp_barrier_wait & ~warp_scoreboard_wait & ~warp_atomic_wait & (warp_sfu | warp_sfu_wait);
    ws_running = '0;
    if (st_q != E_IDLE && st_q != E_HALT) ws_running[warp_q] = 1'b1;
    ws_running = ws_running & warp_valid & ~(ws_barrier | ws_scoreboard | ws_memory | ws_sfu);
    ws_ready = warp_valid & ~(ws_barrier | ws_scoreboard | ws_memory | ws_sfu | ws_running);
  end
  // Per warp slot w: g_dbg_warp[w].state (dbg_wstate_e), .depth (reconvergence-stack entries),
  // .pc, .active. The states are plain vectors, not enum-typed: GTKWave shows an enum-typed FST
  // signal in hex and ignores a translate filter on it.
  for (genvar w = 0; w < W; w++) begin : g_dbg_warp
    logic [2:0]     state;
    logic [SPW-1:0] depth;
    logic [31:0]    pc, active;
    assign state = ws_barrier[w] ? 3'(WS_BARRIER) : ws_scoreboard[w] ? 3'(WS_SCOREBOARD) : ws_memory[w] ? 3'(WS_MEMORY) :
                   ws_sfu[w] ? 3'(WS_SFU) : ws_running[w] ? 3'(WS_RUNNING) : ws_ready[w] ? 3'(WS_READY) : 3'(WS_EXITED);
    assign depth = stk_depth[SPW*w +: SPW];
    assign pc = warp_pc[32*w +: 32];
    assign active = warp_active[32*w +: 32];
  end
  /* verilator lint_on UNUSEDSIGNAL */
  assign dbg_issue_o = dbg_issue;
  assign dbg_warp_o = warp_q;
  assign dbg_seq_o = warp_seq[32*warp_q +: 32];
  assign dbg_stall_o = {dbg_stall_fetch, dbg_stall_bar, dbg_stall_sb};

  // ---- registers ----------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= E_IDLE; running_q <= 1'b0;
      pred_q <= '0;
      warp_q <= '0; insn_q <= '0; pc_q <= '0; exec_q <= '0; seq_q <= '0; bconst_q <= '0; bconst_hi_q <= '0;
      npc_q <= '0; nact_q <= '0; nlive_q <= '0; step_q <= '0;
      rel_pend_q <= 1'b0; fin_q <= 1'b0;
      rel_blk_q <= '0; rel_id_q <= '0; rel_val_q <= '0; fin_id_q <= '0;
      clock_q <= '0;
      caddr_q <= '0;
      flt_q <= 1'b0; flt_kind_q <= '0; flt_warp_none_q <= 1'b0; flt_warp_n_q <= '0; flt_pc_q <= '0; flt_addr_q <= '0;
      flt_lane_none_q <= 1'b0; flt_lane_n_q <= '0;
      cm_valid_o <= 1'b0; cm_kind_o <= '0; cm_warp_o <= '0; cm_seq_o <= '0; cm_pc_o <= '0; cm_active_o <= '0;
      cm_exec_o <= '0; cm_exit_o <= 1'b0; cm_reg_o <= '0; cm_group_o <= '0; cm_lanes_o <= '0; cm_data_o <= '0;
      cm_addr_o <= '0; cm_mask_o <= '0; cm_wdata_o <= '0;
      cr_valid_o <= 1'b0; cr_warp_o <= '0; cr_seq_o <= '0; cr_pc_o <= '0; cr_active_o <= '0; cr_exec_o <= '0; cr_exit_o <= 1'b0;
    end else begin
      st_q <= st_d; running_q <= running_d;
      pred_q <= pred_d;
      warp_q <= warp_d; insn_q <= insn_d; pc_q <= pc_d; exec_q <= exec_d; seq_q <= seq_d; bconst_q <= bconst_d; bconst_hi_q <= bconst_hi_d;
      npc_q <= npc_d; nact_q <= nact_d; nlive_q <= nlive_d; step_q <= step_d;
      rel_pend_q <= rel_pend_d; fin_q <= fin_d;
      rel_blk_q <= rel_blk_d; rel_id_q <= rel_id_d; rel_val_q <= rel_val_d; fin_id_q <= fin_id_d;
      clock_q <= clock_d;
      caddr_q <= caddr_d;
      flt_q <= flt_d; flt_kind_q <= flt_kind_d; flt_pc_q <= flt_pc_d; flt_addr_q <= flt_addr_d;
      flt_warp_none_q <= flt_warp_d[31]; flt_warp_n_q <= flt_warp_d[WW-1:0];
      flt_lane_none_q <= flt_lane_d[31]; flt_lane_n_q <= flt_lane_d[5:0];
      cm_valid_o <= commit_valid; cm_kind_o <= commit_kind; cm_warp_o <= commit_warp; cm_seq_o <= commit_seq;
      cm_pc_o <= commit_pc; cm_active_o <= commit_active; cm_exec_o <= commit_exec; cm_exit_o <= commit_exit;
      cm_reg_o <= commit_register; cm_group_o <= commit_group; cm_lanes_o <= commit_lanes; cm_data_o <= commit_data;
      cm_addr_o <= commit_address; cm_mask_o <= commit_mask; cm_wdata_o <= commit_store_data;
      cr_valid_o <= rt_valid; cr_warp_o <= warp_q; cr_seq_o <= ctl_go ? warp_seq[32*warp_q +: 32] : seq_q; cr_pc_o <= pc_q;
      cr_active_o <= act_c; cr_exec_o <= ctl_go ? dexec : exec_q; cr_exit_o <= !ctl_go && nlive_q == '0;
    end
  end

endmodule
