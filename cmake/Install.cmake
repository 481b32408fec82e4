# SPDX-License-Identifier: GPL-3.0-or-later
# What `cmake --install` puts where (CONTRIBUTING.md, Installing and packaging), in the GNU
# layout under the prefix:
#   bin/attnlab-cli, bin/attnlab                       the executables
#   share/applications/<id>.desktop                    the explorer's desktop entry (Exec attnlab %f)
#   share/metainfo/<id>.metainfo.xml                   its AppStream metadata
#   share/icons/hicolor/scalable/apps/<id>.svg         the icon, and NxN/apps/<id>.png drawn from it
#   share/man/man1/attnlab-cli.1, attnlab.1            man pages made by help2man from --help
#   share/doc/attnlab/                                 docs/ of the source tree
#   share/doc/attnlab/copyright, LICENSE               the licence (Debian copyright file, GPL-3)
#   share/doc/attnlab/examples/probe/                  the probe's example programs
# <id> is ATTNLAB_APP_ID. Files are generated at build time (target attnlab_install_files):
# man pages when help2man is found, PNG icons by a small Qt Svg tool (render_icon). Sanitizer
# and fuzz builds, which are not for installing, generate none of them.
include(GNUInstallDirs)

set(ATTNLAB_APP_ID io.github.attnlab.AttnLab)
# The date of the release named by project(VERSION): bump the two together.
set(ATTNLAB_RELEASE_DATE 2026-11-30)
set(ATTNLAB_DOC_DIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/attnlab)
set(ATTNLAB_ICON_SIZES 16 32 48 64 128 256)
set(desktop ${PROJECT_SOURCE_DIR}/resources/desktop)
set(generated ${PROJECT_BINARY_DIR}/install-files)

install(TARGETS attnlab-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${ATTNLAB_DOC_DIR} OPTIONAL)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/probe DESTINATION ${ATTNLAB_DOC_DIR}/examples
        USE_SOURCE_PERMISSIONS PATTERN "__pycache__" EXCLUDE)
# The licence, GPL-3.0-or-later: the machine-readable Debian copyright file (DEP-5), which a .deb
# must have in /usr/share/doc/<package> and CPack's DEB generator does not write, and the GPL text.
install(FILES ${PROJECT_SOURCE_DIR}/resources/debian/copyright ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${ATTNLAB_DOC_DIR})

if(ATTNLAB_BUILD_UI)
  install(TARGETS attnlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${desktop}/${ATTNLAB_APP_ID}.desktop
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/applications)
  configure_file(${desktop}/${ATTNLAB_APP_ID}.metainfo.xml.in
                 ${generated}/${ATTNLAB_APP_ID}.metainfo.xml @ONLY)
  install(FILES ${generated}/${ATTNLAB_APP_ID}.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/metainfo)
  install(FILES ${desktop}/${ATTNLAB_APP_ID}.svg
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/icons/hicolor/scalable/apps)
endif()

if(ATTNLAB_SANITIZE) # (ATTNLAB_FUZZ implies it)
  message(STATUS "AttnLab install files (man pages, PNG icons): OFF in a sanitizer or fuzz build")
  return()
endif()

set(outputs "")
if(ATTNLAB_BUILD_UI)
  find_package(Qt6 REQUIRED COMPONENTS Gui Svg)
  add_executable(attnlab_render_icon ${desktop}/render_icon.cpp)
  attnlab_target_defaults(attnlab_render_icon)
  target_link_libraries(attnlab_render_icon PRIVATE Qt6::Gui Qt6::Svg)
  set(icons "")
  foreach(size ${ATTNLAB_ICON_SIZES})
    list(APPEND icons ${generated}/icons/${size}x${size}/apps/${ATTNLAB_APP_ID}.png)
  endforeach()
  add_custom_command(
    OUTPUT ${icons}
    COMMAND attnlab_render_icon ${desktop}/${ATTNLAB_APP_ID}.svg ${generated}/icons
            ${ATTNLAB_ICON_SIZES}
    DEPENDS attnlab_render_icon ${desktop}/${ATTNLAB_APP_ID}.svg
    COMMENT "Drawing the PNG icons" VERBATIM)
  list(APPEND outputs ${icons})
  install(DIRECTORY ${generated}/icons/ DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/icons/hicolor)
endif()

find_program(ATTNLAB_HELP2MAN help2man)
if(ATTNLAB_HELP2MAN AND NOT CMAKE_CROSSCOMPILING) # help2man runs the programs it documents
  # attnlab_man_page(<target> [SUBCOMMANDS a,b,...]): resources/man/<target>.h2m holds NAME.
  function(attnlab_man_page target)
    cmake_parse_arguments(ARG "" "SUBCOMMANDS" "" ${ARGN})
    set(page ${generated}/man/${target}.1)
    set(include ${PROJECT_SOURCE_DIR}/resources/man/${target}.h2m)
    add_custom_command(
      OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -DHELP2MAN=${ATTNLAB_HELP2MAN} -DPROGRAM=$<TARGET_FILE:${target}>
              -DOUTPUT=${page} -DINCLUDE=${include}
              -DSUBCOMMANDS=${ARG_SUBCOMMANDS} -P ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
      DEPENDS ${target} ${include} ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
      COMMENT "Writing the man page ${target}.1 (help2man)" VERBATIM)
    install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
    set(outputs ${outputs} ${page} PARENT_SCOPE)
  endfunction()
  attnlab_man_page(attnlab-cli SUBCOMMANDS run,check,presets,bench,devices)
  if(ATTNLAB_BUILD_UI)
    attnlab_man_page(attnlab)
  endif()
  message(STATUS "AttnLab man pages: ON (${ATTNLAB_HELP2MAN})")
elseif(CMAKE_CROSSCOMPILING)
  message(STATUS "AttnLab man pages: OFF: cross-compiling (help2man runs the programs)")
else()
  message(STATUS "AttnLab man pages: OFF: no help2man found (Debian: help2man)")
endif()

add_custom_target(attnlab_install_files ALL DEPENDS ${outputs})
