// The memory arbiter of the GPU top (docs/sm-rtl.md §1): shares one memory port among the SMs.
// Requests: round-robin over the SMs asking (tsm_rr_arbiter, the search starting after the SM
// granted last), the SM's number put in the top bits of the request ID. Responses: routed back to
// the SM the ID's top bits name, with that SM's ready.
//
// Handshakes (docs/gpu-interfaces.md §2): valid/ready on each channel; a request passes on a clock
// where the granted SM's valid and the port's ready are both high. The grant depends on the valid
// bits only, and moves on once its request has passed.
module tsm_mem_arbiter #(
  /// SMs sharing the port.
  parameter int unsigned NumSms = 2,
  /// Bits of an SM number (at least 1).
  parameter int unsigned SmBits = (NumSms > 1) ? $clog2(NumSms) : 1,
  /// Bits of a request ID inside an SM, and on the shared port (the SM's number on top).
  parameter int unsigned SmIdBits = 6,
  parameter int unsigned IdBits = SmIdBits + SmBits
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  /// The SMs' request channels, SM s in slice s.
  input  logic [NumSms-1:0]        sm_req_valid_i,
  output logic [NumSms-1:0]        sm_req_ready_o,
  input  logic [NumSms*SmIdBits-1:0] sm_req_id_i,
  input  logic [NumSms*2-1:0]      sm_req_kind_i,
  input  logic [NumSms*32-1:0]     sm_req_addr_i,
  input  logic [NumSms*16-1:0]     sm_req_mask_i,
  input  logic [NumSms*128-1:0]    sm_req_data_i,
  input  logic [NumSms*8-1:0]      sm_req_atom_i,
  /// The SMs' response channels (the payload is the port's, shared by all).
  output logic [NumSms-1:0]        sm_resp_valid_o,
  input  logic [NumSms-1:0]        sm_resp_ready_i,
  /// The shared memory port.
  output logic                     mem_req_valid_o,
  input  logic                     mem_req_ready_i,
  output logic [IdBits-1:0]        mem_req_id_o,
  output logic [1:0]               mem_req_kind_o,
  output logic [31:0]              mem_req_addr_o,
  output logic [15:0]              mem_req_mask_o,
  output logic [127:0]             mem_req_data_o,
  output logic [7:0]               mem_req_atom_o,
  input  logic                     mem_resp_valid_i,
  output logic                     mem_resp_ready_o,
  input  logic [IdBits-1:0]        mem_resp_id_i
);

  logic [SmBits-1:0] last_q;   // the SM granted last
  logic [SmBits-1:0] grant;
  logic              any_req;
  tsm_rr_arbiter #(.Requesters(NumSms), .IndexBits(SmBits)) u_arbiter (
    .request_i(sm_req_valid_i), .last_i(last_q), .grant_valid_o(any_req), .grant_o(grant)
  );

  // The SM a response is for: the ID's top bits (with one SM, always SM 0).
  logic [SmBits-1:0] resp_sm;
  always_comb begin
    resp_sm = '0;
    if (NumSms > 1) resp_sm = mem_resp_id_i[IdBits-1:SmIdBits];
  end

  always_comb begin
    mem_req_valid_o = any_req;
    mem_req_id_o = IdBits'({grant, sm_req_id_i[SmIdBits*grant +: SmIdBits]});
    mem_req_kind_o = sm_req_kind_i[2*grant +: 2];
    mem_req_addr_o = sm_req_addr_i[32*grant +: 32];
    mem_req_mask_o = sm_req_mask_i[16*grant +: 16];
    mem_req_data_o = sm_req_data_i[128*grant +: 128];
    mem_req_atom_o = sm_req_atom_i[8*grant +: 8];
    sm_req_ready_o = '0;
    sm_req_ready_o[grant] = any_req && mem_req_ready_i;
    sm_resp_valid_o = '0;
    sm_resp_valid_o[resp_sm] = mem_resp_valid_i;
    mem_resp_ready_o = sm_resp_ready_i[resp_sm];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) last_q <= '0;
    else if (mem_req_valid_o && mem_req_ready_i) last_q <= grant;
  end

  logic unused_resp_id;  // the ID's low bits are the SM's own business
  assign unused_resp_id = ^mem_resp_id_i[SmIdBits-1:0];

endmodule
