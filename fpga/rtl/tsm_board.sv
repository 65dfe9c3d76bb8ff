// The FPGA board's top level without the clock generator: tsm_gpu with one SM, the UART bridge
// (host frames to MMIO and memory) and the board memory (block RAM behind the GPU's memory port
// and the bridge). Design: docs/fpga-board.md §2-§3. The ULX3S top (fpga/ulx3s/tsm_ulx3s.sv) adds
// the PLL and the reset; a Verilated model of this module is the board without a board.
//
// Theory of operation: uart_rx_i passes two flip-flops into clk_i's domain (it idles high, so
// they reset to 1) and feeds tsm_board_bridge, which drives tsm_gpu's MMIO port and the memory's
// byte port A. tsm_gpu's memory port goes straight to tsm_board_mem's port B. The LEDs show the
// STATUS bits, UART activity stretched to about 1/20 s, a sticky framing-error flag (cleared by
// reset) and a heartbeat that toggles every ClockHz/2 clocks.
module tsm_board #(
  /// Clock frequency in Hz.
  parameter int unsigned ClockHz  = 60_000_000,
  /// UART bit rate; ClockHz / Baud clocks per bit must be at least 4.
  parameter int unsigned Baud     = 3_000_000,
  /// Board memory in bytes: a power of two, at least 65536.
  parameter int unsigned MemBytes = 131072,
  /// Device address of the board memory's first byte.
  parameter logic [31:0] MemBase  = 32'h0010_0000,
  /// Directory of the SFU ROM images, with a trailing '/' (passed to tsm_gpu).
  parameter HexDir = ""
) (
  input  logic       clk_i,
  /// Synchronous active-low reset, already synchronised to clk_i.
  input  logic       rst_ni,
  /// UART from the host, idle high (asynchronous: synchronised here).
  input  logic       uart_rx_i,
  /// UART to the host, idle high.
  output logic       uart_tx_o,
  /// 0 busy, 1 done, 2 fault, 3 rx activity, 4 tx activity, 5 framing error seen, 6 heartbeat,
  /// 7 driven 0 (the ULX3S top shows PLL lock there).
  output logic [7:0] led_o
);

  localparam int unsigned NumSms = 1;
  localparam int unsigned IdBits = 7;  // tsm_gpu's 6 + SmBits, SmBits = 1 for one SM
  localparam int unsigned AddrBits = $clog2(MemBytes);
  localparam int unsigned WarpBits = tsm_cfg_pkg::WarpIdWidth;
  localparam int unsigned Lanes = tsm_cfg_pkg::SpLanes;
  localparam int unsigned GroupBits = (tsm_cfg_pkg::SpClocksPerWarp > 1) ? $clog2(tsm_cfg_pkg::SpClocksPerWarp) : 1;
  localparam int unsigned StretchClocks = ClockHz / 20;
  localparam int unsigned HeartClocks = ClockHz / 2;
  localparam int unsigned StretchBits = $clog2(StretchClocks + 1);
  localparam int unsigned HeartBits = $clog2(HeartClocks + 1);

  // ---- UART input synchroniser ---------------------------------------------------------------------
  logic rx_meta_q, rx_sync_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_meta_q <= 1'b1;
      rx_sync_q <= 1'b1;
    end else begin
      rx_meta_q <= uart_rx_i;
      rx_sync_q <= rx_meta_q;
    end
  end

  // ---- GPU --------------------------------------------------------------------------------------------
  logic                mmio_valid, mmio_write, mmio_rvalid;
  logic [11:0]         mmio_addr;
  logic [31:0]         mmio_wdata, mmio_rdata;
  logic [2:0]          status;
  logic                req_valid, req_ready, resp_valid, resp_ready, resp_write, resp_err;
  logic [IdBits-1:0]   req_id, resp_id;
  logic [1:0]          req_kind;
  logic [31:0]         req_addr;
  logic [15:0]         req_mask;
  logic [127:0]        req_data, resp_data;
  logic [7:0]          req_atom;

  // Observation ports: the board does not export them.
  logic                          unused_cm_valid, unused_cm_exit, unused_cr_valid, unused_cr_exit, unused_dbg_issue;
  logic [2:0]                    unused_cm_kind, unused_dbg_stall;
  logic [WarpBits-1:0]           unused_cm_warp, unused_cr_warp, unused_dbg_warp;
  logic [31:0]                   unused_cm_seq, unused_cm_pc, unused_cm_active, unused_cm_exec, unused_cm_addr;
  logic [31:0]                   unused_cr_seq, unused_cr_pc, unused_cr_active, unused_cr_exec, unused_dbg_seq;
  logic [7:0]                    unused_cm_reg;
  logic [GroupBits-1:0]          unused_cm_group;
  logic [Lanes-1:0]              unused_cm_lanes;
  logic [Lanes*32-1:0]           unused_cm_data;
  logic [15:0]                   unused_cm_mask;
  logic [127:0]                  unused_cm_wdata;

  tsm_gpu #(.NumSms(NumSms), .HexDir(HexDir)) u_gpu (
    .clk_i, .rst_ni,
    .mmio_valid_i(mmio_valid), .mmio_write_i(mmio_write), .mmio_addr_i(mmio_addr), .mmio_wdata_i(mmio_wdata),
    .mmio_rvalid_o(mmio_rvalid), .mmio_rdata_o(mmio_rdata), .status_o(status),
    .mem_req_valid_o(req_valid), .mem_req_ready_i(req_ready), .mem_req_id_o(req_id), .mem_req_kind_o(req_kind),
    .mem_req_addr_o(req_addr), .mem_req_mask_o(req_mask), .mem_req_data_o(req_data), .mem_req_atom_o(req_atom),
    .mem_resp_valid_i(resp_valid), .mem_resp_ready_o(resp_ready), .mem_resp_id_i(resp_id),
    .mem_resp_data_i(resp_data), .mem_resp_write_i(resp_write), .mem_resp_err_i(resp_err),
    .cm_valid_o(unused_cm_valid), .cm_kind_o(unused_cm_kind), .cm_warp_o(unused_cm_warp), .cm_seq_o(unused_cm_seq),
    .cm_pc_o(unused_cm_pc), .cm_active_o(unused_cm_active), .cm_exec_o(unused_cm_exec), .cm_exit_o(unused_cm_exit),
    .cm_reg_o(unused_cm_reg), .cm_group_o(unused_cm_group), .cm_lanes_o(unused_cm_lanes), .cm_data_o(unused_cm_data),
    .cm_addr_o(unused_cm_addr), .cm_mask_o(unused_cm_mask), .cm_wdata_o(unused_cm_wdata),
    .cr_valid_o(unused_cr_valid), .cr_warp_o(unused_cr_warp), .cr_seq_o(unused_cr_seq), .cr_pc_o(unused_cr_pc),
    .cr_active_o(unused_cr_active), .cr_exec_o(unused_cr_exec), .cr_exit_o(unused_cr_exit),
    .dbg_issue_o(unused_dbg_issue), .dbg_warp_o(unused_dbg_warp), .dbg_seq_o(unused_dbg_seq),
    .dbg_stall_o(unused_dbg_stall)
  );

  // ---- memory -----------------------------------------------------------------------------------------
  logic [AddrBits-1:0] mem_addr;
  logic                mem_we;
  logic [7:0]          mem_wdata, mem_rdata;

  tsm_board_mem #(.MemBytes(MemBytes), .MemBase(MemBase), .IdBits(IdBits)) u_mem (
    .clk_i, .rst_ni,
    .a_addr_i(mem_addr), .a_we_i(mem_we), .a_wdata_i(mem_wdata), .a_rdata_o(mem_rdata),
    .mem_req_valid_i(req_valid), .mem_req_ready_o(req_ready), .mem_req_id_i(req_id), .mem_req_kind_i(req_kind),
    .mem_req_addr_i(req_addr), .mem_req_mask_i(req_mask), .mem_req_data_i(req_data), .mem_req_atom_i(req_atom),
    .mem_resp_valid_o(resp_valid), .mem_resp_ready_i(resp_ready), .mem_resp_id_o(resp_id),
    .mem_resp_data_o(resp_data), .mem_resp_write_o(resp_write), .mem_resp_err_o(resp_err)
  );

  // ---- bridge -----------------------------------------------------------------------------------------
  logic rx_byte, tx_byte, frame_err;

  tsm_board_bridge #(
    .ClockHz(ClockHz), .Baud(Baud), .MemBytes(MemBytes), .MemBase(MemBase), .NumSms(NumSms)
  ) u_bridge (
    .clk_i, .rst_ni, .rx_i(rx_sync_q), .tx_o(uart_tx_o),
    .mmio_valid_o(mmio_valid), .mmio_write_o(mmio_write), .mmio_addr_o(mmio_addr), .mmio_wdata_o(mmio_wdata),
    .mmio_rvalid_i(mmio_rvalid), .mmio_rdata_i(mmio_rdata),
    .mem_addr_o(mem_addr), .mem_we_o(mem_we), .mem_wdata_o(mem_wdata), .mem_rdata_i(mem_rdata),
    .rx_byte_o(rx_byte), .tx_byte_o(tx_byte), .frame_err_o(frame_err)
  );

  // ---- LEDs -------------------------------------------------------------------------------------------
  logic [StretchBits-1:0] rx_led_q, tx_led_q;
  logic [HeartBits-1:0]   heart_cnt_q;
  logic                   heart_q, ferr_seen_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_led_q <= '0;
      tx_led_q <= '0;
      heart_cnt_q <= '0;
      heart_q <= 1'b0;
      ferr_seen_q <= 1'b0;
    end else begin
      if (rx_byte) rx_led_q <= StretchBits'(StretchClocks);
      else if (rx_led_q != '0) rx_led_q <= rx_led_q - 1'b1;
      if (tx_byte) tx_led_q <= StretchBits'(StretchClocks);
      else if (tx_led_q != '0) tx_led_q <= tx_led_q - 1'b1;
      if (heart_cnt_q == HeartBits'(HeartClocks - 1)) begin
        heart_cnt_q <= '0;
        heart_q <= !heart_q;
      end else begin
        heart_cnt_q <= heart_cnt_q + 1'b1;
      end
      if (frame_err) ferr_seen_q <= 1'b1;
    end
  end

  assign led_o = {1'b0, heart_q, ferr_seen_q, tx_led_q != '0, rx_led_q != '0, status};

`ifndef SYNTHESIS
  initial begin
    assert (ClockHz / Baud >= 4);
    assert (MemBytes >= 65536 && (MemBytes & (MemBytes - 1)) == 0);
  end
`endif

endmodule
