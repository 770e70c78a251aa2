# Xtensa lx106 (the ESP8266 core) bare metal on QEMU's sim machine
# (qemu-system-xtensa -M sim -cpu lx106).
#   cmake -S . -B build/xtensa-lx106 -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/xtensa-lx106.cmake
#
# Debian's xtensa-lx106-elf-gcc comes with picolibc but no semihosting for
# it, and its libgcc lacks the integer division and soft-float helpers (on
# an ESP8266 they are in the chip's boot ROM). Our own board support in
# toolchains/xtensa-lx106/: reset stub and crash vectors (start.S), link
# script (lx106.ld), C start-up and simcall semihosting under picolibc's
# POSIX stdio (semihost.c), and libgcc-helpers.cmake, which builds the
# missing helpers at configure time from GCC's own sources (Debian's
# gcc-12-source) into a library linked in libc's group.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR xtensa)
set(NK_TARGET xtensa-lx106)
set(NK_BARE_METAL ON)
set(CMAKE_C_COMPILER xtensa-lx106-elf-gcc)
set(CMAKE_ASM_COMPILER xtensa-lx106-elf-gcc)
set(CMAKE_AR xtensa-lx106-elf-ar CACHE FILEPATH "")
set(CMAKE_RANLIB xtensa-lx106-elf-ranlib CACHE FILEPATH "")
set(CMAKE_NM xtensa-lx106-elf-nm CACHE FILEPATH "")
set(CMAKE_SIZE xtensa-lx106-elf-size CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

get_filename_component(NK_TOOLCHAINS_DIR "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)
set(NK_BSP_DIR "${NK_TOOLCHAINS_DIR}/xtensa-lx106")
set(NK_BSP_SOURCES "${NK_BSP_DIR}/start.S;${NK_BSP_DIR}/semihost.c")
# Included by cmake/cross/netkit-cross.cmake in the project: the helpers.
set(NK_BSP_SETUP "${NK_BSP_DIR}/libgcc-helpers.cmake")

# The specs file is not found by name; it must appear once (CMake passes
# C flags to the link too). -nostartfiles: our start-up replaces crt0.
set(CMAKE_C_FLAGS_INIT "--specs=/usr/lib/xtensa-lx106-elf/picolibc.specs -ffunction-sections -fdata-sections")
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-nostartfiles -T ${NK_BSP_DIR}/lx106.ld -Wl,--gc-sections -Wl,--no-warn-rwx-segments")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

include("${NK_TOOLCHAINS_DIR}/common.cmake")
