//go:build xnnpack

/* The XNNPACK backend's adapter, compiled into package nk with the xnnpack
 * build tag (nk/xnnpack.go sets NETKIT_BACKEND for the whole package). */
#include "../vendor_kernels/xnnpack/xnnpack.c"
