# The sanitizer build's switches (TSM_HOST_ONLY; docs/fuzzing.md). Every host library and unit test
# is compiled by clang with AddressSanitizer and UndefinedBehaviorSanitizer, any report ending the
# process, and with libFuzzer's coverage instrumentation so the fuzz targets link the same libraries.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "TSM_HOST_ONLY is the sanitizer build: configure it with -DCMAKE_CXX_COMPILER=clang++ (found ${CMAKE_CXX_COMPILER_ID})")
endif()
set(TSM_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all)
add_compile_options(-O1 -g -fno-omit-frame-pointer ${TSM_SANITIZERS} -fsanitize=fuzzer-no-link)
add_link_options(${TSM_SANITIZERS})
# The unit tests are run whole (tests/fuzz), so they are not listed at build time.
set(CMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE PRE_TEST)
