# The layering tests (tests/CMakeLists.txt), run as
#   cmake -DGRAPH=<build>/layers.cmake -DSOURCE_DIR=<source> -DMODE=includes|doc -P check_layers.cmake
# includes: every #include "<folder>/..." in a library's folder names the library itself or one it
#   declares in xcorr_library(... DEPENDS), and every declared dependency is included somewhere:
#   the CMake graph is the include graph.
# doc: docs/design.md holds <build>/layers.md between its layers:begin and layers:end markers.
cmake_minimum_required(VERSION 3.25)
include(${GRAPH})

if(MODE STREQUAL "doc")
  get_filename_component(build ${GRAPH} DIRECTORY)
  file(READ ${build}/layers.md table)
  file(READ ${SOURCE_DIR}/docs/design.md doc)
  string(FIND "${doc}" "<!-- layers:begin -->\n" begin)
  string(FIND "${doc}" "<!-- layers:end -->" end)
  if(begin EQUAL -1 OR end EQUAL -1)
    message(FATAL_ERROR "docs/design.md has no <!-- layers:begin --> ... <!-- layers:end --> block")
  endif()
  math(EXPR begin "${begin} + 22")
  math(EXPR length "${end} - ${begin}")
  string(SUBSTRING "${doc}" ${begin} ${length} shown)
  if(NOT shown STREQUAL table)
    message(FATAL_ERROR "docs/design.md's layer table differs from the CMake graph; the graph's "
                        "table (${build}/layers.md) is:\n${table}")
  endif()
  return()
endif()

foreach(l IN LISTS XCORR_LIBRARIES)
  set(owner_${XCORR_FOLDER_${l}} ${l})
endforeach()

set(failures "")
foreach(l IN LISTS XCORR_LIBRARIES)
  set(folder ${XCORR_FOLDER_${l}})
  file(GLOB files RELATIVE ${SOURCE_DIR}
       ${SOURCE_DIR}/${folder}/*.hpp ${SOURCE_DIR}/${folder}/*.cpp
       ${SOURCE_DIR}/${folder}/*.cuh ${SOURCE_DIR}/${folder}/*.cu)
  set(used "")
  foreach(f IN LISTS files)
    file(STRINGS ${SOURCE_DIR}/${f} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"]+/[^\"]+\"")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*$" "\\1" header "${line}")
      get_filename_component(dir ${header} DIRECTORY)
      if(NOT DEFINED owner_${dir})
        continue()  # a system or third-party header (e.g. <qcustomplot.h> spelt with quotes)
      endif()
      set(target ${owner_${dir}})
      if(target STREQUAL l)
        continue()
      endif()
      list(APPEND used ${target})
      if(NOT target IN_LIST XCORR_DEPENDS_${l})
        string(APPEND failures "  ${f} includes ${header}, but ${l} does not declare ${target}\n")
      endif()
    endforeach()
  endforeach()
  foreach(d IN LISTS XCORR_DEPENDS_${l})
    if(NOT d IN_LIST used)
      string(APPEND failures "  ${l} declares ${d}, but no file in ${folder}/ includes it\n")
    endif()
  endforeach()
endforeach()
if(failures)
  message(FATAL_ERROR "Layering: the includes and the libraries' declared dependencies "
                      "(cmake/XcorrLibrary.cmake) disagree:\n${failures}")
endif()
message(STATUS "Layering: every include follows a declared dependency")
