// Shared-memory bank scheduling for one half-warp request (compute capability 1.x, CUDA C
// Programming Guide, "Shared Memory", 32-bit broadcast): of the lanes still pending, one step
// serves every lane that addresses the broadcast word -- the word of the lowest pending lane -- and,
// for each other bank, the lowest pending lane that addresses it. The caller repeats until no lane
// is pending; the number of steps is the request's cost (1 without conflicts, 16 for 16 distinct
// words in one bank). Combinational.
module tsm_smem_sched #(
  /// Lanes of one request (a half-warp).
  parameter int unsigned Lanes = 16,
  /// Banks of 32-bit words: tsm_cfg_pkg::SharedBanks.
  parameter int unsigned Banks = 16,
  /// Bits of a word address.
  parameter int unsigned AddrBits = 12
) (
  /// Lanes that still wait for their access.
  input  logic [Lanes-1:0]          pending_i,
  /// Word address of each lane, lane l in bits [AddrBits*l +: AddrBits].
  input  logic [Lanes*AddrBits-1:0] addr_i,
  /// Lanes served by this step.
  output logic [Lanes-1:0]          serve_o
);

  localparam int unsigned BankBits = $clog2(Banks);

  always_comb begin
    logic [AddrBits-1:0] broadcast;
    logic                found;
    logic [Banks-1:0]    bank_taken;
    broadcast = '0;
    found = 1'b0;
    serve_o = '0;
    bank_taken = '0;
    // The broadcast word: the lowest pending lane's.
    for (int l = Lanes - 1; l >= 0; l--) begin
      if (pending_i[l]) begin
        broadcast = addr_i[AddrBits*l +: AddrBits];
        found = 1'b1;
      end
    end
    if (found) bank_taken[broadcast[BankBits-1:0]] = 1'b1;
    for (int l = 0; l < Lanes; l++) begin
      if (pending_i[l]) begin
        if (addr_i[AddrBits*l +: AddrBits] == broadcast) begin
          serve_o[l] = 1'b1;
        end else if (!bank_taken[addr_i[AddrBits*l +: BankBits]]) begin
          serve_o[l] = 1'b1;
          bank_taken[addr_i[AddrBits*l +: BankBits]] = 1'b1;
        end
      end
    end
  end

  if (Banks < 2 || (1 << BankBits) != Banks || AddrBits < BankBits) begin : gen_bad_params
    $error("tsm_smem_sched: Banks must be a power of two of at least 2, and AddrBits at least log2(Banks)");
  end

endmodule
