# Finds the three OpenCV modules we use (core, imgproc, imgcodecs). Debian's per-module -dev
# packages ship neither OpenCVConfig.cmake nor opencv4.pc, so we look for headers and libraries
# directly. Defines the imported target XcorrOpenCV::OpenCV.
find_path(XcorrOpenCV_INCLUDE_DIR opencv2/core.hpp PATH_SUFFIXES opencv4)
set(_libs "")
foreach(module core imgproc imgcodecs)
  find_library(XcorrOpenCV_${module}_LIBRARY NAMES opencv_${module})
  list(APPEND _libs XcorrOpenCV_${module}_LIBRARY)
endforeach()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(XcorrOpenCV REQUIRED_VARS XcorrOpenCV_INCLUDE_DIR ${_libs})
if(XcorrOpenCV_FOUND AND NOT TARGET XcorrOpenCV::OpenCV)
  add_library(XcorrOpenCV::OpenCV INTERFACE IMPORTED)
  target_include_directories(XcorrOpenCV::OpenCV INTERFACE ${XcorrOpenCV_INCLUDE_DIR})
  target_link_libraries(XcorrOpenCV::OpenCV INTERFACE ${XcorrOpenCV_imgcodecs_LIBRARY}
                        ${XcorrOpenCV_imgproc_LIBRARY} ${XcorrOpenCV_core_LIBRARY})
endif()
