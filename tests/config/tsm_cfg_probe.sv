// Lint/elaboration probe: uses a generated tsm_cfg_pkg the way RTL does (tsm_cfg_pkg::NAME only).
module tsm_cfg_probe (
  /// A warp-slot index, sized by the package.
  input  logic [tsm_cfg_pkg::WarpIdWidth-1:0]     warp_i,
  /// A lane index, sized by the package.
  input  logic [tsm_cfg_pkg::LaneIdxWidth-1:0]    lane_i,
  /// The warp's first register-file row in a lane slice (warp_i x MaxRegsPerThread, truncated).
  output logic [tsm_cfg_pkg::RegLaneAddrWidth-1:0] reg_row_o,
  /// The shared-memory bank of word lane_i.
  output logic [tsm_cfg_pkg::SharedBankWidth-1:0] bank_o,
  /// The configuration tag the SM reports to the host.
  output logic [63:0]                             config_tag_o
);

  assign reg_row_o    = tsm_cfg_pkg::RegLaneAddrWidth'(32'(warp_i) * tsm_cfg_pkg::MaxRegsPerThread);
  assign bank_o       = tsm_cfg_pkg::SharedBankWidth'(32'(lane_i) % tsm_cfg_pkg::SharedBanks);
  assign config_tag_o = tsm_cfg_pkg::ConfigTag;

endmodule
