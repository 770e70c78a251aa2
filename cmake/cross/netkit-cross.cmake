# Cross-build support, hooked into the project by the toolchain files in
# toolchains/ (CMAKE_PROJECT_INCLUDE: runs right after project()).
#
# - Bare-metal targets: builds the board-support library (start-up code,
#   vector table, fault handler) and links it into every executable.
# - nk_embed_file(): a model or test vector as an aligned const C array.
# - At the end of the top-level CMakeLists (cmake_language DEFER), with
#   NETKIT_BUILD_TESTS: the target smoke tests (libc, exit status, faults,
#   timeouts), the nkinsn plugin (host build) and its exact-count test, and
#   netkit's own tests on the target (netkit-mcu-tests.cmake).
include_guard(GLOBAL)
# The toolchain file is read again for CMake's own compiler checks; those
# throwaway projects get none of this.
if(PROJECT_NAME STREQUAL "CMAKE_TRY_COMPILE")
  return()
endif()

set(NK_CROSS_DIR "${CMAKE_CURRENT_LIST_DIR}")
get_filename_component(NK_ROOT "${NK_CROSS_DIR}/../.." ABSOLUTE)

# A target's own configure-time set-up (xtensa-lx106: the libgcc helpers).
if(NK_BSP_SETUP)
  include("${NK_BSP_SETUP}")
endif()

if(NK_BSP_SOURCES)
  enable_language(ASM)
  # Linked into every executable of the project by nk_cross_link_bsp() at
  # the end of configuration; libraries never see it.
  add_library(nk_bsp OBJECT ${NK_BSP_SOURCES})
endif()

# Every executable target in `dir` and below.
function(nk_cross_executables dir out_var)
  set(found "")
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "EXECUTABLE")
      list(APPEND found ${t})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    nk_cross_executables("${sub}" sub_found)
    list(APPEND found ${sub_found})
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# Bare metal: start-up code, vector table and fault handler in every program.
function(nk_cross_link_bsp)
  if(NOT TARGET nk_bsp)
    return()
  endif()
  nk_cross_executables("${CMAKE_SOURCE_DIR}" exes)
  foreach(exe IN LISTS exes)
    target_link_libraries(${exe} PRIVATE nk_bsp)
  endforeach()
endfunction()

# nk_embed_file(<out_var> <input file> <C symbol> [<subdir>])
# Generates, at build time, a C file defining
#   const unsigned char <symbol>[] (16-byte aligned);  const size_t <symbol>_len;
# and returns its path in <out_var> (add it to an executable's sources).
# <subdir> keeps apart files that use the same symbol for different inputs.
function(nk_embed_file out_var input symbol)
  set(out "${CMAKE_BINARY_DIR}/nk_embed/${ARGN}/${symbol}.c")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND "${CMAKE_COMMAND}" -DINPUT=${input} -DOUTPUT=${out} -DSYMBOL=${symbol}
            -P "${NK_CROSS_DIR}/embed.cmake"
    DEPENDS "${input}" "${NK_CROSS_DIR}/embed.cmake"
    COMMENT "Embedding ${input} as ${symbol}[]"
    VERBATIM)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(nk_cross_add_tests)
  if(NOT NETKIT_BUILD_TESTS)
    return()
  endif()
  enable_testing()
  set(emu ${CMAKE_CROSSCOMPILING_EMULATOR})

  # The target itself: C library, stdio, float maths, argv, exit status.
  add_executable(nk_cross_hello "${NK_CROSS_DIR}/hello.c")
  target_compile_definitions(nk_cross_hello PRIVATE NK_TARGET_NAME="${NK_TARGET}")
  target_link_libraries(nk_cross_hello PRIVATE m)
  add_test(NAME cross_hello COMMAND nk_cross_hello)
  add_test(NAME cross_exit_status
           COMMAND "${NK_CROSS_DIR}/expect-status.sh" 42 ${emu} $<TARGET_FILE:nk_cross_hello> exit 42)
  if(NK_BARE_METAL)
    # A fault must end the run with a failure status, not hang: our ARM
    # and Xtensa handlers exit 100; picolibc's RISC-V trap handler exits 1.
    if(NK_TARGET MATCHES "^(cortex-m|xtensa)")
      set(fault_status 100)
    else()
      set(fault_status 1)
    endif()
    add_test(NAME cross_fault_exits
             COMMAND "${NK_CROSS_DIR}/expect-status.sh" ${fault_status} ${emu} $<TARGET_FILE:nk_cross_hello> fault)
    set_tests_properties(cross_fault_exits PROPERTIES TIMEOUT 60 LABELS cross)
    if(NK_TARGET STREQUAL "xtensa-lx106")
      # The trap above takes the debug vector; a bad load takes the user
      # vector (0x10: nothing is mapped there on QEMU's sim machine).
      target_compile_definitions(nk_cross_hello PRIVATE NK_BAD_LOAD_ADDR=0x10)
      add_test(NAME cross_bad_load_exits
               COMMAND "${NK_CROSS_DIR}/expect-status.sh" ${fault_status} ${emu} $<TARGET_FILE:nk_cross_hello> badload)
      set_tests_properties(cross_bad_load_exits PROPERTIES TIMEOUT 60 LABELS cross)
    endif()
  endif()
  # A hung program is killed by the runner's timeout (status 124), so a
  # stuck test fails on its own instead of stalling the suite.
  add_test(NAME cross_hang_times_out
           COMMAND "${CMAKE_COMMAND}" -E env NK_QEMU_TIMEOUT=2
                   "${NK_CROSS_DIR}/expect-status.sh" 124 ${emu} $<TARGET_FILE:nk_cross_hello> hang)
  set_tests_properties(cross_hello cross_exit_status cross_hang_times_out PROPERTIES TIMEOUT 60 LABELS cross)

  nk_cross_add_plugin_test()
  include("${NK_CROSS_DIR}/netkit-mcu-tests.cmake")
endfunction()

# The nkinsn QEMU plugin is a host program: built with the host compiler by
# a custom command, next to the cross-built programs it measures.
function(nk_cross_add_plugin)
  if(TARGET nk_qemu_plugin)
    return()
  endif()
  find_program(NK_HOST_CC NAMES cc gcc clang)
  if(NOT NK_HOST_CC)
    message(WARNING "no host C compiler: instruction counting (nkinsn) disabled")
    return()
  endif()
  set(src "${NK_ROOT}/tools/qemu-plugin/nkinsn.c")
  set(so "${CMAKE_BINARY_DIR}/qemu-plugin/libnkinsn.so")
  add_custom_command(
    OUTPUT "${so}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_BINARY_DIR}/qemu-plugin"
    COMMAND "${NK_HOST_CC}" -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror
            -shared -fPIC -fvisibility=hidden -o "${so}" "${src}"
    DEPENDS "${src}"
    COMMENT "Building the nkinsn QEMU plugin (host)"
    VERBATIM)
  add_custom_target(nk_qemu_plugin ALL DEPENDS "${so}")
endfunction()

function(nk_cross_add_plugin_test)
  nk_cross_add_plugin()
  if(NOT TARGET nk_qemu_plugin)
    return()
  endif()
  add_executable(nk_insn_count_test "${NK_ROOT}/tools/qemu-plugin/count_test.c")
  if(NOT NK_BARE_METAL)
    # The plugin sees run-time addresses; nm must report the same ones.
    target_link_options(nk_insn_count_test PRIVATE -no-pie)
  endif()
  add_dependencies(nk_insn_count_test nk_qemu_plugin)
  add_test(NAME cross_insn_count
           COMMAND "${NK_ROOT}/tools/qemu-plugin/check-count.sh"
                   "${CMAKE_BINARY_DIR}/qemu-plugin/libnkinsn.so" "${CMAKE_NM}" "${NK_TARGET}"
                   $<TARGET_FILE:nk_insn_count_test>)
  set_tests_properties(cross_insn_count PROPERTIES TIMEOUT 60 LABELS cross)
endfunction()

# With NETKIT_OP_MARKERS on a cross target: the program `netkit bench
# --target` runs under QEMU (bench_runner.c; it reads the model through
# semihosting on bare metal, as a file under QEMU's Linux user mode, so one
# build serves every model), its link map (the flash netkit takes) and the
# nkinsn plugin, all built by `--target nk_bench_runner`.
function(nk_cross_add_bench_runner)
  if(NOT NETKIT_OP_MARKERS OR NOT TARGET netkit_static)
    return()
  endif()
  nk_cross_add_plugin()
  add_executable(nk_bench_runner "${NK_CROSS_DIR}/bench_runner.c")
  target_link_libraries(nk_bench_runner PRIVATE netkit_static m)
  target_link_options(nk_bench_runner PRIVATE "-Wl,-Map=$<TARGET_FILE:nk_bench_runner>.map")
  if(NOT NK_BARE_METAL)
    # Linux user mode: static, so the addresses nm reports are the ones the
    # plugin sees and no lazy symbol binding runs inside a counted region.
    target_link_options(nk_bench_runner PRIVATE -static)
  endif()
  if(TARGET nk_qemu_plugin)
    add_dependencies(nk_bench_runner nk_qemu_plugin)
  endif()
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL nk_cross_add_tests)
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL nk_cross_add_bench_runner)
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL nk_cross_link_bsp)
