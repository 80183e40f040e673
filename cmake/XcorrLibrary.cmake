# One folder, one library (docs/design.md, "Layers").
#
# xcorr_library(<name> FOLDER <folder> [SOURCES <files>...] [DEPENDS <xcorr libraries>...])
#   A static library of the folder's sources (an INTERFACE library when it has none), linked
#   PUBLIC to the xcorr libraries it DEPENDS on. The folder and its dependencies are recorded;
#   xcorr_check_layers() refuses a cycle among them, and the test
#   layering/includes_follow_dependencies refuses an #include of a folder that is not declared.
#   Other targets (Qt, OpenCV, FFTW, ...) are linked with target_link_libraries as usual.
#
# xcorr_check_layers()
#   Called once, after every library is declared: stops the configuration, naming the path,
#   when the declared dependencies form a cycle, and writes <build>/layers.cmake (the graph, for
#   the layering tests) and <build>/layers.md (the table docs/design.md must hold).

function(xcorr_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "FOLDER" "SOURCES;DEPENDS")
  if(NOT arg_FOLDER)
    message(FATAL_ERROR "xcorr_library(${name}): FOLDER is required")
  endif()
  if(arg_SOURCES)
    add_library(${name} STATIC ${arg_SOURCES})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} PUBLIC ${arg_DEPENDS})
    xcorr_warnings(${name})
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} INTERFACE ${arg_DEPENDS})
  endif()
  set_property(GLOBAL APPEND PROPERTY XCORR_LIBRARIES ${name})
  set_property(GLOBAL PROPERTY XCORR_FOLDER_${name} ${arg_FOLDER})
  set_property(GLOBAL PROPERTY XCORR_DEPENDS_${name} ${arg_DEPENDS})
endfunction()

# Depth-first search from `node`; `path` is the chain of libraries being visited.
function(_xcorr_visit node path)
  get_property(done GLOBAL PROPERTY _XCORR_DONE)
  if(node IN_LIST done)
    return()
  endif()
  if(node IN_LIST path)
    list(FIND path ${node} at)
    list(SUBLIST path ${at} -1 cycle)
    list(APPEND cycle ${node})
    list(JOIN cycle " -> " text)
    message(FATAL_ERROR "Layering: the libraries' declared dependencies form a cycle: ${text} "
                        "(docs/design.md, \"Layers\")")
  endif()
  list(APPEND path ${node})
  get_property(deps GLOBAL PROPERTY XCORR_DEPENDS_${node})
  foreach(d IN LISTS deps)
    _xcorr_visit(${d} "${path}")
  endforeach()
  set_property(GLOBAL APPEND PROPERTY _XCORR_DONE ${node})
endfunction()

function(xcorr_check_layers)
  get_property(libraries GLOBAL PROPERTY XCORR_LIBRARIES)
  set_property(GLOBAL PROPERTY _XCORR_DONE "")
  foreach(l IN LISTS libraries)
    _xcorr_visit(${l} "")
  endforeach()
  # Dependencies on what is not an xcorr library (a typo) are refused too.
  set(graph "# Written by xcorr_check_layers() (cmake/XcorrLibrary.cmake).\n")
  set(table "| library | folder | depends on |\n|---|---|---|\n")
  list(SORT libraries)
  foreach(l IN LISTS libraries)
    get_property(folder GLOBAL PROPERTY XCORR_FOLDER_${l})
    get_property(deps GLOBAL PROPERTY XCORR_DEPENDS_${l})
    foreach(d IN LISTS deps)
      if(NOT d IN_LIST libraries)
        message(FATAL_ERROR "Layering: ${l} depends on ${d}, which is not an xcorr_library")
      endif()
    endforeach()
    list(SORT deps)
    string(APPEND graph "set(XCORR_FOLDER_${l} \"${folder}\")\nset(XCORR_DEPENDS_${l} \"${deps}\")\n")
    list(JOIN deps ", " deps_text)
    if(deps_text STREQUAL "")
      set(deps_text "-")
    endif()
    string(APPEND table "| ${l} | ${folder}/ | ${deps_text} |\n")
  endforeach()
  string(APPEND graph "set(XCORR_LIBRARIES \"${libraries}\")\n")
  file(WRITE ${CMAKE_BINARY_DIR}/layers.cmake "${graph}")
  file(WRITE ${CMAKE_BINARY_DIR}/layers.md "${table}")
endfunction()
