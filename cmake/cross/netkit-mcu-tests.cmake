# netkit's own tests on a cross target, added by netkit-cross.cmake once
# the top-level CMakeLists has defined the library:
#   mcu_no_heap        the MCU libnetkit.a references no malloc/calloc/
#                      realloc/free (nm -u), with a canary proving the check
#                      can fail
#   model_<name>       end to end: every bundled model in testdata/models
#                      with test vectors, embedded in flash, run from a
#                      static arena, outputs against the host's reference
#   bench_<name>       (not a test) the instruction-count benchmark program
#                      scripts/bench-mcu.sh runs with the nkinsn plugin

# The static library target, whatever the core's CMakeLists calls it.
set(NK_LIB "")
foreach(candidate netkit_static netkit)
  if(TARGET ${candidate})
    get_target_property(type ${candidate} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      set(NK_LIB ${candidate})
      break()
    endif()
  endif()
endforeach()
if(NOT NK_LIB)
  message(STATUS "cross: no static netkit library target yet; netkit cross tests skipped")
  return()
endif()

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
endif()

# Bundled models: testdata/models/<name>.nk with <name>.input.npy (inputs,
# one or more samples) and <name>.expected.npy (PyTorch's outputs).
set(NK_MODELS_DIR "${NK_ROOT}/testdata/models")
file(GLOB nk_models "${NK_MODELS_DIR}/*.nk")
foreach(model IN LISTS nk_models)
  get_filename_component(name "${model}" NAME_WE)
  set(input "${NK_MODELS_DIR}/${name}.input.npy")
  set(expected "${NK_MODELS_DIR}/${name}.expected.npy")
  if(NOT EXISTS "${input}" OR NOT EXISTS "${expected}")
    continue()
  endif()
  string(MAKE_C_IDENTIFIER "${name}" id)
  nk_embed_file(model_c "${model}" nk_model_image ${id})
  nk_embed_file(input_c "${input}" nk_input_npy ${id})
  nk_embed_file(expected_c "${expected}" nk_expected_npy ${id})

  add_executable(nk_model_test_${id} "${NK_CROSS_DIR}/model_test.c" "${model_c}" "${input_c}" "${expected_c}")
  target_link_libraries(nk_model_test_${id} PRIVATE ${NK_LIB} m)
  add_test(NAME model_${id} COMMAND nk_model_test_${id})
  set_tests_properties(model_${id} PROPERTIES LABELS cross TIMEOUT 600)

  add_executable(nk_bench_${id} "${NK_CROSS_DIR}/bench.c" "${model_c}" "${input_c}")
  target_link_libraries(nk_bench_${id} PRIVATE ${NK_LIB} m)
  # The map tells scripts/bench-mcu.sh how much flash libnetkit takes.
  target_link_options(nk_bench_${id} PRIVATE "-Wl,-Map=$<TARGET_FILE:nk_bench_${id}>.map")
  if(NOT NK_BARE_METAL)
    target_link_options(nk_bench_${id} PRIVATE -no-pie)
  endif()
endforeach()
