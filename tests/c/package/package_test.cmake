# ctest package_test: what a user of the installed package gets.
#   cmake -DBUILD=<netkit build dir> -DSRC=<netkit source dir> -DWORK=<scratch dir>
#         -DABI=<NK_ABI_VERSION> -P package_test.cmake
# 1. installs BUILD into WORK/prefix; the shared library's SONAME is
#    libnetkit.so.<ABI> (readelf);
# 2. no -Werror in the exported targets' properties or in netkit.pc;
# 3. a consumer with a warning of its own (consumer.c), built with -Wall,
#    configures, builds and runs against the prefix;
# 4. netkit added with add_subdirectory defaults NETKIT_WERROR to OFF;
# 5. the same consumer compiles with `pkg-config --cflags --libs netkit`
#    alone (netkit.pc relocated with the prefix, its macros plain values)
#    and runs, printing the macro it read.
cmake_minimum_required(VERSION 3.19)

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

# 5. pkg-config alone: cflags and libs from the relocated netkit.pc
find_program(PKG_CONFIG NAMES pkg-config pkgconf)
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config not found")
endif()
file(GLOB_RECURSE pcs "${prefix}/*/pkgconfig/netkit.pc")
list(GET pcs 0 pc)
get_filename_component(pcdir "${pc}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
nk_run("pkg-config" "${PKG_CONFIG}" --cflags --libs netkit)
string(STRIP "${nk_out}" pcflags)
if(pcflags MATCHES "[$<>]")
  message(FATAL_ERROR "netkit.pc holds unexpanded CMake text: ${pcflags}")
endif()
if(NOT pcflags MATCHES "-I${prefix}/")
  message(FATAL_ERROR "netkit.pc does not point into the install prefix ${prefix}: ${pcflags}")
endif()
separate_arguments(pcflags UNIX_COMMAND "${pcflags}")
set(cc_pc cc)
if(C_COMPILER)
  set(cc_pc "${C_COMPILER}")
endif()
nk_run("pkg-config consumer build" "${cc_pc}" -Wall -o "${WORK}/pc_consumer" "${SRC}/tests/c/package/consumer.c" ${pcflags})
get_filename_component(libdir "${so}" DIRECTORY)
set(ENV{LD_LIBRARY_PATH} "${libdir}")
nk_run("pkg-config consumer run" "${WORK}/pc_consumer")
if(NOT nk_out MATCHES "NETKIT_LOAD_FOLD_BN=[01]")
  message(FATAL_ERROR "the pkg-config consumer printed: ${nk_out}")
endif()
file(REMOVE_RECURSE "${WORK}")
