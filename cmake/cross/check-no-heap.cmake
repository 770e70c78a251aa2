# Fails when a static library references the C heap: an MCU build of netkit
# must get every byte from the caller's arena.
#
#   cmake -DNM=arm-none-eabi-nm -DLIB=libnetkit.a -P check-no-heap.cmake
foreach(v NM LIB)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check-no-heap.cmake: -D${v}=... is required")
  endif()
endforeach()
execute_process(COMMAND "${NM}" -u "${LIB}"
                OUTPUT_VARIABLE undefined RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -u ${LIB} failed (${rc}): ${err}")
endif()
set(bad "")
set(current "")
string(REPLACE "\n" ";" lines "${undefined}")
foreach(line IN LISTS lines)
  if(line MATCHES "^(.+):$")
    set(current "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^ *U (_*(malloc|calloc|realloc|free|_malloc_r|_calloc_r|_realloc_r|_free_r|aligned_alloc|posix_memalign|memalign|sbrk|_sbrk))$")
    list(APPEND bad "${current}: ${CMAKE_MATCH_1}")
  endif()
endforeach()
if(bad)
  string(REPLACE ";" "\n  " bad "${bad}")
  message(FATAL_ERROR "heap functions referenced by ${LIB}:\n  ${bad}")
endif()
message(STATUS "no heap references in ${LIB}")
