// One byte step of CRC-16/CCITT-FALSE (polynomial 0x1021, MSB first, not reflected): the
// register after shifting data_i into crc_i. The frame CRC starts at 0xFFFF and has no final xor;
// the check value of ASCII "123456789" is 0x29B1.
//
// Theory of operation: combinational, the bitwise algorithm unrolled over the 8 data bits (Yosys
// reduces it to a few LUT levels); the caller holds the register.
module tsm_crc16 (
  /// The CRC register before this byte.
  input  logic [15:0] crc_i,
  /// The byte, its most significant bit shifted in first.
  input  logic [7:0]  data_i,
  /// The CRC register after this byte.
  output logic [15:0] crc_o
);

  always_comb begin
    logic [15:0] c;
    c = crc_i ^ {data_i, 8'h00};
    for (int i = 0; i < 8; i++) begin
      c = c[15] ? ({c[14:0], 1'b0} ^ 16'h1021) : {c[14:0], 1'b0};
    end
    crc_o = c;
  end

endmodule
