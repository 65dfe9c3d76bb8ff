// The board's host link: a UART frame protocol in front of tsm_gpu's MMIO and the board memory's
// port A (docs/fpga-board.md §3).
//
// Frames (8N1 at Baud; multi-byte fields little endian):
//   request: 0xA5 CMD SEQ LEN_lo LEN_hi PAYLOAD[LEN] CRC_lo CRC_hi
//   reply:   0x5A STATUS SEQ LEN_lo LEN_hi PAYLOAD[LEN] CRC_lo CRC_hi
// CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) over every byte
// between the start byte and the CRC.
//
// | CMD            | request payload                         | reply payload                      |
// |----------------|-----------------------------------------|------------------------------------|
// | 0x01 MMIO write| addr u16, value u32 (LEN 6)             | none                               |
// | 0x02 MMIO read | addr u16 (LEN 2)                        | value u32                          |
// | 0x03 mem write | addr u32, 1..1024 bytes (LEN 5..1028)   | none                               |
// | 0x04 mem read  | addr u32, count u16 1..1024 (LEN 6)     | count bytes                        |
// | 0x05 identify  | none (LEN 0)                            | 24 bytes: "TSB1", version u8 = 1,  |
// |                |                                         | NumSms u8, reserved u16 = 0,       |
// |                |                                         | MemBase, MemBytes, ClockHz, Baud   |
// |                |                                         | (u32 each)                         |
//
// STATUS: 0x00 ok, 0x01 bad CRC, 0x02 bad length (LEN wrong for CMD, count 0 or > 1024, or
// LEN > 1028), 0x03 unknown command, 0x04 address out of range (MMIO address > 0xFFF, or a memory
// range not wholly inside [MemBase, MemBase+MemBytes); nothing is done), 0x05 MMIO read timeout
// (no mmio_rvalid_i within MmioTimeout clocks). An error reply has LEN 0 and echoes SEQ. The
// checks come in this order: LEN > 1028 (replied to at once after LEN_hi, without reading the
// payload: the receiver goes back to hunting for 0xA5), CRC, command, length, range.
//
// Theory of operation: one state machine. SHunt discards bytes until 0xA5. SHdr, SPay and SCrc
// take the header, the payload (written to a 1028-byte frame buffer in block RAM; its first six
// bytes also into arg_q) and the CRC; a gap of IdleClocks between two bytes of a frame abandons
// it silently. SDecode checks the frame and starts the command: an MMIO access is a one-clock
// pulse on mmio_valid_o (a read then waits in SMmioRd for mmio_rvalid_i), a memory write copies
// the buffer to port A a byte every two clocks (SMwFetch, SMwWrite). Every reply goes through
// STxWait1, STxWait2, STxSend per byte: the two wait states cover port A's two-clock read latency
// for memory-read payload bytes (mem_addr_o follows the byte index), the send state hands the
// byte to the transmitter. Bytes arriving while a command executes or its reply is sent are
// dropped (the host sends the next request only after the reply).
module tsm_board_bridge #(
  /// Clock frequency in Hz (reported by identify).
  parameter int unsigned ClockHz = 60_000_000,
  /// UART bit rate; ClockHz / Baud clocks per bit, at least 4.
  parameter int unsigned Baud = 3_000_000,
  /// Board memory bytes and the device address of its first byte (reported by identify).
  parameter int unsigned MemBytes = 131072,
  parameter logic [31:0] MemBase = 32'h0010_0000,
  /// SMs behind the MMIO port (reported by identify).
  parameter int unsigned NumSms = 1,
  /// Clocks of silence inside a frame after which it is abandoned.
  parameter int unsigned IdleClocks = ClockHz / 100,
  /// Clocks an MMIO read waits for mmio_rvalid_i.
  parameter int unsigned MmioTimeout = 1024,
  /// Derived, do not override.
  parameter int unsigned AddrBits = $clog2(MemBytes)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  /// UART from the host, synchronised to clk_i, idle high.
  input  logic                rx_i,
  /// UART to the host, idle high.
  output logic                tx_o,
  /// tsm_gpu's MMIO port: one-clock accesses; a read's data comes with mmio_rvalid_i.
  output logic                mmio_valid_o,
  output logic                mmio_write_o,
  output logic [11:0]         mmio_addr_o,
  output logic [31:0]         mmio_wdata_o,
  input  logic                mmio_rvalid_i,
  input  logic [31:0]         mmio_rdata_i,
  /// tsm_board_mem's port A: byte offset, write strobe and data; mem_rdata_i is the byte at the
  /// offset of two clocks earlier.
  output logic [AddrBits-1:0] mem_addr_o,
  output logic                mem_we_o,
  output logic [7:0]          mem_wdata_o,
  input  logic [7:0]          mem_rdata_i,
  /// One-clock pulses for the LEDs: a byte received, a byte sent, a framing error.
  output logic                rx_byte_o,
  output logic                tx_byte_o,
  output logic                frame_err_o
);

  localparam int unsigned ClocksPerBit = ClockHz / Baud;
  localparam int unsigned FrameBytes = 1028;  // the largest payload: memory write of 1024 bytes
  localparam int unsigned IdxBits = 11;
  localparam int unsigned IdleBits = $clog2(IdleClocks + 1);
  localparam int unsigned TmoBits = $clog2(MmioTimeout + 1);

  localparam logic [7:0] StartReq = 8'hA5, StartReply = 8'h5A;
  localparam logic [7:0] CmdMmioWrite = 8'h01, CmdMmioRead = 8'h02, CmdMemWrite = 8'h03,
                         CmdMemRead = 8'h04, CmdIdentify = 8'h05;
  localparam logic [7:0] StOk = 8'h00, StBadCrc = 8'h01, StBadLen = 8'h02, StBadCmd = 8'h03,
                         StBadAddr = 8'h04, StTimeout = 8'h05;

  // The identify payload: byte idx_q of it.
  localparam logic [31:0] MemBytesWord = MemBytes, ClockWord = ClockHz, BaudWord = Baud;
  logic [7:0] ident_byte;
  always_comb begin
    unique case (idx_q[4:0])
      5'd0:  ident_byte = 8'h54;  // 'T'
      5'd1:  ident_byte = 8'h53;  // 'S'
      5'd2:  ident_byte = 8'h42;  // 'B'
      5'd3:  ident_byte = 8'h31;  // '1'
      5'd4:  ident_byte = 8'd1;   // protocol version
      5'd5:  ident_byte = NumSms[7:0];
      5'd8:  ident_byte = MemBase[7:0];
      5'd9:  ident_byte = MemBase[15:8];
      5'd10: ident_byte = MemBase[23:16];
      5'd11: ident_byte = MemBase[31:24];
      5'd12: ident_byte = MemBytesWord[7:0];
      5'd13: ident_byte = MemBytesWord[15:8];
      5'd14: ident_byte = MemBytesWord[23:16];
      5'd15: ident_byte = MemBytesWord[31:24];
      5'd16: ident_byte = ClockWord[7:0];
      5'd17: ident_byte = ClockWord[15:8];
      5'd18: ident_byte = ClockWord[23:16];
      5'd19: ident_byte = ClockWord[31:24];
      5'd20: ident_byte = BaudWord[7:0];
      5'd21: ident_byte = BaudWord[15:8];
      5'd22: ident_byte = BaudWord[23:16];
      5'd23: ident_byte = BaudWord[31:24];
      default: ident_byte = 8'h00;  // 6, 7: reserved
    endcase
  end

  // ---- UART --------------------------------------------------------------------------------------
  logic       rx_valid, rx_ferr;
  logic [7:0] rx_byte;
  logic       tx_valid, tx_ready;
  logic [7:0] tx_byte;

  tsm_uart_rx #(.ClocksPerBit(ClocksPerBit)) u_rx (
    .clk_i, .rst_ni, .rx_i, .valid_o(rx_valid), .byte_o(rx_byte), .frame_err_o(rx_ferr)
  );
  tsm_uart_tx #(.ClocksPerBit(ClocksPerBit)) u_tx (
    .clk_i, .rst_ni, .valid_i(tx_valid), .ready_o(tx_ready), .byte_i(tx_byte), .tx_o
  );

  // ---- frame buffer (block RAM): written while the payload arrives, read by memory writes ----
  logic [7:0]         fbuf_q [FrameBytes];
  logic               fb_we;
  logic [IdxBits-1:0] fb_waddr, fb_raddr;
  logic [7:0]         fb_rdata_q;
  always_ff @(posedge clk_i) begin
    if (fb_we) fbuf_q[fb_waddr] <= rx_byte;
    fb_rdata_q <= fbuf_q[fb_raddr];
  end

  // ---- the state machine -------------------------------------------------------------------------
  typedef enum logic [3:0] {
    SHunt,     // discard bytes until 0xA5
    SHdr,      // CMD SEQ LEN_lo LEN_hi
    SPay,      // LEN payload bytes into the frame buffer
    SCrc,      // CRC_lo CRC_hi
    SDecode,   // check the frame, start the command
    SMmioRd,   // wait for the MMIO read data
    SMwFetch,  // memory write: read the next byte from the frame buffer
    SMwWrite,  // memory write: write it to port A
    STxWait1,  // reply: port A reads the byte at mem_addr_o
    STxWait2,  // reply: port A selects it
    STxSend    // reply: hand the byte to the transmitter
  } bridge_state_e;

  typedef enum logic [1:0] {
    PHead,  // 0x5A STATUS SEQ LEN_lo LEN_hi (idx 0..4)
    PPay,   // the payload (idx 0..n_q-1)
    PCrc    // CRC_lo CRC_hi (idx 0..1)
  } reply_phase_e;

  typedef enum logic [1:0] {
    SrcMmio,   // rdata_q
    SrcMem,    // port A
    SrcIdent   // the identify block
  } reply_src_e;

  bridge_state_e      state_q, state_d;
  reply_phase_e       phase_q, phase_d;
  reply_src_e         src_q, src_d;
  logic [7:0]         cmd_q, cmd_d, seq_q, seq_d, status_q, status_d, crc_lo_q, crc_lo_d;
  logic [15:0]        len_q, len_d, crc_q, crc_d;
  logic [IdxBits-1:0] idx_q, idx_d, n_q, n_d;
  logic [47:0]        arg_q, arg_d;
  logic               crc_ok_q, crc_ok_d;
  logic [IdleBits-1:0] idle_q, idle_d;
  logic [TmoBits-1:0] tmo_q, tmo_d;
  logic [31:0]        rdata_q, rdata_d;
  logic [AddrBits-1:0] base_q, base_d;

  // CRC of the byte received and of the byte sent.
  logic [15:0] crc_rx, crc_tx;
  tsm_crc16 u_crc_rx (.crc_i(crc_q), .data_i(rx_byte), .crc_o(crc_rx));
  tsm_crc16 u_crc_tx (.crc_i(crc_q), .data_i(tx_byte), .crc_o(crc_tx));

  // The request's arguments. A memory range [addr, addr+count) is inside the window when
  // addr - MemBase does not borrow, lies below MemBytes and leaves room for count bytes (count is
  // at most 1024 here, so the sum fits in AddrBits+1 bits).
  logic [15:0]         mmio_addr, rd_count, wr_count, count;
  logic [32:0]         mem_off;
  logic [AddrBits:0]   mem_end;
  logic                mmio_addr_ok, range_ok;
  always_comb begin
    mmio_addr = arg_q[15:0];
    rd_count = arg_q[47:32];
    wr_count = len_q - 16'd4;
    count = (cmd_q == CmdMemWrite) ? wr_count : rd_count;
    mem_off = {1'b0, arg_q[31:0]} - {1'b0, MemBase};
    mem_end = {1'b0, mem_off[AddrBits-1:0]} + (AddrBits + 1)'(count);
    mmio_addr_ok = mmio_addr <= 16'h0FFF;
    range_ok = !mem_off[32] && mem_off[31:AddrBits] == '0 && mem_end <= (AddrBits + 1)'(MemBytes);
  end

  // The reply byte of (phase_q, idx_q).
  always_comb begin
    tx_byte = 8'h00;
    unique case (phase_q)
      PHead: begin
        unique case (idx_q[2:0])
          3'd0: tx_byte = StartReply;
          3'd1: tx_byte = status_q;
          3'd2: tx_byte = seq_q;
          3'd3: tx_byte = n_q[7:0];
          default: tx_byte = {5'd0, n_q[10:8]};
        endcase
      end
      PPay: begin
        unique case (src_q)
          SrcMmio:  tx_byte = rdata_q[8*idx_q[1:0] +: 8];
          SrcMem:   tx_byte = mem_rdata_i;
          default:  tx_byte = ident_byte;
        endcase
      end
      default: tx_byte = idx_q[0] ? crc_q[15:8] : crc_q[7:0];
    endcase
  end

  always_comb begin
    state_d = state_q;
    phase_d = phase_q;
    src_d = src_q;
    cmd_d = cmd_q;
    seq_d = seq_q;
    status_d = status_q;
    crc_lo_d = crc_lo_q;
    len_d = len_q;
    crc_d = crc_q;
    idx_d = idx_q;
    n_d = n_q;
    arg_d = arg_q;
    crc_ok_d = crc_ok_q;
    idle_d = idle_q;
    tmo_d = tmo_q;
    rdata_d = rdata_q;
    base_d = base_q;
    fb_we = 1'b0;
    fb_waddr = idx_q;
    fb_raddr = idx_q + 11'd4;
    mmio_valid_o = 1'b0;
    mmio_write_o = 1'b0;
    mem_we_o = 1'b0;
    tx_valid = 1'b0;

    // Inter-byte timeout inside a frame.
    if (state_q == SHdr || state_q == SPay || state_q == SCrc) begin
      if (rx_valid) begin
        idle_d = '0;
      end else if (idle_q == IdleBits'(IdleClocks - 1)) begin
        state_d = SHunt;
      end else begin
        idle_d = idle_q + 1'b1;
      end
    end

    unique case (state_q)
      SHunt: begin
        crc_d = 16'hFFFF;
        idx_d = '0;
        idle_d = '0;
        arg_d = '0;
        if (rx_valid && rx_byte == StartReq) state_d = SHdr;
      end
      SHdr: begin
        if (rx_valid) begin
          crc_d = crc_rx;
          idx_d = idx_q + 1'b1;
          unique case (idx_q[1:0])
            2'd0: cmd_d = rx_byte;
            2'd1: seq_d = rx_byte;
            2'd2: len_d[7:0] = rx_byte;
            default: begin
              len_d[15:8] = rx_byte;
              idx_d = '0;
              if ({rx_byte, len_q[7:0]} > 16'(FrameBytes)) begin
                // Reply now and hunt again: the payload is not read.
                status_d = StBadLen;
                n_d = '0;
                state_d = STxWait1;
                phase_d = PHead;
                crc_d = 16'hFFFF;
              end else if ({rx_byte, len_q[7:0]} == 16'd0) begin
                state_d = SCrc;
              end else begin
                state_d = SPay;
              end
            end
          endcase
        end
      end
      SPay: begin
        if (rx_valid) begin
          crc_d = crc_rx;
          fb_we = 1'b1;
          if (idx_q < 11'd6) arg_d[8*idx_q[2:0] +: 8] = rx_byte;
          idx_d = idx_q + 1'b1;
          if (16'(idx_q) == len_q - 16'd1) begin
            idx_d = '0;
            state_d = SCrc;
          end
        end
      end
      SCrc: begin
        if (rx_valid) begin
          idx_d = idx_q + 1'b1;
          if (idx_q[0] == 1'b0) begin
            crc_lo_d = rx_byte;
          end else begin
            crc_ok_d = {rx_byte, crc_lo_q} == crc_q;
            state_d = SDecode;
          end
        end
      end
      SDecode: begin
        // Default: a reply without payload; the cases below pick its status or run the command.
        state_d = STxWait1;
        phase_d = PHead;
        idx_d = '0;
        n_d = '0;
        crc_d = 16'hFFFF;
        status_d = StOk;
        tmo_d = '0;
        base_d = mem_off[AddrBits-1:0];
        if (!crc_ok_q) begin
          status_d = StBadCrc;
        end else begin
          unique case (cmd_q)
            CmdMmioWrite: begin
              if (len_q != 16'd6) status_d = StBadLen;
              else if (!mmio_addr_ok) status_d = StBadAddr;
              else begin
                mmio_valid_o = 1'b1;
                mmio_write_o = 1'b1;
              end
            end
            CmdMmioRead: begin
              if (len_q != 16'd2) status_d = StBadLen;
              else if (!mmio_addr_ok) status_d = StBadAddr;
              else begin
                mmio_valid_o = 1'b1;
                state_d = SMmioRd;
              end
            end
            CmdMemWrite: begin
              if (len_q < 16'd5) status_d = StBadLen;
              else if (!range_ok) status_d = StBadAddr;
              else begin
                n_d = IdxBits'(wr_count);
                state_d = SMwFetch;
              end
            end
            CmdMemRead: begin
              if (len_q != 16'd6 || rd_count == 16'd0 || rd_count > 16'd1024) status_d = StBadLen;
              else if (!range_ok) status_d = StBadAddr;
              else begin
                n_d = IdxBits'(rd_count);
                src_d = SrcMem;
              end
            end
            CmdIdentify: begin
              if (len_q != 16'd0) status_d = StBadLen;
              else begin
                n_d = 11'd24;
                src_d = SrcIdent;
              end
            end
            default: status_d = StBadCmd;
          endcase
        end
      end
      SMmioRd: begin
        tmo_d = tmo_q + 1'b1;
        if (mmio_rvalid_i) begin
          rdata_d = mmio_rdata_i;
          n_d = 11'd4;
          src_d = SrcMmio;
          state_d = STxWait1;
        end else if (tmo_q == TmoBits'(MmioTimeout - 1)) begin
          status_d = StTimeout;
          state_d = STxWait1;
        end
      end
      SMwFetch: begin
        state_d = SMwWrite;  // fb_raddr = idx_q + 4
      end
      SMwWrite: begin
        mem_we_o = 1'b1;
        idx_d = idx_q + 1'b1;
        state_d = SMwFetch;
        if (idx_q == n_q - 11'd1) begin
          idx_d = '0;
          n_d = '0;
          state_d = STxWait1;
        end
      end
      STxWait1: state_d = STxWait2;
      STxWait2: state_d = STxSend;
      STxSend: begin
        tx_valid = 1'b1;
        if (tx_ready) begin
          if (!(phase_q == PHead && idx_q == '0) && phase_q != PCrc) crc_d = crc_tx;
          idx_d = idx_q + 1'b1;
          state_d = STxWait1;
          unique case (phase_q)
            PHead: begin
              if (idx_q == 11'd4) begin
                idx_d = '0;
                phase_d = (n_q == '0) ? PCrc : PPay;
              end
            end
            PPay: begin
              if (idx_q == n_q - 11'd1) begin
                idx_d = '0;
                phase_d = PCrc;
              end
            end
            default: begin
              if (idx_q[0]) state_d = SHunt;
            end
          endcase
        end
      end
      default: state_d = SHunt;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SHunt;
      phase_q <= PHead;
      src_q <= SrcMmio;
      cmd_q <= '0;
      seq_q <= '0;
      status_q <= '0;
      crc_lo_q <= '0;
      len_q <= '0;
      crc_q <= 16'hFFFF;
      idx_q <= '0;
      n_q <= '0;
      arg_q <= '0;
      crc_ok_q <= 1'b0;
      idle_q <= '0;
      tmo_q <= '0;
      rdata_q <= '0;
      base_q <= '0;
    end else begin
      state_q <= state_d;
      phase_q <= phase_d;
      src_q <= src_d;
      cmd_q <= cmd_d;
      seq_q <= seq_d;
      status_q <= status_d;
      crc_lo_q <= crc_lo_d;
      len_q <= len_d;
      crc_q <= crc_d;
      idx_q <= idx_d;
      n_q <= n_d;
      arg_q <= arg_d;
      crc_ok_q <= crc_ok_d;
      idle_q <= idle_d;
      tmo_q <= tmo_d;
      rdata_q <= rdata_d;
      base_q <= base_d;
    end
  end

  assign mmio_addr_o = mmio_addr[11:0];
  assign mmio_wdata_o = arg_q[47:16];
  assign mem_addr_o = base_q + AddrBits'(idx_q);
  assign mem_wdata_o = fb_rdata_q;
  assign rx_byte_o = rx_valid;
  assign tx_byte_o = tx_valid && tx_ready;
  assign frame_err_o = rx_ferr;

`ifndef SYNTHESIS
  initial begin
    assert (ClocksPerBit >= 4);
    assert (IdleClocks >= 2 * 10 * ClocksPerBit);
  end
`endif

endmodule
