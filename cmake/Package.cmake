# SPDX-License-Identifier: GPL-3.0-or-later
# The Debian package (CONTRIBUTING.md, Installing and packaging): `cpack -G DEB` in the build
# directory writes attnlab_<version>_<arch>.deb with what cmake/Install.cmake installs, under /usr.
# Its Depends are computed by dpkg-shlibdeps from the libraries the executables link (Qt 6,
# QCustomPlot, GMP, the OpenCL ICD loader, ...), so dpkg-dev must be installed.
#
# The CUDA backend, when built (cmake/Backends.cmake), links the CUDA runtime statically and opens
# the driver (libcuda.so.1) only at run time: no CUDA library is a dependency, and the package works
# without an NVIDIA driver (the backend then lists no device). It embeds kernels for
# CMAKE_CUDA_ARCHITECTURES only; -DATTNLAB_CUDA=OFF makes a package without it.
# ATTNLAB_ARCH applies to the package too: empty (the default) makes one that runs on every x86-64
# processor.
set(ATTNLAB_PACKAGE_MAINTAINER "AttnLab maintainers <maintainers@users.noreply.a-seed-97e2a827.example>"
    CACHE STRING "Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME attnlab)
set(CPACK_PACKAGE_VENDOR AttnLab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# The GPL-3 text for the generators that show a licence (the DEB generator does not use it: the
# package's licence is share/doc/attnlab/copyright, installed by cmake/Install.cmake).
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "explore the mathematical properties of transformer attention")
set(CPACK_PACKAGE_DESCRIPTION
    "AttnLab computes transformer attention on your own numbers (tokens, weights, masks, \
positional features, a permutation) exactly, with rational numbers, or in float32 and float64, \
and checks properties such as permutation equivariance, locality and causality, each failure \
with its smallest witness. The package holds the explorer window (attnlab) and the command-line \
tool (attnlab-cli).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${ATTNLAB_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# An OpenCL device for the CPU (the ICD loader alone lists none without a driver).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS pocl-opencl-icd)
include(CPack)

set(package_note "")
if(ATTNLAB_HAVE_CUDA)
  string(APPEND package_note ", with the CUDA backend (static runtime; -DATTNLAB_CUDA=OFF: without)")
endif()
if(ATTNLAB_ARCH)
  string(APPEND package_note ", -march=${ATTNLAB_ARCH}")
endif()
message(STATUS "AttnLab package: cpack -G DEB${package_note}")
