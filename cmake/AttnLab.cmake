# SPDX-License-Identifier: GPL-3.0-or-later
# The project's target helpers: every library and executable gets its warnings, the include
# root (files include "core/spec/mask.h", "ui/views/heatmap_view.h"), with ATTNLAB_ARCH its
# -march and, for libraries, an attnlab:: alias from here, so no target writes them itself.

set(ATTNLAB_WARNINGS -Wall -Wextra)

# Precompiled headers: the headers nearly every file of a target parses (Eigen, GMP,
# nlohmann-json and the standard library; Qt and QCustomPlot in the UI) are compiled once per
# target instead of once per file (CONTRIBUTING.md, Build time). -DATTNLAB_PCH=OFF builds
# without them, which is how a file is checked to include what it uses.
option(ATTNLAB_PCH "Precompile the common headers of each library and executable" ON)
# Unity build, for the libraries whose files instantiate the same heavy templates (the checks:
# Eigen's products in three scalar types, the model's passes): their files compiled
# ATTNLAB_UNITY_BATCH at a time, so those templates are instantiated and optimised once per batch
# instead of once per file.
option(ATTNLAB_UNITY "Compile the files of the template-heavy libraries in batches" ON)
set(ATTNLAB_UNITY_BATCH 8 CACHE STRING "Files per batch of a unity build")
set(ATTNLAB_CORE_PCH <Eigen/Dense> <gmpxx.h> <nlohmann/json.hpp> <algorithm> <functional>
                     <memory> <optional> <string> <vector>)
if(ATTNLAB_ARCH) # every target alike: no mix of instruction sets in one program
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-march=${ATTNLAB_ARCH}>)
endif()

# attnlab_add_library(<name> SOURCES <file>... [PUBLIC <dep>...] [PRIVATE <dep>...]
#                     [PCH <header>...])
# A static library attnlab_<name>, alias attnlab::<name>, with the given precompiled headers.
function(attnlab_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC;PRIVATE;PCH" ${ARGN})
  set(target attnlab_${name})
  add_library(${target} STATIC ${ARG_SOURCES})
  add_library(attnlab::${name} ALIAS ${target})
  attnlab_target_defaults(${target})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE})
  attnlab_precompile(${target} ${ARG_PCH})
endfunction()

# attnlab_add_executable(<name> SOURCES <file>... [LIBS <dep>...] [PCH <header>...])
function(attnlab_add_executable name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;PCH" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  attnlab_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  attnlab_precompile(${name} ${ARG_PCH})
endfunction()

# attnlab_precompile(<target> <header>...): the headers precompiled for <target>, with
# ATTNLAB_PCH.
function(attnlab_precompile target)
  if(ATTNLAB_PCH AND ARGN)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()

# Warnings (C++ only: nvcc takes its own flags) and the include root.
function(attnlab_target_defaults target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${ATTNLAB_WARNINGS}>)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
endfunction()

# attnlab_unity_build(<target>): <target>'s files compiled in batches, with ATTNLAB_UNITY.
function(attnlab_unity_build target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${ATTNLAB_UNITY}
                                             UNITY_BUILD_BATCH_SIZE ${ATTNLAB_UNITY_BATCH})
endfunction()
