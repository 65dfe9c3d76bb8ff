# tsm_generate(): run one of the table generators, at configure time and whenever its inputs change.
#
# Generating at configure time as well is needed because Verilator's verilate() reads its
# SystemVerilog sources while CMake configures; the custom command keeps the outputs current.
#   tsm_generate(TARGET name GENERATOR script.py TOML file.toml COMMENT text OUTPUTS out...
#                [DEPENDS other inputs the generator reads...])
# runs `python3 script.py --toml file.toml --out-dir ${TSM_GEN_DIR}` and defines custom target
# `name` (part of ALL) that depends on OUTPUTS.
function(tsm_generate)
  cmake_parse_arguments(G "" "TARGET;GENERATOR;TOML;COMMENT" "OUTPUTS;DEPENDS" ${ARGN})
  set(_command ${Python3_EXECUTABLE} ${G_GENERATOR} --toml ${G_TOML} --out-dir ${TSM_GEN_DIR})
  execute_process(COMMAND ${_command} RESULT_VARIABLE _result)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "${G_GENERATOR} failed on ${G_TOML} (see the error above)")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${G_TOML} ${G_GENERATOR} ${G_DEPENDS})
  add_custom_command(
    OUTPUT ${G_OUTPUTS}
    COMMAND ${_command}
    DEPENDS ${G_TOML} ${G_GENERATOR} ${G_DEPENDS}
    COMMENT "${G_COMMENT}"
    VERBATIM)
  add_custom_target(${G_TARGET} ALL DEPENDS ${G_OUTPUTS})
endfunction()
