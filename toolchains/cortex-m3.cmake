# Cortex-M3 (ARMv7-M, no FPU) on QEMU mps2-an385.
#   cmake -S . -B build/cortex-m3 -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m3.cmake
set(NK_TARGET cortex-m3)
set(NK_CPU_FLAGS "-mcpu=cortex-m3 -mfloat-abi=soft")
set(NK_BOARD mps2)
include("${CMAKE_CURRENT_LIST_DIR}/cortex-m/arm-none-eabi.cmake")
