# RISC-V RV32IMAC bare metal on QEMU virt (qemu-system-riscv32 -bios none).
#   cmake -S . -B build/rv32imac -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/rv32imac.cmake
#
# Debian's riscv64-unknown-elf-gcc comes with picolibc (no newlib). Its
# semihosting crt0 provides start-up, trap handlers that exit non-zero, and
# exit(); its linker script takes the memory map from the --defsym values:
# with -bios none QEMU jumps to 0x80000000, the start of DRAM.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(NK_TARGET rv32imac)
set(NK_BARE_METAL ON)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_AR riscv64-unknown-elf-ar CACHE FILEPATH "")
set(CMAKE_RANLIB riscv64-unknown-elf-ranlib CACHE FILEPATH "")
set(CMAKE_NM riscv64-unknown-elf-nm CACHE FILEPATH "")
set(CMAKE_SIZE riscv64-unknown-elf-size CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# -misa-spec=2.2 accepts CSR instructions while keeping the rv32imac/ilp32
# multilib (-march=rv32imac_zicsr would fall back to the rv64 libraries).
# picolibc.specs must appear once: CMake passes C flags to the link too.
set(CMAKE_C_FLAGS_INIT "-march=rv32imac -mabi=ilp32 -misa-spec=2.2 -mcmodel=medany --specs=picolibc.specs -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "-march=rv32imac -mabi=ilp32 -misa-spec=2.2 -mcmodel=medany")
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "--oslib=semihost --crt0=semihost -Wl,--gc-sections -Wl,--no-warn-rwx-segments -Wl,--defsym=__flash=0x80000000 -Wl,--defsym=__flash_size=8M -Wl,--defsym=__ram=0x80800000 -Wl,--defsym=__ram_size=32M -Wl,--defsym=__stack_size=64K")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

set(NK_TOOLCHAINS_DIR "${CMAKE_CURRENT_LIST_DIR}")
include("${NK_TOOLCHAINS_DIR}/common.cmake")
