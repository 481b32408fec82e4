# SPDX-License-Identifier: GPL-3.0-or-later
# Reliability builds (CONTRIBUTING.md, Sanitizers and fuzzing). Both are off by default and meant
# for their own build directories:
#   ATTNLAB_SANITIZE  AddressSanitizer + UndefinedBehaviorSanitizer on every C++ target (not CUDA
#                     device code); UB is fatal so a test that hits it fails. The tests then run
#                     with sanitizers/lsan.supp (leaks inside Qt, fontconfig and PoCL).
#   ATTNLAB_FUZZ      the libFuzzer targets in fuzz/ (clang only). Implies ATTNLAB_SANITIZE and
#                     adds libFuzzer's coverage instrumentation to every target, so one build
#                     holds both the sanitized tests and the fuzz targets (the `reliability`
#                     preset of CMakePresets.json, which scripts/attnlab.sh and fuzz.sh use).
option(ATTNLAB_SANITIZE "Build everything with -fsanitize=address,undefined" OFF)
option(ATTNLAB_FUZZ "Build the libFuzzer targets in fuzz/ (clang; implies ATTNLAB_SANITIZE)" OFF)

if(ATTNLAB_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ATTNLAB_FUZZ needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++")
  endif()
  set(ATTNLAB_SANITIZE ON)
  # The library code gets the coverage instrumentation; fuzz/ links libFuzzer's driver. Test
  # executables link without it: the sanitizer runtime defines the coverage callbacks.
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-gline-tables-only;-fsanitize=fuzzer-no-link>")
  message(STATUS "AttnLab fuzz targets: ON (${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION})")
endif()

if(ATTNLAB_SANITIZE)
  # -O1 (after the build type's -O3, so it wins): what the sanitizer manuals recommend, and it
  # halves the compile time of the template-heavy core.
  set(ATTNLAB_SANITIZE_FLAGS -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined
                             -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${ATTNLAB_SANITIZE_FLAGS}>")
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "AttnLab sanitizers: address, undefined (UB is fatal)")
endif()
