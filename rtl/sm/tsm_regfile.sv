// Register file of one SM: one row holds one register of SpLanes threads (a quarter-warp on g80).
// Three read ports (operands A, B, C) and one write port with per-lane enables. Each lane's slice
// is a simple dual-port memory, replicated once per read port, so it infers as block RAM.
module tsm_regfile #(
  /// Threads per row (tsm_cfg_pkg::SpLanes).
  parameter int unsigned Lanes = 8,
  /// Rows (tsm_cfg_pkg::RegsPerLane).
  parameter int unsigned Rows = 1024,
  /// Bits of a row address.
  parameter int unsigned AddrBits = $clog2(Rows)
) (
  input  logic                  clk_i,
  /// Read addresses of ports A, B, C (port p in bits [AddrBits*p +: AddrBits]); data next cycle.
  input  logic [3*AddrBits-1:0] raddr_i,
  /// Read data of ports A, B, C (port p in bits [Lanes*32*p +: Lanes*32], lane l at [32l +: 32]).
  output logic [3*Lanes*32-1:0] rdata_o,
  /// Lanes written this cycle.
  input  logic [Lanes-1:0]      we_i,
  input  logic [AddrBits-1:0]   waddr_i,
  input  logic [Lanes*32-1:0]   wdata_i
);
  for (genvar p = 0; p < 3; p++) begin : g_port
    for (genvar l = 0; l < Lanes; l++) begin : g_lane
      logic [31:0] mem [Rows];
      logic [31:0] rdata_q;
      always_ff @(posedge clk_i) begin
        if (we_i[l]) mem[waddr_i] <= wdata_i[32*l +: 32];
        rdata_q <= mem[raddr_i[AddrBits*p +: AddrBits]];
      end
      assign rdata_o[Lanes*32*p + 32*l +: 32] = rdata_q;
    end
  end
endmodule
