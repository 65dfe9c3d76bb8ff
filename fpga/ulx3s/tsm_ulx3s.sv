// The ULX3S board top (LFE5U-85F): the 25 MHz oscillator through an EHXPLLL to the system clock,
// a reset, and tsm_board (the GPU, its UART bridge and board memory) on the FTDI UART and the LEDs.
// Pins: ulx3s.lpf. Design: docs/fpga-board.md §2.
//
// Theory of operation
// - Clock: EHXPLLL with feedback from CLKOP, so f_out = f_in / CLKI_DIV * CLKFB_DIV and the VCO
//   runs at f_out * CLKOP_DIV, which must lie in 400..800 MHz (ECP5 data sheet); the phase detector
//   runs at f_in / CLKI_DIV, at least 3.125 MHz. The parameters below default to 60 MHz:
//   60 / 25 = 12 / 5, so CLKI_DIV = 5 (5 MHz at the phase detector) and CLKFB_DIV = 12; CLKOP_DIV
//   may be 7..13 (VCO 420..780 MHz) and 10 puts the VCO at 600 MHz, the middle of the range, as
//   Trellis' ecppll picks it; CLKOP_CPHASE = (CLKOP_DIV - 1) / 2, CLKOP_FPHASE = 0, as ecppll
//   writes them. Exact: 60.000 MHz, so 3 Mbaud is 20 clocks a bit. `./tsm fpga build --freq MHZ`
//   sets the four parameters for another clock (fpga/tools/fpga_build.py, pll_params and
//   baud_for), and nextpnr derives the clock's constraint from the dividers.
// - Reset: held while the PLL is not locked or btn[0] (PWRBTN, low when pressed) is pressed;
//   asserted asynchronously, released synchronously to the system clock after 2^16 clocks
//   (about 1.1 ms at 60 MHz, which also rides out button bounce). After configuration LOCK is low,
//   so the design also starts in reset (power-on reset).
// - led[7] shows PLL lock; led[6:0] come from tsm_board. wifi_gpio0 is driven 1 so the ESP32
//   boots its normal firmware instead of its bootloader and leaves the board alone.
module tsm_ulx3s #(
  /// Directory of the SFU ROM images, with a trailing '/' (passed to tsm_gpu).
  parameter HexDir = "",
  /// System clock in Hz: what the PLL below makes from 25 MHz (tsm_board's UART divider uses it).
  parameter int unsigned ClockHz = 60_000_000,
  /// UART bit rate; ClockHz / Baud clocks a bit, at least 4.
  parameter int unsigned Baud = 3_000_000,
  /// EHXPLLL dividers for ClockHz from 25 MHz (reference, feedback, output).
  parameter int unsigned PllClkiDiv = 5,
  parameter int unsigned PllClkfbDiv = 12,
  parameter int unsigned PllClkopDiv = 10
) (
  /// 25 MHz oscillator.
  input  logic       clk_25mhz,
  /// FTDI TX: the host's data to the board (UART input).
  input  logic       ftdi_txd,
  /// FTDI RX: the board's data to the host (UART output).
  output logic       ftdi_rxd,
  /// Buttons: btn[0] PWRBTN, active low (reset); btn[6:1] active high, unused.
  input  logic [6:0] btn,
  output logic [7:0] led,
  /// ESP32 GPIO0: 1 keeps the ESP32 out of its bootloader.
  output logic       wifi_gpio0
);

  // ---- clock ------------------------------------------------------------------------------------------
  logic clk, pll_lock;
  logic unused_clkos, unused_clkos2, unused_clkos3, unused_intlock, unused_refclk, unused_clkintfb;

  (* FREQUENCY_PIN_CLKI = "25" *)
  (* ICP_CURRENT = "12" *) (* LPF_RESISTOR = "8" *) (* MFG_ENABLE_FILTEROPAMP = "1" *) (* MFG_GMCREF_SEL = "2" *)
  EHXPLLL #(
    .PLLRST_ENA("DISABLED"),
    .INTFB_WAKE("DISABLED"),
    .STDBY_ENABLE("DISABLED"),
    .DPHASE_SOURCE("DISABLED"),
    .OUTDIVIDER_MUXA("DIVA"),
    .OUTDIVIDER_MUXB("DIVB"),
    .OUTDIVIDER_MUXC("DIVC"),
    .OUTDIVIDER_MUXD("DIVD"),
    .CLKI_DIV(PllClkiDiv),
    .CLKOP_ENABLE("ENABLED"),
    .CLKOP_DIV(PllClkopDiv),
    .CLKOP_CPHASE((PllClkopDiv - 1) / 2),
    .CLKOP_FPHASE(0),
    .FEEDBK_PATH("CLKOP"),
    .CLKFB_DIV(PllClkfbDiv)
  ) u_pll (
    .CLKI(clk_25mhz),
    .CLKFB(clk),
    .PHASESEL1(1'b0),
    .PHASESEL0(1'b0),
    .PHASEDIR(1'b1),
    .PHASESTEP(1'b1),
    .PHASELOADREG(1'b1),
    .STDBY(1'b0),
    .PLLWAKESYNC(1'b0),
    .RST(1'b0),
    .ENCLKOP(1'b0),
    .ENCLKOS(1'b0),
    .ENCLKOS2(1'b0),
    .ENCLKOS3(1'b0),
    .CLKOP(clk),
    .CLKOS(unused_clkos),
    .CLKOS2(unused_clkos2),
    .CLKOS3(unused_clkos3),
    .LOCK(pll_lock),
    .INTLOCK(unused_intlock),
    .REFCLK(unused_refclk),
    .CLKINTFB(unused_clkintfb)
  );

  // ---- reset: asynchronous assertion, synchronous release after 2^16 clocks ------------------------
  logic        rst_req;
  logic [16:0] rst_cnt_q;  // bit 16 set: out of reset
  assign rst_req = !pll_lock || !btn[0];
  always_ff @(posedge clk or posedge rst_req) begin
    if (rst_req) begin
      rst_cnt_q <= '0;
    end else if (!rst_cnt_q[16]) begin
      rst_cnt_q <= rst_cnt_q + 1'b1;
    end
  end

  // ---- the board ---------------------------------------------------------------------------------------
  logic [7:0] board_led;
  tsm_board #(.ClockHz(ClockHz), .Baud(Baud), .HexDir(HexDir)) u_board (
    .clk_i(clk),
    .rst_ni(rst_cnt_q[16]),
    .uart_rx_i(ftdi_txd),
    .uart_tx_o(ftdi_rxd),
    .led_o(board_led)
  );

  logic unused_btn;
  assign unused_btn = ^{btn[6:1], board_led[7]};
  assign led = {pll_lock, board_led[6:0]};
  assign wifi_gpio0 = 1'b1;

endmodule
