# Cortex-M7 (ARMv7E-M, double-precision FPU) on QEMU mps2-an500.
#   cmake -S . -B build/cortex-m7 -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m7.cmake
set(NK_TARGET cortex-m7)
set(NK_CPU_FLAGS "-mcpu=cortex-m7 -mfloat-abi=hard -mfpu=fpv5-d16")
set(NK_BOARD mps2)
include("${CMAKE_CURRENT_LIST_DIR}/cortex-m/arm-none-eabi.cmake")
