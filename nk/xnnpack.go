//go:build xnnpack

package nk

// The xnnpack build tag compiles the XNNPACK backend into the C core
// (vendor_kernels/xnnpack, through netkit_xnnpack.c): float32 conv,
// depthwise, pooling, dense and add run as XNNPACK operators where they
// compute what netkit's kernels do. Needs Debian's libxnnpack-dev and
// libpthreadpool-dev.

/*
#cgo CFLAGS: -DNETKIT_BACKEND=1 -DNETKIT_XNNPACK=1
#cgo LDFLAGS: -lXNNPACK -lpthreadpool -lpthread
*/
import "C"

// KernelBackend names the vendor backend compiled into this package
// ("xnnpack" with the xnnpack build tag), "" when there is none: every op
// runs netkit's own kernels (Report's OpInfo.Impl is "portable").
const KernelBackend = "xnnpack"
