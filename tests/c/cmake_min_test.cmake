# ctest cmake_min_test: the top-level cmake_minimum_required is at least the
# version of every newer CMake command the build files use (cross builds
# included), so an older CMake fails at the first line with a clear message
# rather than at an unknown command halfway through.
#   cmake -DSRC=<netkit source dir> -P cmake_min_test.cmake
cmake_minimum_required(VERSION 3.19)

file(STRINGS "${SRC}/CMakeLists.txt" line REGEX "^cmake_minimum_required")
string(REGEX MATCH "VERSION ([0-9.]+)" _ "${line}")
set(declared "${CMAKE_MATCH_1}")
if(NOT declared)
  message(FATAL_ERROR "no cmake_minimum_required in ${SRC}/CMakeLists.txt")
endif()

# command text (regex) -> the CMake version that introduced it
set(features
  "cmake_language\\(DEFER" 3.19
  "file\\(REAL_PATH" 3.19
  "string\\(JSON" 3.19
  "cmake_path\\(" 3.20
  "file\\(COPY_FILE" 3.21
  "\\$<PATH:" 3.24
  "block\\(" 3.25
  "return\\(PROPAGATE" 3.25)
file(GLOB_RECURSE files "${SRC}/CMakeLists.txt" "${SRC}/cmake/*.cmake" "${SRC}/toolchains/*.cmake"
     "${SRC}/tests/c/*.cmake" "${SRC}/tests/c/CMakeLists.txt")
list(FILTER files EXCLUDE REGEX "/cmake_min_test\\.cmake$")
set(bad)
foreach(f IN LISTS files)
  file(READ "${f}" text)
  set(i 0)
  list(LENGTH features n)
  while(i LESS n)
    list(GET features ${i} pattern)
    math(EXPR j "${i} + 1")
    list(GET features ${j} version)
    if(text MATCHES "${pattern}" AND declared VERSION_LESS version)
      list(APPEND bad "${f}: ${pattern} needs CMake ${version}")
    endif()
    math(EXPR i "${i} + 2")
  endwhile()
endforeach()
if(bad)
  string(REPLACE ";" "\n  " bad "${bad}")
  message(FATAL_ERROR "cmake_minimum_required(VERSION ${declared}) is below what the build uses:\n  ${bad}")
endif()
message(STATUS "cmake_minimum_required ${declared} covers every checked command")
