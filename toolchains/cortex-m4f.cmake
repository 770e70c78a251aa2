# Cortex-M4F (ARMv7E-M, single-precision FPU) on QEMU mps2-an386.
#   cmake -S . -B build/cortex-m4f -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m4f.cmake
set(NK_TARGET cortex-m4f)
set(NK_CPU_FLAGS "-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(NK_BOARD mps2)
include("${CMAKE_CURRENT_LIST_DIR}/cortex-m/arm-none-eabi.cmake")
