# SPDX-License-Identifier: GPL-3.0-or-later
# The optional accelerated backends (docs/architecture.md, adding a device backend): optional
# dependencies said out loud. Each is AUTO (built when found), ON (required: not found is a
# configure error) or OFF, is announced at configure time, and sets one compile definition on the
# backend layer (ATTNLAB_HAVE_OPENCL, ATTNLAB_HAVE_CUDA). Included from the top level, because CUDA
# must be enabled in the directory common to every target that links it.

# attnlab_backend(<Name> <NAME>): reads the cache option ATTNLAB_<NAME> (AUTO, ON, OFF), runs
# attnlab_detect_<name>() (which sets `found` and `why`), announces the result, fails when ON
# but not found, and sets ATTNLAB_HAVE_<NAME>.
macro(attnlab_backend name upper)
  set(ATTNLAB_${upper} AUTO CACHE STRING "${name} backend: AUTO, ON or OFF")
  set_property(CACHE ATTNLAB_${upper} PROPERTY STRINGS AUTO ON OFF)
  set(ATTNLAB_HAVE_${upper} OFF)
  if(ATTNLAB_${upper} STREQUAL "OFF")
    message(STATUS "${name} backend: OFF (-DATTNLAB_${upper}=OFF)")
  else()
    string(TOLOWER ${name} lower)
    cmake_language(CALL attnlab_detect_${lower})
    if(found)
      set(ATTNLAB_HAVE_${upper} ON)
      message(STATUS "${name} backend: ON (${why})")
    elseif(ATTNLAB_${upper} STREQUAL "ON")
      message(FATAL_ERROR "${name} backend: asked for (-DATTNLAB_${upper}=ON) but ${why}")
    else()
      message(STATUS "${name} backend: OFF: ${why}")
    endif()
  endif()
endmacro()

# attnlab_first_missing(<variable> <why> ...): `found` is ON when every variable is true;
# otherwise OFF, with `why` the reason given for the first false one.
macro(attnlab_first_missing)
  set(found ON)
  set(requirements ${ARGN})
  while(found AND requirements)
    list(POP_FRONT requirements variable reason)
    if(NOT ${variable})
      set(found OFF)
      set(why "${reason}")
    endif()
  endwhile()
endmacro()

macro(attnlab_detect_opencl)
  find_package(OpenCL QUIET)
  if(OpenCL_FOUND)
    find_path(ATTNLAB_OPENCL_CXX_HEADERS CL/opencl.hpp HINTS ${OpenCL_INCLUDE_DIRS})
  endif()
  attnlab_first_missing(
    OpenCL_FOUND "no OpenCL headers or ICD loader (Debian: ocl-icd-opencl-dev)"
    ATTNLAB_OPENCL_CXX_HEADERS "no OpenCL C++ bindings CL/opencl.hpp (Debian: opencl-clhpp-headers)")
  if(found)
    set(why "OpenCL ${OpenCL_VERSION_STRING} headers, C++ bindings")
    if(EXISTS /etc/OpenCL/vendors/pocl.icd)
      string(APPEND why ", PoCL ICD installed")
    else()
      string(APPEND why ", no PoCL ICD: devices depend on the installed drivers")
    endif()
  endif()
endmacro()

# CUDA under AUTO: built when nvcc is found and an NVIDIA driver is installed (the kernel module
# or libcuda.so.1), since without a driver the backend lists no device; ON builds it wherever nvcc
# is found (the test command does, so that CI compiles and links it on machines without a GPU).
macro(attnlab_detect_cuda)
  find_library(ATTNLAB_LIBCUDA NAMES libcuda.so.1) # the driver's, not the toolkit's stub
  set(ATTNLAB_CUDA_WANTED OFF) # ON, or AUTO with a driver
  if(ATTNLAB_CUDA STREQUAL "ON" OR EXISTS /proc/driver/nvidia/version OR ATTNLAB_LIBCUDA)
    set(ATTNLAB_CUDA_WANTED ON)
    include(CheckLanguage)
    check_language(CUDA)
  endif()
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Hopper (H100/H200) machine code plus compute_90 PTX that later GPUs JIT-compile.
      set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit QUIET)
  endif()
  attnlab_first_missing(
    ATTNLAB_CUDA_WANTED "no NVIDIA driver on this machine (-DATTNLAB_CUDA=ON builds it anyway)"
    CMAKE_CUDA_COMPILER "no nvcc found"
    CUDAToolkit_FOUND "nvcc found but not the CUDA toolkit libraries")
  if(found)
    set(why "nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
  endif()
endmacro()

attnlab_backend(OpenCL OPENCL)
attnlab_backend(CUDA CUDA)

# attnlab_add_backend(<target> <NAME> SOURCES <file>... LIBS <dep>...): the sources of one
# accelerated backend join the backend layer <target>, which then defines ATTNLAB_HAVE_<NAME>.
function(attnlab_add_backend target upper)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  target_sources(${target} PRIVATE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ${ARG_LIBS})
  target_compile_definitions(${target} PUBLIC ATTNLAB_HAVE_${upper})
endfunction()

# attnlab_add_backends(<target>): every backend found above, added to the backend layer.
function(attnlab_add_backends target)
  set(dir ${CMAKE_CURRENT_SOURCE_DIR}/backend)
  if(ATTNLAB_HAVE_OPENCL)
    # The kernel source, with the shared .inc files inlined, embedded as one string literal.
    file(READ ${dir}/opencl/attention.cl source)
    foreach(inc mask_eval attention_rows peak_probe)
      set(file ${dir}/shared/${inc}.inc)
      file(READ ${file} body)
      string(REPLACE "#include \"core/backend/shared/${inc}.inc\"" "${body}" source "${source}")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
    endforeach()
    set(ATTNLAB_OPENCL_SOURCE "${source}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${dir}/opencl/attention.cl
                                                                   ${dir}/opencl/opencl_source.cpp.in)
    configure_file(${dir}/opencl/opencl_source.cpp.in ${CMAKE_CURRENT_BINARY_DIR}/opencl_source.cpp
                   @ONLY)
    attnlab_add_backend(${target} OPENCL
      SOURCES ${dir}/opencl/opencl_backend.cpp ${CMAKE_CURRENT_BINARY_DIR}/opencl_source.cpp
      LIBS OpenCL::OpenCL)
  endif()
  if(ATTNLAB_HAVE_CUDA)
    # Kernels in their own target: nvcc takes none of the C++ flags.
    add_library(attnlab_cuda_kernels STATIC ${dir}/cuda/attention.cu)
    target_include_directories(attnlab_cuda_kernels PRIVATE ${PROJECT_SOURCE_DIR})
    set_target_properties(attnlab_cuda_kernels PROPERTIES CUDA_STANDARD 17
                                                          POSITION_INDEPENDENT_CODE ON)
    # The static runtime: no driver at run time means cudaGetDeviceCount fails, not the loader.
    attnlab_add_backend(${target} CUDA SOURCES ${dir}/cuda/cuda_backend.cpp
                        LIBS attnlab_cuda_kernels CUDA::cudart_static)
  endif()
endfunction()
