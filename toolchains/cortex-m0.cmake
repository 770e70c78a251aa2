# Cortex-M0 (ARMv6-M, no FPU) on QEMU microbit (nRF51).
#   cmake -S . -B build/cortex-m0 -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m0.cmake
set(NK_TARGET cortex-m0)
set(NK_CPU_FLAGS "-mcpu=cortex-m0 -mfloat-abi=soft")
set(NK_BOARD microbit)
include("${CMAKE_CURRENT_LIST_DIR}/cortex-m/arm-none-eabi.cmake")
