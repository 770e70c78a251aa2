# Cortex-M55 (ARMv8.1-M, MVE/Helium) on QEMU mps3-an547.
#   cmake -S . -B build/cortex-m55 -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m55.cmake
set(NK_TARGET cortex-m55)
set(NK_CPU_FLAGS "-mcpu=cortex-m55 -mfloat-abi=hard")
set(NK_BOARD an547)
include("${CMAKE_CURRENT_LIST_DIR}/cortex-m/arm-none-eabi.cmake")
