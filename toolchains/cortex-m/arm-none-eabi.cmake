# Shared part of the Cortex-M toolchain files: arm-none-eabi-gcc, newlib with
# semihosting (librdimon), our start-up code and link script, and QEMU as
# the emulator so `ctest` runs every test on the emulated core.
#
# The including file sets, before include():
#   NK_TARGET      target name, as understood by toolchains/qemu-run.sh
#   NK_CPU_FLAGS   -mcpu/-mfpu/-mfloat-abi
#   NK_BOARD       directory under toolchains/cortex-m/boards with board_mem.ld

set(CMAKE_SYSTEM_NAME Generic)
set(NK_BARE_METAL ON)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar CACHE FILEPATH "")
set(CMAKE_RANLIB arm-none-eabi-ranlib CACHE FILEPATH "")
set(CMAKE_NM arm-none-eabi-nm CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
# Bare-metal programs cannot link without our start-up code: let CMake's
# compiler checks build a static library instead of an executable.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

get_filename_component(NK_TOOLCHAINS_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(NK_BSP_DIR "${NK_TOOLCHAINS_DIR}/cortex-m")
set(NK_BSP_SOURCES "${NK_BSP_DIR}/startup.S;${NK_BSP_DIR}/vectors.c")

set(CMAKE_C_FLAGS_INIT "${NK_CPU_FLAGS} -mthumb -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "${NK_CPU_FLAGS} -mthumb")
# cmake/cross/netkit-cross.cmake adds the start-up objects to every program.
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "--specs=rdimon.specs -nostartfiles -T ${NK_BSP_DIR}/cortexm.ld -L${NK_BSP_DIR}/boards/${NK_BOARD} -Wl,--gc-sections -Wl,--no-warn-rwx-segments")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

include("${NK_TOOLCHAINS_DIR}/common.cmake")
