// Behavioural models of the two ECP5 primitives that Yosys 0.23's cells_sim.v does not model
// (MULT18X18D is a blackbox in cells_bb.v, DP16KD has parameters and no behaviour), for simulating
// the technology-mapped netlist of the board top (tsm-board-sim-ecp5, sim/board/CMakeLists.txt).
// They model the modes that synth_ecp5's mappings (+/ecp5/dsp_map.v, +/ecp5/brams_map.v) use and
// stop the simulation on any other: a combinational multiplier, and a block RAM without output
// registers or chip selects, in the 9-, 18- and 36-bit modes and, without INITVAL and with both
// ports of one width, in the 1-, 2- and 4-bit modes. The RAM is the DP16KD's 1,024 rows
// of 18 bits, the rows of INITVAL_00..3F (16 rows of 20 bits each, the top two unused), read and
// written as Yosys lays its words over them: a 9-bit word a is byte a[0] of row a >> 1; an 18-bit
// word is a row, its bytes written where ADx1..ADx0 are set; a 36-bit word w is rows 2w (bits
// 17:0, on the DIA/DOA pins) and 2w + 1 (35:18, on DIB/DOB), its bytes written where ADA3..ADA0
// are set. Read-during-write on one port follows WRITEMODE (NORMAL: the output keeps its value,
// WRITETHROUGH: the new data, READBEFOREWRITE: the old), as +/ecp5/brams.txt declares them.
// verilator lint_off UNUSEDSIGNAL
// verilator lint_off UNUSEDPARAM
// verilator lint_off DECLFILENAME
// The RAM's two ports write its rows from two clock domains, as the silicon's do.
// verilator lint_off MULTIDRIVEN

module MULT18X18D (
  input  A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0,
  input  B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0,
  input  C17, C16, C15, C14, C13, C12, C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1, C0,
  input  SRIA17, SRIA16, SRIA15, SRIA14, SRIA13, SRIA12, SRIA11, SRIA10, SRIA9, SRIA8, SRIA7, SRIA6, SRIA5, SRIA4, SRIA3, SRIA2, SRIA1, SRIA0,
  input  SRIB17, SRIB16, SRIB15, SRIB14, SRIB13, SRIB12, SRIB11, SRIB10, SRIB9, SRIB8, SRIB7, SRIB6, SRIB5, SRIB4, SRIB3, SRIB2, SRIB1, SRIB0,
  input  SIGNEDA, SIGNEDB, SOURCEA, SOURCEB,
  input  CLK0, CLK1, CLK2, CLK3, CE0, CE1, CE2, CE3, RST0, RST1, RST2, RST3,
  output SROA17, SROA16, SROA15, SROA14, SROA13, SROA12, SROA11, SROA10, SROA9, SROA8, SROA7, SROA6, SROA5, SROA4, SROA3, SROA2, SROA1, SROA0,
  output SROB17, SROB16, SROB15, SROB14, SROB13, SROB12, SROB11, SROB10, SROB9, SROB8, SROB7, SROB6, SROB5, SROB4, SROB3, SROB2, SROB1, SROB0,
  output ROA17, ROA16, ROA15, ROA14, ROA13, ROA12, ROA11, ROA10, ROA9, ROA8, ROA7, ROA6, ROA5, ROA4, ROA3, ROA2, ROA1, ROA0,
  output ROB17, ROB16, ROB15, ROB14, ROB13, ROB12, ROB11, ROB10, ROB9, ROB8, ROB7, ROB6, ROB5, ROB4, ROB3, ROB2, ROB1, ROB0,
  output ROC17, ROC16, ROC15, ROC14, ROC13, ROC12, ROC11, ROC10, ROC9, ROC8, ROC7, ROC6, ROC5, ROC4, ROC3, ROC2, ROC1, ROC0,
  output P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0,
  output SIGNEDP
);
  parameter [8*20-1:0] REG_INPUTA_CLK = "NONE";
  parameter [8*20-1:0] REG_INPUTA_CE = "CE0";
  parameter [8*20-1:0] REG_INPUTA_RST = "RST0";
  parameter [8*20-1:0] REG_INPUTB_CLK = "NONE";
  parameter [8*20-1:0] REG_INPUTB_CE = "CE0";
  parameter [8*20-1:0] REG_INPUTB_RST = "RST0";
  parameter [8*20-1:0] REG_INPUTC_CLK = "NONE";
  parameter [8*20-1:0] REG_INPUTC_CE = "CE0";
  parameter [8*20-1:0] REG_INPUTC_RST = "RST0";
  parameter [8*20-1:0] REG_PIPELINE_CLK = "NONE";
  parameter [8*20-1:0] REG_PIPELINE_CE = "CE0";
  parameter [8*20-1:0] REG_PIPELINE_RST = "RST0";
  parameter [8*20-1:0] REG_OUTPUT_CLK = "NONE";
  parameter [8*20-1:0] REG_OUTPUT_CE = "CE0";
  parameter [8*20-1:0] REG_OUTPUT_RST = "RST0";
  parameter [8*20-1:0] CLK0_DIV = "ENABLED";
  parameter [8*20-1:0] CLK1_DIV = "ENABLED";
  parameter [8*20-1:0] CLK2_DIV = "ENABLED";
  parameter [8*20-1:0] CLK3_DIV = "ENABLED";
  parameter [8*20-1:0] HIGHSPEED_CLK = "NONE";
  parameter [8*20-1:0] GSR = "ENABLED";
  parameter [8*20-1:0] CAS_MATCH_REG = "FALSE";
  parameter [8*20-1:0] SOURCEB_MODE = "B_SHIFT";
  parameter [8*20-1:0] MULT_BYPASS = "DISABLED";
  parameter [8*20-1:0] RESETMODE = "SYNC";

  initial begin
    if (REG_INPUTA_CLK != "NONE" || REG_INPUTB_CLK != "NONE" || REG_INPUTC_CLK != "NONE" ||
        REG_PIPELINE_CLK != "NONE" || REG_OUTPUT_CLK != "NONE" || MULT_BYPASS != "DISABLED")
      $fatal(1, "MULT18X18D %m: only the combinational multiplier is modelled");
  end

  // The 18-bit operands, each signed when its SIGNED pin is high; the low 36 bits of the product.
  wire [17:0] a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
  wire [17:0] b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
  wire signed [36:0] a_ext = {{19{SIGNEDA & a[17]}}, a};
  wire signed [36:0] b_ext = {{19{SIGNEDB & b[17]}}, b};
  wire signed [73:0] p = a_ext * b_ext;
  assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = p[35:0];
  assign SIGNEDP = SIGNEDA | SIGNEDB;
  assign {SROA17, SROA16, SROA15, SROA14, SROA13, SROA12, SROA11, SROA10, SROA9, SROA8, SROA7, SROA6, SROA5, SROA4, SROA3, SROA2, SROA1, SROA0} = 18'd0;
  assign {SROB17, SROB16, SROB15, SROB14, SROB13, SROB12, SROB11, SROB10, SROB9, SROB8, SROB7, SROB6, SROB5, SROB4, SROB3, SROB2, SROB1, SROB0} = 18'd0;
  assign {ROA17, ROA16, ROA15, ROA14, ROA13, ROA12, ROA11, ROA10, ROA9, ROA8, ROA7, ROA6, ROA5, ROA4, ROA3, ROA2, ROA1, ROA0} = 18'd0;
  assign {ROB17, ROB16, ROB15, ROB14, ROB13, ROB12, ROB11, ROB10, ROB9, ROB8, ROB7, ROB6, ROB5, ROB4, ROB3, ROB2, ROB1, ROB0} = 18'd0;
  assign {ROC17, ROC16, ROC15, ROC14, ROC13, ROC12, ROC11, ROC10, ROC9, ROC8, ROC7, ROC6, ROC5, ROC4, ROC3, ROC2, ROC1, ROC0} = 18'd0;
endmodule

module DP16KD (
  input  DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
  input  ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
  input  CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0,
  input  DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
  input  ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
  input  CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0,
  output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
  output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
  parameter DATA_WIDTH_A = 18;
  parameter DATA_WIDTH_B = 18;
  parameter [8*20-1:0] REGMODE_A = "NOREG";
  parameter [8*20-1:0] REGMODE_B = "NOREG";
  parameter [8*20-1:0] RESETMODE = "SYNC";
  parameter [8*20-1:0] ASYNC_RESET_RELEASE = "SYNC";
  parameter [8*20-1:0] CSDECODE_A = "0b000";
  parameter [8*20-1:0] CSDECODE_B = "0b000";
  parameter [8*20-1:0] WRITEMODE_A = "NORMAL";
  parameter [8*20-1:0] WRITEMODE_B = "NORMAL";
  parameter [8*20-1:0] CLKAMUX = "CLKA";
  parameter [8*20-1:0] CLKBMUX = "CLKB";
  parameter WID = 0;
  parameter [8*20-1:0] GSR = "ENABLED";
  parameter [319:0] INITVAL_00 = 320'h0;
  parameter [319:0] INITVAL_01 = 320'h0;
  parameter [319:0] INITVAL_02 = 320'h0;
  parameter [319:0] INITVAL_03 = 320'h0;
  parameter [319:0] INITVAL_04 = 320'h0;
  parameter [319:0] INITVAL_05 = 320'h0;
  parameter [319:0] INITVAL_06 = 320'h0;
  parameter [319:0] INITVAL_07 = 320'h0;
  parameter [319:0] INITVAL_08 = 320'h0;
  parameter [319:0] INITVAL_09 = 320'h0;
  parameter [319:0] INITVAL_0A = 320'h0;
  parameter [319:0] INITVAL_0B = 320'h0;
  parameter [319:0] INITVAL_0C = 320'h0;
  parameter [319:0] INITVAL_0D = 320'h0;
  parameter [319:0] INITVAL_0E = 320'h0;
  parameter [319:0] INITVAL_0F = 320'h0;
  parameter [319:0] INITVAL_10 = 320'h0;
  parameter [319:0] INITVAL_11 = 320'h0;
  parameter [319:0] INITVAL_12 = 320'h0;
  parameter [319:0] INITVAL_13 = 320'h0;
  parameter [319:0] INITVAL_14 = 320'h0;
  parameter [319:0] INITVAL_15 = 320'h0;
  parameter [319:0] INITVAL_16 = 320'h0;
  parameter [319:0] INITVAL_17 = 320'h0;
  parameter [319:0] INITVAL_18 = 320'h0;
  parameter [319:0] INITVAL_19 = 320'h0;
  parameter [319:0] INITVAL_1A = 320'h0;
  parameter [319:0] INITVAL_1B = 320'h0;
  parameter [319:0] INITVAL_1C = 320'h0;
  parameter [319:0] INITVAL_1D = 320'h0;
  parameter [319:0] INITVAL_1E = 320'h0;
  parameter [319:0] INITVAL_1F = 320'h0;
  parameter [319:0] INITVAL_20 = 320'h0;
  parameter [319:0] INITVAL_21 = 320'h0;
  parameter [319:0] INITVAL_22 = 320'h0;
  parameter [319:0] INITVAL_23 = 320'h0;
  parameter [319:0] INITVAL_24 = 320'h0;
  parameter [319:0] INITVAL_25 = 320'h0;
  parameter [319:0] INITVAL_26 = 320'h0;
  parameter [319:0] INITVAL_27 = 320'h0;
  parameter [319:0] INITVAL_28 = 320'h0;
  parameter [319:0] INITVAL_29 = 320'h0;
  parameter [319:0] INITVAL_2A = 320'h0;
  parameter [319:0] INITVAL_2B = 320'h0;
  parameter [319:0] INITVAL_2C = 320'h0;
  parameter [319:0] INITVAL_2D = 320'h0;
  parameter [319:0] INITVAL_2E = 320'h0;
  parameter [319:0] INITVAL_2F = 320'h0;
  parameter [319:0] INITVAL_30 = 320'h0;
  parameter [319:0] INITVAL_31 = 320'h0;
  parameter [319:0] INITVAL_32 = 320'h0;
  parameter [319:0] INITVAL_33 = 320'h0;
  parameter [319:0] INITVAL_34 = 320'h0;
  parameter [319:0] INITVAL_35 = 320'h0;
  parameter [319:0] INITVAL_36 = 320'h0;
  parameter [319:0] INITVAL_37 = 320'h0;
  parameter [319:0] INITVAL_38 = 320'h0;
  parameter [319:0] INITVAL_39 = 320'h0;
  parameter [319:0] INITVAL_3A = 320'h0;
  parameter [319:0] INITVAL_3B = 320'h0;
  parameter [319:0] INITVAL_3C = 320'h0;
  parameter [319:0] INITVAL_3D = 320'h0;
  parameter [319:0] INITVAL_3E = 320'h0;
  parameter [319:0] INITVAL_3F = 320'h0;

  // The 9-, 18- and 36-bit modes: 1,024 rows of 18 bits, initialised from INITVAL. The 1-, 2- and
  // 4-bit modes: words of their own width (nmem), both ports of one width, no INITVAL: their
  // layout in the rows is then invisible to the design.
  localparam bit Wide = DATA_WIDTH_A >= 9;
  reg [17:0] mem [0:1023];
  reg [3:0] nmem [0:16383];
  reg [17:0] doa_q, dob_q, doa36_q;
  integer r;
  initial begin
    if (REGMODE_A != "NOREG" || REGMODE_B != "NOREG" || CSDECODE_A != "0b000" || CSDECODE_B != "0b000" ||
        CLKAMUX != "CLKA" || CLKBMUX != "CLKB")
      $fatal(1, "DP16KD %m: only NOREG, CSDECODE 0b000 and rising clocks are modelled");
    if (RESETMODE != "SYNC" && RESETMODE != "ASYNC")
      $fatal(1, "DP16KD %m: RESETMODE %0s is not modelled", RESETMODE);
    if (!(DATA_WIDTH_A == 9 || DATA_WIDTH_A == 18 || DATA_WIDTH_A == 36 ||
          ((DATA_WIDTH_A == 1 || DATA_WIDTH_A == 2 || DATA_WIDTH_A == 4) && DATA_WIDTH_B == DATA_WIDTH_A)) ||
        !(DATA_WIDTH_B == 9 || DATA_WIDTH_B == 18 || DATA_WIDTH_B == 36 || DATA_WIDTH_B == DATA_WIDTH_A) ||
        (DATA_WIDTH_B == 36 && DATA_WIDTH_A != 36))
      $fatal(1, "DP16KD %m: data widths %0d/%0d are not modelled", DATA_WIDTH_A, DATA_WIDTH_B);
    doa_q = 18'd0;
    dob_q = 18'd0;
    doa36_q = 18'd0;
    for (r = 0; r < 1024; r = r + 1) begin
      mem[r] = init_row(r);
      if (!Wide && mem[r] != 18'd0)
        $fatal(1, "DP16KD %m: INITVAL in the %0d-bit mode is not modelled", DATA_WIDTH_A);
    end
    for (r = 0; r < 16384; r = r + 1) nmem[r] = 4'd0;
  end

  function [17:0] init_row(input integer row);
    reg [319:0] v;
    begin
      case (row / 16)
        0: v = INITVAL_00;
        1: v = INITVAL_01;
        2: v = INITVAL_02;
        3: v = INITVAL_03;
        4: v = INITVAL_04;
        5: v = INITVAL_05;
        6: v = INITVAL_06;
        7: v = INITVAL_07;
        8: v = INITVAL_08;
        9: v = INITVAL_09;
        10: v = INITVAL_0A;
        11: v = INITVAL_0B;
        12: v = INITVAL_0C;
        13: v = INITVAL_0D;
        14: v = INITVAL_0E;
        15: v = INITVAL_0F;
        16: v = INITVAL_10;
        17: v = INITVAL_11;
        18: v = INITVAL_12;
        19: v = INITVAL_13;
        20: v = INITVAL_14;
        21: v = INITVAL_15;
        22: v = INITVAL_16;
        23: v = INITVAL_17;
        24: v = INITVAL_18;
        25: v = INITVAL_19;
        26: v = INITVAL_1A;
        27: v = INITVAL_1B;
        28: v = INITVAL_1C;
        29: v = INITVAL_1D;
        30: v = INITVAL_1E;
        31: v = INITVAL_1F;
        32: v = INITVAL_20;
        33: v = INITVAL_21;
        34: v = INITVAL_22;
        35: v = INITVAL_23;
        36: v = INITVAL_24;
        37: v = INITVAL_25;
        38: v = INITVAL_26;
        39: v = INITVAL_27;
        40: v = INITVAL_28;
        41: v = INITVAL_29;
        42: v = INITVAL_2A;
        43: v = INITVAL_2B;
        44: v = INITVAL_2C;
        45: v = INITVAL_2D;
        46: v = INITVAL_2E;
        47: v = INITVAL_2F;
        48: v = INITVAL_30;
        49: v = INITVAL_31;
        50: v = INITVAL_32;
        51: v = INITVAL_33;
        52: v = INITVAL_34;
        53: v = INITVAL_35;
        54: v = INITVAL_36;
        55: v = INITVAL_37;
        56: v = INITVAL_38;
        57: v = INITVAL_39;
        58: v = INITVAL_3A;
        59: v = INITVAL_3B;
        60: v = INITVAL_3C;
        61: v = INITVAL_3D;
        62: v = INITVAL_3E;
        63: v = INITVAL_3F;
        default: v = 320'h0;
      endcase
      init_row = v[(row % 16) * 20 +: 18];
    end
  endfunction

  wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
  wire [17:0] dib = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
  wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
  wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};

  // Per port: the row, and which of its two bytes a write sets. 9 bits: byte ADx3 of row
  // ADx13..ADx4 when WEx. 18 bits: row ADx13..ADx4, the bytes ADx1, ADx0 when WEx. 36 bits (port A
  // only): rows 2w and 2w + 1, w = ADA13..ADA5, the bytes ADA3..ADA0 when WEA. 1, 2, 4 bits: word
  // ADx13..ADx0, ADx13..ADx1, ADx13..ADx2.
  wire [9:0] rowa = DATA_WIDTH_A == 36 ? {ada[13:5], 1'b0} : ada[13:4];
  wire [9:0] rowb = DATA_WIDTH_B == 36 ? {adb[13:5], 1'b0} : adb[13:4];
  wire [1:0] bea = !WEA || !Wide ? 2'b00 : DATA_WIDTH_A == 9 ? {ada[3], ~ada[3]} : ada[1:0];
  wire [1:0] bea_hi = (WEA && DATA_WIDTH_A == 36) ? ada[3:2] : 2'b00;
  wire [1:0] beb = !WEB || !Wide || DATA_WIDTH_B == 36 ? 2'b00 : DATA_WIDTH_B == 9 ? {adb[3], ~adb[3]} : adb[1:0];
  wire [13:0] worda = DATA_WIDTH_A == 4 ? {2'd0, ada[13:2]} : DATA_WIDTH_A == 2 ? {1'd0, ada[13:1]} : ada;
  wire [13:0] wordb = DATA_WIDTH_B == 4 ? {2'd0, adb[13:2]} : DATA_WIDTH_B == 2 ? {1'd0, adb[13:1]} : adb;
  wire [3:0] nmask = DATA_WIDTH_A == 4 ? 4'hF : DATA_WIDTH_A == 2 ? 4'h3 : 4'h1;
  // The data as it lies in a row (a 9-bit word in both bytes).
  wire [17:0] rowdata_a = DATA_WIDTH_A == 9 ? {dia[8:0], dia[8:0]} : dia;
  wire [17:0] rowdata_b = DATA_WIDTH_B == 9 ? {dib[8:0], dib[8:0]} : dib;

  // What a port reads before this edge's writes: the row or its byte ADx3 (9 bits), or the word.
  wire [17:0] olda = Wide ? (DATA_WIDTH_A == 9 ? {9'd0, ada[3] ? mem[rowa][17:9] : mem[rowa][8:0]} : mem[rowa])
                          : {14'd0, nmem[worda] & nmask};
  wire [17:0] oldb = Wide ? (DATA_WIDTH_B == 9 ? {9'd0, adb[3] ? mem[rowb][17:9] : mem[rowb][8:0]} : mem[rowb])
                          : {14'd0, nmem[wordb] & nmask};
  // ... and after them, for WRITETHROUGH.
  wire [17:0] newa = Wide ? (DATA_WIDTH_A == 9 ? {9'd0, dia[8:0]}
                                                : {bea[1] ? dia[17:9] : mem[rowa][17:9], bea[0] ? dia[8:0] : mem[rowa][8:0]})
                          : {14'd0, dia[3:0] & nmask};
  wire [17:0] newb = Wide ? (DATA_WIDTH_B == 9 ? {9'd0, dib[8:0]}
                                                : {beb[1] ? dib[17:9] : mem[rowb][17:9], beb[0] ? dib[8:0] : mem[rowb][8:0]})
                          : {14'd0, dib[3:0] & nmask};
  // The outputs at the next edge (NORMAL: unchanged during a write).
  wire [17:0] nexta = !WEA || WRITEMODE_A == "READBEFOREWRITE" ? olda : WRITEMODE_A == "WRITETHROUGH" ? newa : doa_q;
  wire [17:0] nextb = !WEB || WRITEMODE_B == "READBEFOREWRITE" ? oldb : WRITEMODE_B == "WRITETHROUGH" ? newb : dob_q;

  // Writes are non-blocking: both ports' reads at an edge see the rows as they were before it.
  always @(posedge CLKA) begin
    if (CEA) begin
      if (bea[0]) mem[rowa][8:0] <= rowdata_a[8:0];
      if (bea[1]) mem[rowa][17:9] <= rowdata_a[17:9];
      if (bea_hi[0]) mem[rowa + 10'd1][8:0] <= dib[8:0];
      if (bea_hi[1]) mem[rowa + 10'd1][17:9] <= dib[17:9];
      if (!Wide && WEA) nmem[worda] <= dia[3:0] & nmask;
    end
  end
  always @(posedge CLKB) begin
    if (CEB) begin
      if (beb[0]) mem[rowb][8:0] <= rowdata_b[8:0];
      if (beb[1]) mem[rowb][17:9] <= rowdata_b[17:9];
      if (!Wide && WEB) nmem[wordb] <= dib[3:0] & nmask;
    end
  end

  // The output latches, reset by RSTx at the clock (RESETMODE SYNC) or at once (ASYNC: the
  // reset is also an edge of the process). Port A's is unused in the 36-bit mode, where the read
  // side (port B) drives DOA with row 2w and DOB with row 2w + 1.
  wire arsta = RESETMODE == "ASYNC" && RSTA;
  wire arstb = RESETMODE == "ASYNC" && RSTB;
  always @(posedge CLKA or posedge arsta)
    if (RSTA) doa_q <= 18'd0;
    else if (CEA && DATA_WIDTH_A != 36) doa_q <= nexta;
  always @(posedge CLKB or posedge arstb)
    if (RSTB) begin
      dob_q <= 18'd0;
      doa36_q <= 18'd0;
    end else if (CEB) begin
      dob_q <= DATA_WIDTH_B == 36 ? mem[rowb + 10'd1] : nextb;
      doa36_q <= mem[rowb];
    end
  wire [17:0] doa = DATA_WIDTH_B == 36 ? doa36_q : doa_q;
  assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = doa;
  assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = dob_q;
endmodule
