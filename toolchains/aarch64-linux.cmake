# AArch64 Linux (Cortex-A53/A72 class MPUs), run with qemu-aarch64 user mode.
#   cmake -S . -B build/aarch64-linux -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux.cmake
# The hosted configuration (mmap, heap arena, files) as on a desktop.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(NK_TARGET aarch64-linux)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_AR aarch64-linux-gnu-ar CACHE FILEPATH "")
set(CMAKE_RANLIB aarch64-linux-gnu-ranlib CACHE FILEPATH "")
set(CMAKE_NM aarch64-linux-gnu-nm CACHE FILEPATH "")
set(CMAKE_SIZE aarch64-linux-gnu-size CACHE FILEPATH "")
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

set(NK_TOOLCHAINS_DIR "${CMAKE_CURRENT_LIST_DIR}")
include("${NK_TOOLCHAINS_DIR}/common.cmake")
