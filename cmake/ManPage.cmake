# SPDX-License-Identifier: GPL-3.0-or-later
# A man page made from a program's --help and --version by help2man (run as a script at build
# time, from cmake/Install.cmake):
#   cmake -DHELP2MAN=<help2man> -DPROGRAM=<exe> -DOUTPUT=<file.1> -DINCLUDE=<file.h2m>
#         [-DSUBCOMMANDS=a,b,...] -P ManPage.cmake
# INCLUDE is a help2man include file (NAME, EXAMPLES, SEE ALSO, ...); each subcommand's
# `PROGRAM SUB --help` is added to it as a subsection of COMMANDS IN DETAIL.

# roff-safe verbatim text: backslashes and a leading . or ' would be read as requests.
function(attnlab_roff_verbatim text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} ".nf\n${text}\n.fi\n" PARENT_SCOPE)
endfunction()

get_filename_component(program_name ${PROGRAM} NAME)
file(READ ${INCLUDE} include)
if(SUBCOMMANDS)
  string(APPEND include "\n[COMMANDS IN DETAIL]\n")
  string(REPLACE "," ";" subcommands "${SUBCOMMANDS}")
  foreach(sub IN LISTS subcommands)
    execute_process(COMMAND ${PROGRAM} ${sub} --help OUTPUT_VARIABLE help RESULT_VARIABLE status
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "${program_name} ${sub} --help failed (${status})")
    endif()
    attnlab_roff_verbatim("${help}" text)
    string(APPEND include ".SS \"${program_name} ${sub}\"\n${text}")
  endforeach()
endif()
set(include_file ${OUTPUT}.h2m)
file(WRITE ${include_file} "${include}")

# C.UTF-8: the help texts hold UTF-8 (σ, ≤); in the C locale help2man writes them as "?".
execute_process(COMMAND ${HELP2MAN} --no-info --section=1 --locale=C.UTF-8
                        "--include=${include_file}" "--output=${OUTPUT}" ${PROGRAM}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE ${OUTPUT})
  message(FATAL_ERROR "help2man failed on ${program_name} (${status})")
endif()
