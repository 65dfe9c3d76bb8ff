// UART receiver, 8N1, LSB first: one byte on byte_o with a one-clock valid pulse.
//
// Theory of operation: the input must already be synchronised to clk_i. In IDLE a low level
// starts a bit timer; at the middle of the start bit (ClocksPerBit/2 clocks later) the line must
// still be low, otherwise it was a glitch and the receiver returns to IDLE. From there every
// ClocksPerBit clocks samples the middle of one data bit (8 of them) and then of the stop bit. A
// high stop bit delivers the byte; a low one drops it, pulses frame_err_o and waits for the line
// to return high (a break or a wrong baud rate) before hunting for the next start bit. After the
// stop-bit sample the receiver is back in IDLE half a bit early, so a following start bit is seen
// at its edge.
module tsm_uart_rx #(
  /// Clocks per bit (ClockHz / Baud); at least 4 so that the mid-bit sample is well defined.
  parameter int unsigned ClocksPerBit = 20
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  /// Serial input, idle high, synchronised to clk_i.
  input  logic       rx_i,
  /// A byte arrived: byte_o is valid for this one clock.
  output logic       valid_o,
  output logic [7:0] byte_o,
  /// A byte's stop bit was low (framing error): one-clock pulse, the byte is dropped.
  output logic       frame_err_o
);

  localparam int unsigned TimerBits = $clog2(ClocksPerBit + 1);
  localparam logic [TimerBits-1:0] FullBit = TimerBits'(ClocksPerBit - 1);
  localparam logic [TimerBits-1:0] HalfBit = TimerBits'(ClocksPerBit / 2 - 1);

  typedef enum logic [2:0] {
    RxIdle,
    RxStart,
    RxData,
    RxStop,
    RxWaitHigh
  } rx_state_e;

  rx_state_e             state_q, state_d;
  logic [TimerBits-1:0]  timer_q, timer_d;
  logic [2:0]            bit_q, bit_d;
  logic [7:0]            shift_q, shift_d;
  logic                  valid_q, valid_d;
  logic                  ferr_q, ferr_d;

  always_comb begin
    state_d = state_q;
    timer_d = timer_q;
    bit_d = bit_q;
    shift_d = shift_q;
    valid_d = 1'b0;
    ferr_d = 1'b0;
    unique case (state_q)
      RxIdle: begin
        if (!rx_i) begin
          state_d = RxStart;
          timer_d = HalfBit;
        end
      end
      RxStart: begin
        if (timer_q != '0) begin
          timer_d = timer_q - 1'b1;
        end else if (rx_i) begin
          state_d = RxIdle;  // not low at mid-bit: a glitch, not a start bit
        end else begin
          state_d = RxData;
          timer_d = FullBit;
          bit_d = '0;
        end
      end
      RxData: begin
        if (timer_q != '0) begin
          timer_d = timer_q - 1'b1;
        end else begin
          shift_d = {rx_i, shift_q[7:1]};
          timer_d = FullBit;
          bit_d = bit_q + 1'b1;
          if (bit_q == 3'd7) state_d = RxStop;
        end
      end
      RxStop: begin
        if (timer_q != '0) begin
          timer_d = timer_q - 1'b1;
        end else if (rx_i) begin
          valid_d = 1'b1;
          state_d = RxIdle;
        end else begin
          ferr_d = 1'b1;
          state_d = RxWaitHigh;
        end
      end
      RxWaitHigh: begin
        if (rx_i) state_d = RxIdle;
      end
      default: state_d = RxIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= RxIdle;
      timer_q <= '0;
      bit_q <= '0;
      shift_q <= '0;
      valid_q <= 1'b0;
      ferr_q <= 1'b0;
    end else begin
      state_q <= state_d;
      timer_q <= timer_d;
      bit_q <= bit_d;
      shift_q <= shift_d;
      valid_q <= valid_d;
      ferr_q <= ferr_d;
    end
  end

  assign valid_o = valid_q;
  assign byte_o = shift_q;
  assign frame_err_o = ferr_q;

`ifndef SYNTHESIS
  initial assert (ClocksPerBit >= 4);
`endif

endmodule
