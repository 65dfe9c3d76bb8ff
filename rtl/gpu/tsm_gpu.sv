// The GPU top level: the control/status registers over MMIO (tsm_mmio_regs), NumSms SMs, the
// compute work distributor handing them blocks in linear order (tsm_work_distributor) and the
// round-robin arbiter that shares one memory port (tsm_mem_arbiter).
// Interfaces: docs/gpu-interfaces.md; theory of operation: docs/sm-rtl.md §1.
module tsm_gpu #(
  /// SMs in this top level.
  parameter int unsigned NumSms = tsm_cfg_pkg::NumSms,
  /// Directory of the SFU ROM images, with a trailing '/'.
  parameter HexDir = "",
  /// Derived, do not override.
  parameter int unsigned SmBits = (NumSms > 1) ? $clog2(NumSms) : 1,
  parameter int unsigned IdBits = 6 + SmBits,
  parameter int unsigned GroupBits = (tsm_cfg_pkg::SpClocksPerWarp > 1) ? $clog2(tsm_cfg_pkg::SpClocksPerWarp) : 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // MMIO
  input  logic        mmio_valid_i,
  input  logic        mmio_write_i,
  input  logic [11:0] mmio_addr_i,
  input  logic [31:0] mmio_wdata_i,
  output logic        mmio_rvalid_o,
  output logic [31:0] mmio_rdata_o,
  /// STATUS as the register reports it: bit 0 busy, 1 done, 2 fault (the board's LEDs).
  output logic [2:0]  status_o,
  // Memory port
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
  // Commit ports, SM s in slice s
  output logic [NumSms-1:0]                              cm_valid_o,
  output logic [NumSms*3-1:0]                            cm_kind_o,
  output logic [NumSms*tsm_cfg_pkg::WarpIdWidth-1:0]     cm_warp_o,
  output logic [NumSms*32-1:0]                           cm_seq_o,
  output logic [NumSms*32-1:0]                           cm_pc_o,
  output logic [NumSms*32-1:0]                           cm_active_o,
  output logic [NumSms*32-1:0]                           cm_exec_o,
  output logic [NumSms-1:0]                              cm_exit_o,
  output logic [NumSms*8-1:0]                            cm_reg_o,
  output logic [NumSms*GroupBits-1:0]                    cm_group_o,
  output logic [NumSms*tsm_cfg_pkg::SpLanes-1:0]         cm_lanes_o,
  output logic [NumSms*tsm_cfg_pkg::SpLanes*32-1:0]      cm_data_o,
  output logic [NumSms*32-1:0]                           cm_addr_o,
  output logic [NumSms*16-1:0]                           cm_mask_o,
  output logic [NumSms*128-1:0]                          cm_wdata_o,
  // Retire channels (docs/gpu-interfaces.md §3), SM s in slice s
  output logic [NumSms-1:0]                              cr_valid_o,
  output logic [NumSms*tsm_cfg_pkg::WarpIdWidth-1:0]     cr_warp_o,
  output logic [NumSms*32-1:0]                           cr_seq_o,
  output logic [NumSms*32-1:0]                           cr_pc_o,
  output logic [NumSms*32-1:0]                           cr_active_o,
  output logic [NumSms*32-1:0]                           cr_exec_o,
  output logic [NumSms-1:0]                              cr_exit_o,
  // Debug port (docs/waveforms.md §2), SM s in slice s: an instruction issues, its warp and
  // sequence number; the stall reasons of the clock (bit 0 scoreboard, 1 barrier, 2 fetch)
  output logic [NumSms-1:0]                              dbg_issue_o,
  output logic [NumSms*tsm_cfg_pkg::WarpIdWidth-1:0]     dbg_warp_o,
  output logic [NumSms*32-1:0]                           dbg_seq_o,
  output logic [NumSms*3-1:0]                            dbg_stall_o
);
  localparam int unsigned NumCounters = 12;
  localparam int unsigned PerfEvents = 9;

  // ---- MMIO registers (tsm_mmio_regs.sv): the descriptor, CTRL/STATUS, faults, counters ----
  logic [40*32-1:0] desc;     // descriptor word i: desc[32*i +: 32] (0x020 + 4*i)
  logic             launch;   // CTRL is written: a launch starts
  logic             start;    // ... and the SMs start, a clock later
  logic [2:0]       status;
  logic             busy, fault;
  assign busy = status[0];
  assign fault = status[2];
  assign status_o = status;

  // Descriptor word index of a register (docs/gpu-interfaces.md §1).
  localparam int unsigned D_CODE_BASE = 0, D_ENTRY = 1, D_GRID_X = 2, D_GRID_Y = 3, D_GRID_Z = 4, D_BLOCK_X = 5,
                          D_BLOCK_Y = 6, D_BLOCK_Z = 7, D_THREADS = 8, D_WARPS = 9, D_REGS = 10, D_SHARED = 11,
                          D_LOCAL_BYTES = 12, D_LOCAL_BASE = 13, D_BLOCKS_PER_SM = 14, D_TOTAL = 15, D_WATCHDOG = 16,
                          D_CODE_WORDS = 17, D_ACTIVE = 18, D_SCHED = 19, D_CBANK = 24;

  // ---- SMs ----------------------------------------------------------------------------------------------
  logic [NumSms-1:0]       sm_blk_valid, sm_blk_ready, sm_idle, sm_fault;
  logic [NumSms*4-1:0]     sm_fkind;
  logic [NumSms*32-1:0]    sm_fwarp, sm_fpc, sm_faddr, sm_flane;
  logic [NumSms-1:0]       rq_valid, rq_ready, rs_valid;
  logic [NumSms*6-1:0]     rq_id;
  logic [NumSms*2-1:0]     rq_kind;
  logic [NumSms*32-1:0]    rq_addr;
  logic [NumSms*16-1:0]    rq_mask;
  logic [NumSms*128-1:0]   rq_data;
  logic [NumSms*8-1:0]     rq_atom;
  logic [NumSms-1:0]       rs_ready;
  logic [NumSms*PerfEvents-1:0] sm_perf;
  logic [NumSms*6-1:0]     sm_lanes;
  logic [NumSms*6-1:0]     sm_tx;
  logic [31:0]             next_q;   // the block the work distributor offers: linear index
  logic [47:0]             ctaid_q;  // ... and block index
  logic [16*32-1:0]        cbanks;

  // SMs taking part in the launch: ACTIVE_SMS, 0 meaning all.
  logic [31:0] active;
  assign active = (desc[32*D_ACTIVE +: 32] == '0 || desc[32*D_ACTIVE +: 32] > NumSms) ? NumSms : desc[32*D_ACTIVE +: 32];
  assign cbanks = desc[32*D_CBANK +: 16*32];
  // Read by the MMIO block itself (WATCHDOG), reserved (words 20 to 23), or unused bits of SCHED_POLICY.
  logic unused_desc;
  assign unused_desc = ^{desc[32*D_WATCHDOG +: 32], desc[32*20 +: 4*32], desc[32*D_SCHED + 4 +: 28]};

  for (genvar s = 0; s < NumSms; s++) begin : g_sm
    tsm_sm #(.HexDir(HexDir), .NumSms(NumSms)) u_sm (
      .clk_i, .rst_ni, .sm_id_i(32'(s)), .num_sms_i(active),
      .code_base_i(desc[32*D_CODE_BASE +: 32]), .code_words_i(desc[32*D_CODE_WORDS +: 32]), .entry_pc_i(desc[32*D_ENTRY +: 32]),
      .grid_x_i(desc[32*D_GRID_X +: 32]), .grid_y_i(desc[32*D_GRID_Y +: 32]), .grid_z_i(desc[32*D_GRID_Z +: 32]),
      .block_x_i(desc[32*D_BLOCK_X +: 32]), .block_y_i(desc[32*D_BLOCK_Y +: 32]), .block_z_i(desc[32*D_BLOCK_Z +: 32]),
      .threads_i(desc[32*D_THREADS +: 32]), .warps_i(desc[32*D_WARPS +: 32]), .regs_i(desc[32*D_REGS +: 32]), .shared_i(desc[32*D_SHARED +: 32]),
      .local_bytes_i(desc[32*D_LOCAL_BYTES +: 32]), .local_base_i(desc[32*D_LOCAL_BASE +: 32]),
      .blocks_per_sm_i(desc[32*D_BLOCKS_PER_SM +: 32]), .cbank_base_i(cbanks), .sched_policy_i(desc[32*D_SCHED +: 4]),
      .start_i(start), .stop_i(fault || (|sm_fault)),
      .blk_valid_i(sm_blk_valid[s]), .blk_ready_o(sm_blk_ready[s]), .blk_linear_i(next_q), .blk_ctaid_i(ctaid_q),
      .idle_o(sm_idle[s]),
      .fault_o(sm_fault[s]), .fault_kind_o(sm_fkind[4*s +: 4]), .fault_warp_o(sm_fwarp[32*s +: 32]),
      .fault_pc_o(sm_fpc[32*s +: 32]), .fault_addr_o(sm_faddr[32*s +: 32]), .fault_lane_o(sm_flane[32*s +: 32]),
      .mem_req_valid_o(rq_valid[s]), .mem_req_ready_i(rq_ready[s]), .mem_req_id_o(rq_id[6*s +: 6]),
      .mem_req_kind_o(rq_kind[2*s +: 2]), .mem_req_addr_o(rq_addr[32*s +: 32]), .mem_req_mask_o(rq_mask[16*s +: 16]),
      .mem_req_data_o(rq_data[128*s +: 128]), .mem_req_atom_o(rq_atom[8*s +: 8]),
      .mem_resp_valid_i(rs_valid[s]), .mem_resp_ready_o(rs_ready[s]), .mem_resp_id_i(mem_resp_id_i[5:0]),
      .mem_resp_data_i(mem_resp_data_i), .mem_resp_write_i(mem_resp_write_i), .mem_resp_err_i(mem_resp_err_i),
      .cm_valid_o(cm_valid_o[s]), .cm_kind_o(cm_kind_o[3*s +: 3]),
      .cm_warp_o(cm_warp_o[tsm_cfg_pkg::WarpIdWidth*s +: tsm_cfg_pkg::WarpIdWidth]),
      .cm_seq_o(cm_seq_o[32*s +: 32]), .cm_pc_o(cm_pc_o[32*s +: 32]), .cm_active_o(cm_active_o[32*s +: 32]),
      .cm_exec_o(cm_exec_o[32*s +: 32]), .cm_exit_o(cm_exit_o[s]), .cm_reg_o(cm_reg_o[8*s +: 8]),
      .cm_group_o(cm_group_o[GroupBits*s +: GroupBits]),
      .cm_lanes_o(cm_lanes_o[tsm_cfg_pkg::SpLanes*s +: tsm_cfg_pkg::SpLanes]),
      .cm_data_o(cm_data_o[tsm_cfg_pkg::SpLanes*32*s +: tsm_cfg_pkg::SpLanes*32]),
      .cm_addr_o(cm_addr_o[32*s +: 32]), .cm_mask_o(cm_mask_o[16*s +: 16]), .cm_wdata_o(cm_wdata_o[128*s +: 128]),
      .cr_valid_o(cr_valid_o[s]), .cr_warp_o(cr_warp_o[tsm_cfg_pkg::WarpIdWidth*s +: tsm_cfg_pkg::WarpIdWidth]),
      .cr_seq_o(cr_seq_o[32*s +: 32]), .cr_pc_o(cr_pc_o[32*s +: 32]), .cr_active_o(cr_active_o[32*s +: 32]),
      .cr_exec_o(cr_exec_o[32*s +: 32]), .cr_exit_o(cr_exit_o[s]),
      .perf_o(sm_perf[PerfEvents*s +: PerfEvents]), .perf_lanes_o(sm_lanes[6*s +: 6]),
      .perf_tx_o(sm_tx[6*s +: 6]),
      .dbg_issue_o(dbg_issue_o[s]), .dbg_warp_o(dbg_warp_o[tsm_cfg_pkg::WarpIdWidth*s +: tsm_cfg_pkg::WarpIdWidth]),
      .dbg_seq_o(dbg_seq_o[32*s +: 32]), .dbg_stall_o(dbg_stall_o[3*s +: 3])
    );
  end

  // ---- memory arbiter (tsm_mem_arbiter.sv): the SMs share the memory port ----
  tsm_mem_arbiter #(.NumSms(NumSms), .SmBits(SmBits), .SmIdBits(6), .IdBits(IdBits)) u_mem_arbiter (
    .clk_i, .rst_ni,
    .sm_req_valid_i(rq_valid), .sm_req_ready_o(rq_ready), .sm_req_id_i(rq_id), .sm_req_kind_i(rq_kind),
    .sm_req_addr_i(rq_addr), .sm_req_mask_i(rq_mask), .sm_req_data_i(rq_data), .sm_req_atom_i(rq_atom),
    .sm_resp_valid_o(rs_valid), .sm_resp_ready_i(rs_ready),
    .mem_req_valid_o, .mem_req_ready_i, .mem_req_id_o, .mem_req_kind_o, .mem_req_addr_o, .mem_req_mask_o,
    .mem_req_data_o, .mem_req_atom_o, .mem_resp_valid_i, .mem_resp_ready_o, .mem_resp_id_i
  );

  // ---- work distributor (tsm_work_distributor.sv): blocks in linear order to the SMs with room ----
  logic all_issued; // every block of the launch has been handed out
  tsm_work_distributor #(.NumSms(NumSms), .SmBits(SmBits)) u_work_distributor (
    .clk_i, .rst_ni, .launch_i(launch), .enable_i(busy && !start), .total_i(desc[32*D_TOTAL +: 32]),
    .grid_x_i(desc[32*D_GRID_X +: 32]), .grid_y_i(desc[32*D_GRID_Y +: 32]), .active_i(active),
    .blk_valid_o(sm_blk_valid), .blk_ready_i(sm_blk_ready), .blk_linear_o(next_q), .blk_ctaid_o(ctaid_q),
    .all_issued_o(all_issued)
  );

  // Counter increments this cycle, summed over the SMs (docs/sm-rtl.md §4): 1 warp instructions,
  // 2 thread instructions, 3 SP busy, 4 SFU busy, 5 scoreboard stalls, 6 barrier stalls, 7 fetch
  // stalls, 8 memory requests, 9 bank-conflict steps, 10 transactions (compute capability 1.2
  // segments), 11 SP and SFU busy in the same clock.
  logic [8*NumCounters-1:0] ctr_inc;
  always_comb begin
    ctr_inc = '0;
    for (int s = 0; s < NumSms; s++) begin
      ctr_inc[8*1 +: 8] = ctr_inc[8*1 +: 8] + 8'(sm_perf[PerfEvents*s + 0]);
      ctr_inc[8*2 +: 8] = ctr_inc[8*2 +: 8] + 8'(sm_lanes[6*s +: 6]);
      ctr_inc[8*3 +: 8] = ctr_inc[8*3 +: 8] + 8'(sm_perf[PerfEvents*s + 2]);
      ctr_inc[8*4 +: 8] = ctr_inc[8*4 +: 8] + 8'(sm_perf[PerfEvents*s + 3]);
      ctr_inc[8*5 +: 8] = ctr_inc[8*5 +: 8] + 8'(sm_perf[PerfEvents*s + 4]);
      ctr_inc[8*6 +: 8] = ctr_inc[8*6 +: 8] + 8'(sm_perf[PerfEvents*s + 5]);
      ctr_inc[8*7 +: 8] = ctr_inc[8*7 +: 8] + 8'(sm_perf[PerfEvents*s + 6]);
      ctr_inc[8*8 +: 8] = ctr_inc[8*8 +: 8] + 8'(sm_perf[PerfEvents*s + 7]);
      ctr_inc[8*9 +: 8] = ctr_inc[8*9 +: 8] + 8'(sm_perf[PerfEvents*s + 8]);
      ctr_inc[8*10 +: 8] = ctr_inc[8*10 +: 8] + 8'(sm_tx[6*s +: 6]);
      ctr_inc[8*11 +: 8] = ctr_inc[8*11 +: 8] + ((sm_perf[PerfEvents*s + 2] && sm_perf[PerfEvents*s + 3]) ? 8'd1 : 8'd0);
    end
  end

  tsm_mmio_regs #(
    .NumSms(NumSms), .NumCounters(NumCounters), .ConfigTag(tsm_cfg_pkg::ConfigTag), .WatchdogWord(D_WATCHDOG)
  ) u_mmio_regs (
    .clk_i, .rst_ni, .mmio_valid_i, .mmio_write_i, .mmio_addr_i, .mmio_wdata_i, .mmio_rvalid_o, .mmio_rdata_o,
    .descriptor_o(desc), .launch_o(launch), .start_o(start), .status_o(status),
    .sm_fault_i(sm_fault), .sm_fault_kind_i(sm_fkind), .sm_fault_warp_i(sm_fwarp), .sm_fault_pc_i(sm_fpc),
    .sm_fault_addr_i(sm_faddr), .sm_fault_lane_i(sm_flane),
    .finished_i(all_issued && &sm_idle && !(|sm_blk_valid)), .counter_increments_i(ctr_inc)
  );
endmodule
