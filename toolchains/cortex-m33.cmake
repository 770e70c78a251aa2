# Cortex-M33 (ARMv8-M Mainline, Secure) on QEMU mps2-an505.
#   cmake -S . -B build/cortex-m33 -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m33.cmake
set(NK_TARGET cortex-m33)
set(NK_CPU_FLAGS "-mcpu=cortex-m33 -mfloat-abi=hard -mfpu=fpv5-sp-d16")
set(NK_BOARD an505)
include("${CMAKE_CURRENT_LIST_DIR}/cortex-m/arm-none-eabi.cmake")
