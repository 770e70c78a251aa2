//go:build !xnnpack

package nk

// KernelBackend names the vendor backend compiled into this package
// ("xnnpack" with the xnnpack build tag), "" when there is none: every op
// runs netkit's own kernels (Report's OpInfo.Impl is "portable").
const KernelBackend = ""
