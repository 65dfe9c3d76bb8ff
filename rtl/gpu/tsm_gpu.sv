// The GPU top level: control/status registers over MMIO, NumSms SMs, the compute work distributor
// handing them blocks in linear order (tsm_work_distributor) and the round-robin arbiter that shares
// one memory port (tsm_mem_arbiter).
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

  // ---- CSRs -----------------------------------------------------------------------------------------
  logic [31:0] desc_q [40];   // 0x020..0x0BC as words 0..39 (0x020 + 4*i)
  // The descriptor's MMIO read-back comes from a copy in a memory (LUT RAM on an FPGA) written with
  // desc_q, and a word not written since reset reads 0: a 40:1 multiplexer of the registers, which
  // also feed the SMs, was the board's worst routing congestion (docs/fpga.md).
  logic [31:0] desc_rb_mem [40];
  logic [39:0] desc_rb_set_q;
  logic [5:0]  desc_idx;
  assign desc_idx = 6'((32'(mmio_addr_i) - 32'h20) >> 2);
  logic        busy_q, done_q, start_q, fault_q;
  logic [31:0] wd_q;
  logic [3:0]  fkind_q;
  logic [31:0] fsm_q, fwarp_q, fpc_q, faddr_q, flane_q;
  logic [63:0] ctr_q [NumCounters];
  logic        rvalid_q;
  logic [31:0] rdata_q;

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
  assign active = (desc_q[D_ACTIVE] == '0 || desc_q[D_ACTIVE] > NumSms) ? NumSms : desc_q[D_ACTIVE];

  for (genvar i = 0; i < 16; i++) begin : g_cb
    assign cbanks[32*i +: 32] = desc_q[D_CBANK + i];
  end

  for (genvar s = 0; s < NumSms; s++) begin : g_sm
    tsm_sm #(.HexDir(HexDir), .NumSms(NumSms)) u_sm (
      .clk_i, .rst_ni, .sm_id_i(32'(s)), .num_sms_i(active),
      .code_base_i(desc_q[D_CODE_BASE]), .code_words_i(desc_q[D_CODE_WORDS]), .entry_pc_i(desc_q[D_ENTRY]),
      .grid_x_i(desc_q[D_GRID_X]), .grid_y_i(desc_q[D_GRID_Y]), .grid_z_i(desc_q[D_GRID_Z]),
      .block_x_i(desc_q[D_BLOCK_X]), .block_y_i(desc_q[D_BLOCK_Y]), .block_z_i(desc_q[D_BLOCK_Z]),
      .threads_i(desc_q[D_THREADS]), .warps_i(desc_q[D_WARPS]), .regs_i(desc_q[D_REGS]), .shared_i(desc_q[D_SHARED]),
      .local_bytes_i(desc_q[D_LOCAL_BYTES]), .local_base_i(desc_q[D_LOCAL_BASE]),
      .blocks_per_sm_i(desc_q[D_BLOCKS_PER_SM]), .cbank_base_i(cbanks), .sched_policy_i(desc_q[D_SCHED][3:0]),
      .start_i(start_q), .stop_i(fault_q || (|sm_fault)),
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
  logic launch;     // CTRL is written: a launch starts
  logic all_issued; // every block of the launch has been handed out
  assign launch = mmio_valid_i && mmio_write_i && mmio_addr_i == 12'h010 && mmio_wdata_i[0] && !busy_q;
  tsm_work_distributor #(.NumSms(NumSms), .SmBits(SmBits)) u_work_distributor (
    .clk_i, .rst_ni, .launch_i(launch), .enable_i(busy_q && !start_q), .total_i(desc_q[D_TOTAL]),
    .grid_x_i(desc_q[D_GRID_X]), .grid_y_i(desc_q[D_GRID_Y]), .active_i(active),
    .blk_valid_o(sm_blk_valid), .blk_ready_i(sm_blk_ready), .blk_linear_o(next_q), .blk_ctaid_o(ctaid_q),
    .all_issued_o(all_issued)
  );

  // ---- sequential logic ----------------------------------------------------------------------------------
  logic [3:0] first_kind;
  logic [31:0] first_sm;
  always_comb begin
    first_kind = '0;
    first_sm = '0;
    for (int s = NumSms - 1; s >= 0; s--) begin
      if (sm_fault[s]) begin
        first_kind = sm_fkind[4*s +: 4];
        first_sm = 32'(s);
      end
    end
  end

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

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < 40; i++) desc_q[i] <= '0;
      desc_rb_set_q <= '0;
      for (int i = 0; i < NumCounters; i++) ctr_q[i] <= '0;
      busy_q <= 1'b0; done_q <= 1'b0; start_q <= 1'b0; fault_q <= 1'b0; wd_q <= '0;
      fkind_q <= '0; fsm_q <= '0; fwarp_q <= '0; fpc_q <= '0; faddr_q <= '0; flane_q <= '0;
      rvalid_q <= 1'b0; rdata_q <= '0;
    end else begin
      start_q <= 1'b0;
      rvalid_q <= mmio_valid_i && !mmio_write_i;
      if (mmio_valid_i && mmio_write_i) begin
        if (launch) begin
          busy_q <= 1'b1; done_q <= 1'b0; start_q <= 1'b1; fault_q <= 1'b0; wd_q <= '0;
          fkind_q <= '0; fsm_q <= '0; fwarp_q <= '0; fpc_q <= '0; faddr_q <= '0; flane_q <= '0;
          for (int i = 0; i < NumCounters; i++) ctr_q[i] <= '0;
        end else if (mmio_addr_i >= 12'h020 && mmio_addr_i < 12'h0C0 && !busy_q) begin
          desc_q[desc_idx] <= mmio_wdata_i;
          desc_rb_set_q[desc_idx] <= 1'b1;
        end
      end
      if (mmio_valid_i && !mmio_write_i) begin
        rdata_q <= '0;
        if (mmio_addr_i == 12'h000) rdata_q <= 32'h314D_5354;
        if (mmio_addr_i == 12'h004) rdata_q <= 32'(NumSms);
        if (mmio_addr_i == 12'h008) rdata_q <= tsm_cfg_pkg::ConfigTag[31:0];
        if (mmio_addr_i == 12'h00C) rdata_q <= tsm_cfg_pkg::ConfigTag[63:32];
        if (mmio_addr_i == 12'h014) rdata_q <= {29'd0, fault_q, done_q, busy_q};
        if (mmio_addr_i >= 12'h020 && mmio_addr_i < 12'h0C0 && desc_rb_set_q[desc_idx]) rdata_q <= desc_rb_mem[desc_idx];
        if (mmio_addr_i == 12'h100) rdata_q <= {28'd0, fkind_q};
        if (mmio_addr_i == 12'h104) rdata_q <= fsm_q;
        if (mmio_addr_i == 12'h108) rdata_q <= fwarp_q;
        if (mmio_addr_i == 12'h10C) rdata_q <= fpc_q;
        if (mmio_addr_i == 12'h110) rdata_q <= faddr_q;
        if (mmio_addr_i == 12'h114) rdata_q <= flane_q;
        if (mmio_addr_i >= 12'h200 && mmio_addr_i < 12'h200 + 12'(8 * NumCounters))
          rdata_q <= mmio_addr_i[2] ? ctr_q[(32'(mmio_addr_i) - 32'h200) >> 3][63:32]
                                    : ctr_q[(32'(mmio_addr_i) - 32'h200) >> 3][31:0];
      end
      if (busy_q && !start_q) begin
        wd_q <= wd_q + 32'd1;
        ctr_q[0] <= ctr_q[0] + 64'd1;
        for (int c = 1; c < NumCounters; c++) ctr_q[c] <= ctr_q[c] + 64'(ctr_inc[8*c +: 8]);
        // The first fault stops everything; outstanding requests still drain.
        if (|sm_fault && !fault_q) begin
          fault_q <= 1'b1;
          fkind_q <= first_kind;
          fsm_q <= first_sm;
          fwarp_q <= sm_fwarp[32*first_sm +: 32];
          fpc_q <= sm_fpc[32*first_sm +: 32];
          faddr_q <= sm_faddr[32*first_sm +: 32];
          flane_q <= sm_flane[32*first_sm +: 32];
        end else if (!fault_q && desc_q[D_WATCHDOG] != '0 && wd_q >= desc_q[D_WATCHDOG]) begin
          fault_q <= 1'b1;
          fkind_q <= 4'd8;
          fsm_q <= 32'hFFFF_FFFF; fwarp_q <= 32'hFFFF_FFFF; fpc_q <= 32'hFFFF_FFFF; faddr_q <= '0; flane_q <= 32'hFFFF_FFFF;
        end
        if (fault_q) busy_q <= 1'b0;  // outstanding requests drain on their own
        if (!fault_q && all_issued && &sm_idle && !(|sm_blk_valid)) begin
          busy_q <= 1'b0;
          done_q <= 1'b1;
        end
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (mmio_valid_i && mmio_write_i && mmio_addr_i >= 12'h020 && mmio_addr_i < 12'h0C0 && !busy_q)
      desc_rb_mem[desc_idx] <= mmio_wdata_i;
  end
  assign mmio_rvalid_o = rvalid_q;
  assign mmio_rdata_o = rdata_q;
  assign status_o = {fault_q, done_q, busy_q};
endmodule
