/* Compiles the whole C core into package nk (cgo builds every .c file in
 * the package directory), so go build needs only a C compiler. */
#include "../csrc/netkit_unity.c"
