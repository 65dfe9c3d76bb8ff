// The memory tracker of the SM (docs/sm-rtl.md §2.9): what is in flight between the SM and the
// memory, and the write-back of what comes back.
//
// - The **ID table**: one entry per memory-request ID (Ids of them; IDs from Ids on are the
//   instruction and constant caches'). The load/store unit allocates the free ID it is offered
//   (free_id_o) for each request it sends: a store, a line of a load or a global atomic's lane.
//   A store's acknowledgement frees its ID; a load's or atomic's response marks it answered and
//   lands in the response memory (one line per ID).
// - The **load-slot table**: one entry per load or global atomic instruction in flight (Slots of
//   them): warp, destination registers, access size, the instruction's sequence number, PC and
//   masks for its retirement, each lane's offset in its line, and the count of its requests still
//   unanswered. The scoreboard reads it (slot_*_o): an instruction waits while a slot of its warp
//   will write a register it touches.
// - The **response processor**: takes an answered ID (lowest first; an atomic's only once its
//   instruction is fully issued), reads its line, and offers its data row by row on the write
//   port (row_*), the lanes the request served only. With a slot's last response written and its
//   requests all issued the slot is done: a load's at once, an atomic's after it offered its
//   retirement (retire_*). A done slot is reported once (done_*): the warp table lowers the warp's
//   loads in flight and lets it issue again.
//
// Handshakes: row_valid_o/retire_valid_o and everything they carry depend on registers only;
// row_ready_i/retire_ready_i (the write and commit ports are free this clock) take the offer. done_*
// depends on the readies, so its user must not feed them back. Allocation (id_alloc_i,
// slot_alloc_i) uses the entry offered in the same clock; responses are always accepted.
module tsm_mem_tracker #(
  /// SP lanes: the lanes of a row written back.
  parameter int unsigned Lanes = 8,
  /// Rows of a warp (32 / Lanes) and the bits of a row number.
  parameter int unsigned Rows = 4,
  parameter int unsigned RowBits = 2,
  /// Warp slots and the bits of a warp slot number.
  parameter int unsigned Warps = 24,
  parameter int unsigned WarpBits = 5,
  /// Bits of a register-file row address.
  parameter int unsigned RegAddrBits = 10,
  /// Memory-request IDs of loads, stores and atomics, and load slots.
  parameter int unsigned Ids = 48,
  parameter int unsigned Slots = 8
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  /// A launch starts: nothing is in flight.
  input  logic                     start_i,

  // ---- allocation, by the load/store unit ----
  output logic [5:0]               free_id_o,
  output logic                     free_id_valid_o,
  output logic [2:0]               free_slot_o,
  output logic                     free_slot_valid_o,
  /// Take free_id_o for a request: a store, its load slot, which word of the lanes' accesses, the
  /// lanes it serves, its line address (for a fault report), local space, the warp.
  input  logic                     id_alloc_i,
  input  logic                     id_alloc_store_i,
  input  logic [2:0]               id_alloc_slot_i,
  input  logic [1:0]               id_alloc_word_i,
  input  logic [31:0]              id_alloc_lanes_i,
  input  logic [31:0]              id_alloc_addr_i,
  input  logic                     id_alloc_local_i,
  input  logic [WarpBits-1:0]      id_alloc_warp_i,
  /// Take free_slot_o for an instruction: a global atomic (64-bit), its warp and first destination
  /// register, registers written, access size; for its retirement its sequence number, PC, active
  /// and executing lanes; with slot_alloc_offsets_valid_i each lane's offset in its line.
  input  logic                     slot_alloc_i,
  input  logic                     slot_alloc_atomic_i,
  input  logic                     slot_alloc_wide_i,
  input  logic [WarpBits-1:0]      slot_alloc_warp_i,
  input  logic [7:0]               slot_alloc_register_i,
  input  logic [2:0]               slot_alloc_registers_i,
  input  logic [2:0]               slot_alloc_size_i,
  input  logic [31:0]              slot_alloc_seq_i,
  input  logic [31:0]              slot_alloc_pc_i,
  input  logic [31:0]              slot_alloc_active_i,
  input  logic [31:0]              slot_alloc_exec_i,
  input  logic                     slot_alloc_offsets_valid_i,
  input  logic [32*4-1:0]          slot_alloc_offsets_i,
  /// The slot the load/store unit is issuing: one more request sent, all of its requests sent, it
  /// is an atomic.
  input  logic [2:0]               slot_index_i,
  input  logic                     slot_request_i,
  input  logic                     slot_issued_i,
  input  logic                     slot_atomic_i,

  // ---- the slot table, for the scoreboard and the debug port ----
  output logic [Slots-1:0]         slot_valid_o,
  output logic [Slots*WarpBits-1:0] slot_warp_o,
  output logic [Slots*8-1:0]       slot_register_o,
  output logic [Slots*3-1:0]       slot_registers_o,
  output logic [Ids-1:0]           id_busy_o,

  // ---- memory responses to IDs below Ids ----
  input  logic                     resp_valid_i,
  input  logic [5:0]               resp_id_i,
  input  logic                     resp_write_i,
  input  logic [127:0]             resp_data_i,
  /// The response's request: its warp, a store, the load's PC, its line (a fault's report).
  output logic [WarpBits-1:0]      resp_warp_o,
  output logic                     resp_store_o,
  output logic [31:0]              resp_pc_o,
  output logic [31:0]              resp_addr_o,

  // ---- write-back ----
  /// Every warp's first register-file row (the warp table's).
  input  logic [Warps*RegAddrBits-1:0] warp_base_i,
  /// A row of load data or atomic old values to write, and its commit event.
  output logic                     row_valid_o,
  input  logic                     row_ready_i,
  output logic [Lanes-1:0]         row_lanes_o,
  output logic [RegAddrBits-1:0]   row_address_o,
  output logic [Lanes*32-1:0]      row_data_o,
  output logic [WarpBits-1:0]      row_warp_o,
  output logic [31:0]              row_seq_o,
  output logic [7:0]               row_register_o,
  output logic [RowBits-1:0]       row_group_o,
  /// The response processor is writing an ID's rows (whether or not this row needs the port).
  output logic                     row_phase_o,
  /// A global atomic retires (its old values all written).
  output logic                     retire_valid_o,
  input  logic                     retire_ready_i,
  output logic [WarpBits-1:0]      retire_warp_o,
  output logic [31:0]              retire_seq_o,
  output logic [31:0]              retire_pc_o,
  output logic [31:0]              retire_active_o,
  output logic [31:0]              retire_exec_o,
  /// A slot is done this clock: its warp, and whether it was a global atomic.
  output logic                     done_valid_o,
  output logic [WarpBits-1:0]      done_warp_o,
  output logic                     done_atomic_o,
  /// Nothing is being written back.
  output logic                     idle_o
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif
  // ---- state ----
  logic [Slots-1:0]          slot_valid_q, slot_valid_d, slot_ret_q, slot_ret_d, slot_atom_q, slot_atom_d, slot_w64_q, slot_w64_d;
  logic [Slots*WarpBits-1:0] slot_warp_q, slot_warp_d;
  logic [Slots*8-1:0]        slot_rd_q, slot_rd_d;
  logic [Slots*3-1:0]        slot_n_q, slot_n_d, slot_msz_q, slot_msz_d;
  logic [Slots*7-1:0]        slot_out_q, slot_out_d;  // requests sent and not yet answered
  logic [31:0]               slot_seq_mem [Slots], slot_pc_mem [Slots], slot_act_mem [Slots], slot_exec_mem [Slots];
  logic [32*4-1:0]           slot_off_mem [Slots];   // each lane's offset in its line (a memory: LUT RAM)
  logic [Ids-1:0]            id_busy_q, id_busy_d, id_store_q, id_store_d, resp_pend_q, resp_pend_d, id_loc_q, id_loc_d;
  logic [Ids*3-1:0]          id_slot_q, id_slot_d;
  logic [Ids*2-1:0]          id_word_q, id_word_d;
  logic [Ids*WarpBits-1:0]   id_warp_q, id_warp_d;
  logic [31:0]               id_lanes_mem [Ids], id_addr_mem [Ids];
  logic [127:0]              response_mem [64];
  logic [127:0]              response_q;            // the line of the ID being written back

  // The response processor: idle, writing an ID's rows, retiring an atomic.
  typedef enum logic [1:0] { P_IDLE, P_ROW, P_RET } pstate_e;
  pstate_e                   ps_q, ps_d;
  logic [5:0]                pid_q, pid_d;          // the ID being written back
  logic [RowBits:0]          pg_q, pg_d;            // its row
  logic                      pk_q, pk_d;            // a 64-bit atomic's high word
  logic [2:0]                pslot_q, pslot_d;      // the slot an atomic's retirement is for

  function automatic logic [Lanes-1:0] lanes_of_row(input logic [31:0] m, input logic [RowBits:0] g);
    lanes_of_row = Lanes'(m >> (32'(g) * Lanes));
  endfunction

  // ---- offers: from registers only ----
  logic            drained, found;
  logic [2:0]      drained_slot, row_slot;
  logic [5:0]      found_id;
  logic            row_last, row_frees, row_needs_port;
  always_comb begin
    free_id_o = '0; free_id_valid_o = 1'b0;
    for (int i = Ids - 1; i >= 0; i--) if (!id_busy_q[i]) begin free_id_o = 6'(i); free_id_valid_o = 1'b1; end
    free_slot_o = '0; free_slot_valid_o = 1'b0;
    for (int i = Slots - 1; i >= 0; i--) if (!slot_valid_q[i]) begin free_slot_o = 3'(i); free_slot_valid_o = 1'b1; end
    // A load slot whose last response came back before the engine had issued all of its requests
    // is freed once the engine has.
    drained = 1'b0;
    drained_slot = '0;
    for (int i = Slots - 1; i >= 0; i--) begin
      if (slot_valid_q[i] && slot_ret_q[i] && !slot_atom_q[i] && slot_out_q[7*i +: 7] == 7'd0) begin
        drained = 1'b1;
        drained_slot = 3'(i);
      end
    end
    // Load data is written back as it arrives: a wide or scattered load may need more line requests
    // than there are IDs. Atomic old values wait until the engine is done with the instruction.
    found = 1'b0;
    found_id = '0;
    for (int i = Ids - 1; i >= 0; i--) begin
      if (resp_pend_q[i] && (slot_ret_q[id_slot_q[3*i +: 3]] || !slot_atom_q[id_slot_q[3*i +: 3]])) begin
        found = 1'b1;
        found_id = 6'(i);
      end
    end
  end

  always_comb begin
    logic [32*4-1:0] offsets;  // the slot's lane offsets, and those of row pg_q
    logic [Lanes*4-1:0] row_offsets;
    logic [3:0]      o;
    logic [RegAddrBits-1:0] base;
    row_slot = id_slot_q[3*pid_q +: 3];
    row_phase_o = ps_q == P_ROW;
    row_warp_o = slot_warp_q[WarpBits*row_slot +: WarpBits];
    row_lanes_o = lanes_of_row(id_lanes_mem[pid_q], pg_q);
    row_register_o = slot_rd_q[8*row_slot +: 8] + 8'(id_word_q[2*pid_q +: 2]) + 8'(pk_q);
    row_group_o = pg_q[RowBits-1:0];
    row_seq_o = slot_seq_mem[row_slot];
    offsets = slot_off_mem[row_slot];
    row_offsets = offsets[4*Lanes*32'(pg_q[RowBits-1:0]) +: 4*Lanes];
    for (int l = 0; l < Lanes; l++) begin
      o = row_offsets[4*l +: 4] + (id_loc_q[pid_q] ? 4'd0 : {id_word_q[2*pid_q +: 2], 2'b00});
      row_data_o[32*l +: 32] = slot_atom_q[row_slot] ? (pk_q ? response_q[63:32] : response_q[31:0])
                                                     : tsm_lsu_pkg::extract(response_q, o, slot_msz_q[3*row_slot +: 3]);
`ifdef TSM_MUTANTS
      if (`TSM_MUT(11) && !slot_atom_q[row_slot] && slot_msz_q[3*row_slot +: 3] == tsm_isa_pkg::MSZ_S8)
        row_data_o[32*l +: 32] = {24'd0, row_data_o[32*l +: 8]};
      if (`TSM_MUT(11) && !slot_atom_q[row_slot] && slot_msz_q[3*row_slot +: 3] == tsm_isa_pkg::MSZ_S16)
        row_data_o[32*l +: 32] = {16'd0, row_data_o[32*l +: 16]};
`endif
    end
    row_last = !(slot_atom_q[row_slot] && slot_w64_q[row_slot] && !pk_q) && (32'(pg_q) + 1 == Rows);
    // The ID's last row frees its slot when it is the slot's last response and every request is out.
    row_frees = row_last && slot_out_q[7*row_slot +: 7] == 7'd1 && slot_ret_q[row_slot];
    base = warp_base_i[RegAddrBits*row_warp_o +: RegAddrBits];
    row_address_o = base + RegAddrBits'(({{(RegAddrBits > 8 ? RegAddrBits - 8 : 0){1'b0}}, row_register_o}) << $clog2(Rows)) +
                    RegAddrBits'(pg_q);
    row_needs_port = row_lanes_o != '0 && slot_rd_q[8*row_slot +: 8] != 8'd255;
    row_valid_o = ps_q == P_ROW && row_needs_port;

    retire_valid_o = ps_q == P_RET;
    retire_warp_o = slot_warp_q[WarpBits*pslot_q +: WarpBits];
    retire_seq_o = slot_seq_mem[pslot_q];
    retire_pc_o = slot_pc_mem[pslot_q];
    retire_active_o = slot_act_mem[pslot_q];
    retire_exec_o = slot_exec_mem[pslot_q];
    idle_o = ps_q == P_IDLE;
  end

  assign slot_valid_o = slot_valid_q;
  assign slot_warp_o = slot_warp_q;
  assign slot_register_o = slot_rd_q;
  assign slot_registers_o = slot_n_q;
  assign id_busy_o = id_busy_q;
  assign resp_warp_o = id_warp_q[WarpBits*resp_id_i +: WarpBits];
  assign resp_store_o = id_store_q[resp_id_i];
  assign resp_pc_o = slot_pc_mem[id_slot_q[3*resp_id_i +: 3]];
  assign resp_addr_o = id_addr_mem[resp_id_i];

  // ---- the response processor's next state, and the slot it frees ----
  logic          id_release;          // the ID at pid_q is written back
  logic          slot_answered;       // one response of the slot at row_slot is written back
  logic          slot_free;
  logic [2:0]    slot_free_index;
  logic [5:0]    response_read;       // the ID whose line is read this clock
  always_comb begin
    ps_d = ps_q; pid_d = pid_q; pg_d = pg_q; pk_d = pk_q; pslot_d = pslot_q;
    id_release = 1'b0; slot_answered = 1'b0; slot_free = 1'b0; slot_free_index = '0;
    done_valid_o = 1'b0; done_warp_o = '0; done_atomic_o = 1'b0;
    response_read = pid_q;
    unique case (ps_q)
      P_IDLE: begin
        if (found) pid_d = found_id;
        if (drained) begin
          slot_free = 1'b1; slot_free_index = drained_slot;
          done_valid_o = 1'b1; done_warp_o = slot_warp_q[WarpBits*drained_slot +: WarpBits];
        end else if (found) begin
          response_read = found_id;
          pg_d = '0;
          pk_d = 1'b0;
          ps_d = P_ROW;
        end
      end
      P_ROW: begin
        if (!row_needs_port || row_ready_i) begin
          if (slot_atom_q[row_slot] && slot_w64_q[row_slot] && !pk_q) pk_d = 1'b1;
          else begin
            pk_d = 1'b0;
            pg_d = pg_q + 1'b1;
          end
          if (row_last) begin
            id_release = 1'b1;
            slot_answered = 1'b1;
            ps_d = P_IDLE;
            if (row_frees) begin
              // The ID is free again from the next clock: P_RET keeps the slot itself.
              if (slot_atom_q[row_slot]) begin
                ps_d = P_RET;
                pslot_d = row_slot;
              end else begin
                slot_free = 1'b1; slot_free_index = row_slot;
                done_valid_o = 1'b1; done_warp_o = row_warp_o;
              end
            end
          end
        end
      end
      P_RET: begin
        if (retire_ready_i) begin
          slot_free = 1'b1; slot_free_index = pslot_q;
          done_valid_o = 1'b1; done_warp_o = retire_warp_o; done_atomic_o = 1'b1;
          ps_d = P_IDLE;
        end
      end
      default: ps_d = P_IDLE;
    endcase
    if (start_i) ps_d = P_IDLE;
  end

  // ---- the ID table ----
  always_comb begin
    id_busy_d = id_busy_q; id_store_d = id_store_q; resp_pend_d = resp_pend_q; id_slot_d = id_slot_q;
    id_word_d = id_word_q; id_loc_d = id_loc_q; id_warp_d = id_warp_q;
    for (int i = 0; i < Ids; i++) begin
      if (resp_valid_i && 32'(resp_id_i) == i) begin
        if (resp_write_i) id_busy_d[i] = 1'b0;  // a store's acknowledgement
        else resp_pend_d[i] = 1'b1;             // load data or an atomic's old value, in response_mem
      end
      if (id_alloc_i && 32'(free_id_o) == i) begin
        id_busy_d[i] = 1'b1;
        id_store_d[i] = id_alloc_store_i;
        id_slot_d[3*i +: 3] = id_alloc_slot_i;
        id_word_d[2*i +: 2] = id_alloc_word_i;
        id_loc_d[i] = id_alloc_local_i;
        id_warp_d[WarpBits*i +: WarpBits] = id_alloc_warp_i;
      end
      if (id_release && 32'(pid_q) == i) begin
        id_busy_d[i] = 1'b0;
        resp_pend_d[i] = 1'b0;
      end
    end
    if (start_i) begin
      id_busy_d = '0;
      resp_pend_d = '0;
    end
  end

  // ---- the load-slot table ----
  always_comb begin
    slot_valid_d = slot_valid_q; slot_ret_d = slot_ret_q; slot_atom_d = slot_atom_q; slot_w64_d = slot_w64_q;
    slot_warp_d = slot_warp_q; slot_rd_d = slot_rd_q; slot_n_d = slot_n_q; slot_msz_d = slot_msz_q;
    slot_out_d = slot_out_q;
    for (int i = 0; i < Slots; i++) begin
      if (slot_alloc_i && 32'(free_slot_o) == i) begin
        slot_valid_d[i] = 1'b1;
        slot_ret_d[i] = 1'b0;
        slot_atom_d[i] = slot_alloc_atomic_i;
        slot_w64_d[i] = slot_alloc_wide_i;
        slot_warp_d[WarpBits*i +: WarpBits] = slot_alloc_warp_i;
        slot_rd_d[8*i +: 8] = slot_alloc_register_i;
        slot_n_d[3*i +: 3] = slot_alloc_registers_i;
        slot_msz_d[3*i +: 3] = slot_alloc_size_i;
        slot_out_d[7*i +: 7] = '0;
      end
      if (32'(slot_index_i) == i) begin
        if (slot_request_i) slot_out_d[7*i +: 7] = slot_out_d[7*i +: 7] + 7'd1;
        if (slot_issued_i) slot_ret_d[i] = 1'b1;
        if (slot_atomic_i) slot_atom_d[i] = 1'b1;
      end
      if (slot_answered && 32'(row_slot) == i) slot_out_d[7*i +: 7] = slot_out_d[7*i +: 7] - 7'd1;
      if (slot_free && 32'(slot_free_index) == i) slot_valid_d[i] = 1'b0;
    end
    if (start_i) slot_valid_d = '0;
  end

  // ---- memories ----
  always_ff @(posedge clk_i) begin
    if (id_alloc_i) begin
      id_lanes_mem[free_id_o] <= id_alloc_lanes_i;
      id_addr_mem[free_id_o] <= id_alloc_addr_i;
    end
    if (slot_alloc_i) begin
      slot_seq_mem[free_slot_o] <= slot_alloc_seq_i;
      slot_pc_mem[free_slot_o] <= slot_alloc_pc_i;
      slot_act_mem[free_slot_o] <= slot_alloc_active_i;
      slot_exec_mem[free_slot_o] <= slot_alloc_exec_i;
    end
    if (slot_alloc_i && slot_alloc_offsets_valid_i) slot_off_mem[free_slot_o] <= slot_alloc_offsets_i;
    if (resp_valid_i && !resp_write_i) response_mem[resp_id_i] <= resp_data_i;
    response_q <= response_mem[response_read];
  end

  // ---- registers ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      slot_valid_q <= '0; slot_ret_q <= '0; slot_atom_q <= '0; slot_w64_q <= '0;
      slot_warp_q <= '0; slot_rd_q <= '0; slot_n_q <= '0; slot_msz_q <= '0;
      slot_out_q <= '0;
      id_busy_q <= '0; id_store_q <= '0; resp_pend_q <= '0; id_slot_q <= '0;
      id_word_q <= '0; id_loc_q <= '0; id_warp_q <= '0;
      ps_q <= P_IDLE; pid_q <= '0; pg_q <= '0; pk_q <= 1'b0; pslot_q <= '0;
    end else begin
      slot_valid_q <= slot_valid_d; slot_ret_q <= slot_ret_d; slot_atom_q <= slot_atom_d; slot_w64_q <= slot_w64_d;
      slot_warp_q <= slot_warp_d; slot_rd_q <= slot_rd_d; slot_n_q <= slot_n_d; slot_msz_q <= slot_msz_d;
      slot_out_q <= slot_out_d;
      id_busy_q <= id_busy_d; id_store_q <= id_store_d; resp_pend_q <= resp_pend_d; id_slot_q <= id_slot_d;
      id_word_q <= id_word_d; id_loc_q <= id_loc_d; id_warp_q <= id_warp_d;
      ps_q <= ps_d; pid_q <= pid_d; pg_q <= pg_d; pk_q <= pk_d; pslot_q <= pslot_d;
    end
  end

  if (Slots != 8 || Ids > 64 || Lanes * Rows != 32) begin : gen_bad_params
    $error("tsm_mem_tracker: Slots must be 8, Ids at most 64, Lanes * Rows 32");
  end

endmodule
