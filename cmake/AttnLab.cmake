# SPDX-License-Identifier: GPL-3.0-or-later
# The project's target helpers: every library and executable gets its warnings, the include
# root (files include "core/spec/mask.h", "ui/views/heatmap_view.h"), with ATTNLAB_ARCH its
# -march and, for libraries, an attnlab:: alias from here, so no target writes them itself.

set(ATTNLAB_WARNINGS -Wall -Wextra)
if(ATTNLAB_ARCH) # every target alike: no mix of instruction sets in one program
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-march=${ATTNLAB_ARCH}>)
endif()

# attnlab_add_library(<name> SOURCES <file>... [PUBLIC <dep>...] [PRIVATE <dep>...])
# A static library attnlab_<name>, alias attnlab::<name>.
function(attnlab_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
  set(target attnlab_${name})
  add_library(${target} STATIC ${ARG_SOURCES})
  add_library(attnlab::${name} ALIAS ${target})
  attnlab_target_defaults(${target})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE})
endfunction()

# attnlab_add_executable(<name> SOURCES <file>... [LIBS <dep>...])
function(attnlab_add_executable name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  attnlab_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
endfunction()

# Warnings (C++ only: nvcc takes its own flags) and the include root.
function(attnlab_target_defaults target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${ATTNLAB_WARNINGS}>)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
endfunction()
