# ctest package_test: what a user of the installed package gets.
#   cmake -DBUILD=<netkit build dir> -DSRC=<netkit source dir> -DWORK=<scratch dir>
#         -DABI=<NK_ABI_VERSION> -P package_test.cmake
# 1. installs BUILD into WORK/prefix; the shared library's SONAME is
#    libnetkit.so.<ABI> (readelf);
# 2. no -Werror in the exported targets' properties or in netkit.pc;
# 3. a consumer with a warning of its own (consumer.c), built with -Wall,
#    configures, builds and runs against the prefix;
# 4. netkit added with add_subdirectory defaults NETKIT_WERROR to OFF.
cmake_minimum_required(VERSION 3.16)

function(nk_run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  set(nk_out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK}")
set(prefix "${WORK}/prefix")
nk_run("install" "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${prefix}")

# 1. SONAME
file(GLOB_RECURSE sos "${prefix}/*/libnetkit.so")
if(NOT sos)
  message(FATAL_ERROR "no libnetkit.so installed under ${prefix}")
endif()
list(GET sos 0 so)
find_program(READELF NAMES readelf)
if(NOT READELF)
  message(FATAL_ERROR "readelf not found")
endif()
nk_run("readelf" "${READELF}" -d "${so}")
if(NOT nk_out MATCHES "Library soname: \\[libnetkit\\.so\\.${ABI}\\]")
  message(FATAL_ERROR "SONAME of ${so} is not libnetkit.so.${ABI}:\n${nk_out}")
endif()

# 2. nothing hands -Werror to a consumer
file(GLOB_RECURSE exported "${prefix}/*/cmake/netkit/*.cmake" "${prefix}/*/pkgconfig/netkit.pc")
if(NOT exported)
  message(FATAL_ERROR "no package files under ${prefix}")
endif()
foreach(f IN LISTS exported)
  file(READ "${f}" text)
  if(text MATCHES "Werror")
    message(FATAL_ERROR "${f} passes -Werror to consumers")
  endif()
endforeach()

# 3. a consumer with a warning builds and runs
set(gen)
if(GENERATOR)
  set(gen -G "${GENERATOR}")
endif()
set(cc)
if(C_COMPILER)
  set(cc "-DCMAKE_C_COMPILER=${C_COMPILER}")
endif()
nk_run("consumer configure" "${CMAKE_COMMAND}" -S "${SRC}/tests/c/package" -B "${WORK}/consumer"
       ${gen} ${cc} "-DCMAKE_PREFIX_PATH=${prefix}")
nk_run("consumer build" "${CMAKE_COMMAND}" --build "${WORK}/consumer")
if(NOT nk_out MATCHES "unused")
  message(FATAL_ERROR "the consumer's own warning did not show; the test proves nothing:\n${nk_out}")
endif()
file(GLOB_RECURSE exe "${WORK}/consumer/consumer" "${WORK}/consumer/consumer.exe")
nk_run("consumer run" ${exe})

# 4. as a subproject, netkit's -Werror is off by default (configure only)
nk_run("subproject configure" "${CMAKE_COMMAND}" -S "${SRC}/tests/c/package" -B "${WORK}/sub"
       ${gen} ${cc} "-DNK_SUBPROJECT=${SRC}")
file(STRINGS "${WORK}/sub/CMakeCache.txt" werror REGEX "^NETKIT_WERROR:")
if(NOT werror STREQUAL "NETKIT_WERROR:BOOL=OFF")
  message(FATAL_ERROR "as a subproject NETKIT_WERROR is '${werror}', expected OFF")
endif()
file(REMOVE_RECURSE "${WORK}")
