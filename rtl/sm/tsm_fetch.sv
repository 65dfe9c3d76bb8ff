// The SM's instruction fetch: the instruction cache and its refills (docs/sm-rtl.md §2.1). A
// direct-mapped cache of Lines lines of LineWords 64-bit instructions, in one memory of 16-byte
// chunks (block RAM on the FPGA) with a valid bit and a tag per line. A miss refills the line a
// chunk per request (IDs IcId + chunk) and, with Prefetch, also the next line of code when it is
// not cached (IDs IcId + Chunks + chunk), which completes on its own while the warps go on.
//
// Handshakes with the engine, which sequences a warp's fetch (E_FETCH, E_IC_REQ, E_IC_WAIT):
// - lookups: hit_o for pc_i (the current warp's PC) and select_hit_o for select_pc_i (the warp
//   scheduler's choice) are combinational; read_pc_i's instruction pair is in instruction_o a
//   clock later;
// - miss_i (pc_i missed and no prefetch is in flight, prefetch_busy_o low) starts a refill of
//   pc_i's line: req_valid_o/req_id_o/req_addr_o offer the chunks' requests one at a time,
//   req_ready_i takes one (req_last_o: the last); fill_done_o says, in the clock it sets the line
//   valid, that all the line's chunks are in;
// - responses to the cache's IDs are always accepted (resp_valid_i: an ID from IcId on);
// - start_i (a launch) invalidates every line; a prefetch in flight then completes without
//   leaving its line valid.
module tsm_fetch #(
  parameter int unsigned Lines = 8,
  /// 64-bit instructions per line (a line is LineWords / 2 chunks of 16 bytes).
  parameter int unsigned LineWords = 8,
  /// Fetch the next line with a miss.
  parameter bit Prefetch = 1'b1,
  /// Bits of a memory-request ID, and the first of the cache's IDs.
  parameter int unsigned IdBits = 6,
  parameter logic [IdBits-1:0] IcId = IdBits'(56)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              start_i,
  /// The code: its device byte address and its instructions.
  input  logic [31:0]       code_base_i,
  input  logic [31:0]       code_words_i,
  /// The current warp's PC, and whether it is in the cache.
  input  logic [31:0]       pc_i,
  output logic              hit_o,
  /// The scheduler's choice's PC: valid code and in the cache.
  input  logic [31:0]       select_pc_i,
  output logic              select_hit_o,
  /// Read the chunk holding read_pc_i's instruction: instruction_o a clock later.
  input  logic [31:0]       read_pc_i,
  output logic [127:0]      instruction_o,
  /// A miss of pc_i: refill its line.
  input  logic              miss_i,
  output logic              prefetch_busy_o,
  output logic              req_valid_o,
  input  logic              req_ready_i,
  output logic [IdBits-1:0] req_id_o,
  output logic [31:0]       req_addr_o,
  output logic              req_last_o,
  output logic              fill_done_o,
  /// Responses (IDs from IcId on are the cache's).
  input  logic              resp_valid_i,
  input  logic [IdBits-1:0] resp_id_i,
  input  logic [127:0]      resp_data_i
);

  localparam int unsigned Chunks = LineWords / 2;
  localparam int unsigned AddrBits = $clog2(Lines * Chunks);

  logic [Lines-1:0]    valid_q, valid_d;
  logic [Lines*32-1:0] tag_q, tag_d;
  logic [3:0]          filled_q, filled_d;       // chunks of the demand line in
  typedef enum logic [1:0] { S_IDLE, S_REQ, S_WAIT } state_e;
  state_e              state_q, state_d;
  logic [5:0]          chunk_q, chunk_d;         // the next chunk to request (demand, then prefetch)
  logic                pf_go_q, pf_go_d;         // this miss also fetches the next line
  logic                pf_busy_q, pf_busy_d;     // a prefetch is in flight
  logic                pf_kill_q, pf_kill_d;     // ... from before the current launch: do not keep it
  logic [31:0]         pf_line_q, pf_line_d;     // its line (PC / LineWords)
  logic [3:0]          pf_cnt_q, pf_cnt_d;       // its chunks in

  logic [127:0]        chunks [Lines * Chunks];
  logic                fill;
  logic [AddrBits-1:0] fill_addr;

  // Is the line of instruction pc cached?
  function automatic logic cached(input logic [Lines-1:0] valid, input logic [Lines*32-1:0] tag, input logic [31:0] line);
    cached = valid[line % Lines] && tag[32*(line % Lines) +: 32] == line / Lines;
  endfunction
  function automatic logic [AddrBits-1:0] chunk_of(input logic [31:0] pc);
    chunk_of = AddrBits'(((pc / LineWords) % Lines) * Chunks + (pc % LineWords) / 2);
  endfunction

  assign hit_o = cached(valid_q, tag_q, pc_i / LineWords);
  assign select_hit_o = select_pc_i < code_words_i && cached(valid_q, tag_q, select_pc_i / LineWords);
  assign prefetch_busy_o = pf_busy_q;
  assign req_valid_o = state_q == S_REQ;
  assign req_id_o = IcId + IdBits'(chunk_q);
  assign req_addr_o = code_base_i + ((pc_i - (pc_i & 32'(LineWords - 1))) << 3) + (32'(chunk_q) << 4);
  assign req_last_o = 32'(chunk_q) + 1 == (pf_go_q ? 2 * Chunks : Chunks);
  assign fill_done_o = state_q == S_WAIT && 32'(filled_q) == Chunks;

  always_comb begin
    valid_d = valid_q; tag_d = tag_q; filled_d = filled_q; state_d = state_q; chunk_d = chunk_q;
    pf_go_d = pf_go_q; pf_busy_d = pf_busy_q; pf_kill_d = pf_kill_q; pf_line_d = pf_line_q; pf_cnt_d = pf_cnt_q;
    fill = 1'b0;
    fill_addr = '0;
    // Responses: a prefetch chunk, or one of the demand line's.
    if (resp_valid_i && 32'(resp_id_i) - 32'(IcId) >= Chunks) begin
      fill = 1'b1;
      fill_addr = AddrBits'((pf_line_q % Lines) * Chunks + (32'(resp_id_i) - 32'(IcId) - Chunks));
      pf_cnt_d = pf_cnt_q + 4'd1;
    end else if (resp_valid_i) begin
      fill = 1'b1;
      fill_addr = AddrBits'(((pc_i / LineWords) % Lines) * Chunks + (32'(resp_id_i) - 32'(IcId)));
      filled_d = filled_d + 4'd1;
    end
    // A prefetched line is valid once all its chunks are in.
    if (pf_busy_q && 32'(pf_cnt_q) == Chunks) begin
      pf_busy_d = 1'b0;
      if (!pf_kill_q)
        for (int i = 0; i < Lines; i++)
          if (32'(pf_line_q % Lines) == i) begin
            valid_d[i] = 1'b1;
            tag_d[32*i +: 32] = pf_line_q / Lines;
          end
    end
    if (start_i) begin
      valid_d = '0;
      if (pf_busy_q) pf_kill_d = 1'b1;
    end
    unique case (state_q)
      S_IDLE: begin
        if (miss_i) begin
          for (int i = 0; i < Lines; i++) if (32'((pc_i / LineWords) % Lines) == i) valid_d[i] = 1'b0;
          filled_d = '0;
          chunk_d = '0;
          // The next line too, when it is code and not cached.
          pf_go_d = Prefetch && (pc_i / LineWords + 1) * LineWords < code_words_i &&
                    !cached(valid_q, tag_q, pc_i / LineWords + 1);
          if (pf_go_d) begin
            for (int i = 0; i < Lines; i++) if (32'((pc_i / LineWords + 1) % Lines) == i) valid_d[i] = 1'b0;
            pf_busy_d = 1'b1;
            pf_kill_d = 1'b0;
            pf_line_d = pc_i / LineWords + 1;
            pf_cnt_d = '0;
          end
          state_d = S_REQ;
        end
      end
      S_REQ: begin
        if (req_ready_i) begin
          chunk_d = chunk_q + 6'd1;
          if (req_last_o) state_d = S_WAIT;
        end
      end
      default: begin  // S_WAIT
        if (fill_done_o) begin
          for (int i = 0; i < Lines; i++)
            if (32'((pc_i / LineWords) % Lines) == i) begin
              valid_d[i] = 1'b1;
              tag_d[32*i +: 32] = pc_i / (LineWords * Lines);
            end
          state_d = S_IDLE;
        end
      end
    endcase
  end

  always_ff @(posedge clk_i) begin
    if (fill) chunks[fill_addr] <= resp_data_i;
    instruction_o <= chunks[chunk_of(read_pc_i)];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0; tag_q <= '0; filled_q <= '0; state_q <= S_IDLE; chunk_q <= '0;
      pf_go_q <= 1'b0; pf_busy_q <= 1'b0; pf_kill_q <= 1'b0; pf_line_q <= '0; pf_cnt_q <= '0;
    end else begin
      valid_q <= valid_d; tag_q <= tag_d; filled_q <= filled_d; state_q <= state_d; chunk_q <= chunk_d;
      pf_go_q <= pf_go_d; pf_busy_q <= pf_busy_d; pf_kill_q <= pf_kill_d; pf_line_q <= pf_line_d; pf_cnt_q <= pf_cnt_d;
    end
  end

endmodule
