# Generates the named SM configurations (C++ header, SystemVerilog packages, docs) from configs.toml.
#
# Included by isa/CMakeLists.txt. Expects TSM_GEN_DIR and Python3_EXECUTABLE. Provides:
#   tsm_config_gen     custom target that (re)generates everything below (part of ALL)
#   tsm_config         INTERFACE library: include dir ${TSM_GEN_DIR} for "tsm/config_gen.hpp"
#   TSM_CONFIGS        configuration names, in the TOML's order (cache, visible in every directory)
#   TSM_CFG_SV_DIR     ${TSM_GEN_DIR}/rtl; the package of config NAME is ${TSM_CFG_SV_DIR}/NAME/tsm_cfg_pkg.sv
#   TSM_CONFIG_TOML, TSM_CONFIG_GENERATOR   the source file and its generator (for tests)

set(TSM_CONFIG_TOML ${CMAKE_CURRENT_LIST_DIR}/configs.toml CACHE INTERNAL "SM configuration source")
set(TSM_CONFIG_GENERATOR ${CMAKE_CURRENT_LIST_DIR}/gen_config.py CACHE INTERNAL "SM configuration generator")
set(TSM_CFG_SV_DIR ${TSM_GEN_DIR}/rtl CACHE INTERNAL "Per-configuration tsm_cfg_pkg.sv directories")

# The output list needs the configuration names at configure time: read them from the TOML's
# [configs.NAME] headers, and re-configure whenever the TOML changes.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${TSM_CONFIG_TOML})
file(STRINGS ${TSM_CONFIG_TOML} _tsm_config_headers REGEX "^\\[configs\\.[a-z0-9_]+\\]")
set(_tsm_configs "")
foreach(_header IN LISTS _tsm_config_headers)
  string(REGEX REPLACE "^\\[configs\\.([a-z0-9_]+)\\].*" "\\1" _name "${_header}")
  list(APPEND _tsm_configs ${_name})
endforeach()
if(NOT _tsm_configs)
  message(FATAL_ERROR "no [configs.NAME] table in ${TSM_CONFIG_TOML}")
endif()
set(TSM_CONFIGS ${_tsm_configs} CACHE INTERNAL "Named SM configurations")
list(JOIN TSM_CONFIGS ", " _tsm_config_list)

set(_tsm_config_outputs
  ${TSM_GEN_DIR}/tsm/config_gen.hpp
  ${TSM_GEN_DIR}/tsm/occupancy_examples_gen.hpp
  ${TSM_GEN_DIR}/docs/configurations.md)
foreach(_name IN LISTS TSM_CONFIGS)
  list(APPEND _tsm_config_outputs ${TSM_CFG_SV_DIR}/${_name}/tsm_cfg_pkg.sv)
endforeach()

tsm_generate(TARGET tsm_config_gen GENERATOR ${TSM_CONFIG_GENERATOR} TOML ${TSM_CONFIG_TOML}
  COMMENT "Generating SM configurations (${_tsm_config_list}) from configs.toml"
  OUTPUTS ${_tsm_config_outputs}
  DEPENDS ${TSM_ISA_TOML})  # the warp size comes from the ISA table

add_library(tsm_config INTERFACE)
target_include_directories(tsm_config INTERFACE ${TSM_GEN_DIR})
# Interface libraries pass this on: whatever links tsm_config builds after the generation.
add_dependencies(tsm_config tsm_config_gen)
