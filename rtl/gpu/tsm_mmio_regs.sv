// The GPU's MMIO register block (docs/gpu-interfaces.md §1, docs/sm-rtl.md §1): the launch
// descriptor (0x020..0x0BC), CTRL and STATUS, the first fault's registers, the performance counters
// and the read-only identification. A write to CTRL starts a launch (launch_o this clock, start_o
// the next, when the SMs and the work distributor begin); the launch ends when the GPU top reports
// it finished (finished_i) or at its first fault: an SM's (the lowest-numbered SM of that clock) or
// the watchdog's (WATCHDOG cycles, 0 never).
//
// Contract: one MMIO access a clock, always accepted; a read's data comes a clock later with
// mmio_rvalid_o. Descriptor writes during a launch are ignored; a descriptor word never written
// since reset reads 0. Counter k counts, per clock of a launch, counter_increments_i's byte k
// (counter 0: the launch's cycles).
module tsm_mmio_regs #(
  /// SMs of the GPU top.
  parameter int unsigned NumSms = 1,
  /// Performance counters (docs/sm-rtl.md §4).
  parameter int unsigned NumCounters = 12,
  /// The configuration's name tag (tsm_cfg_pkg::ConfigTag).
  parameter logic [63:0] ConfigTag = '0,
  /// The descriptor word of WATCHDOG (the GPU top's list of descriptor words).
  parameter int unsigned WatchdogWord = 16
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          mmio_valid_i,
  input  logic                          mmio_write_i,
  input  logic [11:0]                   mmio_addr_i,
  input  logic [31:0]                   mmio_wdata_i,
  output logic                          mmio_rvalid_o,
  output logic [31:0]                   mmio_rdata_o,
  /// The descriptor: word i is the register at 0x020 + 4 i.
  output logic [40*32-1:0]              descriptor_o,
  /// CTRL is written while idle: a launch starts (this clock).
  output logic                          launch_o,
  /// The SMs start (the clock after launch_o).
  output logic                          start_o,
  /// STATUS: bit 0 busy, 1 done, 2 fault.
  output logic [2:0]                    status_o,
  /// The SMs' faults, SM s in slice s: fault, kind, warp, PC, address, lane.
  input  logic [NumSms-1:0]             sm_fault_i,
  input  logic [NumSms*4-1:0]           sm_fault_kind_i,
  input  logic [NumSms*32-1:0]          sm_fault_warp_i,
  input  logic [NumSms*32-1:0]          sm_fault_pc_i,
  input  logic [NumSms*32-1:0]          sm_fault_addr_i,
  input  logic [NumSms*32-1:0]          sm_fault_lane_i,
  /// Every block handed out and every SM idle.
  input  logic                          finished_i,
  /// This clock's counter increments, byte k for counter k (byte 0 unused).
  input  logic [8*NumCounters-1:0]      counter_increments_i
);

  localparam int unsigned DescriptorWords = 40;

  logic [31:0] desc_q [DescriptorWords];   // 0x020..0x0BC as words 0..39 (0x020 + 4*i)
  // The descriptor's MMIO read-back comes from a copy in a memory (LUT RAM on an FPGA) written with
  // desc_q, and a word not written since reset reads 0: a 40:1 multiplexer of the registers, which
  // also feed the SMs, was the board's worst routing congestion (docs/fpga.md).
  logic [31:0] desc_rb_mem [DescriptorWords];
  logic [DescriptorWords-1:0] desc_rb_set_q;
  logic [5:0]  desc_idx;
  logic        desc_write;
  logic        busy_q, done_q, start_q, fault_q;
  logic [31:0] wd_q;                       // the watchdog's cycles
  logic [3:0]  fkind_q;
  logic [31:0] fsm_q, fwarp_q, fpc_q, faddr_q, flane_q;
  logic [63:0] ctr_q [NumCounters];
  logic        rvalid_q;
  logic [31:0] rdata_q;

  assign desc_idx = 6'((32'(mmio_addr_i) - 32'h20) >> 2);
  assign desc_write = mmio_valid_i && mmio_write_i && mmio_addr_i >= 12'h020 && mmio_addr_i < 12'h0C0 && !busy_q;
  assign launch_o = mmio_valid_i && mmio_write_i && mmio_addr_i == 12'h010 && mmio_wdata_i[0] && !busy_q;
  for (genvar i = 0; i < DescriptorWords; i++) begin : g_descriptor
    assign descriptor_o[32*i +: 32] = desc_q[i];
  end

  // The first fault of a clock: the lowest-numbered SM's.
  logic [3:0]  first_kind;
  logic [31:0] first_sm;
  always_comb begin
    first_kind = '0;
    first_sm = '0;
    for (int s = NumSms - 1; s >= 0; s--) begin
      if (sm_fault_i[s]) begin
        first_kind = sm_fault_kind_i[4*s +: 4];
        first_sm = 32'(s);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < DescriptorWords; i++) desc_q[i] <= '0;
      desc_rb_set_q <= '0;
      for (int i = 0; i < NumCounters; i++) ctr_q[i] <= '0;
      busy_q <= 1'b0; done_q <= 1'b0; start_q <= 1'b0; fault_q <= 1'b0; wd_q <= '0;
      fkind_q <= '0; fsm_q <= '0; fwarp_q <= '0; fpc_q <= '0; faddr_q <= '0; flane_q <= '0;
      rvalid_q <= 1'b0; rdata_q <= '0;
    end else begin
      start_q <= 1'b0;
      rvalid_q <= mmio_valid_i && !mmio_write_i;
      if (launch_o) begin
        busy_q <= 1'b1; done_q <= 1'b0; start_q <= 1'b1; fault_q <= 1'b0; wd_q <= '0;
        fkind_q <= '0; fsm_q <= '0; fwarp_q <= '0; fpc_q <= '0; faddr_q <= '0; flane_q <= '0;
        for (int i = 0; i < NumCounters; i++) ctr_q[i] <= '0;
      end else if (desc_write) begin
        desc_q[desc_idx] <= mmio_wdata_i;
        desc_rb_set_q[desc_idx] <= 1'b1;
      end
      if (mmio_valid_i && !mmio_write_i) begin
        rdata_q <= '0;
        if (mmio_addr_i == 12'h000) rdata_q <= 32'h314D_5354;
        if (mmio_addr_i == 12'h004) rdata_q <= 32'(NumSms);
        if (mmio_addr_i == 12'h008) rdata_q <= ConfigTag[31:0];
        if (mmio_addr_i == 12'h00C) rdata_q <= ConfigTag[63:32];
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
        for (int c = 1; c < NumCounters; c++) ctr_q[c] <= ctr_q[c] + 64'(counter_increments_i[8*c +: 8]);
        // The first fault stops everything; outstanding requests still drain.
        if (|sm_fault_i && !fault_q) begin
          fault_q <= 1'b1;
          fkind_q <= first_kind;
          fsm_q <= first_sm;
          fwarp_q <= sm_fault_warp_i[32*first_sm +: 32];
          fpc_q <= sm_fault_pc_i[32*first_sm +: 32];
          faddr_q <= sm_fault_addr_i[32*first_sm +: 32];
          flane_q <= sm_fault_lane_i[32*first_sm +: 32];
        end else if (!fault_q && desc_q[WatchdogWord] != '0 && wd_q >= desc_q[WatchdogWord]) begin
          fault_q <= 1'b1;
          fkind_q <= 4'd8;
          fsm_q <= 32'hFFFF_FFFF; fwarp_q <= 32'hFFFF_FFFF; fpc_q <= 32'hFFFF_FFFF; faddr_q <= '0; flane_q <= 32'hFFFF_FFFF;
        end
        if (fault_q) busy_q <= 1'b0;  // outstanding requests drain on their own
        if (!fault_q && finished_i) begin
          busy_q <= 1'b0;
          done_q <= 1'b1;
        end
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (desc_write) desc_rb_mem[desc_idx] <= mmio_wdata_i;
  end

  assign mmio_rvalid_o = rvalid_q;
  assign mmio_rdata_o = rdata_q;
  assign status_o = {fault_q, done_q, busy_q};
  assign start_o = start_q;

endmodule
