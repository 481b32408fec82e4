# SPDX-License-Identifier: GPL-3.0-or-later
# The objects of the CPU kernels' variants (cmake/CpuKernels.cmake), checked with binutils:
# - each exports one symbol, its table (every Eigen and std:: copy it made is local), and keeps
#   no COMDAT group that the final link could merge with another variant's or the program's;
# - without sanitizers, none has a static initialiser (no variant code runs before the choice);
# - the baseline variant has no AVX instruction (VEX-encoded, or ymm/zmm registers) and the
#   others do.
# cmake -DNM= -DOBJDUMP= -DREADELF= -DOBJECTS=<namespace>|<object>|... [-DBASELINE=<namespace>]
#       [-DSANITIZED=ON] -P check_cpu_kernels.cmake
string(REPLACE "|" ";" objects "${OBJECTS}")

function(run out)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "${ARGN}: failed (${failed})")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

while(objects)
  list(POP_FRONT objects namespace object)
  run(globals ${NM} -g --defined-only ${object})
  string(STRIP "${globals}" globals)
  string(LENGTH ${namespace} length)
  if(NOT globals MATCHES "^[0-9a-f]+ [A-Z] _ZN7attnlab7kernels${length}${namespace}11kernelTableE$")
    message(FATAL_ERROR "${object}: global symbols other than its table:\n${globals}")
  endif()
  run(sections ${READELF} -S -W ${object})
  if(sections MATCHES " GROUP ")
    message(FATAL_ERROR "${object}: keeps COMDAT groups")
  endif()
  if(NOT SANITIZED AND sections MATCHES "\\.init_array|\\.ctors")
    message(FATAL_ERROR "${object}: has static initialisers")
  endif()
  if(BASELINE)
    run(code ${OBJDUMP} -d ${object})
    string(REGEX MATCH "%[yz]mm[0-9]+|\tv[a-z0-9]+" avx "${code}")
    if(namespace STREQUAL BASELINE AND avx)
      message(FATAL_ERROR "${object}: the baseline variant has AVX code (${avx})")
    elseif(NOT namespace STREQUAL BASELINE AND NOT avx)
      message(FATAL_ERROR "${object}: no AVX code in a variant above the baseline")
    endif()
  endif()
  message(STATUS "${namespace}: ${globals}")
endwhile()
