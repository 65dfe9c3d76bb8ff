// The load/store unit's address generation (docs/sm-rtl.md §2.9): for one row of Lanes lanes of a
// load, store or atomic, by the golden model's rules (sim/golden/model.cpp, the address of an
// access and its checks):
//   - the address: register A (a 64-bit pair when wide_address_i) plus the instruction's offset
//     (LDC: the constant offset; others with an offset: the sign-extended memory offset);
//   - the space: LDS/STS/ATOMS/ATOMSCAS shared, LDL/STL local, LD/ST/ATOM/ATOMCAS generic (an
//     address in the shared or local window is shared or local there, else global), others global;
//   - the checks, in this order: a 64-bit address with a non-zero upper word (address range); an
//     address not aligned to the access size; shared beyond the block's shared memory, local beyond
//     the thread's local memory (and any atomic on local memory), a constant beyond 64 KB (out of
//     bounds); the row's first failing executing lane, in lane order, is its fault;
//   - each lane's byte address in the SM's memories: shared from the block's shared base; local
//     interleaved so that a warp's 32 words of one local word are 128 consecutive bytes; constant
//     from its bank's base; global as is. And the store data, replicated to fill its word (bytes,
//     halves), so that a merge takes byte b of a word from byte b of the lane's data.
//
// Contract: combinational, no state. The load/store unit writes the outputs into its lane buffers A and B
// (its ADDRESS state) and records each executing lane's space on the first word pass.
module tsm_lsu_agen #(
  /// SP lanes: a row's lanes.
  parameter int unsigned Lanes = 8,
  /// Rows of a warp (32 / Lanes) and the bits of a row number.
  parameter int unsigned Rows = 4,
  parameter int unsigned RowBits = 2,
  /// Warp slots of the SM and the bits of a warp slot number.
  parameter int unsigned Warps = 24,
  parameter int unsigned WarpBits = 5,
  /// Bytes between a thread's consecutive local words (SMs × warps × 32 threads × 4 bytes).
  parameter int unsigned LocalStride = 3072
) (
  input  logic [RowBits-1:0]    row_i,                 // lanes row_i * Lanes ..
  input  logic [Lanes-1:0]      exec_i,                // the row's executing lanes
  input  logic                  first_pass_i,          // the access's first word pass: check and record spaces
  /// Register A's row (low words) and the row of its high words (64-bit addresses); A is RZ.
  input  logic [Lanes*32-1:0]   address_low_i, address_high_i,
  input  logic                  address_zero_i,
  /// The store data row (register D's low words); D is RZ.
  input  logic [Lanes*32-1:0]   store_i,
  input  logic                  store_zero_i,

  // ---- the instruction (tsm_decode) ----
  input  logic [7:0]            opcode_i,
  input  logic                  memory_offset_used_i,
  input  logic [23:0]           memory_offset_i,
  input  logic [15:0]           const_offset_i,
  input  logic                  wide_address_i, shared_only_i, atomic_i,
  input  logic [4:0]            access_bytes_i,

  // ---- where the spaces are ----
  input  logic [31:0]           shared_base_i,         // the block's shared memory, a byte address in the banks
  input  logic [31:0]           shared_bytes_i,
  input  logic [31:0]           local_base_i,          // global address of local memory
  input  logic [31:0]           local_bytes_i,         // per thread
  input  logic [31:0]           const_base_i,          // global address of the instruction's constant bank
  input  logic [31:0]           sm_i,
  input  logic [WarpBits-1:0]   warp_i,

  /// The warp's lanes' spaces (tsm_lsu_pkg::Space*, 2 bits a lane): as recorded, and with this row's
  /// executing lanes' recorded on the first pass.
  input  logic [32*2-1:0]       spaces_i,
  output logic [32*2-1:0]       spaces_o,
  /// The row's first fault (tsm_sm_pkg's kinds): its address (the upper word for a range fault of
  /// a 64-bit address) and lane.
  output logic                  fault_o,
  output logic [3:0]            fault_kind_o,
  output logic [31:0]           fault_address_o,
  output logic [5:0]            fault_lane_o,
  /// The lanes' addresses, for buffer A (written for the executing lanes on the first pass), and
  /// their store data, for buffer B (written for the executing lanes).
  output logic [Lanes*32-1:0]   address_o,
  output logic [Lanes-1:0]      address_write_o,
  output logic [Lanes*32-1:0]   store_o,
  output logic [Lanes-1:0]      store_write_o
);

  // Store data of a size-aligned access of n bytes (1, 2 or at least 4), repeated to fill a word.
  function automatic logic [31:0] replicate_bytes(input logic [31:0] d, input logic [4:0] n);
    replicate_bytes = n == 5'd1 ? {4{d[7:0]}} : n == 5'd2 ? {2{d[15:0]}} : d;
  endfunction

  always_comb begin
    logic [5:0]  lane;
    logic [31:0] low, high, offset, address, relative, effective;
    logic [32:0] sum_low;
    logic [31:0] sum_high;
    logic [1:0]  space;
    logic [3:0]  kind;
    logic        generic, local_op, constant;
    generic = opcode_i == tsm_isa_pkg::OP_LD || opcode_i == tsm_isa_pkg::OP_ST || opcode_i == tsm_isa_pkg::OP_ATOM ||
              opcode_i == tsm_isa_pkg::OP_ATOMCAS;
    local_op = opcode_i == tsm_isa_pkg::OP_LDL || opcode_i == tsm_isa_pkg::OP_STL;
    constant = opcode_i == tsm_isa_pkg::OP_LDC;
    offset = constant ? {16'd0, const_offset_i} : memory_offset_used_i ? {{8{memory_offset_i[23]}}, memory_offset_i} : 32'd0;
    fault_o = 1'b0; fault_kind_o = '0; fault_address_o = '0; fault_lane_o = '0;
    spaces_o = spaces_i;
    address_o = '0; store_o = '0; address_write_o = '0; store_write_o = '0;
    for (int l = 0; l < Lanes; l++) begin
      lane = 6'(32'(row_i) * Lanes + l);
      low = address_zero_i ? 32'd0 : address_low_i[32*l +: 32];
      high = address_zero_i ? 32'd0 : address_high_i[32*l +: 32];
      sum_low = {1'b0, low} + {1'b0, offset};
      sum_high = high + {32{offset[31]}} + 32'(sum_low[32]);
      address = sum_low[31:0];
      kind = '0;
      if (wide_address_i && sum_high != '0) kind = tsm_sm_pkg::FaultAddressRange;
      // The space of the lane and its address within it.
      space = tsm_lsu_pkg::SpaceGlobal;
      relative = address;
      if (shared_only_i) space = tsm_lsu_pkg::SpaceShared;
      else if (local_op) space = tsm_lsu_pkg::SpaceLocal;
      else if (generic) begin
        if (address - tsm_isa_pkg::SHARED_WINDOW_BASE < tsm_isa_pkg::WINDOW_BYTES) begin
          space = tsm_lsu_pkg::SpaceShared; relative = address - tsm_isa_pkg::SHARED_WINDOW_BASE;
        end else if (address - tsm_isa_pkg::LOCAL_WINDOW_BASE < tsm_isa_pkg::WINDOW_BYTES) begin
          space = tsm_lsu_pkg::SpaceLocal; relative = address - tsm_isa_pkg::LOCAL_WINDOW_BASE;
        end
      end
      if (kind == '0 && (relative & (32'(access_bytes_i) - 32'd1)) != '0) kind = tsm_sm_pkg::FaultMisaligned;
      if (kind == '0 && space == tsm_lsu_pkg::SpaceShared && {1'b0, relative} + 33'(access_bytes_i) > {1'b0, shared_bytes_i})
        kind = tsm_sm_pkg::FaultOutOfBounds;
      if (kind == '0 && space == tsm_lsu_pkg::SpaceLocal &&
          (atomic_i || {1'b0, relative} + 33'(access_bytes_i) > {1'b0, local_bytes_i}))
        kind = tsm_sm_pkg::FaultOutOfBounds;
      if (kind == '0 && constant && {1'b0, relative} + 33'(access_bytes_i) > 33'h1_0000) kind = tsm_sm_pkg::FaultOutOfBounds;
      unique case (space)
        tsm_lsu_pkg::SpaceShared: effective = shared_base_i + relative;
        tsm_lsu_pkg::SpaceLocal: effective = local_base_i + (relative >> 2) * LocalStride +
                                             (((sm_i * Warps + 32'(warp_i)) * 32 + 32'(lane)) << 2) + {30'd0, relative[1:0]};
        default: effective = constant ? const_base_i + relative : address;
      endcase
      if (exec_i[l] && first_pass_i) begin
        if (kind != '0 && !fault_o) begin
          fault_o = 1'b1; fault_kind_o = kind; fault_lane_o = lane;
          fault_address_o = (wide_address_i && kind == tsm_sm_pkg::FaultAddressRange) ? sum_high : address;
        end
        for (int r = 0; r < Rows; r++)
          if (32'(row_i) == r) spaces_o[2*(r*Lanes + l) +: 2] = space;
        address_write_o[l] = 1'b1;
      end
      address_o[32*l +: 32] = effective;
      store_write_o[l] = exec_i[l];
      store_o[32*l +: 32] = replicate_bytes(store_zero_i ? 32'd0 : store_i[32*l +: 32], access_bytes_i);
    end
  end

endmodule
