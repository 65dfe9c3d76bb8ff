// A fixed-latency pipeline for a value and its valid bit: what enters leaves Stages clocks later
// (Stages = 0: a wire). The valid bits are reset; the data registers are not (they only matter
// when valid).
module tsm_delay #(
  /// Clocks from input to output (0: combinational).
  parameter int unsigned Stages = 1,
  /// Bits of the value.
  parameter int unsigned Width = 32
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             valid_i,
  input  logic [Width-1:0] data_i,
  output logic             valid_o,
  output logic [Width-1:0] data_o
);

  if (Stages == 0) begin : gen_wire
    assign valid_o = valid_i;
    assign data_o = data_i;
    logic unused_clock;  // a wire needs no clock
    assign unused_clock = clk_i ^ rst_ni;
  end else begin : gen_regs
    // Stage s holds bits [Width*s +: Width] (a flat vector: Yosys keeps it as registers).
    logic [Stages-1:0]       valid_q;
    logic [Stages*Width-1:0] data_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q <= '0;
      end else begin
        valid_q[0] <= valid_i;
        for (int s = 1; s < Stages; s++) valid_q[s] <= valid_q[s-1];
      end
    end
    always_ff @(posedge clk_i) begin
      data_q[Width-1:0] <= data_i;
      for (int s = 1; s < Stages; s++) data_q[Width*s +: Width] <= data_q[Width*(s-1) +: Width];
    end
    assign valid_o = valid_q[Stages-1];
    assign data_o = data_q[Width*(Stages-1) +: Width];
  end

endmodule
