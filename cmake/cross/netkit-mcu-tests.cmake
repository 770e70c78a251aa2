# Tests of netkit itself on the cross target (included by netkit-cross.cmake
# once the top-level CMakeLists has defined the library). Filled in below.
