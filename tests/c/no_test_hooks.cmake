# The libraries users link carry no test hooks (csrc/nk_test_hooks.h): nm
# finds nk_arena_alloc in each, so it did read the symbols, and never
# nk_arena_fail_at.
#   cmake -DNM=<nm> [-DSTATIC_LIB=<libnetkit.a>] [-DSHARED_LIB=<libnetkit.so>] -P no_test_hooks.cmake
foreach(kind STATIC SHARED)
  set(lib "${${kind}_LIB}")
  if(NOT lib)
    continue()
  endif()
  if(kind STREQUAL "SHARED")
    set(scope -D) # the dynamic symbol table: what the library exports
  else()
    set(scope -g)
  endif()
  execute_process(COMMAND "${NM}" ${scope} --defined-only "${lib}"
                  OUTPUT_VARIABLE syms ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} ${lib} failed: ${err}")
  endif()
  if(NOT syms MATCHES "[ \t]nk_arena_alloc\n")
    message(FATAL_ERROR "${lib}: nm lists no nk_arena_alloc, so this check reads nothing")
  endif()
  if(syms MATCHES "nk_arena_fail_at")
    message(FATAL_ERROR "${lib} defines the test hook nk_arena_fail_at")
  endif()
  message(STATUS "${lib}: no test hooks")
endforeach()
