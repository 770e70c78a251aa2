# netkit's own tests on a cross target, added by netkit-cross.cmake once
# the top-level CMakeLists has defined the library:
#   mcu_no_heap        the MCU libnetkit.a references no malloc/calloc/
#                      realloc/free (nm -u), with a canary proving the check
#                      can fail
#   mcu_<unit test>    the C unit tests of tests/c (arena, format, planner)
#                      and every per-op test of tests/c/ops, built for the
#                      MCU and run under QEMU; test files are read from the
#                      host over semihosting
#   model_<name>       end to end: every bundled model in testdata/models
#                      (and on M4F/M55 testdata/fashion_i8 and
#                      testdata/pytorch, as model_fashion_i8_<name> and
#                      model_pytorch_<name>)
#                      with test vectors, embedded in flash, run from a
#                      static arena, outputs against the host's reference
#   bench_<name>       (not a test) the instruction-count benchmark program
#                      scripts/bench-mcu.sh runs with the nkinsn plugin

#   lowered_<name>     with NK_NETKIT_CLI (scripts/cross-test.sh), on
#                      cortex-m4f, cortex-m55 and rv32imac: a model lowered
#                      by `netkit aot --lower` against the interpreter in one
#                      firmware, output bytes equal

# The static libnetkit of the top-level CMakeLists.
set(NK_LIB netkit_static)
if(NOT TARGET ${NK_LIB})
  message(WARNING "cross: no ${NK_LIB} target; netkit's cross tests skipped")
  return()
endif()

# tests/c registers its tests for hosted builds only; on bare metal they run
# from here, adapted rather than edited:
# - testutil.c builds against a <dirent.h> that lists nothing
#   (mcu-include/dirent.h): semihosting reads files but lists no directory;
# - tests of the heap arena (a host feature) get their own arena.c compiled
#   with NETKIT_ARENA_HEAP (default capacity 64 KiB instead of 64 MiB) and
#   the test hooks, the library itself stays heap-free and hook-free;
# - model_test (nk_model_load_file) and inspect_test (nk_inspect_model)
#   test APIs an MCU build does not have: the model_<name> tests below run
#   the bundled models there; hostile/exhaust/no-heap/fuzz are host tools.
function(nk_cross_add_unit_tests)
  set(tdir "${NK_ROOT}/tests/c")
  if(NOT EXISTS "${tdir}/testutil.c")
    return()
  endif()
  add_library(nk_mcu_testutil STATIC "${tdir}/testutil.c")
  if(NK_TARGET MATCHES "^cortex-m")
    target_sources(nk_mcu_testutil PRIVATE "${NK_CROSS_DIR}/mcu_posix_memalign.c")
  endif()
  target_include_directories(nk_mcu_testutil BEFORE PUBLIC "${NK_CROSS_DIR}/mcu-include")
  # newlib and picolibc make uint32_t `unsigned long`; the tests print it
  # with %u, which is the same width on these targets: harmless, not fatal.
  target_compile_options(nk_mcu_testutil PUBLIC -Wno-format)
  target_include_directories(nk_mcu_testutil PUBLIC "${tdir}" "${NK_ROOT}/csrc")
  target_link_libraries(nk_mcu_testutil PUBLIC ${NK_LIB})

  add_library(nk_mcu_arena_heap OBJECT "${NK_ROOT}/csrc/arena.c")
  target_include_directories(nk_mcu_arena_heap PRIVATE "${NK_ROOT}/include" "${NK_ROOT}/csrc")
  # The host's 64 MiB default heap arena does not fit an MCU's RAM. Test
  # hooks (nk_arena_fail_at) as in tests/c's TEST_HOOKS: this arena.c is the
  # tests' own, the library has none.
  target_compile_definitions(nk_mcu_arena_heap PUBLIC NETKIT_MCU=1 NETKIT_ARENA_HEAP=1
                             NETKIT_TEST_HOOKS=1 "NK_ARENA_DEFAULT_CAPACITY=((size_t)64*1024)")

  set(models "${NK_ROOT}/testdata/models")
  foreach(t arena_test format_test plan_test)
    if(NOT EXISTS "${tdir}/${t}.c")
      continue()
    endif()
    add_executable(mcu_${t} "${tdir}/${t}.c")
    target_compile_definitions(mcu_${t} PRIVATE NK_SOURCE_DIR="${NK_ROOT}" NK_MODELS_DIR="${models}"
                                                NETKIT_MMAP=0)
    target_link_libraries(mcu_${t} PRIVATE nk_mcu_arena_heap nk_mcu_testutil m)
    add_test(NAME mcu_${t} COMMAND mcu_${t})
    set_tests_properties(mcu_${t} PROPERTIES SKIP_RETURN_CODE 77 LABELS "cross;core" TIMEOUT 600)
  endforeach()

  file(GLOB op_tests "${tdir}/ops/*_test.c")
  # the host SIMD kernels are never in an MCU build
  list(FILTER op_tests EXCLUDE REGEX "/host_kernels_test\\.c$")
  foreach(src IN LISTS op_tests)
    get_filename_component(name "${src}" NAME_WE)
    add_executable(mcu_ops_${name} "${src}")
    target_include_directories(mcu_ops_${name} PRIVATE "${NK_ROOT}/include" "${NK_ROOT}/csrc")
    target_compile_options(mcu_ops_${name} PRIVATE -Wno-format) # as for testutil above
    target_link_libraries(mcu_ops_${name} PRIVATE ${NK_LIB} m)
    add_test(NAME mcu_ops_${name} COMMAND mcu_ops_${name})
    # 77: nothing to test in this build (fast_i8_test without a fast set)
    set_tests_properties(mcu_ops_${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS "cross;ops" TIMEOUT 600)
  endforeach()

  # the fast int8 kernels' random test (MVE on M55, DSP on M4F/M7/M33)
  # in the other rounding too: it compiles the kernels itself
  if(EXISTS "${tdir}/ops/fast_i8_test.c")
    add_executable(mcu_ops_fast_i8_test_single_rounding "${tdir}/ops/fast_i8_test.c")
    target_include_directories(mcu_ops_fast_i8_test_single_rounding PRIVATE
                               "${NK_ROOT}/include" "${NK_ROOT}/csrc")
    target_compile_definitions(mcu_ops_fast_i8_test_single_rounding PRIVATE NETKIT_SINGLE_ROUNDING=1)
    target_compile_options(mcu_ops_fast_i8_test_single_rounding PRIVATE -Wno-format)
    target_link_libraries(mcu_ops_fast_i8_test_single_rounding PRIVATE ${NK_LIB} m)
    add_test(NAME mcu_ops_fast_i8_test_single_rounding COMMAND mcu_ops_fast_i8_test_single_rounding)
    set_tests_properties(mcu_ops_fast_i8_test_single_rounding PROPERTIES
                         SKIP_RETURN_CODE 77 LABELS "cross;ops" TIMEOUT 600)
  endif()

  # the int8 vendor backend (-DNETKIT_CMSIS_NN_DIR=...) against the
  # portable kernels, on the target's own library paths (DSP, MVE)
  if(NETKIT_BACKEND_I8)
    add_executable(mcu_backend_i8_test "${NK_ROOT}/vendor_kernels/backend_i8_test.c")
    target_include_directories(mcu_backend_i8_test PRIVATE "${NK_ROOT}/include" "${NK_ROOT}/csrc")
    target_compile_options(mcu_backend_i8_test PRIVATE -Wno-format)
    target_link_libraries(mcu_backend_i8_test PRIVATE ${NK_LIB} m)
    add_test(NAME mcu_backend_i8_test COMMAND mcu_backend_i8_test)
    set_tests_properties(mcu_backend_i8_test PROPERTIES LABELS "cross;ops;backend" TIMEOUT 600)
  endif()
endfunction()

if(NK_BARE_METAL)
  add_test(NAME mcu_no_heap
           COMMAND "${CMAKE_COMMAND}" -DNM=${CMAKE_NM} -DLIB=$<TARGET_FILE:${NK_LIB}>
                   -P "${NK_CROSS_DIR}/check-no-heap.cmake")
  add_library(nk_heap_canary STATIC "${NK_CROSS_DIR}/heap_canary.c")
  add_test(NAME mcu_no_heap_check_fails
           COMMAND "${CMAKE_COMMAND}" -DNM=${CMAKE_NM} -DLIB=$<TARGET_FILE:nk_heap_canary>
                   -P "${NK_CROSS_DIR}/check-no-heap.cmake")
  set_tests_properties(mcu_no_heap_check_fails PROPERTIES WILL_FAIL TRUE)
  set_tests_properties(mcu_no_heap mcu_no_heap_check_fails PROPERTIES LABELS cross TIMEOUT 60)
  nk_cross_add_unit_tests()
endif()

# Bundled models: testdata/models/<name>.nk with test vectors, one .npy per
# graph input and output (several samples each): <name>.input.npy and
# <name>.expected.npy, or <name>.input0.npy, <name>.input1.npy, ... and
# <name>.expected0.npy, ... (PyTorch's outputs). See vectors.h.
# nk_model_vectors(<dir> <name> <kind> <out_var>): the files of one kind.
function(nk_model_vectors dir name kind out_var)
  set(files "")
  if(EXISTS "${dir}/${name}.${kind}.npy")
    set(files "${dir}/${name}.${kind}.npy")
  else()
    foreach(k RANGE 3)
      if(NOT EXISTS "${dir}/${name}.${kind}${k}.npy")
        break()
      endif()
      list(APPEND files "${dir}/${name}.${kind}${k}.npy")
    endforeach()
  endif()
  set(${out_var} "${files}" PARENT_SCOPE)
endfunction()

# The Fashion models quantized by netkit quantize (testdata/fashion_i8,
# float I/O, expected = the host's output) run the same way, named
# fashion_i8_<name>, on the targets with a fast int8 set that issue 12
# names (the others run the portable kernels the host tests check): a few
# seconds of make test per target. So do the reference models exported from
# PyTorch (testdata/pytorch, expected = PyTorch's float64 outputs), named
# pytorch_<name>, on the same two targets (issue 14).
# NK_BENCH_MODELS_DIR adds models with inputs and no expected outputs as
# benchmark programs only (scripts/bench-mcu.sh: the float Fashion models).
set(NK_MODELS_DIR "${NK_ROOT}/testdata/models")
set(NK_BENCH_MODELS_DIR "" CACHE PATH "directory of extra .nk models with <name>.input.npy, benchmarked only")
set(nk_model_globs "${NK_MODELS_DIR}/*.nk")
if(NK_TARGET MATCHES "^cortex-m(4f|55)$" OR NK_BENCH_MODELS_DIR)
  list(APPEND nk_model_globs "${NK_ROOT}/testdata/fashion_i8/*.nk" "${NK_ROOT}/testdata/pytorch/*.nk")
endif()
if(NK_BENCH_MODELS_DIR)
  list(APPEND nk_model_globs "${NK_BENCH_MODELS_DIR}/*.nk")
endif()
file(GLOB nk_models ${nk_model_globs})
foreach(model IN LISTS nk_models)
  get_filename_component(name "${model}" NAME_WE)
  get_filename_component(dir "${model}" DIRECTORY)
  nk_model_vectors("${dir}" "${name}" input inputs)
  nk_model_vectors("${dir}" "${name}" expected outputs)
  if(NOT inputs OR (NOT outputs AND NOT dir STREQUAL NK_BENCH_MODELS_DIR))
    continue()
  endif()
  if(NOT dir STREQUAL NK_MODELS_DIR)
    get_filename_component(set_name "${dir}" NAME)
    set(name "${set_name}_${name}")
  endif()
  string(MAKE_C_IDENTIFIER "${name}" id)
  nk_embed_file(model_c "${model}" nk_model_image ${id})
  set(in_srcs "")
  set(k 0)
  foreach(f IN LISTS inputs)
    nk_embed_file(c "${f}" nk_in${k}_npy ${id})
    list(APPEND in_srcs "${c}")
    math(EXPR k "${k} + 1")
  endforeach()
  set(out_srcs "")
  set(k 0)
  foreach(f IN LISTS outputs)
    nk_embed_file(c "${f}" nk_out${k}_npy ${id})
    list(APPEND out_srcs "${c}")
    math(EXPR k "${k} + 1")
  endforeach()

  if(outputs)
    add_executable(nk_model_test_${id} "${NK_CROSS_DIR}/model_test.c" "${model_c}" ${in_srcs} ${out_srcs})
    target_link_libraries(nk_model_test_${id} PRIVATE ${NK_LIB} m)
    add_test(NAME model_${id} COMMAND nk_model_test_${id})
    set_tests_properties(model_${id} PROPERTIES LABELS cross TIMEOUT 600)
  endif()

  # Outside testdata/models, scripts/bench-mcu.sh builds the benchmark by
  # name; the cross tests (cmake --build) do not.
  set(bench_all "")
  if(NOT dir STREQUAL NK_MODELS_DIR)
    set(bench_all EXCLUDE_FROM_ALL)
  endif()
  add_executable(nk_bench_${id} ${bench_all} "${NK_CROSS_DIR}/bench.c" "${model_c}" ${in_srcs})
  target_link_libraries(nk_bench_${id} PRIVATE ${NK_LIB} m)
  # The map tells scripts/bench-mcu.sh how much flash libnetkit takes.
  target_link_options(nk_bench_${id} PRIVATE "-Wl,-Map=$<TARGET_FILE:nk_bench_${id}>.map")
  if(NOT NK_BARE_METAL)
    target_link_options(nk_bench_${id} PRIVATE -no-pie)
  endif()
endforeach()

# int8 models converted from TFLite (scripts/int8-cross.sh writes them):
# NK_INT8_MODELS_DIR/<name>.nk with <name>.in.bin (raw int8 inputs, samples
# back to back) and <name>.out.bin (TensorFlow Lite Micro's outputs), run
# from flash and compared byte for byte; the same program is the
# instruction-count benchmark (one nkinsn region per invoke).
set(NK_INT8_MODELS_DIR "" CACHE PATH "directory of int8 .nk models with raw TFLM test vectors")
if(NK_INT8_MODELS_DIR)
  file(GLOB nk_int8_models "${NK_INT8_MODELS_DIR}/*.nk")
  foreach(model IN LISTS nk_int8_models)
    get_filename_component(name "${model}" NAME_WE)
    set(input "${NK_INT8_MODELS_DIR}/${name}.in.bin")
    set(expected "${NK_INT8_MODELS_DIR}/${name}.out.bin")
    if(NOT EXISTS "${input}" OR NOT EXISTS "${expected}")
      continue()
    endif()
    string(MAKE_C_IDENTIFIER "${name}" id)
    nk_embed_file(model_c "${model}" nk_model_image int8_${id})
    nk_embed_file(input_c "${input}" nk_input_raw int8_${id})
    nk_embed_file(expected_c "${expected}" nk_expected_raw int8_${id})
    add_executable(nk_int8_test_${id} "${NK_CROSS_DIR}/int8_model_test.c" "${model_c}" "${input_c}" "${expected_c}")
    target_link_libraries(nk_int8_test_${id} PRIVATE ${NK_LIB} m)
    # AD's run also checks shared activations: AD and KWS loaded over one
    # activation block, both against TFLM's outputs (int8_model_test.c)
    set(second "mlperf_kws_ref_model")
    if(name STREQUAL "mlperf_ad01_int8" AND EXISTS "${NK_INT8_MODELS_DIR}/${second}.nk"
       AND EXISTS "${NK_INT8_MODELS_DIR}/${second}.in.bin" AND EXISTS "${NK_INT8_MODELS_DIR}/${second}.out.bin")
      nk_embed_file(model2_c "${NK_INT8_MODELS_DIR}/${second}.nk" nk_model2_image int8_${id})
      nk_embed_file(input2_c "${NK_INT8_MODELS_DIR}/${second}.in.bin" nk_input2_raw int8_${id})
      nk_embed_file(expected2_c "${NK_INT8_MODELS_DIR}/${second}.out.bin" nk_expected2_raw int8_${id})
      target_sources(nk_int8_test_${id} PRIVATE "${model2_c}" "${input2_c}" "${expected2_c}")
      target_compile_definitions(nk_int8_test_${id} PRIVATE NK_TEST_SHARED_SECOND=1)
    endif()
    # ... and a load over two RAM regions where the board has a second one
    # nothing else uses: mps2-an386's 16 MB PSRAM at 0x21000000 (M4F) holds
    # the records, the static arena (SSRAM2/3) the activation block
    if(name STREQUAL "mlperf_ad01_int8" AND NK_TARGET STREQUAL "cortex-m4f")
      target_compile_definitions(nk_int8_test_${id} PRIVATE NK_TEST_SLOW_RAM=0x21000000u)
    endif()
    add_test(NAME int8_${id} COMMAND nk_int8_test_${id})
    set_tests_properties(int8_${id} PROPERTIES LABELS "cross;int8" TIMEOUT 900)
  endforeach()
endif()

# Lowered models against the interpreter (cmake/cross/lowered_model_test.c):
# int8 KWS and AD and the float two-input branch model, on one target of
# each kernel set (Arm DSP, Helium-class M55, RISC-V portable).
set(NK_NETKIT_CLI "" CACHE FILEPATH "the netkit CLI, for the lowered-model tests (netkit aot --lower)")
if(NK_NETKIT_CLI AND NK_TARGET MATCHES "^(cortex-m4f|cortex-m55|rv32imac)$")
  foreach(model IN ITEMS "${NK_ROOT}/testdata/models_i8/mlperf_kws_ref_model.nk"
                         "${NK_ROOT}/testdata/models_i8/mlperf_ad01_int8.nk"
                         "${NK_ROOT}/testdata/models/branch.nk")
    get_filename_component(name "${model}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${name}" id)
    set(dir "${CMAKE_CURRENT_BINARY_DIR}/lowered_${id}")
    add_custom_command(OUTPUT "${dir}/m.c" "${dir}/m.h"
      COMMAND "${NK_NETKIT_CLI}" aot --lower "${model}" -o "${dir}" --name m
      DEPENDS "${model}" "${NK_NETKIT_CLI}" VERBATIM)
    nk_embed_file(model_c "${model}" nk_model_image lowered_${id})
    add_executable(nk_lowered_test_${id} "${NK_CROSS_DIR}/lowered_model_test.c" "${dir}/m.c" "${model_c}")
    target_include_directories(nk_lowered_test_${id} PRIVATE "${dir}" "${NK_ROOT}/csrc")
    target_link_libraries(nk_lowered_test_${id} PRIVATE ${NK_LIB} m)
    add_test(NAME lowered_${id} COMMAND nk_lowered_test_${id})
    set_tests_properties(lowered_${id} PROPERTIES LABELS cross PASS_REGULAR_EXPRESSION "PASS" TIMEOUT 600)
  endforeach()
endif()
