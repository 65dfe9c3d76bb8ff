// The board's global memory: MemBytes of block RAM as 128-bit lines, answering tsm_gpu's memory
// port (docs/gpu-interfaces.md §2) on port B and giving the UART bridge byte access on port A.
//
// Theory of operation
// - Storage: MemBytes/16 lines x 128 bits as 16 true dual-port byte lanes (lane i: byte i of
//   every line), so a byte enable is a lane's write enable; Yosys maps each lane to DP16KD
//   (MemBytes/32768 blocks of 8192 x 2 a lane). Port A writes one byte (one lane) and reads the
//   whole line, from which a registered 16:1 byte select picks the addressed byte.
// - Port A timing: a_addr_i/a_we_i/a_wdata_i are sampled on a rising edge; a write lands on that
//   edge; a_rdata_o shows the byte at the address sampled two edges earlier (edge n: the RAM
//   reads the line; edge n+1: the byte is selected into a register; valid after edge n+1 until
//   edge n+2). A port's read in the same clock as its own write of the same line returns the old
//   contents; a read of a line the other port writes in that clock is undefined (DP16KD).
// - Port B: a small state machine serves one GPU request at a time, in order: it takes a request
//   (ready only in MIdle), checks the window, reads or writes the line, and for an atomic reads
//   the line, compares and adds (MCmp), picks the new value (MCalc), writes it back with a byte
//   mask over the operand and answers the old value. The response waits in MResp until
//   mem_resp_ready_i. A request is accepted every 4 clocks (read), 3 (write) or 7 (atomic) when
//   the responses are taken at once.
// - Window [MemBase, MemBase+MemBytes): a read answers err when its line is outside; a write when
//   its line is outside and its mask is not 0 (as sim/rtl/memory_model.cpp: a write touching no
//   byte is harmless); an atomic when any of its 4 or 8 bytes is outside. err requests do
//   nothing. Decisions beyond the port's contract: line requests ignore address bits [3:0] (the
//   SM sends aligned lines); a misaligned atomic, an atomic with an undefined type or operation
//   code (the simulator's memory throws on those) and request kind 3 answer err.
// - Atomics: atomic_new_value() of sim/rtl/memory_model.cpp. F32 ADD is tsm_fadd32 (round to
//   nearest even, flushing subnormal inputs and tiny results as PTX's atom.global.add.f32 does,
//   the canonical NaN 0x7FFFFFFF); F32 MIN/MAX are PTX's (no flush, -0
//   below +0, one NaN gives the other operand, two the canonical NaN); INC/DEC compare unsigned
//   for every type; CAS (atom bit 7) stores the swap value when the old value equals b. 32-bit
//   types use [31:0] of b and swap and answer the old value zero-extended.
module tsm_board_mem #(
  /// Bytes of memory: a power of two, at least 65536.
  parameter int unsigned MemBytes = 131072,
  /// Device address of the first byte; a multiple of 16.
  parameter logic [31:0] MemBase = 32'h0010_0000,
  /// Width of the memory port's request ID (tsm_gpu's IdBits: 7 for one SM).
  parameter int unsigned IdBits = 7,
  /// Derived, do not override: byte offset bits.
  parameter int unsigned AddrBits = $clog2(MemBytes)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // ---- port A: the bridge, byte-granular ----
  /// Byte offset into the memory (device address - MemBase).
  input  logic [AddrBits-1:0] a_addr_i,
  /// Write a_wdata_i at a_addr_i on this clock's edge.
  input  logic                a_we_i,
  input  logic [7:0]          a_wdata_i,
  /// The byte at the a_addr_i of two clocks earlier.
  output logic [7:0]          a_rdata_o,
  // ---- port B: tsm_gpu's memory port (the responder side) ----
  input  logic                mem_req_valid_i,
  output logic                mem_req_ready_o,
  input  logic [IdBits-1:0]   mem_req_id_i,
  input  logic [1:0]          mem_req_kind_i,
  input  logic [31:0]         mem_req_addr_i,
  input  logic [15:0]         mem_req_mask_i,
  input  logic [127:0]        mem_req_data_i,
  input  logic [7:0]          mem_req_atom_i,
  output logic                mem_resp_valid_o,
  input  logic                mem_resp_ready_i,
  output logic [IdBits-1:0]   mem_resp_id_o,
  output logic [127:0]        mem_resp_data_o,
  output logic                mem_resp_write_o,
  output logic                mem_resp_err_o
);

  localparam int unsigned Lines = MemBytes / 16;
  localparam int unsigned LineBits = AddrBits - 4;
  localparam logic [1:0] KindRead = 2'd0, KindWrite = 2'd1, KindAtomic = 2'd2;

  // ---- the RAM: 16 byte lanes ----------------------------------------------------------------
  // Lane i holds byte i of every line. Separate byte-wide memories let Yosys use DP16KD as
  // 8192 x 2 (4 blocks a lane at 128 KiB, no read multiplexers) with the byte enable as the
  // lane's write enable; one 128-bit memory was mapped 1024 x 18, 8 deep, behind 8:1 multiplexers.
  logic [LineBits-1:0] a_line, b_line;
  logic [15:0]         a_be, b_be;
  logic [127:0]        b_wline, a_rline_q, b_rline_q;
  logic                b_we;

  assign a_line = a_addr_i[AddrBits-1:4];
  assign a_be = 16'd1 << a_addr_i[3:0];

  for (genvar i = 0; i < 16; i++) begin : g_lane
    // no_rw_check: Yosys otherwise keeps one port's read from seeing the other port's write of
    // the same clock (old data), which DP16KD cannot promise, and falls back to flip-flops.
    (* no_rw_check *)
    logic [7:0] lane_q [Lines];
    always_ff @(posedge clk_i) begin
      if (a_we_i && a_be[i]) lane_q[a_line] <= a_wdata_i;
      a_rline_q[8*i +: 8] <= lane_q[a_line];
    end
    always_ff @(posedge clk_i) begin
      if (b_we && b_be[i]) lane_q[b_line] <= b_wline[8*i +: 8];
      b_rline_q[8*i +: 8] <= lane_q[b_line];
    end
  end

  // Port A byte select (the second clock of its read).
  logic [3:0] a_off_q;
  logic [7:0] a_rdata_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_off_q <= '0;
      a_rdata_q <= '0;
    end else begin
      a_off_q <= a_addr_i[3:0];
      a_rdata_q <= a_rline_q[8*a_off_q +: 8];
    end
  end
  assign a_rdata_o = a_rdata_q;

  // ---- port B: the request state machine ------------------------------------------------------
  typedef enum logic [2:0] {
    MIdle,    // ready for a request
    MAccess,  // check the window; read or write the line
    MData,    // the line read in MAccess is on b_rline_q
    MCmp,     // atomic: compare and add (registered)
    MCalc,    // atomic: the new value from the old one
    MWrite,   // atomic: write the new value back
    MResp     // the response waits for mem_resp_ready_i
  } mem_state_e;

  mem_state_e        state_q, state_d;
  logic [IdBits-1:0] id_q, id_d;
  logic [1:0]        kind_q, kind_d;
  logic [31:0]       addr_q, addr_d;
  logic [15:0]       mask_q, mask_d;
  logic [127:0]      data_q, data_d;
  logic [7:0]        atom_q, atom_d;
  logic [63:0]       old_q, old_d, new_q, new_d;
  logic [127:0]      resp_data_q, resp_data_d;
  logic              resp_write_q, resp_write_d, resp_err_q, resp_err_d;

  // Decode of the held request.
  logic [31:0] offset;
  logic        wide, atom_ok, err;
  logic [2:0]  atype;
  logic [3:0]  aop;
  always_comb begin
    offset = addr_q - MemBase;
    atype = atom_q[6:4];
    aop = atom_q[3:0];
    wide = atype == tsm_isa_pkg::ATYPE_U64 || atype == tsm_isa_pkg::ATYPE_S64;
    atom_ok = atype <= tsm_isa_pkg::ATYPE_S64 && aop <= tsm_isa_pkg::AOP_XOR;
    unique case (kind_q)
      KindRead:  err = offset >= MemBytes;
      KindWrite: err = offset >= MemBytes && mask_q != '0;
      KindAtomic: err = !atom_ok || (wide ? offset[2:0] != '0 : offset[1:0] != '0) ||
                        offset > MemBytes - (wide ? 32'd8 : 32'd4);
      default:   err = 1'b1;
    endcase
  end

  // Atomic arithmetic on old_q and b (data_q[63:0]); swap value data_q[127:64].
  logic [31:0] fadd;

  // binary32 old + b, round to nearest even, subnormal inputs and tiny results flushed to zeros of
  // their sign: sim/arith's add_f32(old, b, RN, ftz), the adder of the SM's shared atomics.
  tsm_fadd32 u_fadd (.a_i(old_q[31:0]), .b_i(data_q[31:0]), .ftz_i(1'b1), .sum_o(fadd));

  // Everything else shares one adder and two comparators. MIN/MAX compare b < old in an order
  // made unsigned: signed types flip the sign bit; binary32 maps x to x ^ 0x80000000 (positive)
  // or ~x (negative), which orders -0 below +0 as PTX's min/max do (no flush). INC and DEC compare
  // unsigned for every type. The comparisons, the sum and the binary32 sum are registered (MCmp)
  // before the result is chosen (MCalc): without the register, ABC copied the 64-bit comparisons
  // into every result bit's cone (about 800 LUTs more).
  logic [63:0] op_old, op_b, op_swap, total;
  logic        minmax, is_f32, op_min, cas, b_below, old_below, old_zero, cas_hit, old_nan, b_nan;
  always_comb begin
    logic [63:0] flip_old, flip_b, addend;
    logic        sgn;
    op_old = wide ? old_q : {32'd0, old_q[31:0]};
    op_b = wide ? data_q[63:0] : {32'd0, data_q[31:0]};
    op_swap = wide ? data_q[127:64] : {32'd0, data_q[95:64]};
    sgn = atype == tsm_isa_pkg::ATYPE_S32 || atype == tsm_isa_pkg::ATYPE_S64;
    is_f32 = atype == tsm_isa_pkg::ATYPE_F32;
    cas = atom_q[7];
    op_min = aop == tsm_isa_pkg::AOP_MIN;
    minmax = !cas && (op_min || aop == tsm_isa_pkg::AOP_MAX);
    flip_old = '0;
    flip_b = '0;
    if (minmax && is_f32) begin
      flip_old[31:0] = {1'b1, {31{op_old[31]}}};
      flip_b[31:0] = {1'b1, {31{op_b[31]}}};
    end else if (minmax && sgn) begin
      flip_old[wide ? 63 : 31] = 1'b1;
      flip_b[wide ? 63 : 31] = 1'b1;
    end
    b_below = (op_b ^ flip_b) < (op_old ^ flip_old);
    old_below = op_old < op_b;
    old_zero = op_old == '0;
    cas_hit = op_old == op_b;
    old_nan = op_old[30:23] == 8'hFF && op_old[22:0] != '0;
    b_nan = op_b[30:23] == 8'hFF && op_b[22:0] != '0;
    unique case (aop)
      tsm_isa_pkg::AOP_INC: addend = 64'd1;
      tsm_isa_pkg::AOP_DEC: addend = '1;
      default:              addend = op_b;
    endcase
    total = op_old + addend;
  end

  logic [63:0] total_q, new_value;
  logic [31:0] fadd_q;
  logic [5:0]  flags_q;  // {b_nan, old_nan, cas_hit, old_zero, old_below, b_below}
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      total_q <= '0;
      fadd_q <= '0;
      flags_q <= '0;
    end else if (state_q == MCmp) begin
      total_q <= total;
      fadd_q <= fadd;
      flags_q <= {b_nan, old_nan, cas_hit, old_zero, old_below, b_below};
    end
  end

  always_comb begin
    logic op_add, op_inc, op_dec, op_exch, op_and, op_or, op_xor, hit, nan_case, both_nan, mm_pick_b;
    logic sel_b, sel_old, sel_total;
    op_add = !cas && aop == tsm_isa_pkg::AOP_ADD;
    op_inc = !cas && aop == tsm_isa_pkg::AOP_INC;
    op_dec = !cas && aop == tsm_isa_pkg::AOP_DEC;
    op_exch = !cas && aop == tsm_isa_pkg::AOP_EXCH;
    op_and = !cas && aop == tsm_isa_pkg::AOP_AND;
    op_or = !cas && aop == tsm_isa_pkg::AOP_OR;
    op_xor = !cas && aop == tsm_isa_pkg::AOP_XOR;
    hit = cas && flags_q[3];
    nan_case = minmax && is_f32 && (flags_q[4] || flags_q[5]);
    both_nan = nan_case && flags_q[4] && flags_q[5];  // the canonical NaN
    // MIN takes b when b is below old, MAX when it is not; with one NaN, the other operand
    mm_pick_b = nan_case ? flags_q[4] : (op_min == flags_q[0]);
    sel_b = op_exch || (minmax && !both_nan && mm_pick_b) || (op_dec && (flags_q[2] || flags_q[0]));
    sel_old = (cas && !hit) || (minmax && !both_nan && !mm_pick_b);
    sel_total = (op_add && !is_f32) || (op_inc && flags_q[1]) || (op_dec && !flags_q[2] && !flags_q[0]);
    new_value = ({64{sel_b}} & op_b) | ({64{sel_old}} & op_old) | ({64{sel_total}} & total_q) |
                ({64{hit}} & op_swap) | ({64{op_add && is_f32}} & {32'd0, fadd_q}) |
                ({64{both_nan}} & 64'h7FFF_FFFF) | ({64{op_and}} & (op_old & op_b)) |
                ({64{op_or}} & (op_old | op_b)) | ({64{op_xor}} & (op_old ^ op_b));
    if (!wide) new_value[63:32] = 32'd0;
  end

  always_comb begin
    state_d = state_q;
    id_d = id_q;
    kind_d = kind_q;
    addr_d = addr_q;
    mask_d = mask_q;
    data_d = data_q;
    atom_d = atom_q;
    old_d = old_q;
    new_d = new_q;
    resp_data_d = resp_data_q;
    resp_write_d = resp_write_q;
    resp_err_d = resp_err_q;
    b_line = offset[AddrBits-1:4];
    b_we = 1'b0;
    b_be = '0;
    b_wline = data_q;
    unique case (state_q)
      MIdle: begin
        if (mem_req_valid_i) begin
          id_d = mem_req_id_i;
          kind_d = mem_req_kind_i;
          addr_d = mem_req_addr_i;
          mask_d = mem_req_mask_i;
          data_d = mem_req_data_i;
          atom_d = mem_req_atom_i;
          state_d = MAccess;
        end
      end
      MAccess: begin
        resp_data_d = '0;
        resp_write_d = kind_q == KindWrite;
        resp_err_d = err;
        if (err) begin
          state_d = MResp;
        end else if (kind_q == KindWrite) begin
          b_we = 1'b1;
          b_be = mask_q;
          state_d = MResp;
        end else begin
          state_d = MData;  // read and atomic: the line comes next clock
        end
      end
      MData: begin
        if (kind_q == KindRead) begin
          resp_data_d = b_rline_q;
          state_d = MResp;
        end else begin
          old_d = wide ? b_rline_q[64*offset[3] +: 64] : {32'd0, b_rline_q[32*offset[3:2] +: 32]};
          state_d = MCmp;
        end
      end
      MCmp: begin
        state_d = MCalc;
      end
      MCalc: begin
        new_d = new_value;
        resp_data_d = {64'd0, old_q};
        state_d = MWrite;
      end
      MWrite: begin
        b_we = 1'b1;
        b_be = wide ? (16'h00FF << offset[3:0]) : (16'h000F << offset[3:0]);
        b_wline = wide ? {2{new_q}} : {4{new_q[31:0]}};
        state_d = MResp;
      end
      MResp: begin
        if (mem_resp_ready_i) state_d = MIdle;
      end
      default: state_d = MIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= MIdle;
      id_q <= '0;
      kind_q <= '0;
      addr_q <= '0;
      mask_q <= '0;
      data_q <= '0;
      atom_q <= '0;
      old_q <= '0;
      new_q <= '0;
      resp_data_q <= '0;
      resp_write_q <= 1'b0;
      resp_err_q <= 1'b0;
    end else begin
      state_q <= state_d;
      id_q <= id_d;
      kind_q <= kind_d;
      addr_q <= addr_d;
      mask_q <= mask_d;
      data_q <= data_d;
      atom_q <= atom_d;
      old_q <= old_d;
      new_q <= new_d;
      resp_data_q <= resp_data_d;
      resp_write_q <= resp_write_d;
      resp_err_q <= resp_err_d;
    end
  end

  assign mem_req_ready_o = state_q == MIdle;
  assign mem_resp_valid_o = state_q == MResp;
  assign mem_resp_id_o = id_q;
  assign mem_resp_data_o = resp_data_q;
  assign mem_resp_write_o = resp_write_q;
  assign mem_resp_err_o = resp_err_q;

`ifndef SYNTHESIS
  initial begin
    assert (MemBytes >= 65536 && (MemBytes & (MemBytes - 1)) == 0);
    assert (MemBase[3:0] == 4'd0);
  end
`endif

endmodule
