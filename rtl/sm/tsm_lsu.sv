// The load/store unit (docs/sm-rtl.md §2.9): one load, store or atomic warp instruction from its
// first address to its last request. Row by row it reads each executing lane's address (and store
// data) from the register file and generates the lane's space and address (tsm_lsu_agen) into lane
// buffers A and B; then it serves the shared lanes, a half-warp bank step at a time through the
// shared-memory unit (tsm_smem), writing loaded rows back; then the global, local and constant
// lanes, one request per 16-byte line (tsm_coalescer), each with a request ID and, for a load, a
// load slot of the memory tracker (tsm_mem_tracker), whose response processor writes the data back
// later; word by word for accesses wider than a word. Atomics go lane by lane in lane order: a
// shared lane is a read-modify-write of the banks (tsm_atomic_alu) and its old value written back
// a row at a time; a global lane is a request whose old value the memory tracker writes back. It
// counts the compute capability 1.2 segment transactions of global and local words
// (tsm_segment_counter).
//
// Handshake: the engine raises start_i in the clock it issues the instruction (its fields, the
// warp's executed lanes exec_i and the register-file base base_i are then held until the unit is
// done) and keeps its own state at E_LSU until the unit reports, in one clock, finish_o (the
// instruction retires: the engine's E_RET), park_o (a global atomic's requests are all sent: the
// warp waits for the old values and the memory tracker retires the instruction) or fault_o (an
// address fault, with its kind, address and lane). Meanwhile the unit drives the engine's ports
// through its read_*, write_*, event_*, bank_*, step_*, req_*, id_alloc_*, slot_* outputs, which
// are zero (no request) while it is idle. Lane buffers A, B and C are lent to SHFL between
// instructions (borrow_*): SHFL gathers every lane's operands there and reads its sources back.
// (The file is a little over 700 lines: its port list, the engine's ports the unit drives, is 140.)
module tsm_lsu #(
  /// SP lanes (a row's lanes), rows of a warp (32 / Lanes) and the bits of a row number.
  parameter int unsigned Lanes = 8,
  parameter int unsigned Rows = 4,
  parameter int unsigned RowBits = 2,
  /// Warp slots of the SM and the bits of a warp slot number.
  parameter int unsigned Warps = 24,
  parameter int unsigned WarpBits = 5,
  /// Bits of a register-file row address.
  parameter int unsigned RegisterRowBits = 10,
  /// Shared-memory banks and the bits of a word address in a bank.
  parameter int unsigned SharedBanks = 16,
  parameter int unsigned SharedRowBits = 8,
  /// Bits of a memory request ID; bits of a load-slot number.
  parameter int unsigned IdBits = 6,
  parameter int unsigned SlotBits = 3,
  /// Bytes between a thread's local words (docs/gpu-interfaces.md §2.3).
  parameter int unsigned LocalStride = 3072
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,

  // ---- the instruction ----
  input  logic                         start_i,
  output logic                         finish_o,
  output logic                         park_o,
  output logic                         fault_o,
  output logic [3:0]                   fault_kind_o,
  output logic [31:0]                  fault_address_o,
  output logic [5:0]                   fault_lane_o,
  input  logic [7:0]                   opcode_i,
  input  logic [7:0]                   ra_i,                // registers (255: RZ)
  input  logic [7:0]                   rb_i,
  input  logic [7:0]                   rc_i,
  input  logic [7:0]                   rd_i,
  input  logic                         load_i,
  input  logic                         store_i,
  input  logic                         atomic_i,
  input  logic                         compare_swap_i,
  input  logic                         atomic_64_i,
  input  logic [2:0]                   atomic_type_i,
  input  logic [3:0]                   atomic_op_i,
  input  logic                         shared_only_i,
  input  logic                         wide_address_i,
  input  logic [2:0]                   memory_size_i,       // tsm_isa_pkg::MSZ_*
  input  logic [4:0]                   access_bytes_i,
  input  logic [2:0]                   access_words_i,
  input  logic                         memory_offset_used_i,
  input  logic [23:0]                  memory_offset_i,
  input  logic [15:0]                  const_offset_i,
  input  logic                         b_const_i,           // operand B is the constant-bank word b_word_i
  input  logic [31:0]                  b_word_i,            //   (b_word_high_i: the next one)
  input  logic [31:0]                  b_word_high_i,
  input  logic                         b_immediate_i,       // ... or the immediate b_immediate_value_i
  input  logic [31:0]                  b_immediate_value_i,
  input  logic [31:0]                  exec_i,              // the lanes that execute it
  input  logic [WarpBits-1:0]          warp_i,
  input  logic [RegisterRowBits-1:0]   base_i,              // the warp's first register-file row
  input  logic [31:0]                  shared_base_i,       // the block's shared memory
  input  logic [31:0]                  shared_bytes_i,
  input  logic [31:0]                  local_base_i,
  input  logic [31:0]                  local_bytes_i,
  input  logic [31:0]                  const_base_i,        // the constant bank's base
  input  logic [31:0]                  sm_i,

  // ---- register file: three read ports (their data a clock later), the write request ----
  output logic [3*RegisterRowBits-1:0] read_rows_o,
  input  logic [3*Lanes*32-1:0]        read_data_i,
  output logic                         write_valid_o,
  output logic [Lanes-1:0]             write_lanes_o,
  output logic [RegisterRowBits-1:0]   write_row_o,
  output logic [Lanes*32-1:0]          write_data_o,

  // ---- the commit event of this clock (a register row, or a global store's line) ----
  output logic                         event_valid_o,
  output logic [2:0]                   event_kind_o,
  output logic [7:0]                   event_register_o,
  output logic [RowBits-1:0]           event_group_o,
  output logic [Lanes-1:0]             event_lanes_o,
  output logic [Lanes*32-1:0]          event_data_o,
  output logic [31:0]                  event_address_o,
  output logic [15:0]                  event_mask_o,
  output logic [127:0]                 event_store_data_o,

  // ---- shared memory: the banks' ports (atomics), or a half-warp step (tsm_smem) ----
  output logic [SharedBanks-1:0]               bank_we_o,
  output logic [SharedBanks*4-1:0]             bank_be_o,
  output logic [SharedBanks*SharedRowBits-1:0] bank_addr_o,
  output logic [SharedBanks*32-1:0]            bank_wdata_o,
  input  logic [SharedBanks*32-1:0]            bank_rdata_i,
  output logic                         step_o,
  output logic [15:0]                  step_pending_o,      // the half-warp's lanes still to serve,
  output logic [16*32-1:0]             step_address_o,      //   their addresses
  output logic [16*32-1:0]             step_data_o,         //   and store data
  input  logic [15:0]                  step_serve_i,        // the lanes this step serves
  input  logic [16*32-1:0]             step_word_i,         // their loaded words, a clock later

  // ---- outgoing memory requests (the SM's request queue) ----
  output logic                         req_valid_o,
  output logic [IdBits-1:0]            req_id_o,
  output logic [1:0]                   req_kind_o,          // 0 read, 1 write, 2 atomic
  output logic [31:0]                  req_addr_o,
  output logic [15:0]                  req_mask_o,
  output logic [127:0]                 req_data_o,
  output logic [7:0]                   req_atom_o,
  input  logic                         req_room_i,

  // ---- memory tracker: request IDs and load slots ----
  input  logic [5:0]                   free_id_i,
  input  logic                         free_id_valid_i,
  input  logic [SlotBits-1:0]          free_slot_i,
  input  logic                         free_slot_valid_i,
  output logic                         id_alloc_o,
  output logic                         id_alloc_store_o,
  output logic [2:0]                   id_alloc_slot_o,
  output logic [1:0]                   id_alloc_word_o,
  output logic [31:0]                  id_alloc_lanes_o,
  output logic [31:0]                  id_alloc_addr_o,
  output logic                         id_alloc_local_o,
  output logic                         slot_alloc_o,
  output logic                         slot_alloc_atomic_o,
  output logic                         slot_alloc_wide_o,
  output logic [2:0]                   slot_alloc_registers_o,
  output logic [2:0]                   slot_alloc_size_o,
  output logic                         slot_alloc_offsets_valid_o,
  output logic [32*4-1:0]              slot_offsets_o,      // each lane's offset in its line
  output logic [SlotBits-1:0]          slot_o,              // the instruction's load slot:
  output logic                         slot_request_o,      //   a request of it is sent,
  output logic                         slot_issued_o,       //   all of them are,
  output logic                         slot_atomic_o,       //   ... of a global atomic

  // ---- the warp table; performance events ----
  output logic                         load_issue_o,        // a load slot of the warp is allocated
  output logic                         store_issue_o,       // a store of the warp is sent
  output logic                         perf_request_o,      // a memory request is sent
  output logic                         perf_conflict_o,     // a bank conflict costs a step
  output logic [5:0]                   perf_transactions_o, // a word's segment transactions (else 0)

  // ---- lane buffers lent to SHFL ----
  input  logic                         borrow_write_i,      // row borrow_row_i of A, B, C is written
  input  logic [RowBits-1:0]           borrow_row_i,
  input  logic [Lanes*32-1:0]          borrow_a_i,
  input  logic [Lanes*32-1:0]          borrow_b_i,
  input  logic [Lanes*32-1:0]          borrow_c_i,
  output logic [Lanes*32-1:0]          borrow_b_o,          // row borrow_row_i of B and C
  output logic [Lanes*32-1:0]          borrow_c_o,
  input  logic                         borrow_read_i,       // buffer A's shared read port reads
  input  logic [4:0]                   borrow_lane_i,       //   this lane
  output logic [31:0]                  lane_a_o,            // ... the word it reads
  output logic [32*32-1:0]             buffer_a_o,

  output logic [3:0]                   state_o              // debug (docs/waveforms.md): lsu_state_e
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif

  localparam int unsigned L = Lanes;
  localparam int unsigned RA = RegisterRowBits;
  localparam int unsigned SB = SharedBanks;
  localparam int unsigned SRW = SharedRowBits;
  localparam int unsigned GW = $clog2(Rows);
  localparam logic [1:0] SP_GLOBAL = tsm_lsu_pkg::SpaceGlobal, SP_SHARED = tsm_lsu_pkg::SpaceShared,
                         SP_LOCAL = tsm_lsu_pkg::SpaceLocal;

  function automatic logic [RA-1:0] register_row(input logic [RA-1:0] base, input logic [7:0] r, input logic [RowBits:0] g);
    register_row = base + RA'(({{(RA > 8 ? RA - 8 : 0){1'b0}}, r}) << GW) + RA'(g);
  endfunction
  function automatic logic [L-1:0] lanes_of_row(input logic [31:0] m, input logic [RowBits:0] g);  // lanes of row g
    lanes_of_row = L'(m >> (32'(g) * L));
  endfunction

  // ---- state ----
  typedef enum logic [3:0] {
    S_IDLE,
    S_READ,              // a row's address registers (and store data) are read
    S_ADDRESS,           // ... its lanes' spaces and addresses generated
    S_SHARED,            // a half-warp bank step of the shared lanes; an atomic's next lane
    S_SHARED_DATA,       // the step's loaded words into buffer C
    S_SHARED_WRITE,      // a row of shared loads written back
    S_GLOBAL,            // a line request of the global, local or constant lanes (a load slot first)
    S_NEXT_WORD,         // the next word of a wider access
    S_DONE,              // every request is sent
    S_ATOMIC_READ,       // an atomic lane's operands B and C are read,
    S_ATOMIC_READ_HIGH,  // ... their high words (64-bit types),
    S_ATOMIC_MEMORY,     // ... its shared word read, or its request next
    S_ATOMIC_OPERATE,    // a shared lane's read-modify-write
    S_ATOMIC_WRITE,      // a row of shared atomics' old values written back
    S_ATOMIC_SEND        // a global lane's request (a load slot first)
  } lsu_state_e;
  lsu_state_e              state_q, state_d;
  logic [RowBits:0]        row_q, row_d;          // one bit more to count to Rows
  logic [5:0]              word_q, word_d;        // the word of a multi-word access; an atomic's 64-bit half
  logic [5:0]              lane_q, lane_d;        // the atomic's lane
  logic                    half_q, half_d;        // the half-warp a shared step serves
  logic [32*2-1:0]         spaces_q, spaces_d;    // each lane's space
  logic [31:0]             pending_q, pending_d;  // lanes still to serve
  logic [31:0]             members_q, members_d;  // the lanes the last shared step served
  logic [SlotBits-1:0]     slot_q, slot_d;
  logic                    slot_valid_q, slot_valid_d;
  logic [127:0]            operands_q, operands_d; // an atomic lane's B and C, low and high words
  logic [32*32-1:0]        buffer_a_q, buffer_b_q, buffer_c_q;
  assign state_o = state_q;
  assign slot_o = slot_q;
  assign buffer_a_o = buffer_a_q;

  // ---- lanes ----
  logic [L-1:0]  row_exec;               // the executing lanes of row row_q
  logic [31:0]   shared_lanes, other_lanes;  // executing lanes in shared memory, elsewhere
  logic [5:0]    lowest_pending;
  logic [L-1:0]  row_shared;             // row row_q's shared lanes
  always_comb begin
    row_exec = lanes_of_row(exec_i, row_q);
    lowest_pending = tsm_sm_pkg::lowest_lane(pending_q);
    for (int l = 0; l < 32; l++) begin
      shared_lanes[l] = exec_i[l] && spaces_q[2*l +: 2] == SP_SHARED;
      other_lanes[l] = exec_i[l] && spaces_q[2*l +: 2] != SP_SHARED;
    end
    row_shared = lanes_of_row(shared_lanes, row_q);
  end

  // ---- register-file rows ----
  logic [RA-1:0] row_address_low, row_address_high, row_destination, lane_b, lane_c, lane_b_high, lane_c_high;
  always_comb begin
    row_address_low = register_row(base_i, ra_i, row_q);
    row_address_high = register_row(base_i, ra_i + 8'd1, row_q);
    row_destination = register_row(base_i, rd_i + 8'(word_q), row_q);
    lane_b = register_row(base_i, rb_i, (RowBits + 1)'(32'(lowest_pending) / L));
    lane_c = register_row(base_i, rc_i, (RowBits + 1)'(32'(lowest_pending) / L));
    lane_b_high = register_row(base_i, rb_i + 8'd1, (RowBits + 1)'(32'(lane_q) / L));
    lane_c_high = register_row(base_i, rc_i + 8'd1, (RowBits + 1)'(32'(lane_q) / L));
  end

  // ---- each lane's address of word word_q of its access: word_q words on in global and shared
  // space, word_q local strides on in local space. One multiplier for the unit, not one per lane,
  // and one adder a lane for the shared-memory step, the line coalescer and the transactions
  // counter. ----
  logic [31:0]      word_offset_global, word_offset_local;
  logic [32*32-1:0] lane_address;
  always_comb begin
    word_offset_global = 32'(word_q) << 2;
    word_offset_local = 32'(word_q) * LocalStride;
    for (int l = 0; l < 32; l++)
      lane_address[32*l +: 32] = buffer_a_q[32*l +: 32] + ((spaces_q[2*l +: 2] == SP_LOCAL) ? word_offset_local : word_offset_global);
  end
  // Row row_q's lanes of buffers B and C and of the addresses (write-backs). The row is selected as
  // a whole and a lane of it by a constant: an index like row_q * L + l with the constant added
  // inside a part select shifts all 32 lanes, once per lane of the row.
  logic [L*32-1:0] row_b, row_c, row_lane_address;
  assign row_b = buffer_b_q[32*L*32'(row_q[RowBits-1:0]) +: 32*L];
  assign row_c = buffer_c_q[32*L*32'(row_q[RowBits-1:0]) +: 32*L];
  assign row_lane_address = lane_address[32*L*32'(row_q[RowBits-1:0]) +: 32*L];
  assign borrow_b_o = buffer_b_q[32*L*32'(borrow_row_i) +: 32*L];
  assign borrow_c_o = buffer_c_q[32*L*32'(borrow_row_i) +: 32*L];
  // Buffer A's one read at a variable lane: the lowest pending lane in S_GLOBAL (its address), the
  // atomic's lane, or SHFL's (borrow_read_i). No state needs two; each is a 32:1 multiplexer of a word.
  logic [31:0] lane_a;
  always_comb begin
    logic [4:0] ln;
    ln = lane_q[4:0];
    if (state_q == S_GLOBAL) ln = lowest_pending[4:0];
    if (borrow_read_i) ln = borrow_lane_i;
    lane_a = buffer_a_q[32*ln +: 32];
  end
  assign lane_a_o = lane_a;

  // ---- address generation (rtl/sm/tsm_lsu_agen.sv): each executing lane's space and address of
  // row row_q (S_ADDRESS); the row's first fault ----
  logic             address_fault;
  logic [3:0]       address_fault_kind;
  logic [31:0]      address_fault_address;
  logic [5:0]       address_fault_lane;
  logic [32*2-1:0]  address_spaces;
  logic [L*32-1:0]  address_row, store_row;   // the row's addresses and store data, into buffers A and B
  logic [L-1:0]     address_write, store_write;  // ... for these lanes
  tsm_lsu_agen #(.Lanes(L), .Rows(Rows), .RowBits(RowBits), .Warps(Warps), .WarpBits(WarpBits), .LocalStride(LocalStride)) u_agen (
    .row_i(row_q[RowBits-1:0]), .exec_i(row_exec), .first_pass_i(word_q == '0),
    .address_low_i(read_data_i[0 +: L*32]), .address_high_i(read_data_i[2*L*32 +: L*32]), .address_zero_i(ra_i == 8'd255),
    .store_i(read_data_i[L*32 +: L*32]), .store_zero_i(rd_i == 8'd255),
    .opcode_i, .memory_offset_used_i, .memory_offset_i, .const_offset_i,
    .wide_address_i, .shared_only_i, .atomic_i, .access_bytes_i,
    .shared_base_i, .shared_bytes_i, .local_base_i, .local_bytes_i, .const_base_i, .sm_i, .warp_i,
    .spaces_i(spaces_q), .spaces_o(address_spaces), .fault_o(address_fault), .fault_kind_o(address_fault_kind),
    .fault_address_o(address_fault_address), .fault_lane_o(address_fault_lane), .address_o(address_row),
    .address_write_o(address_write), .store_o(store_row), .store_write_o(store_write)
  );
  assign fault_kind_o = address_fault_kind;
  assign fault_address_o = address_fault_address;
  assign fault_lane_o = address_fault_lane;

  // ---- shared memory: the half-warp of a step, chosen once (a lane of it is then a constant part
  // select); the lanes it serves and the lanes still pending after it; a row's loaded words
  // extracted per access size at write-back ----
  logic [15:0]      step_pending;
  logic [31:0]      step_members, step_left;
  logic [L*32-1:0]  shared_load_row;
  // (Three processes: the step's lanes go to tsm_smem, whose answer comes back combinationally.)
  always_comb begin
    step_address_o = half_q ? lane_address[32*16 +: 32*16] : lane_address[0 +: 32*16];
    step_data_o = half_q ? buffer_b_q[32*16 +: 32*16] : buffer_b_q[0 +: 32*16];
    step_pending = half_q ? pending_q[31:16] : pending_q[15:0];
  end
  always_comb begin
    step_members = '0;
    step_left = pending_q;
    if (half_q) begin step_members[31:16] = step_serve_i; step_left[31:16] = step_pending & ~step_serve_i; end
    else begin step_members[15:0] = step_serve_i; step_left[15:0] = step_pending & ~step_serve_i; end
  end
  always_comb begin
    for (int l = 0; l < L; l++)
      shared_load_row[32*l +: 32] =
        tsm_lsu_pkg::extract({96'd0, row_c[32*l +: 32]}, {2'b00, row_lane_address[32*l +: 2]}, memory_size_i);
  end
  assign step_pending_o = step_pending;

  // ---- global, local and constant lanes (S_GLOBAL): the line of the lowest pending lane and every
  // pending lane in it (rtl/sm/tsm_coalescer.sv) ----
  logic [31:0]  line_address, line_lanes;
  logic [15:0]  line_mask;
  logic [127:0] line_data;
  logic         line_local, line_global;
  always_comb begin
    line_local = spaces_q[2*lowest_pending +: 2] == SP_LOCAL;
    line_global = spaces_q[2*lowest_pending +: 2] == SP_GLOBAL;
    for (int q = 0; q < 32; q++) slot_offsets_o[4*q +: 4] = buffer_a_q[32*q +: 4];
  end
  tsm_coalescer u_coalescer (
    .pending_i(pending_q), .lane_addr_i(lane_address),
    .first_addr_i(lane_a + (line_local ? word_offset_local : word_offset_global)),
    .bytes_i(access_bytes_i), .store_i, .store_data_i(buffer_b_q),
    .line_o(line_address), .lanes_o(line_lanes), .byte_mask_o(line_mask), .data_o(line_data)
  );

  // ---- the transactions counter (rtl/sm/tsm_segment_counter.sv, docs/sm-rtl.md §4): the segment
  // transactions a compute capability 1.2 GPU would make for this word of a global or local load or
  // store, counted while S_GLOBAL issues the word's lines and reported by S_NEXT_WORD. A global lane
  // counts with its first word, whose address covers the whole access; a local lane counts every
  // word, since a thread's local words lie LocalStride apart. Constant loads go through the
  // constant cache and do not count. Outside S_GLOBAL the lanes to count load. ----
  logic [31:0] counted_lanes;
  logic [5:0]  transactions;
  always_comb
    for (int l = 0; l < 32; l++)
      counted_lanes[l] = exec_i[l] && opcode_i != tsm_isa_pkg::OP_LDC &&
                         (spaces_q[2*l +: 2] == SP_LOCAL || (spaces_q[2*l +: 2] == SP_GLOBAL && word_q == '0));
  tsm_segment_counter u_segment_counter (
    .clk_i, .rst_ni, .load_i(state_q != S_GLOBAL), .lanes_i(counted_lanes), .lane_addr_i(lane_address),
    .bytes_i(access_bytes_i), .count_o(transactions)
  );

  // ---- atomics, a lane at a time: operands (S_ATOMIC_READ_HIGH, S_ATOMIC_MEMORY), the shared
  // read-modify-write (S_ATOMIC_OPERATE) ----
  logic [31:0]       atomic_b, atomic_c, atomic_b_high, atomic_c_high;
  logic              atomic_shared;
  logic [SB*SRW-1:0] atomic_bank_addr;
  logic [SB-1:0]     atomic_bank_we;
  logic [SB*4-1:0]   atomic_bank_be;
  logic [SB*32-1:0]  atomic_bank_wdata;
  logic [31:0]       atomic_old_b, atomic_old_c;  // the lane's old value into buffers B and C
  logic [63:0]       atomic_old, atomic_new;      // the lane's old and new values (u_atomic_alu)
  // The old value, in its own process: the new one is computed from it.
  always_comb begin
    logic [31:0] wa;
    wa = lane_a >> 2;
    atomic_old = {atomic_64_i ? bank_rdata_i[32*((wa + 1) % SB) +: 32] : 32'd0, bank_rdata_i[32*(wa % SB) +: 32]};
  end
  tsm_atomic_alu u_atomic_alu (
    .clk_i, .rst_ni, .cas_i(compare_swap_i), .aop_i(atomic_op_i), .atype_i(atomic_type_i), .old_i(atomic_old),
    .b_i({operands_q[95:64], operands_q[31:0]}), .c_i({operands_q[127:96], operands_q[63:32]}), .new_o(atomic_new)
  );
  always_comb begin
    logic [31:0] wa;
    atomic_b = (rb_i == 8'd255) ? 32'd0 : read_data_i[L*32 + 32*(32'(lane_q) % L) +: 32];
    if (b_const_i) atomic_b = b_word_i;
    if (b_immediate_i) atomic_b = b_immediate_value_i;
    atomic_c = (rc_i == 8'd255) ? 32'd0 : read_data_i[2*L*32 + 32*(32'(lane_q) % L) +: 32];
    atomic_b_high = b_immediate_i ? {32{b_immediate_value_i[31]}} : b_const_i ? b_word_high_i :
                    (rb_i == 8'd255) ? 32'd0 : read_data_i[L*32 + 32*(32'(lane_q) % L) +: 32];
    atomic_c_high = (rc_i == 8'd255) ? 32'd0 : read_data_i[2*L*32 + 32*(32'(lane_q) % L) +: 32];
    atomic_shared = spaces_q[2*lane_q +: 2] == SP_SHARED;
    wa = lane_a >> 2;
    // The banks are chosen by comparing with each bank's number (a loop), not by writing at a
    // variable index: the latter builds a shifter as wide as all banks.
    atomic_bank_addr = '0;
    for (int j = 0; j < SB; j++) begin
      if (32'(wa % SB) == j) atomic_bank_addr[SRW*j +: SRW] = SRW'(wa / SB);
      if (32'((wa + 1) % SB) == j) atomic_bank_addr[SRW*j +: SRW] = SRW'((wa + 1) / SB);
    end
    atomic_bank_we = '0;
    atomic_bank_be = '0;
    atomic_bank_wdata = '0;
    for (int j = 0; j < SB; j++) begin
      if (32'(wa % SB) == j) begin
        atomic_bank_we[j] = 1'b1; atomic_bank_be[4*j +: 4] = 4'hF; atomic_bank_wdata[32*j +: 32] = atomic_new[31:0];
      end
      if (atomic_64_i && 32'((wa + 1) % SB) == j) begin
        atomic_bank_we[j] = 1'b1; atomic_bank_be[4*j +: 4] = 4'hF; atomic_bank_wdata[32*j +: 32] = atomic_new[63:32];
      end
    end
    atomic_old_c = atomic_old[31:0];
    atomic_old_b = atomic_old[63:32];
`ifdef TSM_MUTANTS
    if (`TSM_MUT(12)) begin atomic_old_c = atomic_new[31:0]; atomic_old_b = atomic_new[63:32]; end
`endif
  end

  // ---- the sequencer ----
  always_comb begin
    state_d = state_q; row_d = row_q; word_d = word_q; lane_d = lane_q; half_d = half_q;
    spaces_d = spaces_q; pending_d = pending_q; members_d = members_q; slot_d = slot_q;
    slot_valid_d = slot_valid_q; operands_d = operands_q;
    finish_o = 1'b0; park_o = 1'b0; fault_o = 1'b0;
    read_rows_o = '0;
    write_valid_o = 1'b0; write_lanes_o = '0; write_row_o = row_destination; write_data_o = '0;
    event_valid_o = 1'b0; event_kind_o = tsm_sm_pkg::EventRegister; event_register_o = '0;
    event_group_o = '0; event_lanes_o = '0; event_data_o = '0; event_address_o = '0;
    event_mask_o = '0; event_store_data_o = '0;
    bank_we_o = '0; bank_be_o = '0; bank_addr_o = '0; bank_wdata_o = '0; step_o = 1'b0;
    req_valid_o = 1'b0; req_id_o = IdBits'(free_id_i); req_kind_o = 2'd0; req_addr_o = '0; req_mask_o = '0;
    req_data_o = '0; req_atom_o = '0;
    id_alloc_o = 1'b0; id_alloc_store_o = 1'b0; id_alloc_slot_o = 3'(slot_q); id_alloc_word_o = '0;
    id_alloc_lanes_o = '0; id_alloc_addr_o = '0; id_alloc_local_o = 1'b0;
    slot_alloc_o = 1'b0; slot_alloc_atomic_o = 1'b0; slot_alloc_wide_o = 1'b0; slot_alloc_registers_o = '0;
    slot_alloc_size_o = '0; slot_alloc_offsets_valid_o = 1'b0;
    slot_request_o = 1'b0; slot_issued_o = 1'b0; slot_atomic_o = 1'b0;
    load_issue_o = 1'b0; store_issue_o = 1'b0;
    perf_request_o = 1'b0; perf_conflict_o = 1'b0; perf_transactions_o = '0;

    unique case (state_q)
      S_IDLE: ;
      // ---- addresses, row by row ----
      S_READ: begin
        if (32'(row_q) == Rows) begin
          // Every row's addresses are in: shared lanes first, then the others.
          row_d = '0;
          half_d = 1'b0;
          pending_d = shared_lanes;
          state_d = (atomic_i || shared_lanes != '0) ? S_SHARED : S_GLOBAL;
          if (!atomic_i && shared_lanes == '0) pending_d = other_lanes;
        end else if (row_exec == '0) begin
          row_d = row_q + 1'b1;
        end else begin
          read_rows_o[0 +: RA] = row_address_low;
          read_rows_o[2*RA +: RA] = row_address_high;
          read_rows_o[RA +: RA] = row_destination;
          state_d = S_ADDRESS;
        end
      end
      S_ADDRESS: begin
        spaces_d = address_spaces;
        if (address_fault) begin
          fault_o = 1'b1;
          state_d = S_IDLE;
        end else begin
          row_d = row_q + 1'b1;
          state_d = S_READ;
        end
      end

      // ---- shared lanes: loads and stores a half-warp step at a time; atomics lane by lane ----
      S_SHARED: begin
        if (atomic_i) begin
          if (pending_q != '0) state_d = S_ATOMIC_READ;
          else begin
            row_d = '0;
            pending_d = other_lanes;
            if (shared_lanes != '0) state_d = S_ATOMIC_WRITE;
            else if (other_lanes != '0) state_d = S_ATOMIC_READ;
            else begin
              finish_o = 1'b1;
              state_d = S_IDLE;
            end
          end
        end else begin
          // One bank step of the half-warp (tsm_smem).
          step_o = 1'b1;
          members_d = step_members;
          pending_d = step_left;
          if ((step_pending & ~step_serve_i) != '0) perf_conflict_o = 1'b1;
          if (step_pending == '0) begin
            // This half-warp is done.
            if (half_q) begin
              row_d = '0;
              state_d = load_i ? S_SHARED_WRITE : S_GLOBAL;
              if (!load_i) pending_d = other_lanes;
            end else half_d = 1'b1;
          end else if (!store_i) state_d = S_SHARED_DATA;
        end
      end
      S_SHARED_DATA: state_d = S_SHARED;
      S_SHARED_WRITE: begin
        if (row_shared != '0 && rd_i != 8'd255) begin
          write_valid_o = 1'b1; write_lanes_o = row_shared; write_data_o = shared_load_row;
          event_valid_o = 1'b1; event_register_o = rd_i + 8'(word_q); event_group_o = row_q[RowBits-1:0];
          event_lanes_o = row_shared; event_data_o = shared_load_row;
        end
        row_d = row_q + 1'b1;
        if (32'(row_q) + 1 == Rows) begin
          pending_d = other_lanes;
          state_d = S_GLOBAL;
        end
      end

      // ---- global, local and constant lanes: one request per 16-byte line, lowest pending lane
      // first; a load takes a load slot first ----
      S_GLOBAL: begin
        if (pending_q == '0) state_d = S_NEXT_WORD;
        else if (load_i && !slot_valid_q) begin
          if (free_slot_valid_i) begin
            slot_d = free_slot_i;
            slot_valid_d = 1'b1;
            slot_alloc_o = 1'b1; slot_alloc_registers_o = access_words_i; slot_alloc_size_o = memory_size_i;
            slot_alloc_offsets_valid_o = 1'b1;
            load_issue_o = 1'b1;
          end
        end else begin
          req_valid_o = free_id_valid_i;
          req_kind_o = store_i ? 2'd1 : 2'd0;
          req_addr_o = line_address;
          req_mask_o = line_mask;  // reads name the bytes they need too, so the memory can check them
          req_data_o = line_data;  // zero for a load
          if (free_id_valid_i && req_room_i) begin
            id_alloc_o = 1'b1; id_alloc_store_o = store_i; id_alloc_word_o = 2'(word_q); id_alloc_lanes_o = line_lanes;
            id_alloc_addr_o = line_address; id_alloc_local_o = line_local;
            pending_d = pending_q & ~line_lanes;
            perf_request_o = 1'b1;
            store_issue_o = store_i;
            slot_request_o = !store_i;
            if (store_i && line_global) begin
              event_valid_o = 1'b1; event_kind_o = tsm_sm_pkg::EventStore; event_address_o = line_address;
              event_mask_o = line_mask; event_store_data_o = line_data;
            end
          end
        end
      end
      S_NEXT_WORD: begin
        perf_transactions_o = transactions;
        word_d = word_q + 6'd1;
        row_d = '0;
        state_d = (32'(word_q) + 1 < 32'(access_words_i)) ? S_READ : S_DONE;
      end
      S_DONE: begin
        slot_issued_o = slot_valid_q;
        if (atomic_i && slot_valid_q) begin
          // A global atomic retires when its old values are back (the memory tracker).
          slot_atomic_o = 1'b1;
          park_o = 1'b1;
        end else finish_o = 1'b1;
        state_d = S_IDLE;
      end

      // ---- atomics, a lane at a time: operands, then a shared read-modify-write or a request ----
      S_ATOMIC_READ: begin
        lane_d = lowest_pending;
        read_rows_o[RA +: RA] = lane_b;
        read_rows_o[2*RA +: RA] = lane_c;
        state_d = S_ATOMIC_READ_HIGH;
      end
      S_ATOMIC_READ_HIGH: begin
        operands_d[31:0] = atomic_b;
        operands_d[63:32] = atomic_c;
        read_rows_o[RA +: RA] = lane_b_high;
        read_rows_o[2*RA +: RA] = lane_c_high;
        state_d = S_ATOMIC_MEMORY;
      end
      S_ATOMIC_MEMORY: begin
        operands_d[95:64] = atomic_64_i ? atomic_b_high : 32'd0;
        operands_d[127:96] = atomic_64_i ? atomic_c_high : 32'd0;
        if (atomic_shared) begin
          bank_addr_o = atomic_bank_addr;
          state_d = S_ATOMIC_OPERATE;
        end else state_d = S_ATOMIC_SEND;
      end
      S_ATOMIC_OPERATE: begin
        bank_addr_o = atomic_bank_addr;
        bank_we_o = atomic_bank_we;
        bank_be_o = atomic_bank_be;
        bank_wdata_o = atomic_bank_wdata;
        pending_d = pending_q & ~(32'd1 << lane_q);
        state_d = S_SHARED;
      end
      S_ATOMIC_WRITE: begin
        // Old values of the shared lanes: rd (word_q = 0), then rd+1 for 64-bit types (word_q = 1).
        if (row_shared != '0 && rd_i != 8'd255) begin
          write_valid_o = 1'b1; write_lanes_o = row_shared; write_data_o = word_q == '0 ? row_c : row_b;
          event_valid_o = 1'b1; event_register_o = rd_i + 8'(word_q); event_group_o = row_q[RowBits-1:0];
          event_lanes_o = row_shared; event_data_o = write_data_o;
        end
        if (atomic_64_i && word_q == '0) word_d = 6'd1;
        else begin
          word_d = '0;
          row_d = row_q + 1'b1;
          if (32'(row_q) + 1 == Rows) begin
            row_d = '0;
            pending_d = other_lanes;
            if (other_lanes != '0) state_d = S_ATOMIC_READ;
            else begin
              finish_o = 1'b1;
              state_d = S_IDLE;
            end
          end
        end
      end
      S_ATOMIC_SEND: begin
        if (!slot_valid_q) begin
          if (free_slot_valid_i) begin
            slot_d = free_slot_i;
            slot_valid_d = 1'b1;
            slot_alloc_o = 1'b1; slot_alloc_atomic_o = 1'b1; slot_alloc_wide_o = atomic_64_i;
            slot_alloc_registers_o = atomic_64_i ? 3'd2 : 3'd1; slot_alloc_size_o = tsm_isa_pkg::MSZ_32;
            load_issue_o = 1'b1;
          end
        end else begin
          req_valid_o = free_id_valid_i;
          req_kind_o = 2'd2;
          req_addr_o = lane_a;
          req_data_o = {operands_q[127:96], operands_q[63:32], operands_q[95:64], operands_q[31:0]};
          req_atom_o = {compare_swap_i, atomic_type_i, compare_swap_i ? 4'd0 : atomic_op_i};
          if (free_id_valid_i && req_room_i) begin
            id_alloc_o = 1'b1; id_alloc_lanes_o = 32'd1 << lane_q; id_alloc_addr_o = lane_a;
            slot_request_o = 1'b1;
            pending_d = pending_q & ~(32'd1 << lane_q);
            perf_request_o = 1'b1;
            state_d = ((pending_q & ~(32'd1 << lane_q)) == '0) ? S_DONE : S_ATOMIC_READ;
          end
        end
      end
      default: state_d = S_IDLE;
    endcase

    if (start_i) begin
      state_d = S_READ;
      row_d = '0; word_d = '0; lane_d = '0; half_d = 1'b0;
      spaces_d = '0; pending_d = '0; slot_valid_d = 1'b0;
    end
  end

  // ---- the lane buffers A, B and C: a row (L lanes) or a lane is written at a time, or for buffer
  // C a half-warp's shared-memory words. Each lane's flip-flops have their own enable and take the
  // row word of their position, so a lane costs no multiplexer of its own. ----
  logic [31:0]     write_a, write_b, write_c;  // the lanes written
  logic [L*32-1:0] word_a, word_b, word_c;     // the row's words: lane l takes word l % L
  logic            write_c_shared;             // C takes step_word_i: lane l word l % 16
  always_comb begin
    write_a = '0; write_b = '0; write_c = '0; word_a = '0; word_b = '0; word_c = '0; write_c_shared = 1'b0;
    if (borrow_write_i) begin
      for (int l = 0; l < L; l++) begin
        write_a[32'(borrow_row_i) * L + l] = 1'b1;
        write_b[32'(borrow_row_i) * L + l] = 1'b1;
        write_c[32'(borrow_row_i) * L + l] = 1'b1;
      end
      word_a = borrow_a_i; word_b = borrow_b_i; word_c = borrow_c_i;
    end
    unique case (state_q)
      S_ADDRESS: begin
        for (int l = 0; l < L; l++) begin
          write_a[32'(row_q[RowBits-1:0]) * L + l] = address_write[l];
          write_b[32'(row_q[RowBits-1:0]) * L + l] = store_write[l];
        end
        word_a = address_row; word_b = store_row;
      end
      S_SHARED_DATA: begin
        write_c = half_q ? (members_q & 32'hFFFF_0000) : (members_q & 32'h0000_FFFF);
        write_c_shared = 1'b1;
      end
      S_ATOMIC_OPERATE: begin
        write_b[lane_q[4:0]] = 1'b1;
        write_c[lane_q[4:0]] = 1'b1;
        word_b = {L{atomic_old_b}}; word_c = {L{atomic_old_c}};
      end
      default: ;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_IDLE; row_q <= '0; word_q <= '0; lane_q <= '0; half_q <= 1'b0;
      spaces_q <= '0; pending_q <= '0; members_q <= '0; slot_q <= '0; slot_valid_q <= 1'b0; operands_q <= '0;
      buffer_a_q <= '0; buffer_b_q <= '0; buffer_c_q <= '0;
    end else begin
      state_q <= state_d; row_q <= row_d; word_q <= word_d; lane_q <= lane_d; half_q <= half_d;
      spaces_q <= spaces_d; pending_q <= pending_d; members_q <= members_d; slot_q <= slot_d;
      slot_valid_q <= slot_valid_d; operands_q <= operands_d;
      for (int l = 0; l < 32; l++) begin
        if (write_a[l]) buffer_a_q[32*l +: 32] <= word_a[32*(l % L) +: 32];
        if (write_b[l]) buffer_b_q[32*l +: 32] <= word_b[32*(l % L) +: 32];
        if (write_c[l]) buffer_c_q[32*l +: 32] <= write_c_shared ? step_word_i[32*(l % 16) +: 32] : word_c[32*(l % L) +: 32];
      end
    end
  end

endmodule
