// Deliberate bugs for showing that the regression can fail (docs/regression.md §3). This file is
// read first, and only, by the Verilated mutant model Vtsm_gpu_small_mutants
// (sim/rtl_model/CMakeLists.txt) and by its lint test; no other model, lint run or synthesis sees
// it, so every `ifdef TSM_MUTANTS block is absent there.
//
// All mutants are compiled into that one model (a mutant schema). The run-time argument
// +tsm+mutant=N switches mutant N on; without it, or with 0, the model is the unmutated RTL.
// rtl/mutants/mutants.json lists the mutants; each N appears once in the RTL as `TSM_MUT(N).
`define TSM_MUTANTS
// The selection, one copy per module that holds a mutant.
`define TSM_MUTANT_DECL \
  int unsigned tsm_mutant; \
  initial begin \
    if (!$value$plusargs("tsm+mutant=%d", tsm_mutant)) tsm_mutant = 0; \
  end
// True when mutant n is switched on.
`define TSM_MUT(n) (tsm_mutant == n)
