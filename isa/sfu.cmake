# SFU coefficient tables: isa/gen_sfu.py fits them from isa/sfu.toml for the golden model and the RTL.
set(TSM_SFU_TABLE_NAMES rcp rsq sin ex2 lg2)
set(TSM_SFU_HEX_DIR ${TSM_GEN_DIR}/rtl/sfu CACHE INTERNAL "Generated SFU coefficient ROM images ($readmemh)")
set(TSM_SFU_SV_PKG ${TSM_GEN_DIR}/rtl/tsm_sfu_pkg.sv CACHE INTERNAL "Generated SystemVerilog SFU format package")
list(TRANSFORM TSM_SFU_TABLE_NAMES PREPEND ${TSM_SFU_HEX_DIR}/ OUTPUT_VARIABLE _sfu_hex)
list(TRANSFORM _sfu_hex APPEND .hex)

tsm_generate(TARGET tsm_sfu_gen GENERATOR ${CMAKE_CURRENT_LIST_DIR}/gen_sfu.py
  TOML ${CMAKE_CURRENT_LIST_DIR}/sfu.toml
  COMMENT "Fitting the SFU coefficient tables from sfu.toml"
  OUTPUTS ${TSM_GEN_DIR}/tsm/sfu_tables_gen.hpp ${_sfu_hex} ${TSM_SFU_SV_PKG} ${TSM_GEN_DIR}/docs/sfu-tables.md
  # The MUFU function list comes from the ISA table.
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/isa.toml)

add_library(tsm_sfu_tables INTERFACE)
target_include_directories(tsm_sfu_tables INTERFACE ${TSM_GEN_DIR})
add_dependencies(tsm_sfu_tables tsm_sfu_gen)
