# ARMv7-A hard-float Linux (Cortex-A7/A9 class MPUs), run with qemu-arm user mode.
#   cmake -S . -B build/armv7-linux -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/armv7-linux.cmake
# The hosted configuration (mmap, heap arena, files) as on a desktop.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(NK_TARGET armv7-linux)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_AR arm-linux-gnueabihf-ar CACHE FILEPATH "")
set(CMAKE_RANLIB arm-linux-gnueabihf-ranlib CACHE FILEPATH "")
set(CMAKE_NM arm-linux-gnueabihf-nm CACHE FILEPATH "")
set(CMAKE_SIZE arm-linux-gnueabihf-size CACHE FILEPATH "")
set(CMAKE_FIND_ROOT_PATH /usr/arm-linux-gnueabihf)
# 64-bit file offsets and inode numbers (LFS): without them readdir/stat fail
# with EOVERFLOW on 64-bit hosts' file systems (ext4 directory cookies,
# large inode numbers), under qemu-arm and on real boards alike.
set(CMAKE_C_FLAGS_INIT "-D_FILE_OFFSET_BITS=64")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

set(NK_TOOLCHAINS_DIR "${CMAKE_CURRENT_LIST_DIR}")
include("${NK_TOOLCHAINS_DIR}/common.cmake")
