# Shared tail of every netkit toolchain file (included last).
#
# - CMAKE_CROSSCOMPILING_EMULATOR: qemu-run.sh for this target, so `ctest`
#   runs each cross-built test under QEMU (with a timeout, stdin /dev/null).
# - Bare-metal targets (NK_BARE_METAL set) build netkit in its MCU
#   configuration: no mmap, no heap arena, no file API.
# - CMAKE_PROJECT_INCLUDE hooks cmake/cross/netkit-cross.cmake into the
#   project right after project(): it builds the board-support library every
#   executable links, and adds the cross-only tests.

set(CMAKE_CROSSCOMPILING_EMULATOR "${NK_TOOLCHAINS_DIR}/qemu-run.sh;${NK_TARGET}")
set(NK_TARGET "${NK_TARGET}" CACHE INTERNAL "netkit cross target")
set(NK_BSP_SOURCES "${NK_BSP_SOURCES}" CACHE INTERNAL "board support sources")
set(NK_BSP_SETUP "${NK_BSP_SETUP}" CACHE INTERNAL "board support CMake script run in the project")
set(NK_BARE_METAL "${NK_BARE_METAL}" CACHE INTERNAL "bare-metal target (semihosting)")
if(NK_BARE_METAL)
  set(NETKIT_MCU ON CACHE BOOL "netkit MCU configuration (no heap, no files)")
endif()
get_filename_component(_nk_root "${NK_TOOLCHAINS_DIR}/.." ABSOLUTE)
set(CMAKE_PROJECT_INCLUDE "${_nk_root}/cmake/cross/netkit-cross.cmake")
