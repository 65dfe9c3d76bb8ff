// Special-function unit datapath for one lane: MUFU rcp, rsq, sin, cos, ex2, lg2 by the table
// algorithm of docs/sfu.md (argument preparation, one quadratic interpolator over the generated
// coefficient ROMs, rounding to binary32), bit-exact with the golden model's tsm::sfu::evaluate.
// The result passes through `Stages` registers. With Stages >= 1 the first of them sits in the
// middle: argument preparation and the coefficient-ROM read are one stage (the ROMs read on the
// clock edge, so synthesis puts them into block RAM), interpolation and rounding the next; the
// latency is Stages either way.
module tsm_sfu #(
  /// Pipeline registers between the operand and the result (0: combinational).
  parameter int unsigned Stages = 4,
  /// Directory of the generated ROM images rcp.hex, rsq.hex, sin.hex, ex2.hex, lg2.hex (with '/').
  parameter HexDir = ""
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  /// Operand present this cycle.
  input  logic        valid_i,
  /// The function: tsm_isa_pkg::MUFU_*.
  input  logic [2:0]  func_i,
  input  logic [31:0] x_i,
  /// Subnormal inputs and results are zero.
  input  logic        ftz_i,
  /// The result of the operand given Stages cycles earlier.
  output logic        valid_o,
  output logic [31:0] result_o
);

`ifdef TSM_MUTANTS
  `TSM_MUTANT_DECL
`endif

  localparam int unsigned Seg = tsm_sfu_pkg::Segments;
  localparam int unsigned UB = tsm_sfu_pkg::UBits;
  localparam int unsigned C0B = tsm_sfu_pkg::C0Bits;
  localparam int unsigned C1B = tsm_sfu_pkg::C1Bits;
  localparam int unsigned C2B = tsm_sfu_pkg::C2Bits;
  localparam int unsigned C0F = tsm_sfu_pkg::C0Frac;
  // No unary minus below: Yosys 0.23 drops it in front of a size cast (-12'(C) synthesizes as +C,
  // found by this unit's netlist test), so negations are written as subtractions from zero.
  localparam logic [31:0] CanonicalNaN = 32'h7FFF_FFFF;
  localparam logic [31:0] PlusInf = 32'h7F80_0000;
  localparam logic [31:0] One = 32'h3F80_0000;

  // ---- coefficient ROMs, one per table ----
  logic [63:0] rom_rcp [Seg];
  logic [63:0] rom_rsq [Seg];
  logic [63:0] rom_sin [Seg];
  logic [63:0] rom_ex2 [Seg];
  logic [63:0] rom_lg2 [Seg];
  initial begin
    $readmemh({HexDir, "rcp.hex"}, rom_rcp);
    $readmemh({HexDir, "rsq.hex"}, rom_rsq);
    $readmemh({HexDir, "sin.hex"}, rom_sin);
    $readmemh({HexDir, "ex2.hex"}, rom_ex2);
    $readmemh({HexDir, "lg2.hex"}, rom_lg2);
  end

  // Leading zeros of a 48-bit word (48 for zero).
  function automatic logic [5:0] lzc48(input logic [47:0] v);
    lzc48 = 6'd48;
    for (int i = 0; i < 48; i++) begin
      if (v[i]) lzc48 = 6'(47 - i);
    end
  endfunction

  // (-1)^neg * y * 2^scale to binary32: nearest, ties away from zero; subnormal results, overflow to
  // infinity, and under ftz subnormal results flushed. A negative y flips the sign.
  function automatic logic [31:0] round_pack(input logic neg_in, input logic signed [47:0] y,
                                             input logic signed [11:0] scale, input logic ftz);
    logic        neg;
    logic [47:0] mag;
    logic signed [11:0] top, lsb, drop;
    logic [39:0] sig;
    logic signed [39:0] bits;
    neg = neg_in ^ y[47];
    mag = y[47] ? 48'(48'sd0 - y) : 48'(y);
    top = 12'sd47 - $signed({6'd0, lzc48(mag)});
    lsb = (top + scale - 12'sd23 > -12'sd149) ? top + scale - 12'sd23 : -12'sd149;
    drop = lsb - scale;
    // sig has at most 25 bits: the leading one lands at bit 23 (or lower for subnormals), plus a carry.
    if (drop <= 0) sig = 40'(mag << 6'(12'sd0 - drop));
    else if (drop > 12'sd48) sig = 40'd0;
    else sig = 40'(((mag >> 6'(drop - 12'sd1)) + 48'd1) >> 1);
`ifdef TSM_MUTANTS
    if (`TSM_MUT(4) && drop > 0 && drop <= 12'sd48) sig = 40'(mag >> 6'(drop));
`endif
    bits = ($signed({28'd0, lsb + 12'sd149}) <<< 23) + $signed(sig);
    if (mag == 48'd0) round_pack = {neg, 31'd0};
    else if (bits >= $signed({8'd0, PlusInf})) round_pack = {neg, PlusInf[30:0]};
    else if (ftz && bits < 40'sd8388608) round_pack = {neg, 31'd0};
    else round_pack = {neg, bits[30:0]};
  endfunction

  // Argument preparation's outputs (stage A), what the interpolator needs of them (stage B) and
  // the selected coefficient word.
  logic [7:0]  a_index;
  logic [2:0]  a_table;
  logic [UB-1:0] a_u, b_u;
  logic signed [11:0] a_scale, b_scale, a_lg2_exp, b_lg2_exp;
  logic        a_out_neg, b_out_neg, a_use_special, b_use_special, a_lg2, b_lg2, b_ftz, b_valid;
  logic [31:0] a_special, b_special;
  logic [63:0] b_word;
  logic [31:0] result;

  always_comb begin
    logic        neg, is_nan, is_inf, is_zero;
    logic [7:0]  field;
    logic [22:0] frac;
    logic [4:0]  lz;
    logic signed [11:0] ex;                  // unbiased exponent of a finite operand
    logic [23:0] sig;                        // normalized significand, leading one at bit 23
    logic [7:0]  index;
    logic [UB-1:0] u;
    logic signed [11:0] scale, half_exp, shift;
    logic        out_neg, odd, upper, is_sin, sticky;
    logic [47:0] magnitude;
    logic signed [47:0] fixed;
    logic [51:0] product;
    logic [26:0] turn;
    logic [24:0] v;
    logic [1:0]  quadrant;
    logic [31:0] special;
    logic        use_special;

    // ---- decode ----
    neg = x_i[31];
    field = x_i[30:23];
    frac = x_i[22:0];
    is_nan = field == 8'hFF && frac != 23'd0;
    is_inf = field == 8'hFF && frac == 23'd0;
    is_zero = field == 8'd0 && (frac == 23'd0 || ftz_i);
    lz = 5'd23;
    for (int i = 0; i < 23; i++) begin
      if (frac[i]) lz = 5'(22 - i);
    end
    if (field != 8'd0) begin
      ex = $signed({4'd0, field}) - 12'sd127;
      sig = {1'b1, frac};
    end else begin  // subnormal: the leading one moves to bit 23
      ex = -12'sd126 - $signed({7'd0, lz}) - 12'sd1;
      sig = {1'b0, frac} << (lz + 5'd1);
    end

    // ---- argument preparation per function ----
    index = 8'd0;
    u = '0;
    scale = 12'sd0;
    out_neg = 1'b0;
    upper = 1'b0;
    special = 32'd0;
    use_special = 1'b0;
    is_sin = func_i == tsm_isa_pkg::MUFU_SIN;
    odd = ex[0];
    half_exp = (ex - $signed({11'd0, odd})) >>> 1;
    magnitude = 48'd0;
    sticky = 1'b0;
    fixed = 48'sd0;
    product = 52'd0;
    turn = 27'd0;
    v = 25'd0;
    quadrant = 2'd0;
    shift = 12'sd0;
    unique case (func_i)
      tsm_isa_pkg::MUFU_RCP: begin
        use_special = is_nan | is_inf | is_zero;
        special = is_nan ? CanonicalNaN : is_inf ? {neg, 31'd0} : {neg, PlusInf[30:0]};
        index = sig[22:15];
        u = UB'({sig[14:0], 2'b00});
        scale = 12'sd0 - ex - 12'sd1 - $signed(12'(C0F));
        out_neg = neg;
      end
      tsm_isa_pkg::MUFU_RSQ: begin
        use_special = is_nan | is_inf | is_zero | neg;
        special = (is_nan | (neg & ~is_zero)) ? CanonicalNaN : is_zero ? {neg, PlusInf[30:0]} : 32'd0;
        index = {odd, sig[22:16]};
        u = UB'({sig[15:0], 1'b0});
        scale = 12'sd0 - half_exp - 12'sd1 - $signed(12'(C0F));
      end
      tsm_isa_pkg::MUFU_EX2: begin
        use_special = is_nan | is_inf | is_zero | (ex >= 12'(tsm_sfu_pkg::Ex2SaturateExp));
        special = is_nan ? CanonicalNaN : is_zero ? One : neg ? 32'd0 : PlusInf;
        // x in fixed point with Ex2FracBits fraction bits, rounded toward minus infinity.
        shift = ex - 12'sd23 + 12'(tsm_sfu_pkg::Ex2FracBits);
        if (shift >= 0) begin
          magnitude = {24'd0, sig} << 6'(shift);
        end else if (shift > -12'sd48) begin
          magnitude = {24'd0, sig} >> 6'(12'sd0 - shift);
          sticky = |({24'd0, sig} & ((48'd1 << 6'(12'sd0 - shift)) - 48'd1));
        end else begin
          sticky = |sig;
        end
        fixed = neg ? 48'sd0 - $signed(magnitude + {47'd0, sticky}) : $signed(magnitude);
        index = fixed[24:17];
        u = UB'(fixed[16:0]);
        scale = 12'(fixed >>> tsm_sfu_pkg::Ex2FracBits) - 12'(C0F);
      end
      tsm_isa_pkg::MUFU_LG2: begin
        use_special = is_nan | is_inf | is_zero | neg;
        special = (is_nan | (neg & ~is_zero)) ? CanonicalNaN : is_zero ? 32'hFF80_0000 : PlusInf;
        index = sig[22:15];
        u = UB'({sig[14:0], 2'b00});
        upper = sig[22:21] == 2'b11;
        scale = 12'sd0 - $signed(12'(C0F));
      end
      default: begin  // SIN, COS
        use_special = is_nan | is_inf | is_zero | (is_sin && ex < 12'(tsm_sfu_pkg::SinBypassExp));
        special = (is_nan | is_inf) ? CanonicalNaN : is_zero ? (is_sin ? {neg, 31'd0} : One) : x_i;
        product = {28'd0, sig} * tsm_sfu_pkg::InvTwoPi[51:0];
        shift = ex - 12'sd23 - 12'(tsm_sfu_pkg::InvTwoPiFrac) + 12'(tsm_sfu_pkg::TurnBits);
        if (shift >= 12'sd27) turn = 27'd0;
        else if (shift >= 0) turn = 27'(product << 6'(shift));
        else if (shift > -12'sd52) turn = 27'(product >> 6'(12'sd0 - shift));
        else turn = 27'd0;
        quadrant = turn[26:25] + (is_sin ? 2'd0 : 2'd1);
        v = quadrant[0] ? ~turn[24:0] : turn[24:0];
        index = v[24:17];
        u = UB'(v[16:0]);
        out_neg = quadrant[1] ^ (is_sin & neg);
        scale = 12'sd0 - $signed(12'(C0F));
      end
    endcase

    a_index = index;
    a_table = tsm_sfu_pkg::table_of(func_i);
    a_u = u;
    a_scale = scale;
    a_out_neg = out_neg;
    a_use_special = use_special;
    a_special = special;
    // lg2: the exponent (plus the 1 the upper tables leave out) joins the fraction.
    a_lg2 = func_i == tsm_isa_pkg::MUFU_LG2;
    a_lg2_exp = ex + $signed({11'd0, upper});
  end

  // ---- the coefficient ROMs, and stage A's results for stage B ----
  if (Stages == 0) begin : gen_comb
    always_comb begin
      unique case (a_table)
        tsm_sfu_pkg::TABLE_RCP: b_word = rom_rcp[a_index];
        tsm_sfu_pkg::TABLE_RSQ: b_word = rom_rsq[a_index];
        tsm_sfu_pkg::TABLE_SIN: b_word = rom_sin[a_index];
        tsm_sfu_pkg::TABLE_EX2: b_word = rom_ex2[a_index];
        default:                b_word = rom_lg2[a_index];
      endcase
    end
    assign b_valid = valid_i;
    assign b_u = a_u;
    assign b_scale = a_scale;
    assign b_out_neg = a_out_neg;
    assign b_use_special = a_use_special;
    assign b_special = a_special;
    assign b_lg2 = a_lg2;
    assign b_lg2_exp = a_lg2_exp;
    assign b_ftz = ftz_i;
  end else begin : gen_staged
    // Every ROM is read on the clock edge (a block RAM's registered read); the table is chosen after.
    logic [63:0] rcp_q, rsq_q, sin_q, ex2_q, lg2_q;
    logic [2:0]  table_q;
    logic        valid_q;
    always_ff @(posedge clk_i) begin
      rcp_q <= rom_rcp[a_index];
      rsq_q <= rom_rsq[a_index];
      sin_q <= rom_sin[a_index];
      ex2_q <= rom_ex2[a_index];
      lg2_q <= rom_lg2[a_index];
    end
    always_ff @(posedge clk_i) begin
      table_q <= a_table;
      b_u <= a_u;
      b_scale <= a_scale;
      b_out_neg <= a_out_neg;
      b_use_special <= a_use_special;
      b_special <= a_special;
      b_lg2 <= a_lg2;
      b_lg2_exp <= a_lg2_exp;
      b_ftz <= ftz_i;
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) valid_q <= 1'b0;
      else valid_q <= valid_i;
    end
    always_comb begin
      unique case (table_q)
        tsm_sfu_pkg::TABLE_RCP: b_word = rcp_q;
        tsm_sfu_pkg::TABLE_RSQ: b_word = rsq_q;
        tsm_sfu_pkg::TABLE_SIN: b_word = sin_q;
        tsm_sfu_pkg::TABLE_EX2: b_word = ex2_q;
        default:                b_word = lg2_q;
      endcase
    end
    assign b_valid = valid_q;
  end

  // ---- stage B, the interpolator: C0 + floor(C1*u / 2^C1Shift) + floor(C2*sq / 2^C2Shift), and
  // rounding ----
  always_comb begin
    logic signed [C0B-1:0] c0;
    logic signed [C1B-1:0] c1;
    logic signed [C2B-1:0] c2;
    logic [2*UB-1:0] usq;
    logic signed [47:0] y, t1, t2;
    c0 = b_word[C0B-1:0];
    c1 = b_word[C0B+C1B-1:C0B];
    c2 = b_word[C0B+C1B+C2B-1:C0B+C1B];
    usq = ({{UB{1'b0}}, b_u} * {{UB{1'b0}}, b_u}) >> tsm_sfu_pkg::SquareShift;  // floor(u^2 / 2^SquareShift)
    t1 = ($signed(48'(c1)) * $signed({31'd0, b_u})) >>> tsm_sfu_pkg::C1Shift;
    t2 = ($signed(48'(c2)) * $signed({{(48 - 2 * UB) {1'b0}}, usq})) >>> tsm_sfu_pkg::C2Shift;
    y = $signed(48'(c0)) + t1 + t2;
    if (b_lg2) y = y + ($signed(48'(b_lg2_exp)) <<< C0F);
    result = b_use_special ? b_special : round_pack(b_out_neg, y, b_scale, b_ftz);
  end

  // ---- pipeline ----
  tsm_delay #(.Stages(Stages == 0 ? 0 : Stages - 1), .Width(32)) u_delay (
    .clk_i, .rst_ni, .valid_i(b_valid), .data_i(result), .valid_o, .data_o(result_o)
  );

endmodule
