// UART transmitter, 8N1, LSB first, with a valid/ready byte handshake.
//
// Theory of operation: ready_o is high while the transmitter is idle. A byte accepted on
// valid_i && ready_o is loaded as the 10-bit frame {stop 1, data, start 0} into a shift register
// whose bit 0 drives the line; every ClocksPerBit clocks it shifts one place. After the stop bit
// has been on the line for a whole bit time the transmitter is idle again, so back-to-back bytes
// go out with no gap. The output is a register (no glitches on the pin) and idles high.
module tsm_uart_tx #(
  /// Clocks per bit (ClockHz / Baud).
  parameter int unsigned ClocksPerBit = 20
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  /// A byte to send; taken on a clock where valid_i and ready_o are both high.
  input  logic       valid_i,
  output logic       ready_o,
  input  logic [7:0] byte_i,
  /// Serial output, idle high.
  output logic       tx_o
);

  localparam int unsigned TimerBits = $clog2(ClocksPerBit + 1);
  localparam logic [TimerBits-1:0] FullBit = TimerBits'(ClocksPerBit - 1);

  logic                 busy_q, busy_d;
  logic [9:0]           shift_q, shift_d;
  logic [3:0]           bits_q, bits_d;    // bits still to finish, the one on the line included
  logic [TimerBits-1:0] timer_q, timer_d;

  always_comb begin
    busy_d = busy_q;
    shift_d = shift_q;
    bits_d = bits_q;
    timer_d = timer_q;
    if (!busy_q) begin
      if (valid_i) begin
        busy_d = 1'b1;
        shift_d = {1'b1, byte_i, 1'b0};
        bits_d = 4'd10;
        timer_d = FullBit;
      end
    end else if (timer_q != '0) begin
      timer_d = timer_q - 1'b1;
    end else begin
      shift_d = {1'b1, shift_q[9:1]};
      timer_d = FullBit;
      bits_d = bits_q - 1'b1;
      if (bits_q == 4'd1) busy_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      shift_q <= '1;
      bits_q <= '0;
      timer_q <= '0;
    end else begin
      busy_q <= busy_d;
      shift_q <= shift_d;
      bits_q <= bits_d;
      timer_q <= timer_d;
    end
  end

  assign ready_o = !busy_q;
  assign tx_o = shift_q[0];

`ifndef SYNTHESIS
  initial assert (ClocksPerBit >= 4);
`endif

endmodule
