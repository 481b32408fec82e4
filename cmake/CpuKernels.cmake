# SPDX-License-Identifier: GPL-3.0-or-later
# The CPU kernels (core/backend/cpu) built for several instruction sets and chosen at run time
# (kernel_dispatch.h; docs/performance.md). On x86-64 without ATTNLAB_ARCH: one variant for the
# x86-64 baseline, one for x86-64-v3 (AVX2, FMA) and one for x86-64-v4 (AVX-512). Otherwise one
# variant, compiled like the rest of the program: for ATTNLAB_ARCH, or the compiler's default on
# other processors.
#
# The trap: every variant compiles the same Eigen and standard-library templates (GEMM, exp,
# vector) with its own -march. Left alone, the linker keeps one copy of each such weak or COMDAT
# function for the whole program, so the baseline path could run AVX2 code (or the reverse).
# So a variant's objects are merged into one relocatable object with the COMDAT groups dissolved
# (ld -r --force-group-allocation), and every symbol it defines is made local except its entry
# point, attnlab::kernels::<namespace>::kernelTable (objcopy --keep-global-symbol): every copy
# it made is its own. (--localize-hidden with -fvisibility=hidden is not enough: libstdc++
# declares namespace std visibility("default"), so std:: instantiations would stay global.)
# The test core.cpu_kernels checks the objects (tests/core/check_cpu_kernels.cmake).

# GNU ld for the merge: the toolchain's own (a cross linker when cross-compiling), except lld
# (what CMake finds as CMAKE_LINKER for clang), which cannot dissolve groups.
get_filename_component(linker_name "${CMAKE_LINKER}" NAME)
if(CMAKE_LINKER AND NOT linker_name MATCHES "lld")
  set(ATTNLAB_GNU_LD ${CMAKE_LINKER})
else()
  find_program(ATTNLAB_GNU_LD NAMES ld.bfd ld REQUIRED)
endif()

if(NOT ATTNLAB_ARCH AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(ATTNLAB_CPU_DISPATCH ON)
  # namespace, -march value, ... (kernel_dispatch.cpp lists the same, with its CPU check)
  set(ATTNLAB_CPU_VARIANTS x86_64 x86-64 x86_64_v3 x86-64-v3 x86_64_v4 x86-64-v4)
else()
  set(ATTNLAB_CPU_DISPATCH OFF)
  set(ATTNLAB_CPU_VARIANTS fixed "")
endif()

# attnlab_add_cpu_kernels(<target> SOURCES <file>...): the sources compiled once per variant,
# each variant merged into one object file that joins <target>. Sets the global property
# ATTNLAB_CPU_KERNEL_OBJECTS (namespace;object;...) for the test.
function(attnlab_add_cpu_kernels target)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  set(variants ${ATTNLAB_CPU_VARIANTS})
  while(variants)
    list(POP_FRONT variants namespace march)
    set(objects ${target}_${namespace})
    add_library(${objects} OBJECT ${ARG_SOURCES})
    attnlab_target_defaults(${objects})
    target_link_libraries(${objects} PRIVATE attnlab::spec)
    target_compile_definitions(${objects} PRIVATE ATTNLAB_CPU_VARIANT=${namespace})
    # GCC makes function-local statics of inline functions (Eigen's cache sizes) "unique global"
    # symbols, which objcopy leaves global; as plain weak symbols they become the variant's own.
    target_compile_options(${objects} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-fno-gnu-unique>)
    if(march)
      target_compile_options(${objects} PRIVATE -march=${march})
    endif()
    # GCC 12's own AVX-512 headers warn that _mm512_undefined_ps() "is" or "may be used
    # uninitialized" wherever a vector is broadcast (GCC bug 105593, fixed in 13): noise.
    if(march STREQUAL "x86-64-v4" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU"
       AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      target_compile_options(${objects} PRIVATE -Wno-uninitialized -Wno-maybe-uninitialized)
    endif()
    # The entry point's mangled name: attnlab::kernels::<namespace>::kernelTable.
    string(LENGTH ${namespace} length)
    set(entry _ZN7attnlab7kernels${length}${namespace}11kernelTableE)
    set(merged ${CMAKE_CURRENT_BINARY_DIR}/cpu_kernels_${namespace}.o)
    add_custom_command(
      OUTPUT ${merged}
      COMMAND ${ATTNLAB_GNU_LD} -r --force-group-allocation -o ${merged}
              $<TARGET_OBJECTS:${objects}>
      COMMAND ${CMAKE_OBJCOPY} --keep-global-symbol=${entry} ${merged}
      DEPENDS ${objects} $<TARGET_OBJECTS:${objects}>
      COMMENT "CPU kernels ${namespace}: one object, only ${entry} global"
      COMMAND_EXPAND_LISTS VERBATIM)
    target_sources(${target} PRIVATE ${merged})
    set_source_files_properties(${merged} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    set_property(GLOBAL APPEND PROPERTY ATTNLAB_CPU_KERNEL_OBJECTS ${namespace} ${merged})
  endwhile()
  if(ATTNLAB_CPU_DISPATCH)
    target_compile_definitions(${target} PRIVATE ATTNLAB_CPU_DISPATCH)
  else()
    set(name ${ATTNLAB_ARCH})
    if(NOT name)
      set(name ${CMAKE_SYSTEM_PROCESSOR})
    endif()
    target_compile_definitions(${target} PRIVATE ATTNLAB_CPU_FIXED_NAME="${name}")
  endif()
endfunction()
