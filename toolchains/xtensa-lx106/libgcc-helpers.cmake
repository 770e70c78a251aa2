# The libgcc helpers Debian's xtensa-lx106-elf toolchain lacks, built at
# configure time (included by cmake/cross/netkit-cross.cmake).
#
# On an ESP8266 the integer division and soft-float routines live in the
# boot ROM, so the packaged libgcc.a leaves them out (__udivsi3, __divsi3,
# __addsf3, __muldf3, __extendsfdf2, ...). This builds them from GCC's own
# Xtensa sources (libgcc/config/xtensa/lib1funcs.S and the ieee754 files it
# includes; GPLv3 with the GCC Runtime Library Exception) out of Debian's
# gcc-12-source package, one object per routine, and keeps each routine
# whose symbols libgcc.a does not define. The 64-bit multiply and divisions
# (libgcc2.c routines in GCC) are thin wrappers of ours in
# libgcc-extra.c over what libgcc.a has. Nothing is copied into the
# repository: the sources are extracted into the build tree.
#
# The archive, libnkxtgcc.a, is linked inside the specs' library group
# (--oslib), next to libc and libgcc, which both call these routines.
#
# Building it takes about 18 s of CPU (xz and 55 assembler runs), so it is
# made once per machine and shared by every build folder: in
# $NETKIT_CACHE_DIR (default ~/.cache/netkit, where `netkit bench --target`
# keeps its runners too) under a name keyed by the GCC sources, the
# compiler and libgcc-extra.c; without a home, in the build folder.

string(REGEX MATCH "^[0-9]+" _nk_xt_gcc_major "${CMAKE_C_COMPILER_VERSION}")
file(GLOB _nk_xt_tarballs "/usr/src/gcc-${_nk_xt_gcc_major}/gcc-${CMAKE_C_COMPILER_VERSION}*.tar.xz")
if(NOT _nk_xt_tarballs)
  message(FATAL_ERROR
    "xtensa-lx106: GCC ${CMAKE_C_COMPILER_VERSION}'s sources are needed to build the libgcc helpers "
    "the lx106 toolchain lacks; install the Debian package gcc-${_nk_xt_gcc_major}-source "
    "(apt-get install --no-install-recommends gcc-${_nk_xt_gcc_major}-source)")
endif()
list(GET _nk_xt_tarballs 0 _nk_xt_tarball)
set(_nk_xt_extra "${CMAKE_CURRENT_LIST_DIR}/libgcc-extra.c")
file(SHA256 "${_nk_xt_extra}" _nk_xt_extra_hash)
file(SHA256 "${CMAKE_CURRENT_LIST_FILE}" _nk_xt_self_hash)
set(_nk_xt_key "${_nk_xt_tarball};${CMAKE_C_COMPILER};${CMAKE_C_COMPILER_VERSION};${_nk_xt_extra_hash};${_nk_xt_self_hash}")
string(SHA256 _nk_xt_key_hash "${_nk_xt_key}")
string(SUBSTRING "${_nk_xt_key_hash}" 0 16 _nk_xt_key_hash)
if(DEFINED ENV{NETKIT_CACHE_DIR} AND NOT "$ENV{NETKIT_CACHE_DIR}" STREQUAL "")
  set(_nk_xt_cache "$ENV{NETKIT_CACHE_DIR}")
elseif(DEFINED ENV{HOME} AND NOT "$ENV{HOME}" STREQUAL "")
  set(_nk_xt_cache "$ENV{HOME}/.cache/netkit")
else()
  set(_nk_xt_cache "${CMAKE_BINARY_DIR}")
endif()
set(_nk_xt_final "${_nk_xt_cache}/xtensa-libgcc-${_nk_xt_key_hash}")
set(_nk_xt_lib "${_nk_xt_final}/libnkxtgcc.a")

if(NOT EXISTS "${_nk_xt_lib}")
  message(STATUS "xtensa-lx106: building the missing libgcc helpers from ${_nk_xt_tarball} into ${_nk_xt_final}")
  # Built aside and renamed into place: a folder that exists is complete.
  string(RANDOM LENGTH 8 _nk_xt_tmp)
  set(_nk_xt_dir "${_nk_xt_final}.tmp-${_nk_xt_tmp}")
  set(_nk_xt_built "${_nk_xt_dir}/libnkxtgcc.a")
  file(REMOVE_RECURSE "${_nk_xt_dir}")
  file(MAKE_DIRECTORY "${_nk_xt_dir}/src" "${_nk_xt_dir}/obj")
  execute_process(
    COMMAND tar -xJf "${_nk_xt_tarball}" -C "${_nk_xt_dir}/src" --strip-components=4 --wildcards
            "*/libgcc/config/xtensa/lib1funcs.S" "*/libgcc/config/xtensa/ieee754-*.S"
            "*/libgcc/config/xtensa/t-xtensa"
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT EXISTS "${_nk_xt_dir}/src/lib1funcs.S")
    message(FATAL_ERROR "xtensa-lx106: extracting libgcc/config/xtensa from ${_nk_xt_tarball} failed: ${err}")
  endif()

  # The core's configuration header (xtensa-config.h) as this compiler was
  # built with it: GCC installs it with its plugin headers.
  execute_process(COMMAND "${CMAKE_C_COMPILER}" -print-file-name=plugin
                  OUTPUT_VARIABLE _nk_xt_plugin OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT EXISTS "${_nk_xt_plugin}/include/xtensa-config.h")
    message(FATAL_ERROR "xtensa-lx106: no xtensa-config.h under ${_nk_xt_plugin}/include")
  endif()

  # What libgcc.a defines already.
  execute_process(COMMAND "${CMAKE_C_COMPILER}" -print-libgcc-file-name
                  OUTPUT_VARIABLE _nk_xt_libgcc OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND "${CMAKE_NM}" -g --defined-only "${_nk_xt_libgcc}"
                  OUTPUT_VARIABLE _nk_xt_nm RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "xtensa-lx106: ${CMAKE_NM} ${_nk_xt_libgcc} failed")
  endif()
  string(REGEX MATCHALL "[ \t][TDRBW] [A-Za-z0-9_]+" _nk_xt_have "${_nk_xt_nm}")
  string(REGEX REPLACE "[ \t][TDRBW] " "" _nk_xt_have "${_nk_xt_have}")

  # GCC's list of the routines in lib1funcs.S (its Makefile fragment).
  file(READ "${_nk_xt_dir}/src/t-xtensa" _nk_xt_frag)
  string(REGEX MATCH "LIB1ASMFUNCS[ \t]*=([^=]*)\n[ \t]*\n" _nk_xt_m "${_nk_xt_frag}")
  string(REGEX REPLACE "\\\\\n" " " _nk_xt_funcs "${CMAKE_MATCH_1}")
  string(REGEX MATCHALL "_[A-Za-z0-9_]+" _nk_xt_funcs "${_nk_xt_funcs}")
  if(NOT _nk_xt_funcs)
    message(FATAL_ERROR "xtensa-lx106: no LIB1ASMFUNCS in ${_nk_xt_dir}/src/t-xtensa")
  endif()

  # One object per routine: assembly routines from GCC (L<name>), C wrappers
  # of ours (NK_L<name>). Kept when libgcc.a defines none of its symbols.
  set(_nk_xt_kept "")
  set(_nk_xt_objs "")
  set(_nk_xt_candidates "")
  foreach(f IN LISTS _nk_xt_funcs)
    list(APPEND _nk_xt_candidates "asm:${f}")
  endforeach()
  foreach(f _muldi3 _divdi3 _udivdi3 _umoddi3)
    list(APPEND _nk_xt_candidates "c:${f}")
  endforeach()
  foreach(cand IN LISTS _nk_xt_candidates)
    string(REGEX REPLACE "^(asm|c):" "" f "${cand}")
    set(obj "${_nk_xt_dir}/obj/${f}.o")
    if(cand MATCHES "^asm:")
      set(src "${_nk_xt_dir}/obj/${f}.S")
      file(WRITE "${src}" "#define L${f}\n#include \"lib1funcs.S\"\n")
      set(flags -I "${_nk_xt_dir}/src" -I "${_nk_xt_plugin}/include")
    else()
      set(src "${_nk_xt_extra}")
      set(flags -O2 -std=c99 -Wall -Wextra -Werror -DNK_L${f})
    endif()
    execute_process(COMMAND "${CMAKE_C_COMPILER}" -c ${flags} "${src}" -o "${obj}"
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "xtensa-lx106: compiling ${f} failed:\n${err}")
    endif()
    execute_process(COMMAND "${CMAKE_NM}" -g --defined-only "${obj}" OUTPUT_VARIABLE syms)
    string(REGEX MATCHALL "[ \t][TDRBW] [A-Za-z0-9_]+" syms "${syms}")
    string(REGEX REPLACE "[ \t][TDRBW] " "" syms "${syms}")
    set(clash "")
    foreach(s IN LISTS syms)
      if(s IN_LIST _nk_xt_have)
        list(APPEND clash ${s})
      endif()
    endforeach()
    if(syms AND NOT clash)
      list(APPEND _nk_xt_objs "${obj}")
      list(APPEND _nk_xt_kept ${syms})
    endif()
  endforeach()
  execute_process(COMMAND "${CMAKE_AR}" rcs "${_nk_xt_built}" ${_nk_xt_objs} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "xtensa-lx106: ${CMAKE_AR} ${_nk_xt_built} failed")
  endif()
  list(LENGTH _nk_xt_kept n)
  list(JOIN _nk_xt_kept " " kept)
  file(WRITE "${_nk_xt_dir}/key" "${_nk_xt_key}\n${n} helpers: ${kept}\n")
  file(REMOVE_RECURSE "${_nk_xt_dir}/src" "${_nk_xt_dir}/obj")
  file(RENAME "${_nk_xt_dir}" "${_nk_xt_final}" RESULT rc)
  if(NOT rc EQUAL 0 AND NOT EXISTS "${_nk_xt_lib}")
    message(FATAL_ERROR "xtensa-lx106: cannot move ${_nk_xt_dir} to ${_nk_xt_final}: ${rc}")
  endif()
  file(REMOVE_RECURSE "${_nk_xt_dir}") # another configure got there first
  message(STATUS "xtensa-lx106: ${n} helpers in ${_nk_xt_lib}: ${kept}")
endif()

add_link_options("-L${_nk_xt_final}" "--oslib=nkxtgcc")
