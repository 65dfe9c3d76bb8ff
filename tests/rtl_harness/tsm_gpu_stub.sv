// Test stand-in for the GPU top: exactly the ports of docs/gpu-interfaces.md (tsm_gpu), with
// behaviour just rich enough to check sim/rtl/verilated_gpu.hpp against Verilator's real port
// types (8/16/32/64-bit integers and VlWide) for several NumSms/SpLanes/WarpIdWidth.
//   MMIO: ID, NUM_SMS, CONFIG_LO/HI, STATUS (done), one RW register at 0x020.
//   A write of W to 0x0F0 makes every SM s emit one commit event the next clock, each field a
//   known function of W and s (verilated_gpu_test.cpp states them).
//   A write of W to 0x0F4 raises a memory request (fields from W) until it is accepted.
//   The last memory response is readable: data words at 0x0E0..0x0EC, {err, write, id} at 0x0DC.
module tsm_gpu_stub #(
  /// SMs in this top level.
  parameter int unsigned NumSms = 2,
  /// SP lanes per SM: the commit port's data carries one group of this many lanes.
  parameter int unsigned SpLanes = 4,
  /// Bits of a warp slot number.
  parameter int unsigned WarpIdWidth = 3,
  /// The configuration tag CONFIG_LO/HI report.
  parameter logic [63:0] ConfigTag = 64'h0000_006c_6c61_6d73,
  localparam int unsigned GroupWidth = (32 / SpLanes) > 1 ? $clog2(32 / SpLanes) : 1,
  localparam int unsigned SmIdWidth = NumSms > 1 ? $clog2(NumSms) : 1,
  localparam int unsigned IdWidth = 6 + SmIdWidth
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          mmio_valid_i,
  input  logic                          mmio_write_i,
  input  logic [11:0]                   mmio_addr_i,
  input  logic [31:0]                   mmio_wdata_i,
  output logic                          mmio_rvalid_o,
  output logic [31:0]                   mmio_rdata_o,
  output logic                          mem_req_valid_o,
  input  logic                          mem_req_ready_i,
  output logic [IdWidth-1:0]            mem_req_id_o,
  output logic [1:0]                    mem_req_kind_o,
  output logic [31:0]                   mem_req_addr_o,
  output logic [15:0]                   mem_req_mask_o,
  output logic [127:0]                  mem_req_data_o,
  output logic [7:0]                    mem_req_atom_o,
  input  logic                          mem_resp_valid_i,
  output logic                          mem_resp_ready_o,
  input  logic [IdWidth-1:0]            mem_resp_id_i,
  input  logic [127:0]                  mem_resp_data_i,
  input  logic                          mem_resp_write_i,
  input  logic                          mem_resp_err_i,
  output logic [NumSms-1:0]             cm_valid_o,
  output logic [NumSms*3-1:0]           cm_kind_o,
  output logic [NumSms*WarpIdWidth-1:0] cm_warp_o,
  output logic [NumSms*32-1:0]          cm_seq_o,
  output logic [NumSms*32-1:0]          cm_pc_o,
  output logic [NumSms*32-1:0]          cm_active_o,
  output logic [NumSms*32-1:0]          cm_exec_o,
  output logic [NumSms-1:0]             cm_exit_o,
  output logic [NumSms*8-1:0]           cm_reg_o,
  output logic [NumSms*GroupWidth-1:0]  cm_group_o,
  output logic [NumSms*SpLanes-1:0]     cm_lanes_o,
  output logic [NumSms*SpLanes*32-1:0]  cm_data_o,
  output logic [NumSms*32-1:0]          cm_addr_o,
  output logic [NumSms*16-1:0]          cm_mask_o,
  output logic [NumSms*128-1:0]         cm_wdata_o,
  output logic [NumSms-1:0]             cr_valid_o,
  output logic [NumSms*WarpIdWidth-1:0] cr_warp_o,
  output logic [NumSms*32-1:0]          cr_seq_o,
  output logic [NumSms*32-1:0]          cr_pc_o,
  output logic [NumSms*32-1:0]          cr_active_o,
  output logic [NumSms*32-1:0]          cr_exec_o,
  output logic [NumSms-1:0]             cr_exit_o
);

  logic              rvalid_d, rvalid_q;
  logic [31:0]       rdata_d, rdata_q;
  logic [31:0]       scratch_d, scratch_q;
  logic              emit_d, emit_q;
  logic [31:0]       word_d, word_q;
  logic              req_d, req_q;
  logic [31:0]       req_word_d, req_word_q;
  logic [127:0]      resp_data_d, resp_data_q;
  logic [IdWidth+1:0] resp_meta_d, resp_meta_q;

  logic write_access;
  assign write_access = mmio_valid_i && mmio_write_i;

  always_comb begin
    rvalid_d    = mmio_valid_i && !mmio_write_i;
    scratch_d   = scratch_q;
    emit_d      = write_access && mmio_addr_i == 12'h0F0;
    word_d      = word_q;
    req_d       = req_q && !mem_req_ready_i;
    req_word_d  = req_word_q;
    resp_data_d = resp_data_q;
    resp_meta_d = resp_meta_q;
    if (write_access && mmio_addr_i == 12'h020) scratch_d = mmio_wdata_i;
    if (emit_d) word_d = mmio_wdata_i;
    if (write_access && mmio_addr_i == 12'h0F4) begin
      req_d      = 1'b1;
      req_word_d = mmio_wdata_i;
    end
    if (mem_resp_valid_i) begin
      resp_data_d = mem_resp_data_i;
      resp_meta_d = {mem_resp_err_i, mem_resp_write_i, mem_resp_id_i};
    end
    unique case (mmio_addr_i)
      12'h000: rdata_d = 32'h314D_5354;
      12'h004: rdata_d = NumSms;
      12'h008: rdata_d = ConfigTag[31:0];
      12'h00C: rdata_d = ConfigTag[63:32];
      12'h014: rdata_d = 32'h2;
      12'h020: rdata_d = scratch_q;
      12'h0DC: rdata_d = 32'(resp_meta_q);
      12'h0E0: rdata_d = resp_data_q[31:0];
      12'h0E4: rdata_d = resp_data_q[63:32];
      12'h0E8: rdata_d = resp_data_q[95:64];
      12'h0EC: rdata_d = resp_data_q[127:96];
      default: rdata_d = 32'h0;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rvalid_q    <= 1'b0;
      rdata_q     <= '0;
      scratch_q   <= '0;
      emit_q      <= 1'b0;
      word_q      <= '0;
      req_q       <= 1'b0;
      req_word_q  <= '0;
      resp_data_q <= '0;
      resp_meta_q <= '0;
    end else begin
      rvalid_q    <= rvalid_d;
      rdata_q     <= rdata_d;
      scratch_q   <= scratch_d;
      emit_q      <= emit_d;
      word_q      <= word_d;
      req_q       <= req_d;
      req_word_q  <= req_word_d;
      resp_data_q <= resp_data_d;
      resp_meta_q <= resp_meta_d;
    end
  end

  assign mmio_rvalid_o = rvalid_q;
  assign mmio_rdata_o  = rdata_q;

  assign mem_req_valid_o  = req_q;
  assign mem_req_id_o     = IdWidth'(req_word_q[11:4]);
  assign mem_req_kind_o   = req_word_q[1:0];
  assign mem_req_addr_o   = {req_word_q[31:4], 4'b0};
  assign mem_req_mask_o   = req_word_q[31:16] ^ 16'hF0F0;
  assign mem_req_data_o   = {req_word_q + 32'd3, req_word_q + 32'd2, ~req_word_q, req_word_q};
  assign mem_req_atom_o   = req_word_q[11:4];
  assign mem_resp_ready_o = 1'b1;

  for (genvar s = 0; s < NumSms; s++) begin : g_sm
    assign cm_valid_o[s]                               = emit_q;
    assign cm_kind_o[s*3 +: 3]                         = word_q[2:0];
    assign cm_warp_o[s*WarpIdWidth +: WarpIdWidth]     = WarpIdWidth'(word_q + 32'(s));
    assign cm_seq_o[s*32 +: 32]                        = word_q + 32'(s);
    assign cm_pc_o[s*32 +: 32]                         = (word_q ^ 32'hA5A5_0000) + 32'(s);
    assign cm_active_o[s*32 +: 32]                     = ~word_q;
    assign cm_exec_o[s*32 +: 32]                       = word_q << s;
    assign cm_exit_o[s]                                = 1'(s % 2);
    assign cm_reg_o[s*8 +: 8]                          = word_q[7:0] + 8'(s);
    assign cm_group_o[s*GroupWidth +: GroupWidth]      = GroupWidth'(s + 1);
    assign cm_lanes_o[s*SpLanes +: SpLanes]            = SpLanes'(word_q >> s);
    assign cm_addr_o[s*32 +: 32]                       = {word_q[27:0], 4'b0} + 32'(s * 16);
    assign cm_mask_o[s*16 +: 16]                       = word_q[15:0] ^ 16'(s);
    // The retire channel: on odd SMs only, with fields unlike the commit port's.
    assign cr_valid_o[s]                               = emit_q && (s % 2 == 1);
    assign cr_warp_o[s*WarpIdWidth +: WarpIdWidth]     = WarpIdWidth'(word_q + 32'(s + 3));
    assign cr_seq_o[s*32 +: 32]                        = word_q + 32'(s + 5);
    assign cr_pc_o[s*32 +: 32]                         = word_q ^ 32'(s);
    assign cr_active_o[s*32 +: 32]                     = word_q >> s;
    assign cr_exec_o[s*32 +: 32]                       = ~(word_q << s);
    assign cr_exit_o[s]                                = word_q[s];
    for (genvar l = 0; l < SpLanes; l++) begin : g_lane
      assign cm_data_o[(s*SpLanes + l)*32 +: 32] = {word_q[15:0], 8'(s), 8'(l)};
    end
    for (genvar w = 0; w < 4; w++) begin : g_word
      assign cm_wdata_o[s*128 + w*32 +: 32] = word_q + 32'(s * 4 + w);
    end
  end

endmodule
